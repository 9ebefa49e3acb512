#!/usr/bin/env python3
"""audit: the 18-DOF quadruped's trot touchdown with gravity (configs/audit_quadruped.yaml,
MuJoCo 600 Hz, 9 postures; over the fixed capacity, so the dynamic path) — issue 35 §1, §2:
at least 95 % of the runs find the end of the impact; where a run ended, its distance, energy
error and smooth impulse are finite and its exported velocities are, where it did not, all NaN;
the file is bit-identical at 1 rank x 1 thread and 2 ranks x 2 threads. (The stepping itself is
checked against an independent mj_step loop in tests/audit/audit_quadruped_test.cpp.)

usage: audit_quadruped.py SIMPACT
"""
import os
import re
import subprocess
import sys

import h5py
import numpy as np

import sweep_common as sc

GROUP = "audit_mujoco_600hz"


def main():
    simpact = sys.argv[1]
    tmp = sc.tempdir()
    one, two = os.path.join(tmp, "one.h5"), os.path.join(tmp, "two.h5")
    sc.run(simpact, "configs/audit_quadruped.yaml", one, ranks=0, threads=1)
    sc.run(simpact, "configs/audit_quadruped.yaml", two, ranks=2, threads=2)
    sc.assert_identical(one, two, "audit_quadruped at 1x1 and 2x2")
    with h5py.File(one, "r") as f, h5py.File(two, "r") as g:
        for name in f[GROUP]:
            a, b = f[GROUP][name][()], g[GROUP][name][()]
            if a.tobytes() != b.tobytes():
                sys.exit(f"FAIL: /{GROUP}/{name} differs between 1x1 and 2x2")
        status = f[f"/samples/{GROUP}_engine_status"][()]
        n = len(status)
        ended = status == 0
        if n != 9 or ended.sum() < 0.95 * n:
            sys.exit(f"FAIL: {ended.sum()} of {n} quadruped runs found the end of the impact (< 95 %): {status}")
        for column in ("distance_to_nearest_outcome", "relative_energy_error", "smooth_impulse_norm"):
            v = f[f"/samples/{GROUP}_{column}"][()]
            if not (np.all(np.isfinite(v[ended])) and np.all(np.isnan(v[~ended]))):
                sys.exit(f"FAIL: {column} not finite exactly where the run ended: {v}")
        distance = f[f"/samples/{GROUP}_distance_to_nearest_outcome"][()]
        if not np.all(distance[ended] >= 0):
            sys.exit(f"FAIL: negative distances {distance}")
        qvel = f[f"/samples/{GROUP}_velocity_after"][()]
        if qvel.shape != (n, 18) or not np.all(np.isfinite(qvel[ended])) or not np.all(np.isnan(qvel[~ended])):
            sys.exit(f"FAIL: velocity_after {qvel.shape} not finite exactly where the run ended")
        steps = f[f"/samples/{GROUP}_steps"][()]
        smooth = f[f"/samples/{GROUP}_smooth_impulse_norm"][()]
        print(f"ok: {ended.sum()}/{n} quadruped runs ended; steps {steps.min():.0f}-{steps.max():.0f}; "
              f"distance {np.nanmin(distance):.4f}-{np.nanmax(distance):.4f}; "
              f"smooth impulse / ||p-|| {np.nanmin(smooth):.3f}-{np.nanmax(smooth):.3f}")

    # The run summary counts the engine runs per engine and rate, as the file holds them: at a
    # rest tolerance of 1e-6 most runs reach the time limit and are not "ok".
    strict = open("configs/audit_quadruped.yaml").read().replace("../examples", os.path.abspath("examples"))
    strict = strict.replace("rest_tolerance: 1.0e-4", "rest_tolerance: 1.0e-6")
    config = sc.write_config(strict, tmp, "strict.yaml")
    for path in (("configs/audit_quadruped.yaml", one), (config, os.path.join(tmp, "strict.h5"))):
        cmd = [simpact, "run", path[0], "-o", path[1], "--overwrite"]
        p = subprocess.run(cmd, env=sc.env(1), capture_output=True, text=True, timeout=300)
        line = re.search(r"engine runs mujoco at 600 Hz \(per task\): (\d+) impact ended, (\d+) time limit, "
                         r"(\d+) failed", p.stdout + p.stderr)
        if p.returncode != 0 or not line:
            sys.exit(f"FAIL: {' '.join(cmd)}: no engine run counts: {p.stdout}{p.stderr}")
        with h5py.File(path[1], "r") as f:
            status = f[f"/samples/{GROUP}_engine_status"][()]
        want = tuple(int(np.sum(status == k)) for k in (0, 1, 2))
        if tuple(int(x) for x in line.groups()) != want or sum(want) != len(status):
            sys.exit(f"FAIL: run summary {line.group(0)!r}, the file's engine_status counts {want}")
        print(f"ok: {path[0]}: summary '{line.group(0)}' equals the file's counts")

    # audit.end_steps: more unchanged steps never end a run sooner; out of [1, 1000] is refused.
    with h5py.File(os.path.join(tmp, "one.h5"), "r") as f:
        steps3 = f[f"/samples/{GROUP}_steps"][()]
    config = sc.write_config(strict.replace("rest_tolerance: 1.0e-6", "rest_tolerance: 1.0e-4\n  end_steps: 6"),
                             tmp, "six.yaml")
    six = os.path.join(tmp, "six.h5")
    sc.run(simpact, config, six, threads=1)
    with h5py.File(six, "r") as f:
        steps6 = f[f"/samples/{GROUP}_steps"][()]
    if not (np.all(steps6 >= steps3) and np.any(steps6 > steps3)):
        sys.exit(f"FAIL: end_steps 6 gave steps {steps6}, end_steps 3 {steps3}")
    config = sc.write_config(strict.replace("rest_tolerance: 1.0e-6", "end_steps: 0"), tmp, "zero.yaml")
    zero = os.path.join(tmp, "zero.h5")
    p = sc.run(simpact, config, zero, check=False)
    err = p.stderr.strip()
    if p.returncode != 2 or "audit.end_steps" not in err or "\n" in err or os.path.exists(zero):
        sys.exit(f"FAIL: end_steps 0: exit {p.returncode}, {err!r}")
    print(f"ok: end_steps 6 ends no run sooner ({int((steps6 > steps3).sum())} later); end_steps 0: {err}")


if __name__ == "__main__":
    main()
