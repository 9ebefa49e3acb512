"""The quadruped's trot touchdown map (configs/quadruped_trot.yaml, issue 34), end to end with the
real `simpact`, on a reduced grid of the shipped config (its file, contacts, placement and state):
* bit-identical at 1 rank x 1 thread and 2 ranks x 2 threads;
* every task placed with both diagonal feet closed (|gap| <= the tolerance), status ok, ξ finite in
  [0, 2], and the elastic touchdown (R = 1) loses no energy under argmin and argmax (1e-12);
* mirror symmetry: the other diagonal (fr and rl) with the mirrored posture gives the same ξ,
  trunk height and pitch (to round-off): the free joint's Jacobians, M(q) and the placement are
  checked against the robot's symmetry;
* the designed orthogonal touchdown (examples/mechanisms/quadruped_design.json) resolves, from the
  sweep's start state, with ξ = 0 and a unique outcome, while ξ > 1e-7 a few degrees away.

usage: quadruped_trot.py SIMPACT"""
import json
import os
import re
import shutil
import subprocess
import sys

import h5py
import numpy as np

import sweep_common as sc

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CONFIG = os.path.join(ROOT, "configs", "quadruped_trot.yaml")
QUADRUPED = os.path.join(ROOT, "examples", "mechanisms", "quadruped.xml")
DESIGN = os.path.join(ROOT, "examples", "mechanisms", "quadruped_design.json")


def fail(message):
    sys.exit(f"FAIL: {message}")


def check(condition, message):
    if not condition:
        fail(message)


def reduced(text):
    """The shipped config with an absolute file path and a 6 x 6 grid over the same ranges."""
    check("file: ../examples/mechanisms/quadruped.xml" in text, "configs/quadruped_trot.yaml: file")
    text = text.replace("file: ../examples/mechanisms/quadruped.xml", f"file: {QUADRUPED}")
    text, n = re.subn(r"(qpos\.(?:fl|rr)_hip: \{start: [-0-9.]+, stop: [-0-9.]+, num: )\d+", r"\g<1>6", text)
    check(n == 2, "configs/quadruped_trot.yaml: grid axes qpos.fl_hip and qpos.rr_hip")
    return text


def mirrored(text):
    """The other diagonal: fr and rl land in the mirrored posture, fl and rr swing."""
    swap = {"fl": "fr", "fr": "fl", "rl": "rr", "rr": "rl"}
    return re.sub(r"(?<=qpos\.)(fl|fr|rl|rr)(?=_)|(?<=foot_)(fl|fr|rl|rr)\b",
                  lambda m: swap[m.group(0)], text)


def results(path):
    with h5py.File(path, "r") as f:
        return {name: f[name][...] for name in
                ("xi", "samples/status", "samples/contacts_min_gap", "samples/energy_before",
                 "samples/energy_after_argmin", "samples/energy_after_argmax", "placed/qpos.root[2]",
                 "placed/qpos.root[5]", "samples/xi_maps_outcome_set")}


def main():
    simpact = os.path.abspath(sys.argv[1])
    d = sc.tempdir()
    try:
        run_checks(simpact, d)
    finally:
        shutil.rmtree(d, ignore_errors=True)
    print("PASS")


def run_checks(simpact, d):
    text = reduced(open(CONFIG).read())
    config = sc.write_config(text, d, "trot.yaml")
    one = os.path.join(d, "one.h5")
    two = os.path.join(d, "two.h5")
    sc.run(simpact, config, one, ranks=0, threads=1)
    sc.run(simpact, config, two, ranks=2, threads=2)
    sc.assert_identical(one, two, "quadruped trot: 1 rank x 1 thread vs 2 ranks x 2 threads")

    r = results(one)
    status, gap, xi = r["samples/status"], r["samples/contacts_min_gap"], r["xi"]
    check(status.size == 36 and np.all(status == 0), f"statuses {status}")
    check(np.all(np.abs(gap) <= 1e-9), f"smallest gaps {gap}")
    check(np.all(np.isfinite(xi)) and np.all((xi >= 0) & (xi <= 2)), f"ξ {xi}")
    check(np.ptp(xi) > 1e-4, f"ξ does not vary over the postures: {xi}")
    for o in ("argmin", "argmax"):
        e0, e1 = r["samples/energy_before"], r[f"samples/energy_after_{o}"]
        rel = np.max(np.abs(e1 - e0) / e0)
        check(rel <= 1e-12, f"R = 1: energy after {o} differs from before by {rel:.3g} relative")
    pitch = 2 * np.arcsin(r["placed/qpos.root[5]"])
    check(np.all(np.abs(pitch) < 0.5), f"placed pitch {pitch} rad: a far placement branch")
    print(f"ok: {status.size} touchdowns placed and closed, ξ in [{xi.min():.3g}, {xi.max():.3g}], "
          f"energy kept at R = 1")

    config_m = sc.write_config(mirrored(text), d, "mirror.yaml")
    check("[floor, foot_fr], [floor, foot_rl]" in mirrored(text), "mirrored contacts")
    mirror = os.path.join(d, "mirror.h5")
    sc.run(simpact, config_m, mirror, threads=2)
    m = results(mirror)
    # ξ to 1e-9 relative (of ξ's largest value here, ~3e-3); the placement to 1e-12 m and 1e-12.
    for name, tol in (("xi", 1e-9 * np.max(r["xi"])), ("placed/qpos.root[2]", 1e-12), ("placed/qpos.root[5]", 1e-12)):
        diff = np.max(np.abs(m[name] - r[name]))
        check(diff <= tol, f"mirror: /{name} differs by {diff:.3g} (tolerance {tol:.3g})")
    print(f"ok: the mirrored diagonal (fr, rl) gives the same ξ, trunk height and pitch "
          f"(ξ to {np.max(np.abs(m['xi'] - r['xi'])):.2g})")

    p = subprocess.run([simpact, "design", DESIGN], capture_output=True, text=True, timeout=120, env=sc.env(1))
    check(p.returncode == 0, f"design exited {p.returncode}: {p.stderr}")
    reply = json.loads(p.stdout)
    check(reply["status"] == "converged", f"design status {reply['status']}")
    designed = reply["placed_qpos"]["qpos.fl_hip"]
    check(-0.2 < designed < 0.0, f"designed fl_hip {designed}")
    request = json.load(open(DESIGN))
    params = dict(request["params"], **{"qvel.root[0]": 1.0, "qvel.root[2]": -0.5})
    mechanism = dict(request["mechanism"], file=QUADRUPED, place=request["place"])
    seen = {}
    for fl in (designed, designed - 0.05, designed + 0.05):
        q = subprocess.run([simpact, "resolve", "-"], input=json.dumps(
            {"mechanism": mechanism, "params": dict(params, **{"qpos.fl_hip": fl})}),
            capture_output=True, text=True, timeout=60, env=sc.env(1))
        check(q.returncode == 0, f"resolve at fl_hip {fl} exited {q.returncode}: {q.stderr}")
        seen[fl] = json.loads(q.stdout)
    at = seen[designed]
    check(at["unique"] is True and at["xi"] <= 1e-12, f"designed touchdown: unique {at['unique']}, ξ {at['xi']}")
    for fl in (designed - 0.05, designed + 0.05):
        check(seen[fl]["xi"] > 1e-7 and seen[fl]["unique"] is False,
              f"fl_hip {fl}: ξ {seen[fl]['xi']} (must be > 1e-7 off the designed posture)")
    print(f"ok: designed trot touchdown (fl_hip = {designed:.6f}) resolves with ξ = {at['xi']:.3g}, unique; "
          f"ξ = {seen[designed - 0.05]['xi']:.3g} and {seen[designed + 0.05]['xi']:.3g} at ±0.05 rad")


if __name__ == "__main__":
    main()
