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
— once when it does not depend on the first axis (the restitution). Labels come from the file
(an axis: its long_name [units]; few values: one tick per value). Elastic impacts (R = 1) lose
nothing: their maps are zero up to round-off (~1e-16), drawn as such.
Writes <file stem>_energy.png unless -o names a .png or .pdf file.
"""
import argparse
import dataclasses
import math
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


def quantity(maps):
    """What the maps hold: the impacts' relative loss, or a time-stepped run's E_end / E_0."""
    return "E_end/E_0" if maps[0].name.startswith("ratio_") else "relative energy loss"


def words(m):
    """'ordering argmin', 'mean over the outcome set (all orderings)', 'perfectly plastic impact'."""
    name = m.name
    for prefix in ("relative_loss_", "ratio_"):
        if name.startswith(prefix):
            name = name[len(prefix):]
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
    ax.set_ylabel(sh.label_of(quantity(maps), units.pop() if len(units) == 1 else ""))
    note = None
    if others and same:  # the curves lie on top of each other: say so (legend title)
        note = sh.wrap(", ".join(words(m) for m in [reference] + others) + ": " + same_note(maps), 60)
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


def absolute_rows(maps):
    """Rows of (title, values, axes) panels on the shared absolute scale: the reference
    ordering's slices, then the plastic loss in the same row when it is drawn once (it does not
    depend on the first axis), else its own row(s). At most PANEL_COLUMNS + 1 per row."""
    reference, _, plastic = split_maps(maps)
    panels = panels_of(reference, words(reference))
    once = plastic is not None and (plastic.values.ndim < 3 or constant_along_first_axis(plastic))
    limit = sp.PANEL_COLUMNS + 1
    if plastic is not None and once:
        panels += panels_of(plastic, words(plastic), once=plastic.values.ndim == 3)
        return [panels[k:k + limit] for k in range(0, len(panels), limit)]
    rows = [panels[k:k + limit] for k in range(0, len(panels), limit)]
    if plastic is not None:
        more = panels_of(plastic, words(plastic))
        rows += [more[k:k + limit] for k in range(0, len(more), limit)]
    return rows


def same_note(maps):
    if maps[0].name.startswith("ratio_"):
        return "every ordering ends with the same energy (|difference| < 1e-12)"
    return SAME_LOSS


def same_loss(maps):
    reference, others, _ = split_maps(maps)
    return all(np.nanmax(np.abs(difference(m, reference).values), initial=0.0) <= sh.ROUNDOFF for m in others)


def energy_size(maps):
    """(width, height) in inches of the energy-loss drawing."""
    if maps[0].values.ndim == 1:
        reference, others, _ = split_maps(maps)
        return (8.5, 4.8 if same_loss(maps) else 6.4)
    reference, others, plastic = split_maps(maps)
    rows = absolute_rows(maps)
    columns = max(len(r) for r in rows)
    diff_rows = 0 if (not others or same_loss(maps)) else len(others) * math.ceil(
        sp.panel_count(reference) / columns)
    return 1.4 + 3.3 * columns, 1.5 + 3.0 * (len(rows) + diff_rows)


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
    rows = absolute_rows(maps)
    columns = max(len(r) for r in rows)
    diffs = [difference(m, reference) for m in others]
    same = bool(others) and same_loss(maps)
    diff_rows = [] if (same or not others) else [panels_of(d, f"{words(m)} − {words(reference)}")
                                                for d, m in zip(diffs, others)]
    width = container.get_figure().get_size_inches()[0] if hasattr(container, "get_figure") else 10
    note = (", ".join(words(m) for m in others) + " vs " + words(reference) + ": " + same_note(maps)) if same else ""
    caption = sh.wrap(note + "." if note else "", max(40, int(width * 12)))  # the axes carry their long names
    per_row = 3.0
    heights = [float(len(rows))] + ([float(len(diff_rows))] if diff_rows else []) + (
        [(0.2 + 0.16 * caption.count("\n")) / per_row] if caption else [])
    blocks = container.subfigures(len(heights), 1, height_ratios=heights, squeeze=False)[:, 0]
    absolute = [reference] + ([plastic] if plastic is not None else [])
    scale = sp.colour_scale(np.concatenate([m.values.ravel() for m in absolute]), log=log,
                            name=", ".join(m.path for m in absolute))
    draw_block(blocks[0], rows, scale, sh.label_of(quantity(maps), unit), columns)
    if diff_rows:
        dscale = diverging_scale(np.concatenate([d.values.ravel() for d in diffs]))
        draw_block(blocks[1], diff_rows, dscale, sh.label_of("difference", unit), columns)
    if caption:  # the long names and the equal-loss note, under the panels
        sp.draw_caption(blocks[-1], caption, fontsize=9)
    if title:
        container.suptitle(sh.wrap(title, max(40, int(width * 8))), fontsize=11, fontweight="bold")


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
        what = (f"Final over initial energy of the time-stepped {sweep.model} runs"
                if maps[0].name.startswith("ratio_") else f"Relative kinetic energy loss of the {sweep.model} impacts")
        title = (f"{what}, by ordering ({os.path.basename(args.file)})"
                 + ("" if sweep.complete else "  [INCOMPLETE]"))
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
