"""Time-stepped sweeps (`simulate:` configs, issue 12) end to end with the real program:
  * configs/cradle_timestep.yaml: every elastic cell E_end/E_0 = 1 to 1e-9 and final momenta
    [0, 0, m v]; restitution e gives e^2 + (1 - e^2)/3; impacts counted, none failed;
  * configs/billiards_timestep.yaml: xi at zero offset = `simpact resolve`'s xi_argmin_argmax to
    1e-9, xi < 1e-9 once the offset delays b beyond the simultaneity tolerance;
  * configs/trex_fig8.yaml: /samples/trajectory_xi_argmin_vs_argmax ends at the final xi, is 0
    for the optimized gait over the whole 100 ms after touchdown (argmin and argmax agree bit for
    bit: the touchdown is g-orthogonal, later impacts single or beside resting contacts) and
    >= 1e-4 for the initial gait (docs/trex.md, Fig. 8);
  * results bit-identical over 1 and 2 MPI ranks, 1 and 2 threads, and after SIGKILL + --resume;
  * bad simulate: input is one line naming the field, exit 2.

usage: timestep_sweeps.py SIMPACT"""
import json
import os
import subprocess
import sys

import h5py
import numpy as np

import sweep_common as sc
from sweep_kill_resume import kill_landed


def fail(msg):
    sys.exit(f"FAIL: {msg}")


def check_cradle(path):
    with h5py.File(path, "r") as f:
        e = f["grid/restitution"][()]
        axes = [a.decode() if isinstance(a, bytes) else a for a in f["grid"].keys()]
        for o in ("argmin", "argmax"):
            ratio = f[f"energy/ratio_{o}"][()]  # (gap, dt, restitution)
            expected = e**2 + (1 - e**2) / 3
            err = np.abs(ratio - expected[None, None, :]).max()
            if not err < 1e-9:
                fail(f"cradle {o}: E_end/E_0 off e^2 + (1-e^2)/3 by {err:.3g}")
            p = f[f"samples/trajectory_p_{o}"][()]  # [task, record, coordinate]: 2 states x 3 coordinates
            if p.shape[1:] != (2, 3):
                fail(f"cradle {o}: trajectory_p is {p.shape}, not [task, record = 2, coordinate = 3]")
            elastic = f["samples/restitution"][()] == 1.0
            final = p[elastic, -1, :]
            if not np.abs(final - [0.0, 0.0, 1.0]).max() < 1e-9:
                fail(f"cradle {o}: elastic final momenta {final} are not [0, 0, 1]")
            if not (f[f"outcomes/impacts_{o}"][()] >= 1).all():
                fail(f"cradle {o}: a cell without an impact")
        if f["status/failed"][()].sum() != 0 or f["status/ok"][()].sum() != f["samples/status"].shape[0]:
            fail("cradle: tasks not all ok")
    print(f"ok: cradle_timestep: E_end/E_0 = e^2 + (1-e^2)/3 to 1e-9, elastic final p = [0, 0, 1] ({axes})")
    check_xarray(path)


def check_xarray(path):
    """Trajectories as (task, record, coordinate) with named coordinates and UDUNITS units; the dt
    axis stored as time_step (xarray's `.dt` is the datetime accessor), parameter = "dt"."""
    import xarray as xr
    for engine in ("h5netcdf", "netcdf4"):
        with xr.open_dataset(path, group="samples", engine=engine) as ds:
            for o in ("argmin", "argmax"):
                for v, units in ((f"trajectory_q_{o}", "m"), (f"trajectory_p_{o}", "kg m s-1")):
                    da = ds[v]
                    if da.dims != ("task", "record", "coordinate") or da.attrs.get("units") != units:
                        fail(f"{engine}: {v} dims {da.dims}, units {da.attrs.get('units')!r}")
            if list(ds.coordinate.values) != ["x1", "x2", "x3"] or list(ds.coordinate_units.values) != ["m"] * 3:
                fail(f"{engine}: coordinate labels {ds.coordinate.values}")
            if ds.trajectory_t.dims != ("task", "record") or "time_step" not in ds or "dt" in ds:
                fail(f"{engine}: trajectory_t dims {ds.trajectory_t.dims}; samples {list(ds.data_vars)[:8]}")
            last = ds.trajectory_p_argmin.sel(coordinate="x3").isel(record=-1)
            if not (float(last.where(ds.restitution == 1.0).max()) - 1.0) < 1e-9:
                fail(f"{engine}: sel(coordinate='x3') of the final record")
        with xr.open_dataset(path, group="grid", engine=engine) as ds:
            if "time_step" not in ds.coords or ds.time_step.attrs.get("parameter") != "dt" or ds.time_step.attrs.get("units") != "s":
                fail(f"{engine}: grid coordinate time_step {dict(ds.coords)}")
        with xr.open_dataset(path, group="energy", engine=engine) as ds:
            if "time_step" not in ds["ratio_argmin"].dims:
                fail(f"{engine}: energy maps dims {ds['ratio_argmin'].dims}")
    print("ok: xarray (both engines): trajectories [task, record, coordinate] in m and kg m s-1, axis time_step (dt)")


def check_billiards(simpact, path, d):
    with h5py.File(path, "r") as f:
        xi = f["xi_maps/argmin_vs_argmax"][()]  # (offset, theta)
        offset, theta = f["grid/offset"][()], f["grid/theta"][()]
    if not np.array_equal(offset, [0.0, 1e-7, 1e-5, 1e-3]):
        fail(f"billiards: unexpected offsets {offset}")
    for j, t in enumerate(theta):
        req = os.path.join(d, "resolve.json")
        with open(req, "w") as fh:
            json.dump({"model": "billiards", "params": {"theta": float(t)}, "ordering": "argmin"}, fh)
        p = subprocess.run([simpact, "resolve", req], capture_output=True, text=True, check=True)
        ref = json.loads(p.stdout)["xi_argmin_argmax"]
        if not abs(xi[0, j] - ref) < 1e-9:
            fail(f"billiards theta={t}: xi at offset 0 is {xi[0, j]}, resolve gives {ref}")
    if not (xi[0] > 0.003).all():
        fail(f"billiards: xi at offset 0 should be positive everywhere: {xi[0]}")
    if not np.abs(xi[2:]).max() < 1e-9:
        fail(f"billiards: xi with offsets beyond the tolerance {xi[2:]} is not < 1e-9")
    print(f"ok: billiards_timestep: xi(offset 0) = resolve to 1e-9 over {len(theta)} angles; "
          f"xi < 1e-9 for sequential arrivals")


def check_trex_fig8(path):
    with h5py.File(path, "r") as f:
        xi_t = f["samples/trajectory_xi_argmin_vs_argmax"][()]  # [task, record + 1]
        t = f["samples/trajectory_t"][()]
        gait = f["samples/gait"][()]
        final = f["samples/xi_maps_argmin_vs_argmax"][()]
        drop = f["parameters/drop"][()]
    if not np.array_equal(xi_t[:, -1], final):
        fail(f"trex_fig8: last trajectory xi {xi_t[:, -1]} != final xi {final}")
    if not (xi_t[:, 0] == 0.0).all():
        fail(f"trex_fig8: xi at t = 0 (both copies at rest) is {xi_t[:, 0]}")
    after = t - np.sqrt(2 * drop / 9.81)  # the held stance touches down at its free-fall time
    window = after > 0  # the whole 100 ms after touchdown
    initial, optimized = xi_t[gait == 1][window[gait == 1]], xi_t[gait == 2][window[gait == 2]]
    if not (initial.size > 900 and initial.min() >= 1e-4):
        fail(f"trex_fig8: initial gait xi over the 100 ms after touchdown: min {initial.min()} < 1e-4")
    if not (optimized.size == initial.size and optimized.max() == 0.0):
        fail(f"trex_fig8: optimized gait xi over the 100 ms after touchdown: max {optimized.max()} != 0")
    print(f"ok: trex_fig8: xi(t) per gait, initial >= {initial.min():.3g}, optimized 0 over the 100 ms")


KILL_CONFIG = """simulate:
  model: cradle
  t_end: 0.25
  record: 4
params: {n: 3, radius: 0.05, mass: 1.0, speed: 1.0}
grid:
  gap: {start: 0.01, stop: 0.1, num: 160}
  dt: {values: [1/600, 1/3000, 1/6000]}
  restitution: {values: [0.5, 1.0]}
orderings: [argmin, argmax, random]
seed: 7
output: {samples: true, chunk_size: 20}
"""

ERRORS = [
    ("simulate:\n  model: cradel\n  steps: 10\n  dt: 1e-3\n", "simulate.model: unknown time-stepping model 'cradel'"),
    ("simulate:\n  model: cradle\n  dt: 1e-3\n", "simulate.steps: give exactly one of steps, t_end"),
    ("simulate:\n  model: cradle\n  steps: 10\n", "params: missing required parameter 'dt'"),
    ("simulate:\n  model: cradle\n  steps: 10\n  dt: 0\n", "simulate.dt: 0 is outside the allowed range"),
    ("simulate:\n  model: cradle\n  steps: 10\n  dt: 1e-3\ngrid:\n  dt: {values: [1e-3]}\n",
     "grid.dt: 'dt' is already given in simulate"),
    ("simulate:\n  model: cradle\n  steps: 10\n  dt: 1e-3\norderings: [all, argmin]\n", "orderings: 'all' is not available"),
    ("simulate:\n  model: cradle\n  steps: 10\n  dt: 1e-3\n  record: 0\n", "simulate.record: must be an integer"),
    ("model: cradle\nsimulate:\n  model: cradle\n  steps: 10\n  dt: 1e-3\n", "model: not used with simulate:"),
    ("simulate:\n  model: cradle\n  t_end: -1\n  dt: 1e-3\n", "simulate.t_end: -1 must be a positive time"),
]


def main():
    simpact = sys.argv[1]
    d = sc.tempdir()
    cradle, billiards = f"{d}/cradle.h5", f"{d}/billiards.h5"
    sc.run(simpact, "configs/cradle_timestep.yaml", cradle, ranks=0, threads=2)
    check_cradle(cradle)
    sc.run(simpact, "configs/billiards_timestep.yaml", billiards, ranks=0, threads=2)
    check_billiards(simpact, billiards, d)
    trex = f"{d}/trex_fig8.h5"
    sc.run(simpact, "configs/trex_fig8.yaml", trex, ranks=0, threads=2)
    check_trex_fig8(trex)

    for name, ref in (("cradle_timestep", cradle), ("billiards_timestep", billiards)):
        for i, (what, ranks, threads) in enumerate((("1 rank, 1 thread", 1, 1), ("2 ranks", 2, 1),
                                                   ("2 ranks x 2 threads", 2, 2))):
            out = f"{d}/{name}{i}.h5"
            sc.run(simpact, f"configs/{name}.yaml", out, ranks=ranks, threads=threads)
            sc.assert_identical(ref, out, f"{name}: {what}")

    config = sc.write_config(KILL_CONFIG, d, "kill.yaml")
    ref = f"{d}/kill_ref.h5"
    sc.run(simpact, config, ref, ranks=2, threads=1)
    out = f"{d}/killed.h5"
    kill_landed(simpact, config, out, 0.3, True, "time-stepped sweep, whole job")
    sc.run(simpact, config, out, ranks=2, threads=1, extra=("--resume",))
    sc.assert_identical(ref, out, "time-stepped sweep killed then resumed")

    for i, (text, expected) in enumerate(ERRORS):
        bad = sc.write_config(text, d, f"bad{i}.yaml")
        p = sc.run(simpact, bad, f"{d}/bad{i}.h5", check=False)
        lines = p.stderr.strip().splitlines()
        if p.returncode != 2 or len(lines) != 1 or expected not in lines[0]:
            fail(f"bad config {text!r}: rc={p.returncode}, stderr={p.stderr!r}; expected one line with {expected!r}")
    print(f"ok: {len(ERRORS)} bad simulate: configs give one line naming the field, exit 2")


if __name__ == "__main__":
    main()
