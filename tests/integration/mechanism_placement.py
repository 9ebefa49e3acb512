"""Placement and no-contact states you can see (issue 34 §4), end to end with the real `simpact`:
* a biped sweep with `place` stores each task's placed coordinates (/placed/qpos.root_z maps and
  /samples/placed_qpos.root_z), equal bit for bit to `resolve`'s placed_qpos for the same state;
* without `place`, feet in the air: every task has status 5 (no_contact) and ξ NaN, never 0, and
  the run ends (exit 0) with one warning line on stderr naming the smallest gap and `place` — at
  1 and 2 ranks; a sweep where some task touches has no such line; `resolve` of such a state
  answers ξ null and status no_impact;
* `design` reports its placement branch (start, initial, optimized per placed coordinate) and
  flags a far one (a trunk pitched 97° from a level start: exit 1, one line naming the
  coordinate), accepted under a larger max_place_change; a stall against a bound lists it in
  at_bound;
* a grid axis that is a place coordinate, a bad max_place_change: exit 2, one line, no output.

usage: mechanism_placement.py SIMPACT"""
import json
import math
import os
import shutil
import sys

import h5py
import numpy as np

import sweep_common as sc

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MECHANISMS = os.path.join(ROOT, "examples", "mechanisms")
BIPED = os.path.join(MECHANISMS, "biped.xml")
CONTACTS = [["floor", "foot_l"], ["floor", "foot_r"]]

PLACED = """model:
  file: {biped}
  contacts: [[floor, foot_l], [floor, foot_r]]
  place: [qpos.root_z, qpos.root_pitch]
params: {{qpos.root_z: -0.1, qpos.knee_l: -0.4, qpos.knee_r: -0.4, qvel.root_x: 0.5, qvel.root_z: -1.0}}
grid:
  qpos.hip_l: [-0.6, 0.0, 0.6]
  qpos.hip_r: [-0.55, 0.05, 0.65]
orderings: [all, argmin, argmax]
output: {{samples: true}}
"""

IN_THE_AIR = """model:
  file: {biped}
  contacts: [[floor, foot_l], [floor, foot_r]]
params: {{qpos.knee_l: -0.4, qpos.knee_r: -0.4, qvel.root_z: -1.0}}
grid:
  {axis}: {values}
output: {{samples: true}}
"""


fail, check, cli = sc.fail, sc.check, sc.cli


def resolve(simpact, params, place=()):
    request = {"mechanism": {"file": BIPED, "contacts": CONTACTS, "place": list(place)}, "params": params}
    p = cli(simpact, ["resolve", "-"], stdin=json.dumps(request))
    check(p.returncode == 0, f"resolve exited {p.returncode}: {p.stderr}")
    return json.loads(p.stdout)


def placed_equals_resolve(simpact, d):
    config = sc.write_config(PLACED.format(biped=BIPED), d, "placed.yaml")
    out = os.path.join(d, "placed.h5")
    sc.run(simpact, config, out, threads=2)
    with h5py.File(out, "r") as f:
        hip_l, hip_r = f["samples/qpos.hip_l"][...], f["samples/qpos.hip_r"][...]
        z, pitch = f["samples/placed_qpos.root_z"][...], f["samples/placed_qpos.root_pitch"][...]
        gap = f["samples/contacts_min_gap"][...]
        status = f["samples/status"][...]
        check(f["placed/qpos.root_z"].attrs["units"] in (b"m", "m"), "placed/qpos.root_z units")
        check(f["placed/qpos.root_pitch"].attrs["units"] in (b"rad", "rad"), "placed/qpos.root_pitch units")
        # No replicas: the maps hold each task's value.
        check(np.array_equal(f["placed/qpos.root_z"][...].ravel(), z), "/placed/qpos.root_z map != samples")
        check(np.array_equal(f["placed/qpos.root_pitch"][...].ravel(), pitch), "/placed/qpos.root_pitch map")
    check(len(z) == 9 and np.all(status == 0), f"statuses {status}")
    check(np.all(np.abs(gap) <= 1e-9), f"placed tasks' smallest gaps {gap}")
    # Equal legs (thigh = shin, knee -0.4) put each foot on its leg's bisector, pitch + hip + knee/2
    # from vertical, at one distance from the hips: both touch where those angles are opposite,
    # pitch = -(hip_l + hip_r)/2 - knee/2 (equal hip sums give equal pitches, to round-off).
    closed_form = 0.2 - (hip_l + hip_r) / 2
    check(np.all(np.abs(pitch - closed_form) <= 1e-9) and np.all(z != -0.1),
          f"placed pitch {pitch} != the closed form {closed_form}, or root_z not moved")
    for t in range(len(z)):
        params = {"qpos.root_z": -0.1, "qpos.knee_l": -0.4, "qpos.knee_r": -0.4, "qvel.root_x": 0.5,
                  "qvel.root_z": -1.0, "qpos.hip_l": float(hip_l[t]), "qpos.hip_r": float(hip_r[t])}
        reply = resolve(simpact, params, place=("qpos.root_z", "qpos.root_pitch"))
        placed = reply["placed_qpos"]
        check(list(placed)[:3] == ["qpos.root_x", "qpos.root_z", "qpos.root_pitch"], f"placed_qpos {placed}")
        check(placed["qpos.root_z"] == z[t] and placed["qpos.root_pitch"] == pitch[t],
              f"task {t}: file placed ({z[t]!r}, {pitch[t]!r}) != resolve's ({placed['qpos.root_z']!r}, "
              f"{placed['qpos.root_pitch']!r})")
        check(placed["qpos.hip_l"] == hip_l[t] and placed["qpos.knee_r"] == -0.4, f"task {t}: {placed}")
    print(f"ok: /samples/placed_qpos.* of {len(z)} tasks equal resolve's placed_qpos bit for bit")


def hint_lines(stderr):
    return [line for line in stderr.splitlines() if "no task closed any contact" in line]


def no_contact(simpact, d):
    config = sc.write_config(IN_THE_AIR.format(biped=BIPED, axis="qpos.hip_l", values="[-0.5, 0.0, 0.5]"),
                             d, "air.yaml")
    for ranks in (0, 2):
        out = os.path.join(d, f"air{ranks}.h5")
        p = sc.run(simpact, config, out, ranks=ranks, threads=2)
        with h5py.File(out, "r") as f:
            status = f["samples/status"][...]
            xi = f["xi"][...]
            gaps = f["contacts/min_gap"][...]
            check(np.all(status == 5), f"statuses {status} (5 = no_contact)")
            legend = f["samples/status"].attrs["flag_meanings"]
            legend = legend.decode() if isinstance(legend, bytes) else legend
            check(legend.split()[5] == "no_contact", f"flag_meanings {legend!r}")
            check(np.all(np.isnan(xi)), f"/xi {xi} (must be NaN, not 0)")
            for name in ("xi_maps/outcome_set", "xi_maps/argmin_vs_argmax", "outcomes/unique", "outcomes/count"):
                check(np.all(np.isnan(f[name][...])), f"/{name} {f[name][...]}")
            check(np.all(f["status/no_contact"][...] == 1), "/status/no_contact")
            check(np.all(gaps > 0.05), f"gaps {gaps}")
        lines = hint_lines(p.stderr)
        check(len(lines) == 1, f"{ranks} ranks: expected one hint line on stderr, got {p.stderr!r}")
        line = lines[0]
        check(line.startswith("simpact: warning: ") and "place" in line and f"{gaps.min():.6g} m" in line,
              f"hint {line!r} must name the smallest gap {gaps.min():.6g} m and place")
        check("no task closed" not in p.stdout, "the hint belongs on stderr")
    print(f"ok: no contact closed: status no_contact, ξ NaN, one hint on stderr: {line}")

    # Some tasks touch (the torso lowered): no hint, and those tasks resolve.
    config = sc.write_config(IN_THE_AIR.format(biped=BIPED, axis="qpos.root_z", values="[0.0, -0.3]"),
                             d, "mixed.yaml")
    out = os.path.join(d, "mixed.h5")
    p = sc.run(simpact, config, out, threads=1)
    check(not hint_lines(p.stderr), f"a sweep where some task touches has no hint: {p.stderr!r}")
    with h5py.File(out, "r") as f:
        status = list(f["samples/status"][...])
        check(status[0] == 5 and status[1] != 5, f"statuses {status}")
        check(np.isnan(f["xi"][0]) and np.isfinite(f["xi"][1]), f"/xi {f['xi'][...]}")

    reply = resolve(simpact, {"qpos.knee_l": -0.4, "qpos.knee_r": -0.4, "qvel.root_z": -1.0})
    check(reply["status"] == "no_impact" and reply["xi"] is None and reply["unique"] is None
          and reply["closed_contacts"] == [], f"resolve of feet in the air: {reply['status']}, xi {reply['xi']}")
    check(reply["placed_qpos"]["qpos.root_z"] == 0.0, "placed_qpos without place is the state given")
    print("ok: resolve of feet in the air: status no_impact, xi null, unique null")


def design(simpact, d, request, *extra):
    path = os.path.join(d, "design.json")
    with open(path, "w") as f:
        json.dump(request, f)
    p = cli(simpact, ["design", path, *extra], cwd=d)
    return p, (json.loads(p.stdout) if p.stdout.strip() else None)


def designs(simpact, d):
    shutil.copy(BIPED, os.path.join(d, "biped.xml"))
    with open(os.path.join(MECHANISMS, "biped_design.json")) as f:
        base = json.load(f)

    p, r = design(simpact, d, base)
    check(p.returncode == 0, f"biped_design.json exited {p.returncode}: {p.stderr}")
    pl = r["placement"]
    optimized = r["rows"][1]["configuration"]
    check(r["placed_qpos"] == optimized, "placed_qpos is the optimized row's configuration")
    pitch = pl["coordinates"]["qpos.root_pitch"]
    check(pitch["start"] == 0.0 and pitch["initial"] == r["rows"][0]["configuration"]["qpos.root_pitch"]
          and pitch["optimized"] == optimized["qpos.root_pitch"] and pitch["units"] == "rad", f"{pitch}")
    check(pl["coordinates"]["qpos.root_z"]["start"] == -0.1, f"{pl['coordinates']['qpos.root_z']}")
    check(not pl["far"] and pl["max_place_change"] == 1.0 and pl["max_angle_coordinate"] == "qpos.root_pitch"
          and abs(pl["max_angle_change"] - abs(optimized["qpos.root_pitch"])) < 1e-15, f"{pl}")
    print(f"ok: design reports its placement branch (pitch 0 -> {pitch['optimized']:.3f} rad, not far)")

    # From a level start the solve converges with the trunk pitched 97°: flagged, exit 1.
    far = dict(base, params=dict(base["params"], **{"qpos.hip_l": 0.6, "qpos.hip_r": 0.5}),
               free={"qpos.root_z": {}, "qpos.root_pitch": {}, "qpos.knee_r": {}})
    p, r = design(simpact, d, far)
    check(p.returncode == 1 and r["status"] == "converged", f"far branch: exit {p.returncode}, {p.stderr}")
    pl = r["placement"]
    check(pl["far"] and pl["max_angle_coordinate"] == "qpos.root_pitch" and pl["max_angle_change"] > 1.2,
          f"{pl}")
    check(pl["coordinates"]["qpos.root_pitch"]["start"] == 0.0, f"{pl}")
    lines = p.stderr.strip().splitlines()
    check(len(lines) == 1 and "qpos.root_pitch" in lines[0] and "max_place_change" in lines[0],
          f"far branch stderr {p.stderr!r}")
    p, r = design(simpact, d, dict(far, max_place_change=2.0))
    check(p.returncode == 0 and not r["placement"]["far"], f"max_place_change 2: exit {p.returncode}")
    print(f"ok: a far placement branch ({math.degrees(pl['max_angle_change']):.0f} deg) is flagged: exit 1")

    # A stall against hip_r's bound lists it (hip_r ends 4e-10 inside -0.5).
    bounded = dict(base, free=dict(base["free"], **{"qpos.hip_r": {"min": -0.5, "max": 1.2}}))
    p, r = design(simpact, d, bounded)
    check(p.returncode == 1 and r["status"] != "converged", f"bounded design: exit {p.returncode}")
    check(r["at_bound"] == ["qpos.hip_r"], f"at_bound {r['at_bound']} (hip_r ends at "
          f"{r['rows'][1]['configuration']['qpos.hip_r']!r}, its bound -0.5)")
    print(f"ok: a stall at a bound lists it: at_bound {r['at_bound']}")

    for request, field in ((dict(base, max_place_change=-1), "max_place_change"),
                           ({"model": "trex", "max_place_change": 1.0}, "max_place_change")):
        p, _ = design(simpact, d, request)
        lines = p.stderr.strip().splitlines()
        check(p.returncode == 2 and len(lines) == 1 and field in lines[0] and not p.stdout,
              f"{request}: exit {p.returncode}, {p.stderr!r}")
    print("ok: bad max_place_change: exit 2 naming it")


def refusals(simpact, d):
    config = sc.write_config(PLACED.format(biped=BIPED).replace("qpos.hip_r: [-0.55, 0.05, 0.65]",
                                                                 "qpos.root_pitch: [0.0, 0.1]"), d, "axis.yaml")
    out = os.path.join(d, "axis.h5")
    p = sc.run(simpact, config, out, check=False)
    lines = p.stderr.strip().splitlines()
    check(p.returncode == 2 and len(lines) == 1 and "grid.qpos.root_pitch" in lines[0] and "place" in lines[0],
          f"a place coordinate as a grid axis: exit {p.returncode}, {p.stderr!r}")
    check(not os.path.exists(out), "no output file after a refusal")
    print(f"ok: {lines[0]}")


def main():
    simpact = os.path.abspath(sys.argv[1])
    d = sc.tempdir()
    try:
        placed_equals_resolve(simpact, d)
        no_contact(simpact, d)
        designs(simpact, d)
        refusals(simpact, d)
    finally:
        shutil.rmtree(d, ignore_errors=True)
    print("PASS")


if __name__ == "__main__":
    main()
