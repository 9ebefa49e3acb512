#!/usr/bin/env python3
"""audit: sweeps (issue 25): configs/fig2b.yaml's maps bit-identical at 1 rank x 1 thread and
2 ranks x 2 threads; known answers read from the maps (Bullet and ODE's quick step at R = 0
reach the plastic outcome, inside the outcome set; ODE's dWorldStep on touching spheres is a
failed run with NaN); the audit's check columns equal `simpact check` run on the engine's exported
post-impact states (/samples/<group>_velocity_after); every bad audit input one line, exit 2, no
output file.

usage: audit_sweeps.py SIMPACT
"""
import json
import os
import subprocess
import sys

import h5py
import numpy as np

import sweep_common as sc


def audit_datasets(path):
    out = {}
    with h5py.File(path, "r") as f:
        def visit(name, obj):
            if isinstance(obj, h5py.Dataset) and (name.startswith("audit_") or name.startswith("samples")):
                v = obj[()]  # strings (coordinate names) by value, not by their object pointers
                out[name] = (obj.dtype.str, obj.shape,
                             repr(v.tolist()) if v.dtype == object else np.ascontiguousarray(v).tobytes())
        f.visititems(visit)
    return out


def close(a, b, rtol=1e-12, atol=1e-12):  # the fields are dimensionless, O(1)
    if a is None or b is None:
        return a is None and b is None
    if np.isnan(a) or np.isnan(b):
        return bool(np.isnan(a) and np.isnan(b))
    return abs(a - b) <= atol + rtol * max(abs(a), abs(b))


def check_exported_states(simpact, path, tmp):
    """Issue 25's acceptance test: for tasks at R = 0, 0.7, 1 (v = 3 m/s) of every engine and rate,
    `simpact check` (JSON, the mechanism form, velocity_after = the engine's exported qvel) gives
    the map's energy errors, distances, feasibility violation and inside, to rounding."""
    mechanism = {"file": os.path.abspath("examples/mechanisms/cradle3.xml"),
                 "contacts": [["ball_a", "ball_b"], ["ball_b", "ball_c"]]}
    fields = {"relative_energy_error": "relative_energy_error",
              "relative_energy_error_vs_model": "relative_energy_error_vs_model",
              "distance_to_nearest_outcome": "distance_to_nearest_outcome",
              "distance_to_plastic": "distance_to_plastic",
              "max_feasibility_violation": "max_feasibility_violation"}
    compared = failed = 0
    with h5py.File(path, "r") as f:
        r_axis, v_axis = f["/grid/restitution"][()], f["/grid/qvel.x_a"][()]
        grid_point = f["/samples/grid_point"][()]
        groups = sorted(g for g in f if g.startswith("audit_") and g != "audit_model")
        if len(groups) != 12:
            sys.exit(f"FAIL: expected 12 audited engine runs, got {groups}")
        for g in groups:
            exported = f[f"/samples/{g}_velocity_after"][()]
            if exported.shape != (len(grid_point), 3):
                sys.exit(f"FAIL: /samples/{g}_velocity_after has shape {exported.shape}")
            status = f[g]["engine_status"][()].ravel()
            for task in range(len(grid_point)):
                i, j = np.unravel_index(grid_point[task], (len(r_axis), len(v_axis)))
                if j != 4:
                    continue
                k = grid_point[task]
                if status[k] != 0:
                    if not np.all(np.isnan(exported[task])):
                        sys.exit(f"FAIL: {g} task {task}: engine_status {status[k]} but velocity_after exported")
                    failed += 1
                    continue
                request = {"mechanism": mechanism, "qpos": [0.0, 0.0, 0.0],
                           "qvel": [float(v_axis[j]), 0.0, 0.0], "restitution": float(r_axis[i]),
                           "velocity_after": [float(x) for x in exported[task]],
                           "tolerance": 1e-9, "consistency_tolerance": 1e-3}
                req = os.path.join(tmp, "check.json")
                with open(req, "w") as out:
                    json.dump(request, out)
                p = subprocess.run([simpact, "check", req], capture_output=True, text=True)
                if p.returncode not in (0, 5):  # 5: not consistent with the propagative model (the report is written)
                    sys.exit(f"FAIL: simpact check on {g} task {task}: {p.stderr}")
                report = json.loads(p.stdout)
                for key, column in fields.items():
                    mine = float(f[g][column][()].ravel()[k])
                    theirs = report[key]
                    theirs = float("nan") if theirs is None else float(theirs)
                    if not close(mine, theirs):
                        sys.exit(f"FAIL: {g} task {task} (R = {r_axis[i]}, v = {v_axis[j]}): map {column} = "
                                 f"{mine!r}, simpact check {key} = {theirs!r}")
                inside = float(f[g]["inside"][()].ravel()[k])
                if inside != (1.0 if report["consistent_with_propagative_model"] else 0.0):
                    sys.exit(f"FAIL: {g} task {task}: map inside = {inside}, simpact check "
                             f"consistent_with_propagative_model = {report['consistent_with_propagative_model']}")
                compared += 1
    if compared < 20:
        sys.exit(f"FAIL: only {compared} exported states compared with simpact check")
    print(f"ok: {compared} exported engine states: simpact check equals the map's check columns "
          f"({failed} failed runs export NaN)")


def check_billiards(simpact, tmp):
    """configs/audit_billiards.yaml (θ as design rows × the cue speed as a grid axis): bit-identical
    at 1 rank x 1 thread and 2 ranks x 2 threads; ξ (/samples/audit_model_xi) vanishes at θ = 90°
    only (the g-orthogonal break) and the exported states are NaN exactly where a run failed."""
    one, two = os.path.join(tmp, "billiards1.h5"), os.path.join(tmp, "billiards2.h5")
    sc.run(simpact, "configs/audit_billiards.yaml", one, ranks=0, threads=1)
    sc.run(simpact, "configs/audit_billiards.yaml", two, ranks=2, threads=2)
    a, b = audit_datasets(one), audit_datasets(two)
    if not a or a.keys() != b.keys() or any(a[k] != b[k] for k in a):
        sys.exit("FAIL: audit_billiards differs between 1 rank x 1 thread and 2 ranks x 2 threads")
    with h5py.File(one, "r") as f:
        ay = f["/samples/qpos.ay"][()]
        theta = np.degrees(2 * np.arcsin((ay + np.sqrt(2)) / 2))
        xi = f["/samples/audit_model_xi"][()]
        right = np.abs(theta - 90) < 1e-9
        if not (right.sum() == 8 and np.all(np.abs(xi[right]) < 1e-12) and np.all(xi[~right] > 1e-6)):
            sys.exit(f"FAIL: billiards xi should vanish at theta = 90 deg only: {sorted(set(np.round(xi, 6)))}")
        for g in (k for k in f if k.startswith("audit_") and k != "audit_model"):
            settled = f[f"/samples/{g}_engine_status"][()] == 0
            exported = f[f"/samples/{g}_velocity_after"][()]
            if not (np.all(np.isfinite(exported[settled])) and np.all(np.isnan(exported[~settled]))):
                sys.exit(f"FAIL: {g}: exported velocities not finite exactly where the run settled")
    print(f"ok: audit_billiards bit-identical at 1x1 and 2x2 ({len(a)} datasets); xi = 0 at theta = 90 deg only")


def main():
    simpact = sys.argv[1]
    tmp = sc.tempdir()
    one, two = os.path.join(tmp, "one.h5"), os.path.join(tmp, "two.h5")
    sc.run(simpact, "configs/fig2b.yaml", one, ranks=0, threads=1)
    sc.run(simpact, "configs/fig2b.yaml", two, ranks=2, threads=2)
    a, b = audit_datasets(one), audit_datasets(two)
    if not a or a.keys() != b.keys():
        sys.exit(f"FAIL: audit datasets differ: {sorted(a.keys() ^ b.keys())}")
    for name in a:
        if a[name] != b[name]:
            sys.exit(f"FAIL: /{name} differs between 1 rank x 1 thread and 2 ranks x 2 threads")
    print(f"ok: {len(a)} audit datasets bit-identical at 1x1 and 2x2")

    with h5py.File(one, "r") as f:
        r = list(f["/grid/restitution"][()])
        zero = r.index(0.0)
        for g in ("audit_bullet_600hz", "audit_ode_quick_600hz"):
            if not np.all(f[g]["inside"][zero] == 1):
                sys.exit(f"FAIL: {g} at R = 0 is not inside the outcome set: {f[g]['distance_to_nearest_outcome'][zero]}")
            if not np.allclose(f[g]["relative_energy_error"][zero], -2.0 / 3.0, atol=1e-6):
                sys.exit(f"FAIL: {g} at R = 0 does not lose 2/3 of the energy")
        status = f["audit_ode_600hz"]["engine_status"][()]
        if not (np.all(status == 2) and np.all(np.isnan(f["audit_ode_600hz"]["relative_energy_error"][()]))):
            sys.exit("FAIL: ODE's dWorldStep on touching spheres should be failed runs with NaN values")
        # The file says what the kernel used: the full outcome set.
        used = f.attrs["orderings"]
        used = used.decode() if isinstance(used, bytes) else str(used)
        if used != "all":
            sys.exit(f"FAIL: an audit file says orderings = {used!r}, its kernel used 'all'")
    print("ok: known answers in the maps; orderings = 'all' as used")

    check_exported_states(simpact, one, tmp)
    check_billiards(simpact, tmp)

    base = open("configs/fig2b.yaml").read().replace("../examples", os.path.abspath("examples"))
    bad = {
        "unknown engine": (base.replace("engine: mujoco", "engine: physx"), "audit.engines[0].engine"),
        "unknown setting": (base.replace("options: {quick_step: 1}", "options: {quick_stepp: 1}"),
                            "audit.engines[3].options.quick_stepp"),
        "bad rate": (base.replace("rates: [60, 600, 6000]}\n    - {engine: bullet", "rates: [-1]}\n    - {engine: bullet"),
                     "audit.engines[0].rates"),
        "adapter cannot build": (
            "model:\n  file: " + os.path.abspath("examples/mechanisms/biped.xml") +
            "\n  contacts: [[floor, foot_l], [floor, foot_r]]\n  place: [qpos.root_z, qpos.root_pitch]\n"
            "params: {qpos.root_z: -0.1, qpos.hip_l: 0.2, qpos.hip_r: -0.1, qvel.root_z: -1.0}\n"
            "audit:\n  engines: [{engine: bullet, rates: [600]}]\n", "model.file"),
        # Settings of impact sweeps an audit does not read are refused, naming the key and the kind.
        "orderings under audit": (base + "orderings: [argmin]\n", "orderings: not used with audit:"),
        "limits under audit": (base + "limits: {max_steps: 1}\n", "limits: not used with audit:"),
    }
    for what, (text, field) in bad.items():
        config = sc.write_config(text, tmp, "bad.yaml")
        out = os.path.join(tmp, "bad.h5")
        p = sc.run(simpact, config, out, check=False)
        lines = [l for l in p.stderr.splitlines() if l.strip()]
        if p.returncode != 2 or len(lines) != 1 or field not in lines[0] or os.path.exists(out):
            sys.exit(f"FAIL: {what}: exit {p.returncode}, stderr {p.stderr!r}, output exists {os.path.exists(out)}")
        print(f"ok: {what}: {lines[0]}")


if __name__ == "__main__":
    main()
