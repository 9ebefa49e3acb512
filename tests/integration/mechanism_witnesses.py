"""Contacts as the robot has them (issue 34 §3), end to end with the real `simpact`:
* `resolve examples/mechanisms/hopper.json` (a URDF robot, its contact named by link) answers with
  contact_points naming the pair, the witness on the ground and the normal; `simpact models
  hopper.urdf` lists each link with its geoms;
* a leg with a box foot placed flat: 4 contact_points at the sole's corners (closed forms), one
  per impulse; `witnesses: deepest`: 1;
* a sweep over the foot's pitch stores contacts/closed per task (4 flat and at ±1e-9 rad, 2 at
  0.1 rad: the heel edge; 1 everywhere under model.witnesses: deepest), and ξ at ±1e-9 rad
  equals ξ flat to 1e-6;
* bad input, one line naming the field, exit 2, nothing on stdout / no output file: a link that
  does not exist, a body with itself, witnesses over the cap of 8 (naming the pair and the count),
  witnesses other than all/deepest (request and config).

usage: mechanism_witnesses.py SIMPACT"""
import json
import os
import sys
import tempfile

import h5py
import numpy as np

import sweep_common as sc

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MECHANISMS = os.path.join(ROOT, "examples", "mechanisms")

LEG = """<mujoco><option gravity="0 0 0"/><worldbody>
<geom name="floor" type="plane" size="5 5 0.1"/>
<body name="hip" pos="0 0 0.6">
  <joint name="z" type="slide" axis="0 0 1"/><joint name="x" type="slide" axis="1 0 0"/>
  <inertial pos="0 0 0" mass="5" diaginertia="0.1 0.1 0.1"/>
  <body name="leg"><joint name="pitch" type="hinge" axis="0 1 0"/>
    <geom name="shank" type="capsule" fromto="0 0 0 0 0 -0.5" size="0.02" mass="1"/>
    <geom name="foot" type="box" pos="0.03 0 -0.52" size="0.1 0.04 0.02" mass="0.5"/>
  </body>
</body>
<body name="sled" pos="2 0 0.03"><freejoint name="root"/>
  <geom name="a" type="box" pos="-0.3 0 0" size="0.1 0.06 0.03" mass="1"/>
  <geom name="b" type="box" pos="0 0 0" size="0.1 0.06 0.03" mass="1"/>
  <geom name="c" type="box" pos="0.3 0 0" size="0.1 0.06 0.03" mass="1"/>
</body></worldbody></mujoco>
"""

SWEEP = """model:
  file: leg.xml
  contacts: [[foot, floor]]
  place: [qpos.z]
  witnesses: {witnesses}
params: {{qvel.z: -1.0, qvel.x: 0.3, qvel.pitch: 0.5, restitution: 0.5}}
grid:
  qpos.pitch: [-1.0e-9, 0.0, 1.0e-9, 0.1]
"""


fail, check, cli = sc.fail, sc.check, sc.cli


def leg_request(d, pitch=0.0, witnesses="all", contacts=(("foot", "floor"),)):
    return {"mechanism": {"file": os.path.join(d, "leg.xml"), "contacts": [list(c) for c in contacts],
                          "place": ["qpos.z"], "witnesses": witnesses},
            "params": {"qpos.pitch": pitch, "qvel.z": -1.0, "qvel.x": 0.3, "qvel.pitch": 0.5},
            "restitution": 0.5}


def resolve(simpact, request):
    p = cli(simpact, ["resolve", "-"], stdin=json.dumps(request))
    if p.returncode != 0:
        fail(f"resolve exited {p.returncode}: {p.stderr}")
    return json.loads(p.stdout)


def refused(simpact, request, field, words):
    p = cli(simpact, ["resolve", "-"], stdin=json.dumps(request))
    lines = p.stderr.strip().splitlines()
    check(p.returncode == 2, f"{field}: exit {p.returncode}, expected 2 ({p.stderr})")
    check(len(lines) == 1 and field in lines[0] and all(w in lines[0] for w in words),
          f"{field}: expected one line naming it with {words}, got {p.stderr!r}")
    check(p.stdout == "", f"{field}: stdout not empty: {p.stdout!r}")
    print(f"ok: refused: {lines[0]}")


def main():
    simpact = os.path.abspath(sys.argv[1])
    # The shipped URDF example, named by link.
    p = cli(simpact, ["resolve", os.path.join(MECHANISMS, "hopper.json")])
    check(p.returncode == 0, f"hopper.json: exit {p.returncode}: {p.stderr}")
    hopper = json.loads(p.stdout)
    points = hopper["contact_points"]
    check(len(points) == 1 and points[0]["pair"] == ["shin", "ground"], f"hopper contact_points {points}")
    check(abs(points[0]["gap"]) < 1e-8 and abs(points[0]["position"][2]) < 1e-8,
          f"hopper witness not on the ground: {points[0]}")
    check(np.allclose(points[0]["normal"], [0, 0, -1], atol=1e-12), f"hopper normal {points[0]['normal']}")
    check(hopper["status"] == "ok" and hopper["unique"], f"hopper status {hopper['status']}")
    listing = cli(simpact, ["models", os.path.join(MECHANISMS, "hopper.urdf")])
    check(listing.returncode == 0 and "  body shin: #3 (cylinder), #4 (sphere)\n" in listing.stdout,
          f"models hopper.urdf: {listing.stdout}")
    print(f"ok: hopper.urdf by link: witness {points[0]['position']}, ξ {hopper['xi']}")

    with tempfile.TemporaryDirectory(prefix="simpact-witnesses-") as d:
        with open(os.path.join(d, "leg.xml"), "w") as f:
            f.write(LEG)
        flat = resolve(simpact, leg_request(d))
        corners = sorted((round(c["position"][0], 9), round(c["position"][1], 9)) for c in flat["contact_points"])
        check(corners == [(-0.07, -0.04), (-0.07, 0.04), (0.13, -0.04), (0.13, 0.04)],
              f"flat box foot: witnesses {corners}")
        check(flat["contacts"] == 4 and flat["closed_contacts"] == [0, 1, 2, 3],
              f"flat box foot: {flat['contacts']} rows, closed {flat['closed_contacts']}")
        check(all(len(o["impulses"]) == 4 for o in flat["outcomes"]), "impulses are not one per contact point")
        deepest = resolve(simpact, leg_request(d, witnesses="deepest"))
        check(deepest["contacts"] == 1 and len(deepest["contact_points"]) == 1, "witnesses: deepest: not 1 row")
        for tilt in (-1e-9, 1e-9):
            tilted = resolve(simpact, leg_request(d, pitch=tilt))
            check(abs(tilted["xi"] - flat["xi"]) <= 1e-6 and tilted["contacts"] == 4,
                  f"tilt {tilt}: ξ {tilted['xi']} against {flat['xi']} flat, {tilted['contacts']} rows")
        print(f"ok: box foot flat: 4 corners, ξ {flat['xi']:.10f} (±1e-9 rad within 1e-6); deepest: 1")

        # Sweeps store the closed witness count.
        for witnesses, expected in (("all", [4, 4, 4, 2]), ("deepest", [1, 1, 1, 1])):
            config = os.path.join(d, f"sweep_{witnesses}.yaml")
            with open(config, "w") as f:
                f.write(SWEEP.format(witnesses=witnesses))
            out = os.path.join(d, f"sweep_{witnesses}.h5")
            sc.run(simpact, config, out, threads=1)
            with h5py.File(out, "r") as f:
                closed = f["contacts/closed"][...].ravel().tolist()
                xi = f["xi"][...].ravel()
            check(closed == expected, f"witnesses {witnesses}: contacts/closed {closed}, expected {expected}")
            if witnesses == "all":
                check(np.all(np.abs(xi[:3] - xi[1]) <= 1e-6), f"sweep ξ through flat {xi[:3]}")
            print(f"ok: sweep witnesses: {witnesses}: contacts/closed {closed}")
        bad = os.path.join(d, "bad.yaml")
        with open(bad, "w") as f:
            f.write(SWEEP.format(witnesses="every"))
        p = sc.run(simpact, bad, os.path.join(d, "bad.h5"), threads=1, check=False)
        check(p.returncode == 2 and "model.witnesses" in p.stderr and not os.path.exists(os.path.join(d, "bad.h5")),
              f"model.witnesses: every: exit {p.returncode}: {p.stderr}")
        print(f"ok: refused: {p.stderr.strip().splitlines()[0]}")

        # Bad input: one line naming the field, exit 2.
        hopper_request = {"mechanism": {"file": os.path.join(MECHANISMS, "hopper.urdf"),
                                        "contacts": [["shank", "ground"]]}}
        refused(simpact, hopper_request, "mechanism.contacts[0][0]", ["unknown geom or body 'shank'", "shin"])
        hopper_request["mechanism"]["contacts"] = [["shin", "body:shin"]]
        refused(simpact, hopper_request, "mechanism.contacts[0]", ["a body cannot touch itself"])
        sled = {"mechanism": {"file": os.path.join(d, "leg.xml"), "contacts": [["sled", "floor"]]},
                "params": {"qvel.root[2]": -1.0}}
        refused(simpact, sled, "mechanism.contacts[0]", ["'sled'–'floor' has 12 witness points", "at most 8"])
        refused(simpact, leg_request(d, witnesses="every"), "mechanism.witnesses", ["'all' or 'deepest'"])


if __name__ == "__main__":
    main()
