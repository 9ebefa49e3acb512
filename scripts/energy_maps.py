#!/usr/bin/python3
"""usage: scripts/energy_maps.py results/cradle_masses.h5 -o energy.png
       scripts/energy_maps.py results/billiards_theta.h5 -o energy.pdf

Energy-loss maps of a simpact sweep: the relative kinetic-energy loss
(E_before - E_after) / E_before of every ordering in the file (/energy/relative_loss_<o>, o in
the root attribute `orderings`) and of a perfectly plastic impact (/energy/relative_loss_plastic).

1-axis sweeps: one curve per ordering (Monte Carlo: mean, ±std band, min/max) and, below,
each ordering's difference from the first one. 2- and 3-axis sweeps (3 axes: one panel per value
of the first axis): the first ordering's loss, then every other ordering as its difference from
it on a diverging colour scale (the maps themselves often look identical), then the plastic loss
— once when it does not depend on the first axis (the restitution). Labels come from the file. Elastic impacts (R = 1) lose nothing:
their maps are zero up to round-off (~1e-16), drawn as such.
Writes <file stem>_energy.png unless -o names a .png or .pdf file.
"""
import argparse
import dataclasses
import os

import numpy as np
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

import simpact_h5 as sh
import simpact_plot as sp


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[1],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("file", help="simpact result file (.h5)")
    parser.add_argument("-o", "--out", help="output .png or .pdf (default: <stem>_energy.png)")
    parser.add_argument("--log", action="store_true", help="logarithmic colour / y scale")
    return parser.parse_args()


def read_energy_maps(sweep):
    return [sweep.read_map(p) for p in sh.energy_loss_paths(sweep)]


ORDERING_WORDS = {"all": "outcome-set mean", "plastic": "perfectly plastic impact"}
SAME_LOSS = ("every ordering loses the same energy (|difference| < 1e-12): the energy-based "
             "restitution of eq. (16) fixes ΔE = (1 − R²)·E_p whatever the ordering")


def words(m):
    """'ordering argmin', 'mean over the outcome set (all orderings)', 'perfectly plastic impact'."""
    name = m.name[len("relative_loss_"):] if m.name.startswith("relative_loss_") else m.name
    for stat in ("_mean", "_std", "_min", "_max", "_count"):
        if name.endswith(stat):
            name = name[: -len(stat)]
    return ORDERING_WORDS.get(name, name)


def split_maps(maps):
    """(reference, other orderings, plastic or None): the first ordering is the reference the
    others are drawn against (their maps often look identical)."""
    plastic = next((m for m in maps if "plastic" in m.name), None)
    orderings = [m for m in maps if m is not plastic]
    return orderings[0], orderings[1:], plastic


def difference(m, reference):
    d = dataclasses.replace(m, values=np.asarray(m.values, float) - np.asarray(reference.values, float),
                            spread={})
    return d


def draw_energy_curves(container, maps, log=False):
    """1-axis sweeps: every ordering's loss as a curve, and below it each ordering's difference
    from the reference ordering (the curves themselves often lie on top of each other)."""
    reference, others, plastic = split_maps(maps)
    same = all(np.nanmax(np.abs(difference(m, reference).values), initial=0.0) <= sh.ROUNDOFF for m in others)
    ax, diff_ax = container.subplots(2, 1, sharex=True, height_ratios=[3, 2]) if others and not same else (
        container.subplots(1, 1), None)
    for m in maps:
        sp.draw_curve(ax, m, log=log, label=words(m), spread_legend=False,
                      linestyle="--" if "plastic" in m.name else "-")
    handles, labels = ax.get_legend_handles_labels()
    if any(m.spread for m in maps):  # one grey legend entry for all bands, one for min/max
        handles += [Patch(color="0.5", alpha=0.3), Line2D([], [], color="0.5", ls=":")]
        labels += ["± std over replicas", "min / max over replicas"]
    units = {m.units for m in maps}
    ax.set_ylabel(sh.label_of("relative energy loss", units.pop() if len(units) == 1 else ""))
    note = None
    if others and same:  # the curves lie on top of each other: say so (legend title)
        note = sh.wrap(", ".join(words(m) for m in [reference] + others) + ": " + SAME_LOSS, 60)
    ax.legend(handles, labels, fontsize=8, loc="upper right", title=note, title_fontsize=8)
    (diff_ax or ax).set_xlabel(reference.axes[0].label)  # one line
    if diff_ax is not None:
        ax.set_xlabel("")
        for m in others:
            sp.draw_curve(diff_ax, difference(m, reference), label=f"{words(m)} − {words(reference)}",
                          spread=False)
        diff_ax.axhline(0.0, color="0.3", lw=0.6)
        diff_ax.set_ylabel("difference [1]")
        diff_ax.legend(fontsize=8, loc="best")
    return ax


def energy_size(maps):
    """(width, height) in inches of the energy-loss drawing."""
    if maps[0].values.ndim == 1:
        reference, others, _ = split_maps(maps)
        same = all(np.nanmax(np.abs(difference(m, reference).values), initial=0.0) <= sh.ROUNDOFF for m in others)
        return (8.5, 4.8 if same else 6.4)
    reference, others, plastic = split_maps(maps)
    columns = min(sp.panel_count(reference), sp.PANEL_COLUMNS)
    diffs = [np.asarray(m.values, float) - np.asarray(reference.values, float) for m in others]
    same = all(np.nanmax(np.abs(d), initial=0.0) <= sh.ROUNDOFF for d in diffs)
    rows = 1 + (0.12 if same else len(others)) + (1 if plastic is not None else 0)
    return 1.8 + 3.6 * max(columns, 1), 0.8 + 3.2 * rows


def constant_along_first_axis(m):
    """True for a 3-axis map whose slices along the first axis are all equal (the plastic loss
    does not depend on the restitution): drawn once."""
    v = np.asarray(m.values, float)
    return v.ndim == 3 and all(np.allclose(v[i], v[0], equal_nan=True, rtol=1e-12, atol=1e-15)
                               for i in range(1, v.shape[0]))


def panels_of(m, title, once=False):
    if once:
        return [(f"{title}\n(any {m.axes[0].name})", m.values[0], m.axes[1:])]
    return [(f"{title}\n{slice_title}" if slice_title else title, values, axes)
            for slice_title, values, axes in sp.panel_slices(m)]


def draw_block(block, rows, scale, bar_label, columns):
    """Rows of heatmap panels (a list of panel lists) on one colour scale, one colour bar."""
    axs = block.subplots(len(rows), columns, squeeze=False, sharex=True, sharey=True)
    mesh = None
    for r, panels in enumerate(rows):
        for c in range(columns):
            ax = axs[r, c]
            if c >= len(panels):
                ax.set_visible(False)
                continue
            title, values, axes = panels[c]
            mesh = sp.draw_heatmap(ax, values, axes, scale)
            ax.set_title(title, fontsize=9)
            sp._note_in_panel(ax, values)
            if c > 0:
                ax.set_ylabel("")
            if r < len(rows) - 1:
                ax.set_xlabel("")
    sp.colour_bar(block, mesh, [a for a in axs.flat if a.get_visible()], scale, bar_label)


def diverging_scale(values):
    v = np.asarray(values, float)
    finite = v[np.isfinite(v)]
    bound = float(np.abs(finite).max()) if finite.size else 0.0
    if bound <= sh.ROUNDOFF:
        return sp._with_colours(sp.colors.Normalize(-1.0, 1.0), "RdBu_r", "differences ≈ 0 everywhere")
    return sp._with_colours(sp.colors.Normalize(-bound, bound), "RdBu_r")


def draw_energy(container, maps, log=False, title=None):
    """The energy-loss drawing in a Figure or SubFigure: curves (with differences) for 1-axis
    sweeps; otherwise heatmaps: the reference ordering, every other ordering as its difference
    from it (own diverging colour scale), and the plastic loss once when it does not depend on
    the first axis."""
    if maps[0].values.ndim == 1:
        draw_energy_curves(container, maps, log=log)
        if title:
            container.suptitle(title, fontsize=11)
        return
    reference, others, plastic = split_maps(maps)
    units = {m.units for m in maps}
    unit = units.pop() if len(units) == 1 else ""
    columns = min(sp.panel_count(reference), sp.PANEL_COLUMNS)
    diffs = [difference(m, reference) for m in others]
    dscale = diverging_scale(np.concatenate([d.values.ravel() for d in diffs])) if diffs else None
    same = dscale is not None and bool(dscale.note)  # all differences vanish: one line of text
    heights = [1.0] + ([0.12 if same else float(len(others))] if others else []) + (
        [1.0] if plastic is not None else [])
    blocks = container.subfigures(len(heights), 1, height_ratios=heights, squeeze=False)[:, 0]
    absolute = [reference] + ([plastic] if plastic is not None else [])
    scale = sp.colour_scale(np.concatenate([m.values.ravel() for m in absolute]), log=log,
                            name=", ".join(m.path for m in absolute))
    draw_block(blocks[0], [panels_of(reference, words(reference))], scale,
               sh.label_of("relative energy loss", unit), columns)
    i = 1
    if others and same:
        blocks[i].text(0.5, 0.5, sh.wrap(", ".join(words(m) for m in others) + " vs " + words(reference)
                                         + ": " + SAME_LOSS, 120),
                       ha="center", va="center", fontsize=9)
        i += 1
    elif others:
        draw_block(blocks[i], [panels_of(d, f"{words(m)} − {words(reference)}") for d, m in zip(diffs, others)],
                   dscale, sh.label_of("difference of the relative energy loss", unit), columns)
        i += 1
    if plastic is not None:
        draw_block(blocks[i], [panels_of(plastic, words(plastic), once=constant_along_first_axis(plastic))],
                   scale, sh.label_of("relative energy loss", unit), columns)
    if title:
        container.suptitle(title, fontsize=11, fontweight="bold")


def energy_figure(maps, log=False, title=None):
    fig = sp.plt.figure(figsize=energy_size(maps), layout="constrained")
    draw_energy(fig, maps, log=log, title=title)
    return fig


def main():
    args = parse_args()
    out = args.out or sp.default_output(args.file, "energy")
    sp.check_output(out)
    with sh.open_sweep(args.file) as sweep:
        maps = read_energy_maps(sweep)
        title = (f"Relative kinetic energy loss of the {sweep.model} impacts, by ordering "
                 f"({os.path.basename(args.file)})" + ("" if sweep.complete else "  [INCOMPLETE]"))
    fig = energy_figure(maps, log=args.log, title=title)
    sp.save_figure(fig, out)
    for m in maps:
        low, mean, high, _ = m.statistics()
        print(f"{m.path}: min {sh.format_number(low)}, mean {sh.format_number(mean)}, "
              f"max {sh.format_number(high)}")
    print(f"wrote {out}")


if __name__ == "__main__":
    np.seterr(invalid="ignore")
    sh.run_main(main)
