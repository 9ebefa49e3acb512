#!/usr/bin/python3
"""The humanoid's time-stepped drop (examples/mechanisms/humanoid_drop.json, issue 34 §2): the
floating base (free root, ball waist, 18 hinges) through its touchdowns, from the JSON reply of
`simpact simulate`.

  build/simpact simulate examples/mechanisms/humanoid_drop.json -o results/humanoid_drop.json
  scripts/plot_humanoid_drop.py results/humanoid_drop.json -o results/humanoid_drop.png

Panels: (a) pelvis height and pitch (from the root quaternion), (b) the total vertical momentum
(the free joint's translational momentum p_z: -m g t in flight, a jump at each touchdown),
(c) the same around the touchdowns with each impact named, (d) the energy relative to the start,
and what each impact keeps or dissipates (R = 0: each foot's heel and toe end caps land and rest)."""
import argparse
import json
import math

import numpy as np

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

# Time stepping's contacts: each capsule foot against the floor is two, its end caps (MuJoCo's
# fromto axis points from the toe to the heel: feature #0 is the toe).
FEATURES = ["left toe", "left heel", "right toe", "right heel"]
COLOURS = {"left": "tab:blue", "right": "tab:red", "both": "tab:purple"}


def impact_name(contacts):
    """The impact's closed contacts by name and a colour by foot."""
    names = [FEATURES[c] if c < len(FEATURES) else f"contact {c}" for c in contacts]
    feet = {n.split()[0] for n in names}
    return " + ".join(names), COLOURS["both" if len(feet) > 1 else feet.pop()]


def pitch_deg(q):
    """Pitch of the pelvis [deg]: its x axis (toes' direction) above the horizontal (> 0: leaning back)."""
    w, x, y, z = q
    # world z of the body x axis: R[2,0] = 2(xz - wy)
    return math.degrees(math.asin(max(-1.0, min(1.0, 2.0 * (x * z - w * y)))))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("reply", help="JSON reply of simpact simulate (records every step)")
    ap.add_argument("-o", "--out", default="humanoid_drop.png")
    args = ap.parse_args()
    with open(args.reply) as f:
        d = json.load(f)
    rec = d["records"]
    t = np.array([r["t"] for r in rec])
    q = np.array([r["q"] for r in rec])
    p = np.array([r["p"] for r in rec])
    e = np.array([r["energy"] for r in rec])
    impacts = d["impacts"]
    e0 = e[0]

    fig, axes = plt.subplots(2, 2, figsize=(10, 7), constrained_layout=True)
    (a, b), (c, dd) = axes
    a.plot(t, q[:, 2], color="k", label="pelvis height")
    a.set_xlabel("time t [s]")
    a.set_ylabel("pelvis height [m]")
    a2 = a.twinx()
    a2.plot(t, [pitch_deg(x) for x in q[:, 3:7]], color="tab:green", label="pelvis pitch")
    a2.set_ylabel("pelvis pitch [deg]", color="tab:green")
    a2.tick_params(axis="y", colors="tab:green")
    a.set_title("(a) pelvis height and pitch")
    lines = a.get_legend_handles_labels()[0] + a2.get_legend_handles_labels()[0]
    a.legend(lines, [l.get_label() for l in lines], loc="lower left", fontsize=8)

    # p_z through the impacts: the recorded states (every step) and, at each impact time t*, the
    # momentum just before and just after it (the jump happens inside a step).
    points = [(ti, pz) for ti, pz in zip(t, p[:, 2])]
    for i in impacts:
        points += [(i["t"], i["momentum_before"][2]), (i["t"] + 1e-12, i["momentum_after"][2])]
    points.sort()
    tp, pz = np.array(points).T
    for ax in (b, c):
        ax.plot(tp, pz, color="k", lw=1.2)
        ax.plot(t, p[:, 2], ".", color="0.4", ms=3 if ax is c else 0, label="recorded states" if ax is c else None)
        ax.set_xlabel("time t [s]")
        ax.set_ylabel("vertical momentum $p_z$ [kg m/s]")
    b.set_title("(b) total vertical momentum")
    # the first touchdowns (heels, toes, feet flat) within 25 ms of the first
    first = [i["t"] for i in impacts if i["t"] <= impacts[0]["t"] + 0.025] if impacts else [t[0], t[-1]]
    lo, hi = first[0] - 0.004, first[-1] + 0.006
    c.set_xlim(lo, hi)
    window = (t >= lo) & (t <= hi)
    c.set_ylim(p[window, 2].min() - 5, p[window, 2].max() + 5)
    seen = set()
    for i in impacts:
        name, colour = impact_name(i["contacts"])
        for ax in (b, dd):
            ax.axvline(i["t"], color=colour, lw=0.6, ls=":")
        c.plot([i["t"], i["t"]], [i["momentum_before"][2], i["momentum_after"][2]], color=colour, lw=2.5,
               label=f"impact: {name}" if name not in seen else None)
        seen.add(name)
    c.set_title("(c) around the touchdowns: each impact's jump")
    c.legend(fontsize=8, loc="upper left")

    dd.plot(t, (e - e0) / e0, color="k", lw=1.2, label="time stepping")
    kept = max(abs(i["energy_after"] - i["energy_before"]) / i["energy_before"] for i in impacts) if impacts else 0
    plastic = d["impacts"] and all(i.get("restitution", 1.0) == 0.0 for i in impacts)
    dd.set_xlabel("time t [s]")
    dd.set_ylabel("energy error $(E - E_0)/E_0$")
    if plastic:
        dd.set_title("(d) energy (R = 0: each touchdown dissipates)")
    else:
        dd.set_title(f"(d) energy; each impact keeps it to {kept:.0e}")
    dd.ticklabel_format(axis="y", style="sci", scilimits=(0, 0))
    fig.suptitle(f"Humanoid drop, time-stepped through its touchdowns (nq = {d.get('nq', q.shape[1])}, "
                 f"nv = {d['dof']}, dt = {d['dt'] * 1e3:g} ms, {len(impacts)} impacts)")
    fig.savefig(args.out, dpi=150)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
