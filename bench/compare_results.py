#!/usr/bin/python3
"""Largest relative difference between the numeric datasets of two simpact result files.

    bench/compare_results.py A.h5 B.h5

Prints one line per dataset that differs (path, max |a - b| / max |a| over the dataset: the
difference relative to the dataset's scale, so that a rounding-level 1e-17 where the value is 0
reads as the 1e-17 it is), then the file's maximum. NaN in both files at the same place counts as equal; NaN in one only is reported
as 'nan-pattern'. Exit 0 always: it measures, it does not judge.
"""
import sys

import h5py
import numpy as np


def datasets(f):
    out = {}
    f.visititems(lambda name, obj: out.__setitem__(name, obj) if isinstance(obj, h5py.Dataset) else None)
    return out


def main():
    a, b = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
    da, db = datasets(a), datasets(b)
    worst = 0.0
    for name in sorted(set(da) | set(db)):
        if name not in da or name not in db:
            print(f"{name}: only in {'B' if name not in da else 'A'}")
            continue
        x, y = np.asarray(da[name][()]), np.asarray(db[name][()])
        if x.dtype.kind not in "fiu" or y.dtype.kind not in "fiu":
            if x.shape != y.shape or not np.array_equal(x, y):
                print(f"{name}: non-numeric, differs")
            continue
        if x.shape != y.shape:
            print(f"{name}: shape {x.shape} vs {y.shape}")
            continue
        x, y = x.astype(float), y.astype(float)
        nx, ny = np.isnan(x), np.isnan(y)
        if not np.array_equal(nx, ny):
            print(f"{name}: nan-pattern ({int((nx != ny).sum())} entries)")
            continue
        m = ~nx
        if not m.any():
            continue
        diff = np.abs(x[m] - y[m])
        scale = max(float(np.max(np.abs(x[m]))), float(np.max(np.abs(y[m]))), 1e-300)
        rel = float(np.max(diff)) / scale
        if rel > 0:
            print(f"{name}: {rel:.3g}")
        worst = max(worst, rel)
    print(f"max relative difference: {worst:.3g}")


if __name__ == "__main__":
    main()
