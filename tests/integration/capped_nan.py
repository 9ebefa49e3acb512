"""A sweep never stores a number it did not compute (issue: capped ξ stored as 0.0).

The billiards break with a tiny cue ball near θ = π hits the default resolution caps: its ξ maps
must be NaN there, /status/cap_hit must count it, the log and `simpact info` must say how many
tasks hit a cap and how to raise the limit; with larger limits the same point has a finite ξ.
Usage: capped_nan.py SIMPACT
"""
import json
import math
import subprocess
import sys

import h5py
import numpy as np

from sweep_common import env, run, tempdir, write_config

simpact = sys.argv[1]
work = tempdir()

CONFIG = """# simpact run capped.yaml -o capped.h5
model: billiards
params: {{r_c: 0.01}}
grid:
  theta: {{values: [3.0, 3.1, 3.14]}}
orderings: [all, argmin, argmax]
{limits}
"""

capped = write_config(CONFIG.format(limits=""), work, "capped.yaml")
out = f"{work}/capped.h5"
p = subprocess.run([simpact, "run", capped, "-o", out], env=env(1), capture_output=True, text=True, timeout=300)
if p.returncode != 0:
    sys.exit(f"FAIL: run exited {p.returncode}: {p.stderr}")
log = p.stdout + p.stderr
with h5py.File(out, "r") as f:
    xi = f["xi"][()]
    cap = f["status/cap_hit"][()]
    ok = f["status/ok"][()]
    outcome_xi = f["xi_maps/outcome_set"][()]
    count = f["outcomes/count"][()]
print("xi:", xi, "cap_hit:", cap, "ok:", ok)
capped_points = np.flatnonzero(cap == 1)
if 2 not in capped_points:
    sys.exit(f"FAIL: theta = 3.14, r_c = 0.01 should hit a cap under default limits (cap_hit {cap})")
for g in capped_points:
    if not (math.isnan(outcome_xi[g]) and math.isnan(count[g])):
        sys.exit(f"FAIL: grid point {g} hit a cap but stores xi {outcome_xi[g]}, count {count[g]} (must be NaN)")
if (cap + ok).max() > 1:
    sys.exit("FAIL: a task counted under two statuses")
n_capped = int(cap.sum())
if f"{n_capped} task(s) hit a resolution cap" not in log or "limits.max_steps" not in log:
    sys.exit(f"FAIL: the run's log does not say how many tasks hit a cap and how to raise it:\n{log}")
info = subprocess.run([simpact, "info", out, "--json"], capture_output=True, text=True, timeout=60)
doc = json.loads(info.stdout)
if doc.get("task_status", {}).get("cap_hit") != n_capped:
    sys.exit(f"FAIL: info --json task_status {doc.get('task_status')} (expected cap_hit {n_capped})")
text = subprocess.run([simpact, "info", out], capture_output=True, text=True, timeout=60).stdout
if "hit a resolution cap" not in text:
    sys.exit(f"FAIL: simpact info does not report the capped tasks:\n{text}")
print(f"ok: {n_capped} capped task(s) stored as NaN, counted, reported by run and info")

# Larger limits: the same point is computed exactly (issue: true ξ = 4.998e-5).
big = write_config(CONFIG.format(limits="limits: {max_steps: 100000, max_depth: 100000, max_nodes: 100000000}"),
                   work, "big.yaml")
out2 = f"{work}/big.h5"
run(simpact, big, out2, threads=1)
with h5py.File(out2, "r") as f:
    cap2 = f["status/cap_hit"][()]
    xi2 = f["xi_maps/outcome_set"][()]
if cap2[2] != 0 or not math.isfinite(xi2[2]):
    sys.exit(f"FAIL: with larger limits theta = 3.14 is still capped (cap {cap2}, xi {xi2})")
if abs(xi2[2] - 4.998e-5) > 1e-3 * 4.998e-5:
    sys.exit(f"FAIL: theta = 3.14, r_c = 0.01: ξ = {xi2[2]:.6g}, expected ≈ 4.998e-5")
print(f"ok: with larger limits ξ(θ=3.14) = {xi2[2]:.6g}")
