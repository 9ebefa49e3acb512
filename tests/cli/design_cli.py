#!/usr/bin/env python3
"""`simpact design` end to end (issue 14): Table I's two rows on the real program.

    design_cli.py SIMPACT EXAMPLES_DIR
The example places Table I's "Initial" row (both contacts closed, normalized <u,v>_g clearly
non-zero), then reaches |<u,v>_g| < 1e-9 with both gaps below 1e-12 m inside the bounds; the
output is byte-identical on a second run; --table prints both rows; bad input exits 2 naming the
field; a solve that cannot converge writes its rows and exits 1. Exits 1 listing failed checks.
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from checks import check, finish  # noqa: E402

SIMPACT, EXAMPLES = sys.argv[1], sys.argv[2]


def run(args, stdin=None):
    return subprocess.run([SIMPACT, "design"] + args, input=stdin, capture_output=True, text=True, timeout=60)


example = EXAMPLES + "/design_trex.json"
p = run([example])
check(p.returncode == 0, f"example exits 0 ({p.stderr.strip()})")
out = json.loads(p.stdout)
initial, optimized = out["rows"]
check(initial["name"] == "initial" and optimized["name"] == "optimized", "two rows, initial then optimized")
check(out["status"] == "converged" and optimized["status"] == "converged", "converged")
print(f"initial normalized <u,v>_g = {initial['normalized_product']:.4e}, "
      f"optimized = {optimized['normalized_product']:.3e} after {out['iterations']} iterations")
check(abs(initial["normalized_product"]) > 1e-4, "Table I Initial placed: |normalized <u,v>_g| > 1e-4")
check(all(abs(g) < 1e-12 for g in initial["gaps"].values()), f"initial row: both contacts closed {initial['gaps']}")
check(abs(optimized["normalized_product"]) < 1e-9, "optimized: |normalized <u,v>_g| < 1e-9")
check(all(abs(g) < 1e-12 for g in optimized["gaps"].values()), f"optimized: both gaps < 1e-12 m {optimized['gaps']}")
check(set(optimized["gaps"]) == {"foot_R", "tail"}, "the right foot and the tail")
request = json.load(open(example))
values = dict(optimized["configuration"], **optimized["design"])
for name, b in request["free"].items():
    check(b.get("min", -1e300) <= values[name] <= b.get("max", 1e300), f"{name} = {values[name]} within bounds")
check(optimized["configuration"]["x"] == request["configuration"]["x"], "x (not free) unchanged")
for key in ("tail_length", "metric_product", "points"):
    check(key in optimized, f"row has '{key}'")
check({"anterior", "posterior", "foot_R", "tail_tip"} <= set(optimized["points"]), "drawing points")
check(abs(optimized["points"]["foot_R"][1]) < 1e-12, "the drawn right foot is on the floor")
again = run([example])
check(again.stdout == p.stdout, "repeated run: byte-identical output")

t = run([example, "--table"])
lines = t.stdout.splitlines()
check(t.returncode == 0 and len(lines) == 4 and lines[2].startswith("initial") and lines[3].startswith("optimized"),
      "--table: header, units, two rows")

bad = [('{"model": "tree8"}', "model"), ('{"model": "trex", "foot": "middle"}', "foot"),
       ('{"model": "trex", "free": {"nose": {}}}', "free.nose"),
       ('{"model": "trex", "free": {"r1": {"min": 0.08}}}', "free.r1"),
       ('{"model": "trex", "design": {"r2": 0.09}}', "design.r2"),
       ('{"model": "trex", "place": ["y", "wing"]}', "place[1]"),
       ('{"model": "trex", "max_iterations": 0}', "max_iterations"),
       ('{"model": "trex", "free": {"r1": {"scale": -1}}}', "free.r1.scale")]
for text, field in bad:
    b = run(["-"], stdin=text)
    check(b.returncode == 2 and b.stderr.startswith(f"simpact: error: {field}:") and b.stdout == "",
          f"{text} -> exit 2 naming {field} ({b.returncode}: {b.stderr.strip()})")

# Only the design lengths within 1 mm and one iteration: cannot converge; rows written, exit 1.
stuck = {"model": "trex", "free": {"l_u": {"min": 0.0799, "max": 0.0801}}, "max_iterations": 1}
s = run(["-"], stdin=json.dumps(stuck))
doc = json.loads(s.stdout) if s.stdout else {}
check(s.returncode == 1 and doc.get("status") in ("stalled", "max_iterations") and "did not converge" in s.stderr,
      f"no convergence: rows written, exit 1 ({s.returncode}: {s.stderr.strip()})")

# A placed free joint's quaternion: the reply's placed_qpos is a configuration `resolve` takes as
# it is (unit quaternion), and the resolved touchdown has both diagonal feet closed.
quadruped = os.path.join(EXAMPLES, "..", "..", "examples", "mechanisms", "quadruped_design.json")
q = run([quadruped])
placed = json.loads(q.stdout)["placed_qpos"] if q.returncode == 0 else {}
norm = sum(placed.get(f"qpos.root[{k}]", 0.0) ** 2 for k in range(3, 7)) ** 0.5
check(q.returncode == 0 and abs(norm - 1.0) < 4e-16, f"quadruped design: placed quaternion of norm {norm!r}")
request = json.load(open(quadruped))
touchdown = {"mechanism": dict(request["mechanism"], file=os.path.abspath(os.path.join(
    os.path.dirname(quadruped), request["mechanism"]["file"]))), "params": placed, "ordering": "all"}
r = subprocess.run([SIMPACT, "resolve"], input=json.dumps(touchdown), capture_output=True, text=True, timeout=60)
reply = json.loads(r.stdout) if r.returncode == 0 else {}
check(r.returncode == 0 and len(reply.get("closed_contacts", [])) == 2,
      f"resolve takes the designed configuration: exit {r.returncode} {r.stderr.strip()}")

finish("design checks")
