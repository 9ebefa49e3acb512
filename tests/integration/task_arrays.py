"""Per-task arrays (`output: {momenta: true}`): /samples/outcomes_momentum_after_<ordering> is a
[task, element] table padded with NaN to the model's largest d, readable by xarray with named
dimensions; its rows conserve the cradle's total momentum, and equal masses give the reversal
permutation of the paper's eq. (15).

usage: task_arrays.py SIMPACT"""
import sys

import h5py
import numpy as np
import xarray as xr

import sweep_common as sc

CONFIG = """model: cradle
params: {n: 3, speed: 1.0, v3: -1.0}
grid:
  m2: {start: 0.5, stop: 4, num: 8, spacing: log}
monte_carlo:
  samples_per_point: 5
  seed: 2
  params:
    m3: {dist: uniform, low: 0.5, high: 2.0}
orderings: [argmin, argmax]
output: {samples: true, momenta: true}
"""


def main():
    simpact = sys.argv[1]
    d = sc.tempdir()
    out = f"{d}/arrays.h5"
    sc.run(simpact, sc.write_config(CONFIG, d, "arrays.yaml"), out, ranks=2, threads=1)
    with h5py.File(out, "r") as f:
        p = f["samples/outcomes_momentum_after_argmin"][:]
        q = f["samples/outcomes_momentum_after_argmax"][:]
        m2, m3 = f["samples/m2"][:], f["samples/m3"][:]
    # padded to the cradle model's largest n (kMaxCradleBalls)
    assert p.shape == (40, 64) and q.shape == (40, 64), p.shape
    assert np.all(np.isnan(p[:, 3:])) and np.all(np.isfinite(p[:, :3]))
    before = 1.0 * 1.0 + m3 * -1.0  # m1 = 1 at +1, ball 3 at −1
    for after in (p, q):
        assert np.allclose(after[:, :3].sum(axis=1), before, atol=1e-14), "total momentum not conserved"
        energy = 0.5 * (after[:, 0] ** 2 / 1.0 + after[:, 1] ** 2 / m2 + after[:, 2] ** 2 / m3)
        assert np.allclose(energy, 0.5 * (1.0 + m3), rtol=1e-12), "elastic energy not conserved"
    ds = xr.open_dataset(out, engine="h5netcdf", group="samples")
    assert ds["outcomes_momentum_after_argmin"].dims == ("task", "outcomes_momentum_after_argmin_element")
    # equal masses: one task with m2 = m3 = 1 ends in the reversal [-1, 0, 1] for both orders
    eq = sc.tempdir()
    text = CONFIG.replace("m2: {start: 0.5, stop: 4, num: 8, spacing: log}", "m2: {values: [1.0]}")
    text = text.replace("m3: {dist: uniform, low: 0.5, high: 2.0}", "m3: {dist: choice, values: [1.0]}")
    sc.run(simpact, sc.write_config(text, eq, "equal.yaml"), f"{eq}/equal.h5")
    with h5py.File(f"{eq}/equal.h5", "r") as f:
        for name in ("argmin", "argmax"):
            row = f[f"samples/outcomes_momentum_after_{name}"][0, :3]
            assert np.allclose(row, [-1.0, 0.0, 1.0], atol=1e-15), (name, row)
    print("ok: per-task momentum arrays: shape, padding, momentum and energy conservation, eq. (15), xarray")


if __name__ == "__main__":
    main()
