"""A huge limit costs nothing until used (issue: max_depth sized a per-thread stack up front, so
a typo allocated hundreds of GB). `max_depth: 2000000000` (and max_outcomes 2^24) must be
accepted by the YAML sweep config and the JSON request, give the same results as the default
limits, and run with the same peak memory (within 16 MiB).
Usage: huge_limits.py SIMPACT
"""
import json
import resource
import subprocess
import sys

import h5py
import numpy as np

from sweep_common import env, tempdir, write_config

simpact = sys.argv[1]
work = tempdir()
CONFIG = """# simpact run {name}.yaml
model: cradle
grid:
  m2: {{start: 0.5, stop: 2, num: 40}}
  m3: {{start: 0.5, stop: 2, num: 40}}
orderings: [all, argmin, argmax]
{limits}
"""


def peak_kib(cmd):
    """Peak RSS (KiB) of one child run alone (ru_maxrss of RUSAGE_CHILDREN is a running max, so
    each measurement runs in its own python child)."""
    probe = ("import resource, subprocess, sys; p = subprocess.run(sys.argv[1:], capture_output=True);"
             "sys.stdout.write(str(p.returncode) + ' ' + str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))")
    out = subprocess.run([sys.executable, "-c", probe, *cmd], capture_output=True, text=True, env=env(1),
                         timeout=300).stdout.split()
    if out[0] != "0":
        sys.exit(f"FAIL: {' '.join(cmd)} exited {out[0]}")
    return int(out[1])


results = {}
for name, limits in (("default", ""), ("huge", "limits: {max_depth: 2000000000, max_outcomes: 16777216}")):
    cfg = write_config(CONFIG.format(name=name, limits=limits), work, f"{name}.yaml")
    out = f"{work}/{name}.h5"
    kib = peak_kib([simpact, "run", cfg, "-o", out, "--quiet"])
    with h5py.File(out, "r") as f:
        results[name] = (f["xi_maps/outcome_set"][()], f["energy/after_all"][()], kib)
    print(f"{name}: peak RSS {kib / 1024:.1f} MiB")
a, b = results["default"], results["huge"]
if not (np.array_equal(a[0], b[0], equal_nan=True) and np.array_equal(a[1], b[1], equal_nan=True)):
    sys.exit("FAIL: huge limits changed the results")
if b[2] > a[2] + 16 * 1024:
    sys.exit(f"FAIL: max_depth 2e9 costs memory: peak {b[2] / 1024:.1f} MiB vs {a[2] / 1024:.1f} MiB")
print("ok: YAML max_depth 2e9: same results, same peak memory")

request = {"mass_matrix": [[1, 0, 0], [0, 1, 0], [0, 0, 1]], "normals": [[-1, 1, 0], [0, -1, 1]],
           "momentum": [1, 0, 0], "limits": {"max_depth": 2000000000, "max_outcomes": 16777216}}
path = f"{work}/huge.json"
with open(path, "w") as f:
    json.dump(request, f)
kib = peak_kib([simpact, "resolve", path])
doc = json.loads(subprocess.run([simpact, "resolve", path], capture_output=True, text=True).stdout)
if doc["status"] != "ok" or doc["outcomes"][0]["momentum"] != [0.0, 0.0, 1.0] or doc["limits"]["max_depth"] != 2000000000:
    sys.exit(f"FAIL: JSON max_depth 2e9: {doc['status']} {doc['outcomes']}")
if kib > 64 * 1024:
    sys.exit(f"FAIL: resolve with max_depth 2e9 peaked at {kib / 1024:.1f} MiB")
print(f"ok: JSON max_depth 2e9 resolves the cradle, peak RSS {kib / 1024:.1f} MiB")
