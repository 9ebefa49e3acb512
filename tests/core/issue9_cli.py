#!/usr/bin/python3
"""Issue 9 at the JSON level: `simpact resolve` on the edge cases (standard library only).

issue9_cli.py SIMPACT
  * billiards θ = 3.14, r_c = 0.01: default limits → cap_hit, xi and xi_argmin_argmax null
    (NaN), never 0; larger limits → ok, ξ = 4.99843242e-5 (independent 50-digit mpmath
    enumeration), though `resolve` also asks for Definition 1 verdicts that cannot be checked;
    minimality definition1 → cap_hit, xi null;
  * negative gap: contact 1 closed and listed in penetrating_contacts, outcome [0, 0, 1];
  * magnitudes outside [1e-60, 1e60]: exit code 2 and a message naming momentum / mass_matrix.
"""
import json
import subprocess
import sys

XI = 4.99843242203485e-5
LIMITS = {"max_depth": 5000, "max_steps": 5000, "max_nodes": 1000000}


def resolve(simpact, doc):
    out = subprocess.run([simpact, "resolve", "-"], input=json.dumps(doc), capture_output=True, text=True,
                         check=False)
    return out.returncode, out.stdout, out.stderr


def main():
    simpact = sys.argv[1]
    failures = []

    def expect(cond, what):
        if not cond:
            failures.append(what)

    billiards = {"model": "billiards", "params": {"theta": 3.14, "r_c": 0.01}}
    rc, out, err = resolve(simpact, billiards)
    d = json.loads(out)
    expect(rc == 0, f"billiards default: exit {rc} {err}")
    expect(d["status"] == "cap_hit", f"billiards default: status {d['status']}")
    expect(d["xi"] is None and d["xi_argmin_argmax"] is None, f"billiards default: xi {d['xi']}")

    rc, out, err = resolve(simpact, dict(billiards, limits=LIMITS))
    d = json.loads(out)
    expect(d["status"] == "ok", f"billiards large limits: status {d['status']} caps {d['caps']}")
    expect(d["xi"] is not None and abs(d["xi"] - XI) <= 1e-6 * XI, f"billiards large limits: xi {d['xi']}")
    expect(d["outcome_count"] == 2, f"billiards large limits: {d['outcome_count']} outcomes")

    rc, out, err = resolve(simpact, dict(billiards, limits=LIMITS, minimality="definition1"))
    d = json.loads(out)
    expect(d["status"] == "cap_hit" and d["xi"] is None, f"billiards definition1: {d['status']} xi {d['xi']}")
    expect(d["caps"]["definition1_cap_hit"], "billiards definition1: definition1_cap_hit false")

    cradle = {"mass_matrix": [[1, 0, 0], [0, 1, 0], [0, 0, 1]], "normals": [[-1, 1, 0], [0, -1, 1]],
              "momentum": [1, 0, 0], "gaps": [0, -0.001]}
    rc, out, err = resolve(simpact, cradle)
    d = json.loads(out)
    expect(d["penetrating_contacts"] == [1], f"gaps: penetrating_contacts {d['penetrating_contacts']}")
    expect(d["closed_contacts"] == [0, 1], f"gaps: closed_contacts {d['closed_contacts']}")
    expect(d["outcome_count"] == 1 and max(abs(a - b) for a, b in zip(d["outcomes"][0]["momentum"], [0, 0, 1]))
           < 1e-14, f"gaps: outcomes {d['outcomes']}")

    bad = [
        (dict(cradle, gaps=[0, 0], momentum=[1e200, 0, 0]), "momentum"),
        ({"model": "billiards", "params": {"theta": 2.0, "speed": 1e60}}, "momentum"),
        ({"model": "billiards", "params": {"theta": 2.0, "speed": 1e-170}}, "momentum"),
        (dict(cradle, gaps=[0, 0], mass_matrix=[[1, 0, 0], [0, 1e-300, 0], [0, 0, 1]]), "mass_matrix"),
    ]
    for doc, field in bad:
        rc, out, err = resolve(simpact, doc)
        expect(rc == 2 and f"{field}:" in err and out == "", f"{doc}: exit {rc}, stderr {err!r}, stdout {out[:80]!r}")

    for line in failures:
        print("FAIL", line)
    print(f"issue9_cli: {len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
