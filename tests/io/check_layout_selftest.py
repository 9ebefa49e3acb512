#!/usr/bin/env python3
"""Proves check_layout.py can fail: it must pass on a good sweep file and reject copies of it
that each break one rule of the layout.

    check_layout_selftest.py CHECK_LAYOUT GOOD.h5 WORKDIR
"""
import os
import shutil
import subprocess
import sys

import h5py
import numpy as np


def set_incomplete(f):
    f.attrs["complete"] = np.uint8(0)


def drop_units(f):
    del f["grid"][next(iter(f["grid"]))].attrs["units"]


def unfinished_chunk(f):
    f["progress/done"][0] = 0


def changed_config(f):
    f["config"].attrs["sha256"] = "not-the-hash"


def detached_scale(f):
    path = f.attrs["map_datasets"][0]
    m = f[path]
    scale = list(m.dims[0].values())[0]
    m.dims[0].detach_scale(scale)


def shifted_axis_copy(f):
    path = f.attrs["map_datasets"][-1]
    scale = list(f[path].dims[0].values())[0]
    scale[0] = scale[0] + 1.0


def empty_provenance_version(f):
    rows = f["provenance"][:]
    rows["version"][0] = b""
    f["provenance"][:] = rows


BREAKERS = [set_incomplete, drop_units, unfinished_chunk, changed_config, detached_scale,
            shifted_axis_copy, empty_provenance_version]


def run(checker, path):
    return subprocess.run([sys.executable, checker, path], capture_output=True, text=True)


def main():
    checker, good, workdir = sys.argv[1:4]
    os.makedirs(workdir, exist_ok=True)
    result = run(checker, good)
    if result.returncode != 0:
        print(f"selftest: good file rejected: {result.stderr.strip()}")
        return 1
    failures = 0
    for breaker in BREAKERS:
        copy = os.path.join(workdir, breaker.__name__ + ".h5")
        shutil.copyfile(good, copy)
        with h5py.File(copy, "r+") as f:
            breaker(f)
        result = run(checker, copy)
        if result.returncode == 0:
            print(f"selftest: {breaker.__name__}: accepted a broken file")
            failures += 1
        else:
            print(f"selftest: {breaker.__name__}: rejected: {result.stderr.strip()}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
