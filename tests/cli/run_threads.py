#!/usr/bin/env python3
"""`simpact run --threads N` and the default waiting of idle threads (issue 23 §4): --threads
overrides OMP_NUM_THREADS and is checked (exit 2, one line); idle threads wait passively unless
the user set OMP_WAIT_POLICY; --dry-run reports the threads, the wait policy and a speed-up
measured on this node, not perfect scaling; results are bit-identical over thread counts.
Usage: run_threads.py SIMPACT (Debian's python3: h5py)."""
import os
import re
import subprocess
import sys
import tempfile

import h5py
import numpy as np

SIMPACT = sys.argv[1]
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from checks import check, finish  # noqa: E402


def run(args, **env):
    e = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "OMP_NUM_THREADS")}
    e.update(env)
    return subprocess.run([SIMPACT, "run"] + args, capture_output=True, text=True, timeout=120, env=e)


with tempfile.TemporaryDirectory() as d:
    cfg = os.path.join(d, "mc.yaml")
    with open(cfg, "w") as fh:
        fh.write("model: ishigami\ngrid:\n  x1: {start: -3, stop: 3, num: 40}\n"
                 "monte_carlo:\n  samples_per_point: 50\n  seed: 5\n  params:\n    x2: {dist: uniform, low: -3, high: 3}\n"
                 "    x3: {dist: uniform, low: -3, high: 3}\noutput: {samples: true}\n")
    for bad in ("0", "-1", "x", "2000"):
        p = run([cfg, "--dry-run", "--threads", bad])
        lines = [l for l in p.stderr.splitlines() if l.strip()]
        check(p.returncode == 2 and len(lines) == 1 and "--threads" in lines[0] and p.stdout == "",
              f"--threads {bad}: exit 2, one line naming --threads ({p.returncode}: {p.stderr.strip()!r})")
    p = run([cfg, "--dry-run", "--threads", "1"], OMP_NUM_THREADS="2")
    check(p.returncode == 0 and "1 rank(s) x 1 thread(s)" in p.stdout, f"--threads 1 beats OMP_NUM_THREADS=2 ({p.stdout!r})")
    check("OMP_WAIT_POLICY=passive" in p.stdout, "idle threads wait passively by default")
    m = re.search(r"measured ([0-9.]+)x one thread", p.stdout)
    check(m is not None and float(m.group(1)) == 1.0, "one thread: speed-up 1")
    p = run([cfg, "--dry-run", "--threads", "2"], OMP_WAIT_POLICY="active")
    check(p.returncode == 0 and "OMP_WAIT_POLICY=active" in p.stdout, "a user's OMP_WAIT_POLICY is kept")
    m = re.search(r"measured ([0-9.]+)x one thread", p.stdout)
    check(m is not None and 1.0 <= float(m.group(1)) <= 2.0, f"two threads: a measured speed-up in [1, 2] ({p.stdout!r})")
    outs = []
    for n in ("1", "3"):
        out = os.path.join(d, f"t{n}.h5")
        p = run([cfg, "-o", out, "-q", "--threads", n])
        check(p.returncode == 0, f"run --threads {n} ({p.stderr.strip()!r})")
        with h5py.File(out, "r") as f:
            check(int(f["provenance"][-1]["threads"]) == int(n), f"provenance records {n} thread(s)")
            outs.append({k: f["samples"][k][()] for k in f["samples"]})
    check(all(np.array_equal(outs[0][k], outs[1][k], equal_nan=True) for k in outs[0]),
          "results bit-identical over 1 and 3 threads")

finish()
