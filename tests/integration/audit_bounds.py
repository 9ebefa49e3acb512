#!/usr/bin/env python3
"""audit: bounded runs (issue 39). Every engine option out of its documented range, a run of more
than 1e7 steps (time_limit x rate) or 1e9 solver iterations: one line naming the field and what
is allowed, exit 2, no output, at once (today's code ran them unbounded: subprocess timeouts make
that a failure, never a hang). `--dry-run` of an audit whose runs go to their 1e7-step limit
returns in seconds with an estimate. The first SIGINT stops an audit in the middle of a long
engine run: exit 130, the finished chunks kept in the journal, and `--resume` gives the file an
uninterrupted run gives, bit for bit.

usage: audit_bounds.py SIMPACT
"""
import glob
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import sweep_common as sc

# A ball resting on the floor, hit downwards. MuJoCo ends its run once the ball has left the floor
# (the end of the impact, docs/audit.md), at every R. Bullet's scene reports no configuration, so
# its run ends only once the contact's normal velocity stops changing: at R = 1 the ball bounces
# under gravity for ever (its velocity changes every step) and the run goes to its time limit;
# at R = 0 it comes to rest in a few steps.
BOUNCER = """<mujoco model="bouncer">
  <option gravity="0 0 -9.81"/>
  <worldbody>
    <geom name="floor" type="plane" size="10 10 0.1"/>
    <body name="ball" pos="0 0 0.1">
      <joint name="z" type="slide" axis="0 0 1"/>
      <geom name="ball" type="sphere" size="0.1" mass="1"/>
    </body>
  </worldbody>
</mujoco>
"""


def audit_config(engines, time_limit, restitution="[0.0, 0.2, 1.0]", chunk_size=1):
    return ("model:\n  file: bouncer.xml\n  contacts: [[floor, ball]]\n"
            "params:\n  qvel.z: -1.0\n"
            f"grid:\n  restitution: {{values: {restitution}}}\n"
            f"audit:\n  engines:\n{engines}  time_limit: {time_limit}\n"
            f"output:\n  chunk_size: {chunk_size}\n  samples: true\n")


def check_bounds(simpact, tmp):
    cradle = os.path.abspath("examples/mechanisms/cradle3.xml")
    line = ("model:\n  file: " + cradle + "\n  contacts: [[ball_a, ball_b], [ball_b, ball_c]]\n"
            "grid:\n  restitution: {values: [0.0, 1.0]}\n  qvel.x_a: {values: [1.0, 2.0]}\n"
            "audit:\n  engines:\n    - {engine: %s, rates: [%s]%s}\n  time_limit: %s\n")
    cases = [  # what, engine, rates, options, time_limit, field, words the line must hold
        ("ODE iterations 1e12", "ode", "600", "{quick_step: 1, iterations: 1e12}", 2,
         "audit.engines[0].options.iterations", "an integer in [1, 10000]"),
        ("ODE iterations 2e9", "ode", "600", "{quick_step: 1, iterations: 2e9}", 2,
         "audit.engines[0].options.iterations", "an integer in [1, 10000]"),
        ("MuJoCo iterations 1e12", "mujoco", "600", "{iterations: 1e12}", 2,
         "audit.engines[0].options.iterations", "an integer in [1, 10000]"),
        ("Bullet iterations 1e12", "bullet", "600", "{iterations: 1e12}", 2,
         "audit.engines[0].options.iterations", "an integer in [1, 10000]"),
        ("iterations 0", "mujoco", "600", "{iterations: 0}", 2,
         "audit.engines[0].options.iterations", "an integer in [1, 10000]"),
        ("iterations 2.5", "bullet", "600", "{iterations: 2.5}", 2,
         "audit.engines[0].options.iterations", "an integer in [1, 10000]"),
        ("Bullet erp 50", "bullet", "600", "{erp: 50}", 2, "audit.engines[0].options.erp", "[0, 1]"),
        ("ODE quick_step 2", "ode", "600", "{quick_step: 2}", 2, "audit.engines[0].options.quick_step", "0 or 1"),
        ("MuJoCo timeconst 1e9", "mujoco", "600", "{timeconst: 1e9}", 2,
         "audit.engines[0].options.timeconst", "[1e-05, 10]"),
        ("rate 1e12 Hz", "mujoco", "1e12", "", 2, "audit.engines[0].rates", "1e+07"),
        ("time_limit 1e9 s", "bullet", "60", "", "1e9", "audit.engines[0].rates", "1e+07"),
        ("time_limit 1e9 s, ODE dWorldStep", "ode", "600", "{iterations: 20}", "1e9",
         "audit.engines[0].rates", "1e+07"),
        ("1e10 solver iterations", "mujoco", "600", "{iterations: 10000}", 1000,
         "audit.engines[0].options.iterations", "1e+09"),
    ]
    for what, engine, rates, options, time_limit, field, words in cases:
        text = line % (engine, rates, (", options: " + options) if options else "", time_limit)
        config = sc.write_config(text, tmp, "bad.yaml")
        out = os.path.join(tmp, "bad.h5")
        for extra in ((), ("--dry-run",)):
            try:
                p = subprocess.run(sc.command(simpact, config, out, extra=extra), env=sc.env(1),
                                   capture_output=True, text=True, timeout=60)
            except subprocess.TimeoutExpired:
                sys.exit(f"FAIL: {what} {' '.join(extra)}: still running after 60 s (unbounded)")
            lines = [l for l in p.stderr.splitlines() if l.strip()]
            if (p.returncode != 2 or len(lines) != 1 or field not in lines[0] or words not in lines[0]
                    or os.path.exists(out) or os.path.exists(out + ".journal") or p.stdout.strip()):
                sys.exit(f"FAIL: {what} {' '.join(extra)}: exit {p.returncode}, stderr {p.stderr!r}, "
                         f"stdout {p.stdout[:200]!r}, output exists {os.path.exists(out)} "
                         f"(want exit 2, one line naming {field} with {words!r})")
        print(f"ok: {what}: {lines[0]}")


def check_dry_run(simpact, tmp):
    """Three runs a task at their 1e7-step limit: today's dry run computed whole tasks (minutes)."""
    engines = ("    - {engine: bullet, rates: [10000]}\n    - {engine: bullet, label: b, rates: [9999]}\n"
               "    - {engine: bullet, label: c, rates: [9998]}\n")
    config = sc.write_config(audit_config(engines, 1000, "[1.0, 1.0, 1.0, 1.0]"), tmp, "slow_dry.yaml")
    out = os.path.join(tmp, "dry.h5")
    start = time.monotonic()
    try:
        p = subprocess.run(sc.command(simpact, config, out, extra=("--dry-run", "--threads", "1")),
                           env=sc.env(1), capture_output=True, text=True, timeout=30)
    except subprocess.TimeoutExpired:
        sys.exit("FAIL: --dry-run of an audit with 1e7-step runs still running after 30 s")
    took = time.monotonic() - start
    estimate = [l for l in p.stdout.splitlines() if l.startswith("estimated compute time:")]
    if p.returncode != 0 or not estimate or os.path.exists(out):
        sys.exit(f"FAIL: --dry-run: exit {p.returncode}, stdout {p.stdout!r}, stderr {p.stderr!r}")
    per_task_us = float(re.search(r"([0-9.e+-]+) us per task", estimate[0]).group(1))
    # 3 × 1e7 Bullet steps cannot take less than 0.1 s (≥ 3 ns a step).
    if per_task_us < 1e5:
        sys.exit(f"FAIL: --dry-run estimates {per_task_us} us per task for 3 runs of 1e7 steps: {estimate[0]}")
    print(f"ok: --dry-run of 1e7-step runs returned in {took:.1f} s: {estimate[0]}")


def journal_bytes(out):
    return sum(os.path.getsize(f) for f in glob.glob(out + ".journal/*.bin"))


def interrupt(simpact, config, out, wait_s):
    """Runs `config` until its journal holds the fast tasks (it has grown, then not changed for
    0.5 s: the slow task is running), sends SIGINT, and returns (exit code, stderr, seconds from
    the signal to the exit); a run still going `wait_s` after the signal fails the test."""
    p = subprocess.Popen(sc.command(simpact, config, out, extra=("--threads", "1")), env=sc.env(1),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline, size, since = time.monotonic() + 60, -1, time.monotonic()
    while p.poll() is None and time.monotonic() < deadline:
        now = journal_bytes(out) if os.path.isdir(out + ".journal") else 0
        if now != size:
            size, since = now, time.monotonic()
        elif size > 0 and time.monotonic() - since >= 0.5:
            break
        time.sleep(0.05)
    if p.poll() is not None:
        sys.exit(f"FAIL: the run ended before the signal (exit {p.returncode}): {p.communicate()}")
    sent = time.monotonic()
    p.send_signal(signal.SIGINT)
    try:
        _, err = p.communicate(timeout=wait_s)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        sys.exit(f"FAIL: SIGINT ignored: the audit still ran {wait_s} s after it (the engine run in hand "
                 "is not stopped)")
    return p.returncode, err, time.monotonic() - sent


def check_sigint(simpact, tmp):
    # Tasks 0 and 1 settle in milliseconds; task 2 runs three 1e7-step runs (half a minute).
    engines = ("    - {engine: bullet, rates: [10000]}\n    - {engine: bullet, label: b, rates: [9999]}\n"
               "    - {engine: bullet, label: c, rates: [9998]}\n")
    config = sc.write_config(audit_config(engines, 1000), tmp, "slow.yaml")
    out = os.path.join(tmp, "slow.h5")
    code, err, took = interrupt(simpact, config, out, 10)
    if code != 128 + signal.SIGINT or "2 of 3 tasks are saved" not in err or "--resume" not in err:
        sys.exit(f"FAIL: SIGINT during a long engine run: exit {code}, stderr {err!r}")
    if not os.path.isdir(out + ".journal"):
        sys.exit("FAIL: SIGINT: the journal is gone")
    print(f"ok: SIGINT in a 1e7-step engine run: exit 130 {took:.2f} s after the signal, 2 of 3 tasks kept")

    # Resumed after a stop in the middle of a run (5e6 steps): an uninterrupted run's file, bit for bit.
    config = sc.write_config(audit_config("    - {engine: bullet, rates: [10000]}\n", 500), tmp, "mid.yaml")
    out = os.path.join(tmp, "mid.h5")
    code, err, _ = interrupt(simpact, config, out, 10)
    if code != 128 + signal.SIGINT or "2 of 3 tasks are saved" not in err:
        sys.exit(f"FAIL: SIGINT during a 5e6-step run: exit {code}, stderr {err!r}")
    sc.run(simpact, config, out, threads=1, extra=("--resume",))
    reference = os.path.join(tmp, "reference.h5")
    sc.run(simpact, config, reference, threads=1)
    sc.assert_identical(reference, out, "audit stopped mid-run and resumed")


def main():
    simpact = os.path.abspath(sys.argv[1])
    tmp = tempfile.mkdtemp(prefix="simpact-audit-bounds-")
    try:
        with open(os.path.join(tmp, "bouncer.xml"), "w") as f:
            f.write(BOUNCER)
        check_bounds(simpact, tmp)
        check_dry_run(simpact, tmp)
        check_sigint(simpact, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
