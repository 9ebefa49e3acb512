"""Time-stepped sweeps of mechanism files (model: {file: ...} with simulate:):
* configs/cradle_file_timestep.yaml (the MJCF cradle, dt x restitution) equals the built-in
  cradle's time-stepped sweep over the same grid to 1e-9 (ξ, energies, impacts, recorded momenta;
  positions up to the files' body offsets);
  the Newton iteration counts may differ (FileMechanism's derivatives of M and V are
  central differences);
* it is bit-identical at 1 and 2 ranks (x 1 and 2 threads);
* every cell ends at R·[0,0,1] + (1−R)·[1/3,1/3,1/3] m/s with E_end/E_0 = R² + (1 − R²)/3;
* model: {file} with simulate.model, or with place, is refused with exit 2 naming the field, and so
  is a built-in scenario's parameter given to the constructor that does not read it (cradle's gap
  in an impact sweep, its m2 in a time-stepped one).

usage: mechanism_timestep_sweep.py SIMPACT"""
import os
import subprocess
import sys

import h5py
import numpy as np

import sweep_common as sc

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FILE_CONFIG = os.path.join(ROOT, "configs", "cradle_file_timestep.yaml")

BUILTIN = """simulate:
  model: cradle
  t_end: 0.25
  record: 1
params: {n: 3, radius: 1.0, mass: 1.0, speed: 1.0, gap: 0.1}
grid:
  dt: {values: [1/60, 1/600, 1/6000]}
  restitution: {values: [0.0, 0.7, 1.0]}
orderings: [argmin, argmax]
output: {samples: true}
"""

# Body offsets of cradle3.xml (balls at x = 0, 2, 4 at qpos = 0) against the built-in cradle
# (ball 1 at -2r - gap, balls 2, 3 at 0, 2r): q_file = q_builtin + (2, 0, -2) once ball a is
# placed at -gap.
OFFSET = np.array([2.0, 0.0, -2.0])


def fail(message):
    sys.exit(f"FAIL: {message}")


def read(path):
    with h5py.File(path, "r") as f:
        s = f["samples"]
        return {name: s[name][()] for name in s if s[name].dtype != object}


def compare_builtin(simpact, d, file_out):
    builtin_out = os.path.join(d, "builtin.h5")
    sc.run(simpact, sc.write_config(BUILTIN, d, "builtin.yaml"), builtin_out, threads=1)
    a, b = read(builtin_out), read(file_out)
    worst, worst_name = 0.0, ""
    for name in a:
        if name in ("task", "grid_point", "replica", "random_counter", "record", "status"):
            if not np.array_equal(a[name], b[name]):
                fail(f"/samples/{name} differs")
            continue
        if "newton" in name:
            continue  # iterations per step: the file's finite-difference derivatives converge differently
        x, y = a[name], b[name]
        if name.startswith("trajectory_q_"):
            x = x + OFFSET
        scale = np.maximum(1.0, np.abs(x))
        diff = np.nanmax(np.abs(x - y) / scale) if x.size else 0.0
        if not np.array_equal(np.isnan(x), np.isnan(y)) or diff > 1e-9:
            fail(f"/samples/{name}: the MJCF cradle differs from the built-in by {diff:.3g} (> 1e-9)")
        if diff > worst:
            worst, worst_name = diff, name
    print(f"ok: MJCF cradle sweep equals the built-in cradle sweep: {len(a)} datasets, "
          f"largest relative difference {worst:.3g} (/samples/{worst_name})")
    # Closed forms of the final state.
    r = b["restitution"][:, None]
    expected = r * np.array([0.0, 0.0, 1.0]) + (1 - r) * np.array([1 / 3, 1 / 3, 1 / 3])
    for o in ("argmin", "argmax"):
        v = b[f"trajectory_p_{o}"][:, -1, :]  # unit masses: p = v
        if np.max(np.abs(v - expected)) > 1e-9:
            fail(f"final velocities ({o}) off the closed form by {np.max(np.abs(v - expected)):.3g}")
        ratio = b[f"energy_ratio_{o}"]
        if np.max(np.abs(ratio - (r[:, 0] ** 2 + (1 - r[:, 0] ** 2) / 3))) > 1e-9:
            fail(f"E_end/E_0 ({o}) off R^2 + (1 - R^2)/3")
    if np.any(b["status"] != 0):
        fail(f"task status {b['status']}")
    print("ok: every cell ends at R[0,0,1] + (1-R)[1,1,1]/3 with E1/E0 = R^2 + (1-R^2)/3 (1e-9)")


def refusals(simpact, d):
    cases = [
        ("simulate.model", "model: {file: " + os.path.join(ROOT, "examples", "mechanisms", "cradle3.xml") +
         ", contacts: [[ball_a, ball_b]]}\nsimulate: {model: cradle, t_end: 0.1}\nparams: {dt: 0.01}\n"),
        ("model.place", "model: {file: " + os.path.join(ROOT, "examples", "mechanisms", "cradle3.xml") +
         ", contacts: [[ball_a, ball_b]], place: [qpos.x_a]}\nsimulate: {t_end: 0.1}\nparams: {dt: 0.01}\n"),
        ("params.qpos.x_z", "model: {file: " + os.path.join(ROOT, "examples", "mechanisms", "cradle3.xml") +
         ", contacts: [[ball_a, ball_b]]}\nsimulate: {t_end: 0.1}\nparams: {dt: 0.01, qpos.x_z: 1}\n"),
        # The registry's other view: a built-in scenario's parameter the other constructor reads.
        ("params.gap", "model: cradle\nparams: {gap: 0.1}\n"),
        ("params.m2", "simulate: {model: cradle, t_end: 0.1}\nparams: {dt: 0.01, m2: 3}\n"),
    ]
    for field, text in cases:
        out = os.path.join(d, "refused.h5")
        p = sc.run(simpact, sc.write_config(text, d, "bad.yaml"), out, check=False)
        lines = [line for line in p.stderr.splitlines() if line.strip()]
        if p.returncode != 2 or len(lines) != 1 or f" {field}:" not in lines[0] or os.path.exists(out):
            fail(f"{field}: exit {p.returncode}, stderr {p.stderr!r}")
    print(f"ok: {len(cases)} bad time-stepping configs refused with exit 2 naming the field")


def main():
    simpact = sys.argv[1]
    d = sc.tempdir()
    ref = os.path.join(d, "ref.h5")
    sc.run(simpact, FILE_CONFIG, ref, ranks=0, threads=1)
    for ranks, threads in ((0, 2), (2, 1), (2, 2)):
        out = os.path.join(d, f"r{ranks}t{threads}.h5")
        sc.run(simpact, FILE_CONFIG, out, ranks=ranks, threads=threads)
        sc.assert_identical(ref, out, f"MJCF cradle time-stepped sweep at {max(ranks, 1)} rank(s) x {threads} thread(s)")
    compare_builtin(simpact, d, ref)
    refusals(simpact, d)


if __name__ == "__main__":
    main()
