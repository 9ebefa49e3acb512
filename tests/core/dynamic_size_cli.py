#!/usr/bin/python3
"""The dynamic-size path through `simpact resolve` and `simpact check` (standard library only).

dynamic_size_cli.py SIMPACT
  * {"model": "cradle", "params": {"n": 20}}: 20 equal balls, 19 contacts (beyond the fixed 16/8):
    the outcome is [0, ..., 0, 1], unique; R = 0: every ball at 1/20;
  * a raw 60-DOF request (60 equal balls, 59 normals, velocity [1, 0, ...]): the last ball leaves
    with the first one's velocity; `check` of that answer is consistent;
  * 9 closed contacts in d = 11 (an 8-ball cradle and 3 touching spectators) agree with the
    8-ball cradle alone (fixed path);
  * beyond the hard limits (d = 1025, 256 closed contacts): exit code 2, one line naming the field.
"""
import json
import subprocess
import sys


def run(simpact, command, doc):
    out = subprocess.run([simpact, command, "-"], input=json.dumps(doc), capture_output=True, text=True,
                         check=False)
    return out.returncode, out.stdout, out.stderr


def line(n):
    return [[(-1.0 if j == i else 1.0 if j == i + 1 else 0.0) for j in range(n)] for i in range(n - 1)]


def identity(n, scale=1.0):
    return [[(scale if i == j else 0.0) for j in range(n)] for i in range(n)]


def main():
    simpact = sys.argv[1]
    failures = []

    def expect(cond, what):
        if not cond:
            failures.append(what)

    def close(a, b, tol=1e-12):
        return len(a) == len(b) and all(abs(x - y) <= tol for x, y in zip(a, b))

    for restitution, want in ((1.0, [0.0] * 19 + [1.0]), (0.0, [1.0 / 20] * 20)):
        rc, out, err = run(simpact, "resolve", {"model": "cradle", "params": {"n": 20},
                                                "restitution": restitution})
        expect(rc == 0, f"cradle 20 R={restitution}: exit {rc} {err}")
        if rc == 0:
            d = json.loads(out)
            expect(d["dof"] == 20 and len(d["closed_contacts"]) == 19, f"cradle 20: {d['dof']}")
            expect(d["status"] == "ok" and d["unique"], f"cradle 20 R={restitution}: {d['status']}")
            expect(close(d["outcomes"][0]["momentum"], want), f"cradle 20 R={restitution}: outcome")
            expect(d["xi"] == 0.0 and d["xi_argmin_argmax"] == 0.0, "cradle 20: xi")

    n = 60
    raw = {"mass_matrix": identity(n, 2.0), "normals": line(n), "velocity": [1.0] + [0.0] * (n - 1)}
    rc, out, err = run(simpact, "resolve", raw)
    expect(rc == 0, f"60 balls: exit {rc} {err}")
    if rc == 0:
        d = json.loads(out)
        expect(d["dof"] == 60 and d["status"] == "ok" and d["unique"], "60 balls: status")
        expect(close(d["outcomes"][0]["velocity"], [0.0] * 59 + [1.0]), "60 balls: last ball leaves at v")
        expect(abs(d["outcomes"][0]["energy"] - d["energy_before"]) <= 1e-12 * d["energy_before"],
               "60 balls: energy")
        check = dict(raw, momentum_after=d["outcomes"][0]["momentum"])
        rc, out, err = run(simpact, "check", check)
        expect(rc == 0 and json.loads(out)["consistent_with_propagative_model"], f"60 balls: check {err}")

    masses = [1.0, 3.0, 1.0, 3.0, 1.0, 3.0, 1.0, 1.0]
    speeds = [1.0] + [0.0] * 7
    small = {"mass_matrix": [[m if i == j else 0.0 for j in range(8)] for i, m in enumerate(masses)],
             "normals": line(8), "velocity": speeds}
    big_m = [row + [0.0] * 3 for row in small["mass_matrix"]] + \
        [[0.0] * (8 + k) + [1.0] + [0.0] * (2 - k) for k in range(3)]
    big_normals = [row + [0.0] * 3 for row in line(8)] + [[0.0] * 8 + r for r in line(3)]
    big = {"mass_matrix": big_m, "normals": big_normals, "velocity": speeds + [0.0] * 3}
    outs = []
    for doc in (small, big):
        rc, out, err = run(simpact, "resolve", doc)
        expect(rc == 0, f"embedded cradle: exit {rc} {err}")
        outs.append(json.loads(out) if rc == 0 else None)
    if all(outs):
        a, b = outs
        expect(len(b["closed_contacts"]) == 9, "embedded cradle: 9 closed contacts")
        expect(a["outcome_count"] == b["outcome_count"] and a["outcome_count"] > 1, "embedded: outcome count")
        expect(abs(a["xi"] - b["xi"]) <= 1e-13, f"embedded: xi {a['xi']} vs {b['xi']}")
        for oa, ob in zip(a["outcomes"], b["outcomes"]):
            expect(close(oa["momentum"], ob["momentum"][:8], 1e-13) and ob["momentum"][8:] == [0.0] * 3,
                   "embedded: outcome momenta")

    too_big = {"mass_matrix": identity(1025), "normals": [[1.0] + [0.0] * 1024],
               "momentum": [-1.0] + [0.0] * 1024}
    many = {"mass_matrix": identity(2), "normals": [[1.0, 0.001 * i] for i in range(256)], "momentum": [-1.0, 0.0]}
    for doc, field in ((too_big, "mass_matrix"), (many, "normals")):
        rc, out, err = run(simpact, "resolve", doc)
        lines = err.strip().splitlines()
        expect(rc == 2 and len(lines) == 1 and field in lines[0], f"limit {field}: exit {rc}, {err!r}")

    if failures:
        print("FAILED:\n  " + "\n  ".join(failures))
        sys.exit(1)
    print("ok: 20- and 60-ball cradles, embedded 8-ball cradle, hard limits through simpact resolve/check")


if __name__ == "__main__":
    main()
