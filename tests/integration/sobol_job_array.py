"""A Saltelli study as a job array: 3 shards (`simpact run --shard i/3`, one under mpirun -n 2)
merged by `simpact merge`. With `sensitivity.at_end` (the default) the merged file holds the
Sobol' indices, bit-identical to a single run's at-end analysis; with `at_end: false` merge says
in one line which command computes them, and that command gives the single run's numbers.

usage: sobol_job_array.py SIMPACT"""
import subprocess
import sys

import h5py
import numpy as np

import sweep_common as sc

CONFIG = """model: billiards
params: {{r_a: 1, m_a: 1, speed: 1}}
design:
  method: saltelli
  base_samples: 128
  scramble: true
  seed: 13
  params:
    theta: {{dist: uniform, low: 1.7, high: pi}}
    r_b: {{dist: uniform, low: 0.5, high: 2}}
    m_c: {{dist: uniform, low: 0.5, high: 2}}
    restitution: {{dist: uniform, low: 0, high: 1}}
orderings: [all, argmin, argmax]
output: {{chunk_size: 64}}
sensitivity:
  outputs: [outcome_set, relative_loss_argmin]
  bootstrap: 50
  seed: 1
  at_end: {at_end}
"""


def sensitivity(path):
    """Every /sensitivity dataset by value (NaN equal to NaN)."""
    out = {}
    with h5py.File(path, "r") as f:
        if "sensitivity" not in f:
            return out
        f["sensitivity"].visititems(lambda name, obj: out.__setitem__(name, sc.dataset_bytes(obj))
                                    if isinstance(obj, h5py.Dataset) else None)
    return out


def shards_of(simpact, config, d, tag):
    shards = []
    for i in range(3):
        shard = f"{d}/{tag}_shard{i}.h5"
        sc.run(simpact, config, shard, ranks=2 if i == 1 else 0, threads=1, extra=("--shard", f"{i}/3"))
        if sensitivity(shard):
            sys.exit(f"FAIL: shard {shard} holds /sensitivity (a shard holds a part of the samples)")
        shards.append(shard)
    return shards


def merge(simpact, shards, out):
    p = subprocess.run([simpact, "merge", *shards, "-o", out], env=sc.env(1), capture_output=True, text=True,
                       timeout=300)
    if p.returncode != 0:
        sys.exit(f"FAIL: merge exited {p.returncode}: {p.stderr}")
    return p.stdout


def same_indices(reference, other, what):
    a, b = sensitivity(reference), sensitivity(other)
    if not a or a.keys() != b.keys():
        sys.exit(f"FAIL: {what}: /sensitivity datasets {sorted(a)} vs {sorted(b)}")
    for name in a:
        if a[name] != b[name]:
            sys.exit(f"FAIL: {what}: /sensitivity/{name} differs")
    with h5py.File(other, "r") as f:
        s1 = f["sensitivity/outcome_set/S1"][()]
    if not np.isfinite(s1).any():
        sys.exit(f"FAIL: {what}: S1 of outcome_set is not finite: {s1}")
    print(f"ok: {what}: {len(a)} /sensitivity datasets bit-identical (S1 of outcome_set {np.round(s1, 3)})")


def main():
    simpact = sys.argv[1]
    d = sc.tempdir()
    # at_end (default true): merge computes the indices into the merged file.
    config = sc.write_config(CONFIG.format(at_end="true"), d, "sobol.yaml")
    single = f"{d}/single.h5"
    sc.run(simpact, config, single)
    merged = f"{d}/merged.h5"
    stdout = merge(simpact, list(reversed(shards_of(simpact, config, d, "end"))), merged)
    if "outcome_set" not in stdout or "relative_loss_argmin" not in stdout:
        sys.exit(f"FAIL: merge printed no analysis lines: {stdout!r}")
    sc.assert_identical(single, merged, "Saltelli study: 3 shards merged")
    same_indices(single, merged, "Saltelli study: indices computed at merge")

    # at_end: false: no indices anywhere, one line names the command; it gives the same numbers.
    config = sc.write_config(CONFIG.format(at_end="false"), d, "later.yaml")
    single = f"{d}/single_later.h5"
    sc.run(simpact, config, single)
    merged = f"{d}/merged_later.h5"
    stdout = merge(simpact, shards_of(simpact, config, d, "later"), merged)
    hint = [line for line in stdout.splitlines() if "simpact analyze" in line]
    if len(hint) != 1 or not hint[0].endswith(f"simpact analyze {merged}") or sensitivity(merged):
        sys.exit(f"FAIL: at_end false: merge printed {stdout!r}, /sensitivity {sorted(sensitivity(merged))}")
    print(f"ok: at_end false: {hint[0]}")
    for path in (single, merged):
        p = subprocess.run([simpact, "analyze", path], env=sc.env(1), capture_output=True, text=True, timeout=300)
        if p.returncode != 0:
            sys.exit(f"FAIL: simpact analyze {path} exited {p.returncode}: {p.stderr}")
    same_indices(single, merged, "Saltelli study: simpact analyze after merge")


if __name__ == "__main__":
    main()
