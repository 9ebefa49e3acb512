#!/usr/bin/python3
"""usage: python3 scripts/energy_maps.py results/cradle_masses.h5 -o energy.png
       python3 scripts/energy_maps.py results/billiards_theta.h5 -o energy.pdf

Energy-loss maps of a simpact sweep: the relative kinetic-energy loss
(E_before - E_after) / E_before of every ordering in the file (/energy/relative_loss_<o>, o in
the root attribute `orderings`) and of a perfectly plastic impact (/energy/relative_loss_plastic).

1-axis sweeps: one curve per ordering in a single plot (Monte Carlo: mean, ±std band,
min/max). 2-axis sweeps: one heatmap per ordering. 3-axis sweeps: one row of heatmap panels
per ordering, one panel per value of the first axis. All maps share one colour scale so that
orderings can be compared; labels come from the file. Elastic impacts (R = 1) lose nothing:
their maps are zero up to round-off (~1e-16), drawn as such.
Writes <file stem>_energy.png unless -o names a .png or .pdf file.
"""
import argparse
import os

import numpy as np
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

import simpact_h5 as sh


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[1],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("file", help="simpact result file (.h5)")
    parser.add_argument("-o", "--out", help="output .png or .pdf (default: <stem>_energy.png)")
    parser.add_argument("--log", action="store_true", help="logarithmic colour / y scale")
    return parser.parse_args()


def read_energy_maps(sweep):
    return [sweep.read_map(p) for p in sh.energy_loss_paths(sweep)]


def legend_labels(maps):
    """Long names without the prefix most of them share ('(E_before - E_after) / E_before, ')."""
    names = [m.long_name or m.name for m in maps]
    prefix = os.path.commonprefix([n for n in names if "," in n])
    prefix = prefix[: prefix.rfind(", ") + 2] if ", " in prefix else ""
    return [n[len(prefix):] if prefix and n.startswith(prefix) else n for n in names]


def draw_energy_curves(container, maps, log=False):
    """1-axis sweeps: every ordering's loss as a curve in one plot."""
    ax = container.subplots(1, 1)
    for m, label in zip(maps, legend_labels(maps)):
        sh.draw_curve(ax, m, log=log, label=sh.wrap(label, 60), spread_legend=False,
                      linestyle="--" if m.name.startswith("relative_loss_plastic") else "-")
    handles, labels = ax.get_legend_handles_labels()
    if any(m.spread for m in maps):  # one grey legend entry for all bands, one for min/max
        handles += [Patch(color="0.5", alpha=0.3), Line2D([], [], color="0.5", ls=":")]
        labels += ["± std over replicas", "min / max over replicas"]
    units = {m.units for m in maps}
    ax.set_ylabel(sh.label_of("relative energy loss", units.pop() if len(units) == 1 else ""))
    ax.legend(handles, labels, fontsize=8, loc="best")
    return ax


def energy_size(maps):
    """(width, height) in inches of the energy-loss drawing."""
    return (8.5, 4.8) if maps[0].values.ndim == 1 else sh.shared_panels_size(maps)


def draw_energy(container, maps, log=False, title=None):
    """The energy-loss drawing in a Figure or SubFigure: curves for 1-axis sweeps,
    heatmap panels on one shared colour scale otherwise."""
    if maps[0].values.ndim == 1:
        draw_energy_curves(container, maps, log=log)
        if title:
            container.suptitle(title, fontsize=11)
        return
    units = {m.units for m in maps}
    bar_label = sh.label_of("relative energy loss", units.pop() if len(units) == 1 else "")
    sh.draw_shared_panels(container, maps, bar_label, log=log, title=title)


def energy_figure(maps, log=False, title=None):
    fig = sh.plt.figure(figsize=energy_size(maps), layout="constrained")
    draw_energy(fig, maps, log=log, title=title)
    return fig


def main():
    args = parse_args()
    out = args.out or sh.default_output(args.file, "energy")
    sh.check_output(out)
    with sh.open_sweep(args.file) as sweep:
        maps = read_energy_maps(sweep)
        title = (f"{sweep.model}: relative energy loss per ordering "
                 f"({os.path.basename(args.file)})" + ("" if sweep.complete else "  [INCOMPLETE]"))
    fig = energy_figure(maps, log=args.log, title=title)
    sh.save_figure(fig, out)
    for m in maps:
        low, mean, high, _ = m.statistics()
        print(f"{m.path}: min {sh.format_number(low)}, mean {sh.format_number(mean)}, "
              f"max {sh.format_number(high)}")
    print(f"wrote {out}")


if __name__ == "__main__":
    np.seterr(invalid="ignore")
    sh.run_main(main)
