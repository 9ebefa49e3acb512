#!/usr/bin/python3
"""Plot the sensitivity indices of `simpact analyze` (/sensitivity/<output>/...).

  scripts/sensitivity.py results/ishigami_sobol.h5 -o results/ishigami_sobol.png
  scripts/sensitivity.py results/billiards_sobol.h5 --output outcome_set relative_loss_argmin

One panel per output: Sobol' indices S1 and ST as bars with their bootstrap half-widths as
whiskers; Morris/radial designs as a mu*-sigma scatter; with a 1-D grid (a design nested in a
grid, e.g. configs/billiards_sobol_theta.yaml) S1 (solid) and ST (dashed) of every parameter over
the grid axis, with the intervals as bands; the axis labelled with its long_name [units], one
tick per value when it has few (at most 6). Uses Debian's /usr/bin/python3 (h5py, numpy, matplotlib).
"""
import argparse
import os
import sys
import textwrap

import h5py
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import simpact_h5 as sh  # noqa: E402
import simpact_plot as sp  # noqa: E402


def text(v):
    return v.decode() if isinstance(v, bytes) else str(v)


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file")
    ap.add_argument("-o", "--out", help="PNG to write (default: FILE with .png)")
    ap.add_argument("--output", nargs="+", help="outputs under /sensitivity (default: all)")
    return ap.parse_args(argv)


def figure(args):
    """The figure of parsed arguments (tests inspect its labels in-process)."""
    try:
        f = h5py.File(args.file, "r")
    except OSError as e:
        sys.exit(f"sensitivity.py: error: {args.file}: {e}")
    if "sensitivity" not in f:
        sys.exit(f"sensitivity.py: error: {args.file} has no /sensitivity (run `simpact analyze {args.file}`)")
    s = f["sensitivity"]
    names = [text(n) for n in s["parameter"][()]]
    outputs = args.output or [k for k in s if isinstance(s[k], h5py.Group)]
    for o in outputs:
        if o not in s:
            sys.exit(f"sensitivity.py: error: --output: no /sensitivity/{o} (have: {', '.join(k for k in s if isinstance(s[k], h5py.Group))})")
    fig, axes = plt.subplots(1, len(outputs), figsize=(6.2 * len(outputs), 4.4), squeeze=False)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for ax, o in zip(axes[0], outputs):
        g = s[o]
        title = f"{o}: {text(g.attrs.get('long_name', ''))}"
        first = g["S1"] if "S1" in g else g["mu_star"]
        grid_dims = [d[0].name.split("/")[-1] for d in first.dims][:-1]
        if np.isnan(first[()]).all():  # a constant output (or no finite sample): no indices
            ax.text(0.5, 0.5, f"{o}: no indices\n(the output is constant over the design,\n"
                    "or no sample is finite)", ha="center", va="center", transform=ax.transAxes)
            ax.set_xticks([])
            ax.set_yticks([])
        elif "mu_star" in g:  # Morris / radial
            ms, sg = g["mu_star"][()], g["sigma"][()]
            conf = g["mu_star_conf"][()] if "mu_star_conf" in g else np.zeros_like(ms)
            if ms.ndim > 1:
                ms, sg, conf = ms[0], sg[0], conf[0]
            ax.errorbar(ms, sg, xerr=conf, fmt="o", capsize=3)
            for j, n in enumerate(names):
                ax.annotate(n, (ms[j], sg[j]), textcoords="offset points", xytext=(4, 4))
            lim = max(np.nanmax(ms), np.nanmax(sg)) * 1.1
            ax.plot([0, lim], [0, lim], "k:", lw=0.8, label="σ = μ*")
            ax.set_xlabel("μ* (mean |elementary effect|)")
            ax.set_ylabel("σ (spread: interactions, non-linearity)")
            ax.legend(loc="upper left")
        elif len(grid_dims) == 1:  # indices over a grid axis
            axis = sh.axis_from_dataset(grid_dims[0], s[grid_dims[0]])
            x = axis.positions
            for j, n in enumerate(names):
                c = colors[j % len(colors)]
                for key, style in (("S1", "-"), ("ST", "--")):
                    v, ci = g[key][:, j], g[key + "_conf"][:, j]
                    ax.plot(x, v, style, color=c, marker="o", ms=3, label=n if key == "S1" else None)
                    ax.fill_between(x, v - ci, v + ci, color=c, alpha=0.12)
            sp.style_axis(ax, axis, "x")  # long_name [units]; categories or π ticks
            ax.set_ylabel("Sobol' index (S1 solid, ST dashed)")
            ax.set_ylim(-0.05, 1.05)
            ax.legend(fontsize=8, ncol=2)
        else:  # one set of indices: bars
            s1, st = g["S1"][()].reshape(-1, len(names))[0], g["ST"][()].reshape(-1, len(names))[0]
            c1, ct = g["S1_conf"][()].reshape(-1, len(names))[0], g["ST_conf"][()].reshape(-1, len(names))[0]
            xs = np.arange(len(names))
            # matplotlib raises StopIteration on an all-NaN yerr: NaN whiskers are left out.
            c1, ct = np.nan_to_num(c1, nan=0.0), np.nan_to_num(ct, nan=0.0)
            ax.bar(xs - 0.2, s1, 0.4, yerr=c1, capsize=3, label="S1 (first order)")
            ax.bar(xs + 0.2, st, 0.4, yerr=ct, capsize=3, label="ST (total)")
            ax.set_xticks(xs)
            ax.set_xticklabels(names)
            ax.set_ylabel("Sobol' index")
            low = np.nanmin(s1 - c1) if np.isfinite(s1 - c1).any() else 0.0
            ax.set_ylim(min(0.0, float(low)) - 0.02, 1.0)
            ax.axhline(0, color="k", lw=0.6)
            ax.legend()
        conf = g.attrs.get("confidence", 0.95)
        ax.set_title(textwrap.fill(title, 70) + f"\n(whiskers/bands: {100 * float(conf):g} % bootstrap, "
                     f"N = {int(g.attrs.get('base_samples', 0))}; a constant output has no indices)", fontsize=9)
    fig.tight_layout()
    f.close()
    return fig


def main():
    args = parse_args()
    fig = figure(args)
    out = args.out or os.path.splitext(args.file)[0] + ".png"
    fig.savefig(out, dpi=110)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
