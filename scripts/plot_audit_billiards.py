#!/usr/bin/python3
"""Where engines leave the propagative outcome set on the billiards break (docs/audit.md §3):
per audited engine, the g-distance of its post-impact state to the nearest propagative outcome
over the angle θ between the target balls × the cue-ball speed, next to ξ, the propagative
model's indeterminacy over the same grid. Grey cells: runs that did not settle (engine_status 1
or 2, NaN values), counted in the panel title.

usage: scripts/plot_audit_billiards.py results/audit_billiards.h5 --out results/audit_billiards.png
       scripts/plot_audit_billiards.py --write-design configs/audit_billiards_theta.csv
"""
import argparse
import math
import re
import sys

import numpy as np

THETA_DEG = list(range(62, 179, 4))  # the design's angles: 62..178 degrees, 90 included


def write_design(path):
    rows = []
    for deg in THETA_DEG:
        h = math.radians(deg) / 2
        ax, ay = 2 * math.cos(h) - math.sqrt(2), 2 * math.sin(h) - math.sqrt(2)
        rows.append(f"{ax!r},{ay!r},{ax!r},{-ay!r}")
    header = [
        "# Design rows of configs/audit_billiards.yaml: the billiards break (examples/mechanisms/billiards.xml)",
        f"# at the angle theta between the target balls, theta = {THETA_DEG[0]}, {THETA_DEG[1]}, ..., "
        f"{THETA_DEG[-1]} degrees ({len(THETA_DEG)} rows).",
        "# Balls a and b on the circle of radius 2 around the cue ball c: a at 2(cos theta/2, sin theta/2),",
        "# b at 2(cos theta/2, -sin theta/2); qpos is the offset from the file's positions (theta = 90 deg):",
        "# qpos.ax = qpos.bx = 2 cos(theta/2) - sqrt(2), qpos.ay = 2 sin(theta/2) - sqrt(2), qpos.by = -qpos.ay.",
        "# Written by: scripts/plot_audit_billiards.py --write-design configs/audit_billiards_theta.csv",
        "qpos.ax,qpos.ay,qpos.bx,qpos.by",
    ]
    with open(path, "w") as out:
        out.write("\n".join(header + rows) + "\n")
    print(f"wrote {path} ({len(rows)} rows)")


def theta_of(ay):
    """θ [deg] from qpos.ay = 2 sin(θ/2) − √2."""
    return np.degrees(2 * np.arcsin((np.asarray(ay) + math.sqrt(2)) / 2))


def per_task_grid(f, column, theta, speed):
    """A /samples column as a (speed, θ) array (tasks are design rows at each grid point)."""
    values = f["/samples/" + column][()]
    out = np.full((len(speed), len(theta)), np.nan)
    ti = np.searchsorted(theta, f.theta_task)
    si = np.searchsorted(speed, f.speed_task)
    out[si, ti] = values
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", nargs="?")
    parser.add_argument("--out", default="audit_billiards.png")
    parser.add_argument("--write-design", metavar="CSV")
    args = parser.parse_args()
    if args.write_design:
        return write_design(args.write_design)
    if not args.file:
        parser.error("an audit_billiards.h5 file (or --write-design)")
    import h5py
    import matplotlib

    import simpact_h5 as sh

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colors import LogNorm

    with h5py.File(args.file, "r") as f:
        theta_task = np.round(theta_of(f["/samples/qpos.ay"][()]), 9)
        speed_task = f["/samples/qvel.cx"][()]
        speed_label = (sh.axis_from_dataset("qvel.cx", f["/grid/qvel.cx"]).label  # the config's long_name [units]
                       if "grid/qvel.cx" in f else "cue-ball speed [m/s]")
        theta, speed = np.unique(theta_task), np.unique(speed_task)
        f.theta_task, f.speed_task = theta_task, speed_task  # for per_task_grid
        xi = per_task_grid(f, "audit_model_xi", theta, speed)
        groups = sorted((k for k in f.keys() if re.fullmatch(r"audit_.+_[0-9.e+]+hz", k)),
                        key=lambda g: (re.fullmatch(r"audit_(.+)_([0-9.e+]+)hz", g).group(1),
                                       float(re.fullmatch(r"audit_(.+)_([0-9.e+]+)hz", g).group(2))))
        maps = [(g, per_task_grid(f, g + "_distance_to_nearest_outcome", theta, speed),
                 per_task_grid(f, g + "_engine_status", theta, speed)) for g in groups]
    n = 1 + len(maps)
    cols = min(n, 3)
    rows = (n + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4.6 * cols, 3.6 * rows), squeeze=False, sharex=True, sharey=True)
    extent = [theta[0] - 2, theta[-1] + 2, speed[0] - (speed[1] - speed[0]) / 2, speed[-1] + (speed[1] - speed[0]) / 2]
    finite = np.concatenate([m[np.isfinite(m) & (m > 0)] for _, m, _ in maps] + [xi[np.isfinite(xi) & (xi > 0)]])
    norm = LogNorm(vmin=max(1e-4, finite.min()), vmax=max(1.0, finite.max()))
    cmap = plt.get_cmap("viridis").copy()
    cmap.set_bad("0.8")
    cmap.set_under("white")

    def show(ax, data, title):
        shown = np.where(np.isfinite(data), np.maximum(data, norm.vmin * 0.999), np.nan)
        im = ax.imshow(np.ma.masked_invalid(shown), origin="lower", aspect="auto", extent=extent, cmap=cmap,
                       norm=norm, interpolation="nearest")
        ax.axvline(90, color="w", linewidth=0.6, linestyle=":")
        ax.set_title(title, fontsize=9)
        return im

    im = show(axes[0][0], xi, "propagative model: ξ (indeterminacy)")
    for k, (g, dist, status) in enumerate(maps, start=1):
        ax = axes[k // cols][k % cols]
        bad = int(np.sum(status != 0))
        label, rate = re.fullmatch(r"audit_(.+)_([0-9.e+]+)hz", g).groups()
        show(ax, dist, f"{label} {float(rate):g} Hz: distance to nearest outcome"
             + (f"\n({bad} of {status.size} runs not settled: grey)" if bad else ""))
    for k in range(n, rows * cols):
        axes[k // cols][k % cols].axis("off")
    for r in range(rows):
        axes[r][0].set_ylabel(speed_label)
    for c in range(cols):
        axes[rows - 1][c].set_xlabel("θ between target balls [deg]")
    fig.colorbar(im, ax=axes.ravel().tolist(), shrink=0.8,
                 label="ξ, or g-distance / ||p⁻||_g (log; white: below 1e-4, e.g. ξ = 0 at θ = 90°)")
    fig.savefig(args.out, dpi=110)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    sys.exit(main())
