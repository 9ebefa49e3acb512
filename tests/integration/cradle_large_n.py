"""Issue 23 §2: a Newton's cradle of more than 9 balls (the dynamic-size path) given in `params` or
in `grid`. The admissibility pre-check used make_problem, which refuses n > 9 ("built by
make_dynamic_problem"), while the task itself dispatches on needs_dynamic_sizes: the sweep was
refused, or with on_task_error: record logged "inadmissible ... recorded as failed" for points
the file then held as ok. Now: the sweep runs, no point is called inadmissible, every task is ok,
and elastic impacts conserve energy (/energy/after_* / before = 1 to 1e-9) for n = 12 as for n = 3.

usage: cradle_large_n.py SIMPACT"""
import os
import subprocess
import sys

import h5py
import numpy as np

import sweep_common as sc

SIMPACT = sys.argv[1]


def fail(msg):
    sys.exit(f"FAIL: {msg}")


def check(name, text, points):
    d = sc.tempdir()
    for mode in ("abort", "record"):
        config = sc.write_config(text + f"on_task_error: {mode}\n", d, f"{name}-{mode}.yaml")
        out = os.path.join(d, f"{name}-{mode}.h5")
        p = subprocess.run([SIMPACT, "run", config, "-o", out], env=sc.env(1), capture_output=True, text=True,
                           timeout=300)
        if p.returncode != 0:
            fail(f"{name} ({mode}): exit {p.returncode}: {p.stderr}")
        if "inadmissible" in p.stdout + p.stderr:
            fail(f"{name} ({mode}): points called inadmissible: {p.stdout}{p.stderr}")
        with h5py.File(out, "r") as f:
            if int(f["status/ok"][()].sum()) != points:
                fail(f"{name} ({mode}): {f['status/ok'][()]} tasks ok of {points}")
            before = f["energy/before"][()]
            ratios = {o: f[f"energy/after_{o}"][()] / before for o in ("argmin", "argmax")}
        for o, r in ratios.items():
            if not (np.all(np.abs(r - 1.0) < 1e-9) and np.all(before > 0)):
                fail(f"{name} ({mode}): elastic E+/E- ({o}) = {r} is not 1")
    print(f"ok: {name}: {points} point(s) ok, elastic E+/E- = 1 to 1e-9 (argmin and argmax)")


check("params", "model: cradle\nparams: {n: 12, speed: 1.0, restitution: 1.0}\ngrid:\n  m1: {values: [1.0, 2.0]}\n"
      "orderings: [argmin, argmax]\n", 2)
check("grid", "model: cradle\nparams: {speed: 1.0, restitution: 1.0}\ngrid:\n  n: {values: [3, 12]}\n"
      "orderings: [argmin, argmax]\n", 2)
