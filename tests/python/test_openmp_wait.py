"""The module's OpenMP threads wait passively unless the user chose (issue 36 §4).

libgomp prints its settings with omp_display_env: GOMP_SPINCOUNT is 0 under the passive policy
and 300000 (or more) under libgomp's default, so the test reads the policy libgomp actually took.
"""
import os
import subprocess
import sys

SHOW = ("import ctypes, sys; {before}import simpact; sys.stderr.flush(); "
        "ctypes.CDLL('libgomp.so.1').omp_display_env(1)")


def spincount(env_policy=None, before=""):
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    if env_policy is not None:
        env["OMP_WAIT_POLICY"] = env_policy
    p = subprocess.run([sys.executable, "-W", "always", "-c", SHOW.format(before=before)], env=env,
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    line = next(line for line in p.stderr.splitlines() if "GOMP_SPINCOUNT" in line)
    return int(line.split("'")[1]), p.stderr


def test_passive_by_default():
    count, _ = spincount()
    assert count == 0


def test_the_users_policy_stands():
    count, _ = spincount("active")
    assert count > 0


def test_libgomp_loaded_first_is_reported():
    count, err = spincount(before="ctypes.CDLL('libgomp.so.1'); ")
    assert count > 0  # too late to change: libgomp read the environment when it loaded
    assert "OMP_WAIT_POLICY=passive" in err
