#!/usr/bin/python3
"""usage: scripts/trex_design.py results/trex_design.json -o results/trex_design.png

Draws TREX at its impact configuration for both rows of a `simpact design` result (Table I's
"initial" and "optimized"; Fig. 7 of Seghete & Murphey): the two body spheres, the legs (hips at
the anterior centre), the tail, the floor y = 0 and the two touching contacts, with each row's
normalized <u,v>_g in its title. Lengths in cm. A missing file or a result without rows exits
with status 1 and a one-line message. Writes <file stem>.png unless --out names a .png or .pdf.
"""
import argparse
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def fail(message):
    sys.exit(f"trex_design.py: error: {message}")


def draw(ax, row, foot):
    p = {k: (100 * v[0], 100 * v[1]) for k, v in row["points"].items()}
    d = row["design"]
    ax.axhline(0.0, color="0.3", lw=1.5)
    ax.fill_between([-60, 60], -3, 0, color="0.9", zorder=0)
    for centre, radius, colour in (("anterior", d["r1"], "tab:blue"), ("posterior", d["r2"], "tab:cyan")):
        ax.add_patch(plt.Circle(p[centre], 100 * radius, color=colour, alpha=0.6, zorder=2))
    tail = [p["posterior"], p["tail_tip"]]
    ax.plot(*zip(*tail), color="tab:green", lw=3, zorder=3, label="tail")
    for side, colour in (("L", "tab:orange"), ("R", "tab:red")):
        leg = [p["anterior"], p[f"knee_{side}"], p[f"foot_{side}"]]
        ax.plot(*zip(*leg), "-o", color=colour, lw=3, ms=4, zorder=4, label=f"leg {side}")
    for contact in (f"foot_{foot}", "tail_tip"):
        ax.plot(*p[contact], "k*", ms=12, zorder=5)
    ax.set_title(f"{row['name']}: normalized <u,v>_g = {row['normalized_product']:.2e}\n"
                 f"r1 {100 * d['r1']:.2f}, r2 {100 * d['r2']:.2f}, l_u {100 * d['l_u']:.2f}, "
                 f"l_l {100 * d['l_l']:.2f} cm", fontsize=10)
    ax.set_aspect("equal")
    ax.set_xlabel("x [cm]")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[1])
    parser.add_argument("file", help="the JSON written by simpact design")
    parser.add_argument("-o", "--out", help="output .png or .pdf (default: <stem>.png)")
    args = parser.parse_args()
    out = args.out or os.path.splitext(os.path.basename(args.file))[0] + ".png"
    if not out.endswith((".png", ".pdf")):
        fail(f"--out {out}: must end in .png or .pdf")
    try:
        doc = json.load(open(args.file))
    except (OSError, ValueError) as e:
        fail(f"{args.file}: {e}")
    rows = doc.get("rows") if isinstance(doc, dict) else None
    if not rows:
        fail(f"{args.file}: no rows (not a simpact design result)")
    foot = "R" if doc.get("foot", "right") == "right" else "L"
    fig, axes = plt.subplots(1, len(rows), figsize=(6 * len(rows), 5.2), sharey=True)
    axes = axes if len(rows) > 1 else [axes]
    for ax, row in zip(axes, rows):
        draw(ax, row, foot)
    xs = [100 * v[0] for r in rows for v in r["points"].values()]
    ys = [100 * v[1] for r in rows for v in r["points"].values()]
    for ax in axes:
        ax.set_xlim(min(xs) - 10, max(xs) + 10)
        ax.set_ylim(-2, max(ys) + 10)
    axes[0].set_ylabel("y [cm]")
    axes[0].legend(loc="upper right", fontsize=8)
    fig.suptitle(f"TREX at the double impact (foot_{foot} and tail tip, ★): {doc.get('status', '')} "
                 f"after {doc.get('iterations', 0)} iterations")
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
