#!/usr/bin/env python3
"""Issue 23 §2: no_elastic_outcome decided on the subset of closed normals that matters. A slot
(normals +e1, -e1) and a floor (e2), unit mass: with p- = (-1, 0.5) the slot's pair positively
spans the e1 line and every elastic reflection keeps |v_1| = 1, so no elastic outcome exists. All
three normals do not positively span, so the old test missed it and the enumeration ran to its
cap (cap_hit, advice to raise limits that could never help). Now: status no_elastic_outcome, at
once, and the plastic outcome p_p = (0, 0.5), E = 0.125 (closed form). Controls: p- = (0, -1)
(only the floor approached, v_1 = 0) has the elastic outcome (0, 1); the slot alone with
p- = (-1, 0) stays no_elastic_outcome.

    no_elastic_subset.py SIMPACT"""
import json
import subprocess
import sys


def fail(msg):
    sys.exit(f"FAIL: {msg}")


def resolve(request):
    p = subprocess.run([sys.argv[1], "resolve", "-"], input=json.dumps(request), capture_output=True, text=True,
                       timeout=60)
    return p.returncode, json.loads(p.stdout) if p.stdout.strip() else {}, p.stderr


slot_floor = {"mass_matrix": [[1, 0], [0, 1]], "normals": [[1, 0], [-1, 0], [0, 1]], "restitution": 1}
rc, out, err = resolve({**slot_floor, "momentum": [-1, 0.5]})
if out.get("status") != "no_elastic_outcome":
    fail(f"slot + floor, p- = (-1, 0.5): status {out.get('status')} (rc {rc}), expected no_elastic_outcome {err}")
plastic = out["plastic"]
if max(abs(a - b) for a, b in zip(plastic["momentum"], [0.0, 0.5])) > 1e-12 or abs(plastic["energy"] - 0.125) > 1e-12:
    fail(f"slot + floor: plastic outcome {plastic}")
print(f"ok: slot + floor, p- = (-1, 0.5): no_elastic_outcome (rc {rc}), p_p = {plastic['momentum']}")

rc, out, err = resolve({**slot_floor, "momentum": [0, -1]})
if out.get("status") != "ok" or not out["outcomes"] or \
        max(abs(a - b) for a, b in zip(out["outcomes"][0]["momentum"], [0.0, 1.0])) > 1e-12:
    fail(f"slot + floor, p- = (0, -1): expected the elastic outcome (0, 1): {out.get('status')} {err}")
print("ok: slot + floor, p- = (0, -1): elastic outcome (0, 1)")

rc, out, err = resolve({"mass_matrix": [[1, 0], [0, 1]], "normals": [[1, 0], [-1, 0]], "restitution": 1,
                        "momentum": [-1, 0]})
if out.get("status") != "no_elastic_outcome":
    fail(f"slot alone: status {out.get('status')}")
print("ok: slot alone, p- = (-1, 0): no_elastic_outcome")
