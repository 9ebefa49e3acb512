#!/usr/bin/env python3
"""`simpact simulate` end to end: the JSON contract of issue 12 on the real program.

    simulate_cli.py SIMPACT EXAMPLES_DIR
Checks the cradle example (ends at [0, 0, v], energy kept), a chain run with records every N
steps, the ball coming to rest with a plastic Zeno impact, and bad input: exit 2 with one line
naming the field. Exits 1 listing the failed checks.
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from checks import check, finish  # noqa: E402

SIMPACT, EXAMPLES = sys.argv[1], sys.argv[2]


def run(args, stdin=None):
    return subprocess.run([SIMPACT, "simulate"] + args, input=stdin, capture_output=True, text=True, timeout=120)


p = run([EXAMPLES + "/simulate_cradle.json"])
check(p.returncode == 0, f"cradle example exits 0 ({p.stderr.strip()})")
out = json.loads(p.stdout)
for key in ("records", "impacts", "max_energy_drift", "newton", "status"):
    check(key in out, f"output has '{key}'")
last = out["records"][-1]
check(last["step"] == 200 and abs(last["t"] - 0.2) < 1e-12, "last record is step 200 at t = 0.2")
check(max(abs(a - b) for a, b in zip(last["p"], [0, 0, 1])) < 1e-9, f"cradle ends at p = [0, 0, 1]: {last['p']}")
check(abs(last["energy"] - 0.5) < 1e-9, "energy kept")
imp = out["impacts"]
check(len(imp) == 1 and imp[0]["contacts"] == [0, 1] and not imp[0]["plastic"], f"one elastic impact on both contacts")
check(abs(imp[0]["energy_before"] - imp[0]["energy_after"]) < 1e-12, "elastic impact keeps energy")
check(out["newton"]["max"] >= 0 and out["status"] == "ok", "newton stats and status")

chain = {"model": "chain", "params": {"n": 4, "link_length": 1, "mass": 1, "g": 9.81}, "q0": [0.3] * 4,
         "p0": [0] * 4, "dt": 0.001, "steps": 1000, "record": {"every": 250}}
p = run([], json.dumps(chain))
out = json.loads(p.stdout)
check([r["step"] for r in out["records"]] == [0, 250, 500, 750, 1000], "record every 250 steps")
check(out["max_energy_drift"] < 1e-4 * abs(out["records"][0]["energy"]), "chain energy drift small")
check(out["newton"]["mean"] >= 1 and out["newton"]["max"] <= 5, f"newton {out['newton']}")
# V = Σ m g y with y = 0 at the pivot: all links at 0.3 rad relative → absolute 0.3, 0.6, 0.9, 1.2
import math
v0 = -9.81 * sum(sum(math.cos(0.3 * (k + 1)) for k in range(j + 1)) for j in range(4))
check(abs(out["records"][0]["energy"] - v0) < 1e-12, f"chain V(q0) = {v0}")

ball = {"model": "ball", "params": {"radius": 0.1, "height": 1}, "dt": 0.001, "t_end": 3,
        "restitution": 0.5, "record": {"steps": [3000]}}
p = run([], json.dumps(ball))
out = json.loads(p.stdout)
check(p.returncode == 0 and out["impacts"][-1]["plastic"] and out["impacts"][-1]["zeno"], "ball ends with a plastic Zeno impact")
check(abs(out["records"][-1]["q"][0] - 0.1) < 1e-9, "ball rests on the floor")

BAD = [
    ({"model": "chain", "steps": 10}, "dt"),
    ({"model": "chain", "dt": 0.001}, "steps"),
    ({"model": "chian", "dt": 0.001, "steps": 1}, "model"),
    ({"model": "chain", "params": {"n": 2.5}, "dt": 0.001, "steps": 1}, "params.n"),
    ({"model": "chain", "params": {"nn": 2}, "dt": 0.001, "steps": 1}, "params.nn"),
    ({"model": "chain", "q0": [1, 2, 3], "dt": 0.001, "steps": 1}, "q0"),
    ({"model": "chain", "dt": 0.001, "steps": 10, "record": {"steps": [20]}}, "record.steps[0]"),
    ({"model": "cradle", "dt": 0.001, "steps": 10, "ordering": "all"}, "ordering"),
    ({"model": "cradle", "dt": 0.001, "steps": 10, "restitution": 2}, "restitution"),
    ({"model": "cradle", "dt": 0.001, "t_end": 0.0105}, "t_end"),
    ({"model": "cradle", "dt": 0.001, "steps": 1, "newton": {"tol": 1}}, "newton.tol"),
    ({"model": "cradle", "dt": 0.001, "steps": 1, "newton": {"force_split": 0.4}}, "newton.force_split"),
    ({"model": "cradle", "dt": 0.001, "steps": 1, "q0": [0, 0.05, 0.1]}, "q0"),
    ({"model": "cradle", "dt": 0.001, "steps": 1, "stpes": 1}, "stpes"),
    # found by the simulate fuzzer (tests/fuzz/corpus/simulate/crash_*)
    ('{"model": "chain", "dt": 1e999, "steps": 10}', "dt"),
    ('{"model": "chain", "params": {"n": 2, "n": 16}, "dt": 0.01, "steps": 1}', "params.n"),
    ({"model": "chain", "dt": 1e-6, "steps": 1000000000, "record": {"every": 1}}, "record.every"),
    ({"model": "chain", "dt": 1e-300, "steps": 10}, "dt"),
    ({"model": "chain", "dt": 1e300, "steps": 10}, "dt"),
    ({"model": "cha\n\x1bin", "dt": 0.01, "steps": 1}, "model"),
    ({"model": "c" * 65, "dt": 0.01, "steps": 1}, "model"),
    ({"": 1, "model": "chain", "dt": 0.01, "steps": 1}, '""'),
    ({"model": "chain", "params": {"": 1}, "dt": 0.01, "steps": 1}, 'params.""'),
]
for doc, field in BAD:
    p = run([], doc if isinstance(doc, str) else json.dumps(doc))
    lines = [l for l in p.stderr.splitlines() if l.strip()]
    check(p.returncode == 2 and len(lines) == 1 and lines[0].startswith(f"simpact: error: {field}:"),
          f"bad {field}: exit 2, one line naming it ({p.returncode}, {p.stderr.strip()!r})")
p = run([], "{not json")
check(p.returncode == 2 and "input" in p.stderr, "invalid JSON: exit 2")
# newton.force_split reaches the integrator: the trex hips (K_v = 1e4 N m s) ring with the symmetric
# split θ = ½ and not with θ = 1, so the two runs end in different states; both are valid runs.
finals = []
for split in (0.5, 1.0):
    p = run([], json.dumps({"model": "trex", "params": {"drop": 0.001}, "dt": 1e-4, "steps": 200,
                            "newton": {"force_split": split}, "record": {"steps": [200]}}))
    check(p.returncode == 0, f"trex with force_split {split} exits 0 ({p.stderr.strip()!r})")
    finals.append(json.loads(p.stdout)["records"][-1]["p"] if p.returncode == 0 else None)
    if p.returncode == 0:  # "energy": where the energy went, by source, and what is left
        e = json.loads(p.stdout)["energy"]
        check(list(e["work"]) == ["springs", "dampers", "drives", "force_split", "resting_contacts", "friction",
                                  "impacts_elastic", "impacts_plastic"], f"energy sources {list(e['work'])}")
        booked = sum(e["work"].values()) + e["residual"]
        check(abs(booked - (e["final"] - e["initial"])) <= 1e-12 * e["initial"]
              and abs(e["relative_residual"]) < 1e-3 and (e["work"]["force_split"] == 0) == (split == 0.5),
              f"energy bookkeeping closes ({e})")
check(finals[0] is not None and finals[1] is not None and finals[0] != finals[1],
      "force_split 0.5 and 1 give different trajectories")
# `-o OUT.h5` writes HDF5: tests/cli/simulate_hdf5.py (h5py).
# Newton failure: a runtime error (exit 1) naming the step and the residual
p = run([], json.dumps({"model": "chain", "params": {"n": 4}, "q0": [0.3] * 4, "dt": 0.001, "steps": 5,
                        "newton": {"max_iterations": 1}}))
check(p.returncode == 1 and "step 1" in p.stderr and "residual" in p.stderr, f"Newton failure: exit 1 naming step and residual ({p.stderr.strip()!r})")
# A state that leaves the doubles: a runtime error (exit 1) naming the step and the time (was exit 0
# with q = null in the records)
p = run([], json.dumps({"model": "ball", "params": {"g": 0, "height": 1}, "v0": [1e300], "dt": 1e6, "steps": 200}))
check(p.returncode == 1 and len(p.stderr.strip().splitlines()) == 1
      and "step 180 (t = 180000000 s): the state is not finite" in p.stderr,
      f"non-finite state: exit 1 naming the step ({p.returncode}, {p.stderr.strip()!r})")

finish("simulate checks")
