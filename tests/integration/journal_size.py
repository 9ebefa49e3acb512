"""The journal grows with grid points x chunks, not with tasks (issue 8 §4): a 102 400-task Monte
Carlo sweep (64 grid points x 1600 replicas, default chunks of 200 tasks, 18 scalar columns),
killed once every chunk is journaled (during the final write), holds exactly one statistics
record per chunk: 512 x (144-byte header + 1 grid point x (6 status counts + 18 x 5 numbers) x 8
bytes) = 466 944 bytes, 4.6 bytes per task. The test asserts the exact size and the bound a chunk
touching 2 grid points would give, N = 512 x (144 + 2 x 768) = 860 160 bytes (8.4 bytes per task),
against the 16.4 MB a journal of rows takes (160 bytes per task). `simpact info` reads the
progress from it, and the resumed run equals an uninterrupted one bit for bit.

usage: journal_size.py SIMPACT"""
import glob
import os
import subprocess
import sys

import sweep_common as sc
from sweep_kill_resume import TASK_STATUSES as STATUSES, journal_total, kill_landed, read_manifest

CONFIG = """model: billiards
params: {speed: 1.0, restitution: 0.9}
grid:
  theta: {start: 1.3, stop: pi, num: 64}
monte_carlo:
  samples_per_point: 1600
  seed: 20261120
  method: lhs
  params:
    r_a: {dist: uniform, low: 0.95, high: 1.05}
    r_b: {dist: uniform, low: 0.95, high: 1.05}
    r_c: {dist: uniform, low: 0.95, high: 1.05}
    m_c: {dist: lognormal, mu: 1.4, sigma: 0.05}
    psi: {dist: truncated_normal, mean: 0.0, std: 0.05, low: -0.2, high: 0.2}
orderings: [all, argmin, argmax]
"""
TASKS, CHUNKS, COLUMNS = 102400, 512, 18
BOUND = CHUNKS * (144 + 2 * (8 * STATUSES + 40 * COLUMNS))


def main():
    simpact = sys.argv[1]
    d = sc.tempdir()
    config = sc.write_config(CONFIG, d, "mc.yaml")
    ref = f"{d}/ref.h5"
    sc.run(simpact, config, ref, ranks=2, threads=1)
    out = f"{d}/killed.h5"
    kill_landed(simpact, config, out, 1.0, True, "with the whole journal written")
    manifest = read_manifest(out)
    if (manifest["records"], int(manifest["task_count"]), int(manifest["statistic_columns"])) != (
            "statistics", TASKS, COLUMNS):
        sys.exit(f"FAIL: unexpected journal manifest {manifest}")
    size = sum(os.path.getsize(f) for f in glob.glob(f"{out}.journal/*.bin"))
    exact = journal_total(manifest)
    if size != exact or exact != CHUNKS * (144 + 8 * STATUSES + 40 * COLUMNS):
        sys.exit(f"FAIL: journal holds {size} bytes, expected {exact} (one record per chunk)")
    if size >= BOUND:
        sys.exit(f"FAIL: journal of {size} bytes is not below {BOUND}")
    print(f"ok: {TASKS} tasks: journal {size} bytes ({size / TASKS:.2f} bytes/task) < {BOUND}; "
          f"rows would take {TASKS * (16 + 8 * int(manifest['values_per_task']))} bytes")
    info = subprocess.run([simpact, "info", out], capture_output=True, text=True)
    if info.returncode != 3 or f"done: {TASKS} (100.0%)" not in info.stdout:
        sys.exit(f"FAIL: simpact info on the killed file: rc={info.returncode} {info.stdout}{info.stderr}")
    print("ok: simpact info reads the progress from the statistics journal")
    sc.run(simpact, config, out, ranks=0, threads=2, extra=("--resume",))
    sc.assert_identical(ref, out, "killed in the final write, resumed on 1 rank x 2 threads")


if __name__ == "__main__":
    main()
