#!/usr/bin/python3
"""Fig. 2b from real engines: relative energy loss against the initial velocity of the three-ball
line, one panel per audited engine, colour = restitution, marker = step rate, black = simpact's
propagative outcome. Runs not settled (NaN, engine_status 1 or 2) are left out and counted in
the panel title.

usage: scripts/plot_fig2b.py results/fig2b.h5 --out results/fig2b.png
"""
import argparse
import re
import sys

import h5py
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import simpact_h5 as sh  # noqa: E402

MARKERS = {60.0: "o", 600.0: "s", 6000.0: "^"}
COLOURS = ["tab:blue", "tab:orange", "tab:green", "tab:red"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file")
    parser.add_argument("--out", default="fig2b.png")
    args = parser.parse_args()
    with h5py.File(args.file, "r") as f:
        restitution = f["/grid/restitution"][()]
        v = f["/grid/qvel.x_a"][()]
        v_label = sh.axis_from_dataset("qvel.x_a", f["/grid/qvel.x_a"]).label  # the config's long_name [units]
        model = -f["/audit_model/relative_energy_error_min"][()]
        groups = sorted(k for k in f.keys() if re.fullmatch(r"audit_.+_[0-9.e+]+hz", k))
        engines = []
        for g in groups:
            label, rate = re.fullmatch(r"audit_(.+)_([0-9.e+]+)hz", g).groups()
            if label not in engines:
                engines.append(label)
        fig, axes = plt.subplots(1, len(engines), figsize=(4.2 * len(engines), 4.2), sharey=True, squeeze=False)
        for ax, label in zip(axes[0], engines):
            failed = 0
            for g in groups:
                m = re.fullmatch(r"audit_(.+)_([0-9.e+]+)hz", g)
                if m.group(1) != label:
                    continue
                rate = float(m.group(2))
                loss = -f[g]["relative_energy_error"][()]
                failed += int(np.isnan(loss).sum())
                for i, r in enumerate(restitution):
                    ax.plot(v, loss[i], marker=MARKERS.get(rate, "x"), color=COLOURS[i % 4], linestyle=":",
                            markersize=5, label=f"R={r:g}, {rate:g} Hz")
            for i, r in enumerate(restitution):
                ax.plot(v, model[i], color="k", linestyle="--", linewidth=1)
            ax.axhline(0, color="grey", linewidth=0.5)
            ax.set_title(f"{label}" + (f" ({failed} runs failed/capped)" if failed else ""))
            ax.set_xlabel(v_label)
        axes[0][0].set_ylabel("relative energy loss -(E+ - E-)/E-   (dashed: propagative)")
        axes[0][-1].legend(fontsize=7, loc="best")
        fig.tight_layout()
        fig.savefig(args.out, dpi=110)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    sys.exit(main())
