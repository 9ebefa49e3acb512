"""Draw the maps of simpact sweep files (matplotlib, Agg backend): curves, heat maps, panels of
slices, colour scales and π ticks, figures written as PNG or PDF. Reading is simpact_h5.py's.

usage (from a script in scripts/):

    import simpact_h5 as sh
    import simpact_plot as sp
    with sh.open_sweep("results/billiards_theta.h5") as sweep:
        fig = sp.figure_of_maps([sweep.read_map("/xi")])
        sp.save_figure(fig, "xi.png")
"""
import math
import os
from dataclasses import dataclass

import numpy as np

import matplotlib

matplotlib.use("Agg")  # the scripts only write files; never open a window
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib import colors, ticker  # noqa: E402

from simpact_h5 import ROUNDOFF, SweepError, pi_fraction, warn, wrap  # noqa: E402

MAX_PANELS = 12          # a 3-axis map draws at most this many slices of its first axis
PANEL_COLUMNS = 4        # slices per row of panels
OUTPUT_EXTENSIONS = (".png", ".pdf")
NAN_COLOUR = "0.82"      # grid points without data (unfinished, failed)
UNDER_COLOUR = "white"   # values <= 0 on a log colour scale


# ---------------------------------------------------------------------------------------------
# Formatting
# ---------------------------------------------------------------------------------------------
def _pi_tick_label(x, _pos=None):
    text = pi_fraction(x, max_denominator=24, tol=1e-6)
    if not text:
        return f"{x:.3g}"
    return "$0$" if text == "0" else "$" + text.replace("π", r"\pi").replace("−", "-") + "$"


def set_pi_ticks(axis_obj, lo, hi):
    """Ticks at multiples of π/12, π/6, π/4 or π/2 (4 to 9 of them) with π labels."""
    for step in (math.pi / 12, math.pi / 6, math.pi / 4, math.pi / 2, math.pi):
        if (hi - lo) / step <= 8:
            break
    axis_obj.set_major_locator(ticker.MultipleLocator(step))
    axis_obj.set_major_formatter(ticker.FuncFormatter(_pi_tick_label))


LABEL_WIDTH = 44         # characters per line of an axis label (long names wrap)


def style_axis(ax, axis, which):
    """Label an x or y axis from the file (the coordinate's long_name [units]); categories (few
    values, or strings) get one tick per value at its index; π ticks for radians, log scale for
    log grids. The axis is remembered on `ax` (mark_point converts values to positions)."""
    set_label = ax.set_xlabel if which == "x" else ax.set_ylabel
    set_label(wrap(axis.label, LABEL_WIDTH))
    scale_axis = ax.xaxis if which == "x" else ax.yaxis
    if not hasattr(ax, "simpact_axes"):
        ax.simpact_axes = {}
    ax.simpact_axes[which] = axis
    if axis.is_categorical:
        n = len(axis.values)
        scale_axis.set_major_locator(ticker.FixedLocator(np.arange(n, dtype=float)))
        scale_axis.set_major_formatter(ticker.FixedFormatter(axis.tick_labels()))
        scale_axis.set_minor_locator(ticker.NullLocator())
        (ax.set_xlim if which == "x" else ax.set_ylim)(-0.5, n - 0.5)
    elif axis.is_log_spaced:
        (ax.set_xscale if which == "x" else ax.set_yscale)("log")
        scale_axis.set_major_formatter(ticker.FormatStrFormatter("%g"))  # 0.1, 1, 10
    elif axis.units == "rad" and axis.values.max() - axis.values.min() >= math.pi / 4:
        set_pi_ticks(scale_axis, axis.values.min(), axis.values.max())


# ---------------------------------------------------------------------------------------------
# Colour scales
# ---------------------------------------------------------------------------------------------
@dataclass
class ColourScale:
    """How a map's values become colours: norm, colour map, and notes for the title."""
    norm: colors.Normalize
    cmap: colors.Colormap
    note: str = ""
    integer_ticks: list = None
    extend: str = "neither"

    def display(self, values):
        """Values as drawn: NaN stays NaN (no data); on a log scale, <= 0 falls under vmin."""
        v = np.array(values, dtype=float)
        if isinstance(self.norm, colors.LogNorm):
            v[np.isfinite(v) & (v <= 0)] = self.norm.vmin * 1e-3
        return np.ma.masked_invalid(v)


def colour_scale(values, log=False, name=""):
    """A colour scale for all `values` (one map, all its panels share it)."""
    v = np.asarray(values, dtype=float)
    finite = v[np.isfinite(v)]
    if finite.size == 0:
        return _with_colours(colors.Normalize(0, 1), "viridis", "no data")
    distinct = np.unique(finite)
    if 1 < distinct.size <= 12 and np.all(distinct == np.round(distinct)):
        return _integer_scale([int(x) for x in distinct])  # even with --log
    if log:
        # round-off values (|v| <= 1e-12 of the largest) count as zero: masked like v <= 0
        big = float(np.abs(finite).max())
        positive = finite[finite > ROUNDOFF * max(1.0, big)]
        negative = finite[finite < -ROUNDOFF * max(1.0, big)]
        if positive.size and negative.size:  # a signed quantity (a cosine): symmetric log scale
            small = np.abs(finite[np.abs(finite) > ROUNDOFF * max(1.0, big)])
            linthresh = max(float(np.percentile(small, 5)), big * 1e-6)
            norm = colors.SymLogNorm(linthresh=linthresh, vmin=-big, vmax=big, base=10)
            return _with_colours(norm, "RdBu_r", f"symmetric log, linear within ±{linthresh:.2g}")
        if positive.size == 0:
            warn(f"{name}: no positive values, drawn on a linear scale instead of --log")
        else:
            lo, hi = positive.min(), positive.max()
            if hi <= lo * (1 + 1e-12):
                lo, hi = lo / 10, hi * 10
            note = "white: ≤ 0" if positive.size < finite.size else ""
            scale = _with_colours(colors.LogNorm(lo, hi), "viridis", note)
            scale.extend = "min" if note else "neither"
            return scale
    lo, hi = float(finite.min()), float(finite.max())
    tiny = ROUNDOFF * max(1.0, abs(lo), abs(hi))
    if hi - lo <= tiny:
        value = 0.0 if max(abs(lo), abs(hi)) <= ROUNDOFF else 0.5 * (lo + hi)
        note = ("≈ 0 everywhere (|value| < 1e-12)" if value == 0.0
                else f"constant: {value:.6g}")
        if value == 0.0:  # zero (an elastic loss, a unique outcome's ξ): bottom colour
            return _with_colours(colors.Normalize(0.0, 1.0), "viridis", note)
        span = max(abs(value), 1.0)
        return _with_colours(colors.Normalize(value - 0.5 * span, value + 0.5 * span),
                             "viridis", note)
    if lo < -tiny and hi > tiny and -lo > 0.02 * hi:
        bound = max(-lo, hi)
        return _with_colours(colors.Normalize(-bound, bound), "RdBu_r")
    return _with_colours(colors.Normalize(lo, hi), "viridis")


def _with_colours(norm, cmap_name, note=""):
    cmap = plt.get_cmap(cmap_name).copy()
    cmap.set_bad(NAN_COLOUR)
    cmap.set_under(UNDER_COLOUR)
    return ColourScale(norm=norm, cmap=cmap, note=note)


def _integer_scale(present):
    """Discrete colours for counts and flags (number of outcomes, dihedral m, steps): one colour
    per value that occurs, none for values that do not (dihedral_m of 0, 2, 3 has no '1')."""
    present = sorted(present)
    mids = [0.5 * (a + b) for a, b in zip(present[:-1], present[1:])]
    levels = [present[0] - 0.5] + mids + [present[-1] + 0.5]
    cmap = plt.get_cmap("viridis", max(len(present), 2)).copy()
    cmap.set_bad(NAN_COLOUR)
    return ColourScale(norm=colors.BoundaryNorm(levels, cmap.N), cmap=cmap, integer_ticks=present)


# ---------------------------------------------------------------------------------------------
# Drawing
# ---------------------------------------------------------------------------------------------
def panel_slices(m):
    """[(title, 2-D or 1-D values, axes)] for a map: 3-axis maps give one slice per value of
    the first axis (at most MAX_PANELS, evenly spaced)."""
    ndim = m.values.ndim
    if ndim in (1, 2):
        return [("", m.values, m.axes)]
    if ndim == 3:
        first = m.axes[0]
        indices = range(len(first.values))
        if len(first.values) > MAX_PANELS:
            indices = np.unique(np.linspace(0, len(first.values) - 1, MAX_PANELS).round())
            warn(f"{m.path}: drawing {len(indices)} of {len(first.values)} {first.name} slices")
        return [(first.format_value(first.values[int(i)]), m.values[int(i)], m.axes[1:])
                for i in indices]
    raise SweepError(f"map {m.path} has {ndim} axes; only 1, 2 or 3 axes can be drawn")


def panel_count(m):
    """Panels a map's block holds: one, or one per drawn slice of a 3-axis map."""
    return 1 if m.values.ndim <= 2 else min(len(m.axes[0].values), MAX_PANELS)


def block_height(m):
    """Inches a map's block of panels needs."""
    if m.values.ndim == 1:
        return 3.6
    return 0.6 + 3.4 * math.ceil(panel_count(m) / PANEL_COLUMNS)


def block_width(m):
    if m.values.ndim == 1:
        return 8.0
    return 1.6 + 4.0 * min(panel_count(m), PANEL_COLUMNS)


def draw_curve(ax, m, log=False, label=None, colour=None, linestyle="-", spread=True,
               spread_legend=True):
    """A 1-axis map as a curve; Monte Carlo maps with their ±std band and min–max range
    (in the legend unless spread_legend is False)."""
    axis = m.axes[0]
    x, y = axis.positions, np.array(m.values, dtype=float)
    tiny = ROUNDOFF * max(1.0, float(np.nanmax(np.abs(y), initial=0.0)))
    signed = log and np.any(y > tiny) and np.any(y < -tiny)  # a cosine: symmetric log, not masked
    if signed:
        log = False
        small = np.abs(y[np.isfinite(y) & (np.abs(y) > tiny)])
        ax.set_yscale("symlog", linthresh=max(float(np.percentile(small, 5)), float(small.max()) * 1e-6))
    y_drawn = np.where(y > tiny, y, np.nan) if log else y
    label = label or m.name
    line, = ax.plot(x, y_drawn, linestyle, lw=1.4, color=colour, label=label,
                    marker="." if len(x) <= 40 else None, ms=4)
    colour = line.get_color()
    if spread and "std" in m.spread:
        lo, hi = y - m.spread["std"], y + m.spread["std"]
        if log:
            lo = np.where(lo > tiny, lo, np.nan)
        ax.fill_between(x, lo, hi, color=colour, alpha=0.25, lw=0,
                        label="± std over replicas" if spread_legend else None)
    if spread and "min" in m.spread and "max" in m.spread:
        for key in ("min", "max"):
            s = m.spread[key]
            s = np.where(s > tiny, s, np.nan) if log else s
            ax.plot(x, s, ":", lw=0.9, color=colour,
                    label="min / max over replicas" if key == "min" and spread_legend else None)
    if log:
        ax.set_yscale("log")
        nonpositive = np.isfinite(y) & (y <= tiny)
        if nonpositive.any():
            ax.plot(x[nonpositive], np.full(nonpositive.sum(), 0.02), "v", ms=5, color=colour,
                    transform=ax.get_xaxis_transform(), clip_on=False,
                    label=f"{label} ≤ 0 (off the log scale)")
        if not np.any(y > tiny):
            warn(f"{m.path}: no positive values to draw on a log scale")
    if len(x) > 1 and not axis.is_categorical:
        ax.set_xlim(x.min(), x.max())
    style_axis(ax, axis, "x")
    ax.grid(True, lw=0.4, alpha=0.5)
    return line


def draw_heatmap(ax, values, axes, scale):
    """A 2-axis slice: first axis along x, second along y; one cell per grid point."""
    xaxis, yaxis = axes
    mesh = ax.pcolormesh(xaxis.edges(), yaxis.edges(), scale.display(values).T,
                         norm=scale.norm, cmap=scale.cmap, shading="flat", rasterized=True)
    style_axis(ax, xaxis, "x")
    style_axis(ax, yaxis, "y")
    return mesh


def nan_note(m):
    count = int(np.count_nonzero(~np.isfinite(m.values)))
    return f"grey: no data ({count} of {m.values.size} points)" if count else ""


def draw_map_block(container, m, log=False, title=None, label=None):
    """One map in a Figure or SubFigure: a curve, a heatmap, or a row of heatmap panels."""
    notes = [n for n in (nan_note(m),) if n]
    if m.values.ndim == 1:
        ax = container.subplots(1, 1)
        draw_curve(ax, m, log=log)
        ax.set_ylabel(label or m.label)
        if m.spread or log:
            ax.legend(fontsize=7, loc="best")
        container.suptitle(wrap(_title(title or m.path, notes), int(block_width(m) * 10)), fontsize=10)
        return
    slices = panel_slices(m)
    scale = colour_scale(m.values, log=log, name=m.path)
    notes += [scale.note] if scale.note else []
    ncols = min(len(slices), PANEL_COLUMNS)
    nrows = math.ceil(len(slices) / ncols)
    axs = container.subplots(nrows, ncols, squeeze=False, sharex=True, sharey=True)
    mesh = None
    for ax, (panel_title, values, axes) in zip(axs.flat, slices):
        mesh = draw_heatmap(ax, values, axes, scale)
        _note_in_panel(ax, values)
        if panel_title:
            ax.set_title(panel_title, fontsize=9)
    for ax in list(axs.flat)[len(slices):]:
        ax.set_visible(False)
    for ax in axs.flat:  # shared axes: label only the outer ones
        if ax.get_visible():
            if not ax.get_subplotspec().is_last_row() and nrows > 1:
                ax.set_xlabel("")
            if not ax.get_subplotspec().is_first_col():
                ax.set_ylabel("")
    colour_bar(container, mesh, [a for a in axs.flat if a.get_visible()], scale, label or m.label)
    container.suptitle(wrap(_title(title or m.path, notes), int(block_width(m) * 10)), fontsize=10)


def mark_point(fig, x, y, label=None):
    """A white-edged star at (x, y) (values of the first and second axis) on every heatmap of
    `fig` (axes holding a QuadMesh); on a categorical axis between its categories' ticks."""
    from matplotlib.collections import QuadMesh
    for ax in fig.get_axes():
        if ax.get_label() != "<colorbar>" and any(isinstance(c, QuadMesh) for c in ax.collections):
            axes = getattr(ax, "simpact_axes", {})
            px = axes["x"].position_of(x) if "x" in axes else x
            py = axes["y"].position_of(y) if "y" in axes else y
            ax.plot([px], [py], marker="*", markersize=14, color="red", markeredgecolor="white",
                    linestyle="none", label=label)
            if label:
                ax.legend(loc="upper right", fontsize=8, framealpha=0.8)


def colour_bar(container, mesh, axes, scale, label):
    """The colour bar beside `axes`, labelled `long_name [units]`, integer ticks for counts."""
    bar = container.colorbar(mesh, ax=axes, extend=scale.extend)
    bar.set_label(label, fontsize=9)
    if isinstance(scale.norm, colors.LogNorm) and scale.norm.vmax < 100 * scale.norm.vmin:
        plain = ticker.FormatStrFormatter("%.3g")  # less than two decades: no 2×10⁰ labels
        bar.ax.yaxis.set_major_formatter(plain)
        bar.ax.yaxis.set_minor_formatter(plain)
    if scale.integer_ticks is not None:
        bar.set_ticks(scale.integer_ticks)
    if isinstance(scale.norm, colors.SymLogNorm):  # 0 and whole decades beyond the linear band
        lin, top = scale.norm.linthresh, scale.norm.vmax
        decades = [10.0 ** k for k in range(math.ceil(math.log10(lin)), math.floor(math.log10(top)) + 1)]
        bar.set_ticks(sorted([-d for d in decades] + [0.0] + decades))
    return bar


def _title(text, notes):
    return text + (f"  ({'; '.join(notes)})" if notes else "")


def caption_text(maps, width):
    """The figure's caption: every map's long_name once ('name: long_name'), wrapped to `width`
    characters — a map's value label stays short (name [units]); the axes carry their long
    names on their labels."""
    seen, parts = set(), []
    for m in maps:
        text = m.caption
        if text and m.name not in seen:
            seen.add(m.name)
            parts.append(text)
    return wrap("; ".join(parts), width) if parts else ""


def caption_height(text):
    return 0.25 + 0.17 * text.count("\n") if text else 0.0


def draw_caption(container, text, fontsize=8):
    container.text(0.02, 0.5, text, ha="left", va="center", fontsize=fontsize, color="0.2")


def figure_of_maps(maps, log=False, suptitle=None, label=None, caption=True):
    """One block per map, stacked, each with its own colour scale; the long names in a caption
    below. `label` replaces the value labels (colour bar or y axis)."""
    heights = [block_height(m) for m in maps]
    width = max(block_width(m) for m in maps)
    text = caption_text(maps, int(width * 13)) if caption else ""
    extra = caption_height(text)
    fig = plt.figure(figsize=(width, sum(heights) + (0.4 if suptitle else 0) + extra),
                     layout="constrained")
    blocks = fig.subfigures(len(maps) + (1 if text else 0), 1,
                            height_ratios=heights + ([extra] if text else []), squeeze=False)[:, 0]
    for block, m in zip(blocks, maps):
        draw_map_block(block, m, log=log, label=label)
    if text:
        draw_caption(blocks[-1], text)
    if suptitle:
        fig.suptitle(wrap(suptitle, int(width * 9)), fontsize=11, fontweight="bold")
    return fig


def shared_panels_layout(maps):
    """(rows, columns) of the panel grid `draw_shared_panels` uses for these maps."""
    if maps[0].values.ndim == 2:
        ncols = min(math.ceil(math.sqrt(len(maps))), PANEL_COLUMNS)
        return math.ceil(len(maps) / ncols), ncols
    return len(maps) * math.ceil(panel_count(maps[0]) / PANEL_COLUMNS), min(
        panel_count(maps[0]), PANEL_COLUMNS)


def shared_panels_size(maps):
    """(width, height) in inches for `draw_shared_panels`."""
    nrows, ncols = shared_panels_layout(maps)
    return 1.6 + 4.0 * ncols, 0.6 + 3.5 * nrows


def draw_shared_panels(container, maps, bar_label, log=False, title=None):
    """2- or 3-axis maps of one kind (e.g. energy loss per ordering) on one colour scale, in a
    Figure or SubFigure: 2-axis maps in a near-square grid of panels; 3-axis maps one row (or
    more) each, a panel per slice of the first axis. One colour bar for all."""
    scale = colour_scale(np.concatenate([m.values.ravel() for m in maps]), log=log,
                         name=", ".join(m.path for m in maps))
    nrows, ncols = shared_panels_layout(maps)
    if maps[0].values.ndim == 2:
        panels = [(m.name, m.values, m.axes) for m in maps]
    else:
        panels = [(f"{m.name}\n{slice_title}", values, axes)
                  for m in maps for slice_title, values, axes in panel_slices(m)]
    axs = container.subplots(nrows, ncols, squeeze=False, sharex=True, sharey=True)
    for ax, (panel_title, values, axes) in zip(axs.flat, panels):
        mesh = draw_heatmap(ax, values, axes, scale)
        ax.set_title(panel_title, fontsize=9)
        _note_in_panel(ax, values)
        if not ax.get_subplotspec().is_first_col():
            ax.set_ylabel("")
        if not ax.get_subplotspec().is_last_row():
            ax.set_xlabel("")
    for ax in list(axs.flat)[len(panels):]:
        ax.set_visible(False)
    colour_bar(container, mesh, [a for a in axs.flat if a.get_visible()], scale, bar_label)
    notes = [n for n in [scale.note] + [nan_note(m) for m in maps[:1]] if n]
    if title:
        container.suptitle(_title(title, notes), fontsize=11, fontweight="bold")


def _note_in_panel(ax, values):
    """Say so in the panel when a slice is zero up to round-off (an elastic impact's loss)."""
    finite = values[np.isfinite(values)]
    if finite.size and np.abs(finite).max() <= ROUNDOFF:
        ax.text(0.5, 0.5, "≈ 0 everywhere\n(|value| < 1e-12)", transform=ax.transAxes,
                ha="center", va="center", fontsize=9, color="white",
                bbox=dict(boxstyle="round", fc="black", alpha=0.35, ec="none"))


def check_output(out, extensions=OUTPUT_EXTENSIONS):
    """SweepError unless `out` ends with one of `extensions` (before any work is done)."""
    ext = os.path.splitext(out)[1].lower()
    if ext not in extensions:
        raise SweepError(f"output {out}: unknown extension '{ext}' "
                         f"(use {' or '.join(extensions)})")


def save_figure(fig, out, dpi=150):
    """Write a figure as PNG or PDF (by extension), creating the folder if needed."""
    check_output(out)
    folder = os.path.dirname(out)
    if folder:
        os.makedirs(folder, exist_ok=True)
    try:
        fig.savefig(out, dpi=dpi)
    except OSError as error:
        raise SweepError(f"cannot write {out}: {error.strerror or error}") from None
    plt.close(fig)


def default_output(input_path, suffix, ext=".png"):
    """'results/billiards_theta.h5' -> 'billiards_theta_<suffix>.png' (current folder)."""
    stem = os.path.splitext(os.path.basename(input_path))[0]
    return f"{stem}_{suffix}{ext}"
