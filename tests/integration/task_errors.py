"""A task that throws mid-sweep (two Monte Carlo draws that together make the balls overlap, r_c =
0.7 with r_a = 1.5: each value alone is admissible, so the preflight, which checks every
distribution's support one parameter at a time, lets the sweep start): under
on_task_error: abort every rank of `mpirun -n 2` exits non-zero within seconds with one line
naming the task and its parameters, and the file stays incomplete; under on_task_error: record
the sweep finishes, the failed tasks carry status 4 and NaN results, and the statistics count
only the good replicas.

usage: task_errors.py SIMPACT"""
import subprocess
import sys
import time

import h5py
import numpy as np

import sweep_common as sc

CONFIG = """model: billiards
params: {{speed: 1.0}}
grid:
  theta: {{start: 1.3, stop: 1.35, num: 20}}
monte_carlo:
  samples_per_point: 500
  seed: 5
  params:
    r_c: {{dist: choice, values: [1.0, 0.7], weights: [0.9, 0.1]}}
    r_a: {{dist: choice, values: [1.0, 1.5], weights: [0.9, 0.1]}}
on_task_error: {mode}
output: {{samples: true}}
"""


def main():
    simpact = sys.argv[1]
    d = sc.tempdir()
    abort = sc.write_config(CONFIG.format(mode="abort"), d, "abort.yaml")
    out = f"{d}/abort.h5"
    t0 = time.time()
    p = sc.run(simpact, abort, out, ranks=2, threads=1, check=False)
    elapsed = time.time() - t0
    errors = [l for l in p.stderr.splitlines() if l.startswith("simpact: error:")]
    if p.returncode == 0 or elapsed > 30 or not errors or not all("failed (" in l and "r_c=0.69999999999999996" in l and "r_a=1.5" in l for l in errors):
        sys.exit(f"FAIL: abort: rc={p.returncode} after {elapsed:.1f}s: {p.stderr}")
    info = subprocess.run([simpact, "info", out], capture_output=True, text=True)
    if info.returncode != 3:
        sys.exit(f"FAIL: abort left a file that `simpact info` calls complete: {info.stdout}")
    print(f"ok: abort: every rank exited (rc {p.returncode}) after {elapsed:.1f} s: {errors[0]}")

    record = sc.write_config(CONFIG.format(mode="record"), d, "record.yaml")
    out = f"{d}/record.h5"
    sc.run(simpact, record, out, ranks=2, threads=1)
    with h5py.File(out, "r") as f:
        status = f["samples/status"][:]
        r_c = f["samples/r_c"][:]
        r_a = f["samples/r_a"][:]
        xi = f["samples/xi_maps_outcome_set"][:]
        count = f["xi_maps/outcome_set_count"][:]
        assert int(f.attrs["complete"]) == 1
    failed = (r_c == 0.7) & (r_a == 1.5)
    assert failed.sum() > 0, "the config should draw some invalid radii"
    assert np.array_equal(status == 4, failed), "status 4 exactly where the draw was invalid"
    assert np.all(np.isnan(xi[failed])) and np.all(np.isfinite(xi[~failed]))
    per_point = failed.reshape(20, 500).sum(axis=1)
    assert np.array_equal(count, 500 - per_point), (count, per_point)
    print(f"ok: record: {failed.sum()} failed tasks recorded with status 4, statistics over the rest")


if __name__ == "__main__":
    main()
