"""A sweep split into 3 shards (`simpact run --shard i/3`, one of them under mpirun -n 2),
each holding only its own chunks' tasks, merged by `simpact merge`, is bit-identical to a single run — also to one whose journal held
partial statistics (no per-task output) while the shards hold rows; merge refuses shards of another
config, a missing shard, a duplicate shard and a non-shard file.

usage: shard_merge.py SIMPACT"""
import os
import shutil
import subprocess
import sys

import h5py
import numpy as np

import sweep_common as sc

CONFIG = """model: cradle
params: {{n: 3, m1: 1.0, speed: 1.0}}
grid:
  restitution: [0.0, 0.7, 1.0]
  m2: {{start: 0.2, stop: 5, num: 13, spacing: log}}
monte_carlo:
  samples_per_point: 24
  seed: {seed}
  method: sobol
  params:
    m3: {{dist: lognormal, mu: 0.0, sigma: 0.3}}
orderings: [all, argmin, argmax]
output: {{samples: {samples}, momenta: {momenta}, chunk_size: 10}}
"""


def check_own_rows(shard, index, count):
    """A shard's /samples holds only its own chunks' tasks, in chunk order, named by /samples/task."""
    with h5py.File(shard, "r") as f:
        size, tasks = 10, int(f.attrs["task_count"])  # output.chunk_size of CONFIG
        expected = [t for c in range(index, -(-tasks // size), count) for t in range(c * size, min(tasks, c * size + size))]
        if f["samples/task"][()].tolist() != expected or f["samples/status"].shape[0] != len(expected):
            sys.exit(f"FAIL: {shard}: /samples/task is not the tasks of chunks {index}, {index + count}, ...")
    print(f"ok: shard {index}/{count} holds its {len(expected)} tasks of {tasks}")


def widen_to_every_task(shard, out):
    """The shard as simpact wrote it before its /samples held its own chunks only: a row per task
    of the sweep, NaN (or 0) in the other shards' rows."""
    shutil.copy(shard, out)
    with h5py.File(out, "r+") as f:
        tasks, rows = int(f.attrs["task_count"]), f["samples/task"][()]
        for name in [n for n in f["samples"] if n != "task" and f["samples"][n].shape[:1] == rows.shape]:
            data = f["samples"][name][()]
            wide = np.zeros((tasks,) + data.shape[1:], data.dtype)
            if data.dtype.kind == "f":
                wide[:] = np.nan
            wide[rows] = data
            attrs = dict(f["samples"][name].attrs)
            del f["samples"][name]
            f["samples"].create_dataset(name, data=wide)
            for key, value in attrs.items():
                if key not in ("DIMENSION_LIST", "REFERENCE_LIST"):
                    f["samples"][name].attrs[key] = value
        del f["samples/task"]
        f["samples"].create_dataset("task", data=np.arange(tasks, dtype=np.int64))


def merge(simpact, shards, out, check=True):
    p = subprocess.run([simpact, "merge", *shards, "-o", out, "--quiet"], env=sc.env(1), capture_output=True,
                       text=True, timeout=300)
    if check and p.returncode != 0:
        sys.exit(f"FAIL: merge exited {p.returncode}: {p.stderr}")
    return p


def refuses(simpact, shards, out, what, needle):
    p = merge(simpact, shards, out, check=False)
    lines = p.stderr.strip().splitlines()
    if p.returncode != 2 or len(lines) != 1 or needle not in lines[0]:
        sys.exit(f"FAIL: merge of {what}: rc={p.returncode} stderr={p.stderr!r}")
    left = [path for path in (out, out + ".journal") if os.path.lexists(path)]
    if left:  # no staged file, no journal directory, no output
        sys.exit(f"FAIL: the refused merge of {what} left {left}: {os.listdir(out + '.journal') if left else ''}")
    print(f"ok: merge refuses {what}: {lines[0]}")


def main():
    simpact = sys.argv[1]
    d = sc.tempdir()
    for samples, momenta in (("false", "true"), ("true", "true"), ("false", "false")):
        if momenta == "false":
            samples = "none"  # file tag: the single run journals statistics
        config = sc.write_config(
            CONFIG.format(seed=1, samples=samples if momenta == "true" else "false", momenta=momenta), d,
            f"c{samples}.yaml")
        ref = f"{d}/single_{samples}.h5"
        sc.run(simpact, config, ref)
        shards = []
        for i in range(3):
            shard = f"{d}/shard{i}_{samples}.h5"
            sc.run(simpact, config, shard, ranks=2 if i == 1 else 0, threads=1, extra=("--shard", f"{i}/3"))
            shards.append(shard)
        merged = f"{d}/merged_{samples}.h5"
        merge(simpact, list(reversed(shards)), merged)
        what = "no per-task output: statistics journal" if samples == "none" else f"samples: {samples}"
        sc.assert_identical(ref, merged, f"3 shards merged ({what})")
        for i, shard in enumerate(shards):
            check_own_rows(shard, i, 3)
        if samples == "true":  # shards of an earlier simpact (a row per task) still merge
            wide = [f"{d}/wide{i}.h5" for i in range(3)]
            for shard, out in zip(shards, wide):
                widen_to_every_task(shard, out)
            merge(simpact, [wide[0], shards[1], wide[2]], f"{d}/merged_wide.h5")
            sc.assert_identical(ref, f"{d}/merged_wide.h5", "shards with a row per task (and one without) merged")
    other = sc.write_config(CONFIG.format(seed=2, samples="false", momenta="true"), d, "other.yaml")
    sc.run(simpact, other, f"{d}/other0.h5", extra=("--shard", "0/3"))
    s = [f"{d}/shard{i}_false.h5" for i in range(3)]
    refuses(simpact, [f"{d}/other0.h5", s[1], s[2]], f"{d}/m1.h5", "a shard of another config", "different config")
    refuses(simpact, [s[0], s[1], s[1]], f"{d}/m2.h5", "a duplicate shard", "given twice")
    refuses(simpact, [s[0], s[1]], f"{d}/m3.h5", "a missing shard", "missing shard(s) 2/3")
    refuses(simpact, [s[2]], f"{d}/m5.h5", "two missing shards", "missing shard(s) 0/3, 1/3")
    refuses(simpact, [s[0], s[1], f"{d}/single_false.h5"], f"{d}/m4.h5", "a non-shard file", "not a shard")
    # A shard whose run was killed mid-way (its file still says complete = 0), and one that says
    # complete but lacks a chunk of its own: both refused, naming the shard.
    killed, holed = f"{d}/killed1.h5", f"{d}/holed1.h5"
    for path in (killed, holed):
        shutil.copy(s[1], path)
    with h5py.File(killed, "r+") as f:
        f.attrs["complete"] = np.int64(0) if f.attrs["complete"].dtype.kind == "i" else 0
    with h5py.File(holed, "r+") as f:
        done = f["progress/done"][()]
        done[1] = 0  # chunk 1 belongs to shard 1 of 3
        f["progress/done"][...] = done
    refuses(simpact, [s[0], killed, s[2]], f"{d}/m6.h5", "a shard killed mid-way", "killed1.h5: unfinished shard")
    refuses(simpact, [s[0], holed, s[2]], f"{d}/m7.h5", "a shard missing a chunk", "holed1.h5: chunk 1 missing")


if __name__ == "__main__":
    main()
