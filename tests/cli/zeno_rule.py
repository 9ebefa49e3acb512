#!/usr/bin/env python3
"""Issue 23 §2: an elastic re-collision is not Zeno chatter. A billiards break with ball b offset by
0.1 mm: the cue ball hits a, then b, then a again 0.58 ms after its first impact — a real collision,
not chatter. The old rule (a contact hit again less than Δt after its last impact) made it plastic
for Δt ≥ 1 ms and energy was lost. Now, at Δt = 10 ms … 10 µs: three elastic impacts, no Zeno,
E_final/E_0 = 1 to 1e-9. The bouncing ball (R = 0.5) still chatters into one Zeno impact and comes
to rest on the floor (q = radius, E = m g r); the output reports the energy Zeno took.

    zeno_rule.py SIMPACT"""
import json
import subprocess
import sys


def fail(msg):
    sys.exit(f"FAIL: {msg}")


def simulate(request):
    p = subprocess.run([sys.argv[1], "simulate", "-"], input=json.dumps(request), capture_output=True, text=True,
                       timeout=120)
    if p.returncode != 0:
        fail(f"simulate {request}: exit {p.returncode}: {p.stderr}")
    return json.loads(p.stdout)


for dt in (1e-2, 1e-3, 1e-4, 1e-5):
    out = simulate({"model": "billiards", "params": {"offset": 1e-4, "theta": 2.5}, "dt": dt,
                    "steps": int(round(0.05 / dt)), "ordering": "argmin", "restitution": 1})
    seq = [i["contacts"] for i in out["impacts"]]
    if seq != [[0], [1], [0]]:
        fail(f"dt {dt}: impacts on {seq}, expected a, b, a")
    if any(i["zeno"] or i["plastic"] for i in out["impacts"]):
        fail(f"dt {dt}: an impact of the elastic break was made plastic: {out['impacts']}")
    ratio = out["energy"]["final"] / out["energy"]["initial"]
    if abs(ratio - 1) > 1e-9:
        fail(f"dt {dt}: E_final/E_0 = {ratio!r}")
    if out["zeno"] != {"impacts": 0, "energy_change": 0.0}:
        fail(f"dt {dt}: zeno report {out['zeno']}")
    print(f"ok: offset billiards, dt {dt:g}: a, b, a elastic, E_final/E_0 - 1 = {ratio - 1:.1e}")

m, g, r = 1.0, 9.81, 0.1
for dt in (1e-3, 1e-4):
    out = simulate({"model": "ball", "params": {"mass": m, "height": 1.0, "radius": r, "g": g}, "dt": dt,
                    "steps": int(round(3.0 / dt)), "ordering": "argmin", "restitution": 0.5,
                    "record": {"steps": [int(round(3.0 / dt))]}})
    zeno = [i for i in out["impacts"] if i["zeno"]]
    last = out["records"][-1]
    if len(zeno) != 1 or abs(last["q"][0] - r) > 1e-9 or abs(out["energy"]["final"] - m * g * r) > 1e-3 * m * g * r:
        fail(f"ball dt {dt}: {len(zeno)} Zeno impacts, ends at q = {last['q']}, E = {out['energy']['final']}")
    taken = zeno[0]["energy_after"] - zeno[0]["energy_before"]
    if not (out["zeno"]["impacts"] == 1 and out["zeno"]["energy_change"] == taken and taken < 0):
        fail(f"ball dt {dt}: zeno report {out['zeno']} vs the Zeno impact's {taken}")
    print(f"ok: ball R = 0.5, dt {dt:g}: {len(out['impacts'])} impacts, the last Zeno (took {-taken:.3g} J), "
          f"rests at q = r")
