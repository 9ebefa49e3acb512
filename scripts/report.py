#!/usr/bin/python3
"""usage: scripts/report.py results/billiards_theta.h5 -o report.html
       scripts/report.py results/cradle_masses.h5 --png -o summary.png

One-page summary of a simpact sweep: completeness and task counts, the headline ξ map, the
energy-loss maps, min/mean/max of every map, the provenance table and the config text.

HTML (default, report.html): a single self-contained file, figures embedded as base64 PNGs;
open it in any browser. --png: one summary PNG instead (facts, ξ, energy loss; default
report.png). An incomplete file is reported (with a warning) rather than refused.
"""
import argparse
import base64
import html
import io
import os
import textwrap

import numpy as np

import energy_maps
import simpact_h5 as sh
import simpact_plot as sp

CSS = """
body { font-family: sans-serif; max-width: 1200px; margin: 1em auto; color: #222; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.5em 0; }
th, td { border: 1px solid #ccc; padding: 2px 6px; text-align: left; vertical-align: top; }
td.num { text-align: right; font-family: monospace; }
pre { background: #f6f6f6; padding: 0.6em; font-size: 0.85em; overflow-x: auto; }
img { max-width: 100%; }
.warning { background: #fde2e2; border: 1px solid #c00; padding: 0.5em; }
"""


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[1],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("file", help="simpact result file (.h5)")
    parser.add_argument("-o", "--out", help="output file (default report.html, or report.png "
                                            "with --png)")
    parser.add_argument("--png", action="store_true", help="write one summary PNG instead")
    return parser.parse_args()


# -- content read from the file ----------------------------------------------------------------
def read_content(sweep):
    """Everything the report shows, read while the file is open."""
    xi = sweep.read_map("/xi")
    try:
        energy = energy_maps.read_energy_maps(sweep)
    except sh.SweepError as error:
        sh.warn(str(error))
        energy = []
    statistics = []
    for path in ["/xi"] + [p for p in sweep.map_paths() if p != "/xi"]:
        m = sweep.read_map(path, with_spread=False)
        statistics.append((m, m.statistics()))
    return dict(summary=sweep.summary(), axes=sweep.axes(), xi=xi, energy=energy,
                statistics=statistics, provenance=sweep.provenance(),
                config=sweep.config_text(), complete=sweep.complete, model=sweep.model)


# -- figures -----------------------------------------------------------------------------------
def xi_figure(content):
    return sp.figure_of_maps([content["xi"]])  # the block title names the map, the caption its long name


def png_base64(fig):
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110)
    sp.plt.close(fig)
    return base64.b64encode(buffer.getvalue()).decode("ascii")


# -- HTML --------------------------------------------------------------------------------------
def html_table(header, rows, numeric=()):
    """A table (no header row if header is None); columns whose index is in `numeric` are
    right-aligned monospace."""
    head = ""
    if header:
        head = "<tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in header) + "</tr>"
    body = []
    for row in rows:
        cells = "".join(f'<td{" class=num" if i in numeric else ""}>{html.escape(str(c))}</td>'
                        for i, c in enumerate(row))
        body.append(f"<tr>{cells}</tr>")
    return f"<table>{head}{''.join(body)}</table>"


def statistics_rows(statistics):
    rows = []
    for m, (low, mean, high, nan_count) in statistics:
        rows.append([m.path, m.long_name, m.units, sh.format_number(low),
                     sh.format_number(mean), sh.format_number(high), nan_count])
    return rows


def axes_rows(axes):
    rows = []
    for a in axes:
        rows.append([a.name, a.long_name, a.units, len(a.values), sh.format_number(a.values.min()),
                     sh.format_number(a.values.max()), a.spacing])
    return rows


def render_html(content, source):
    summary = content["summary"]
    warning = "" if content["complete"] else (
        '<p class="warning">This file is <b>incomplete</b> (complete = 0): the run was '
        "interrupted or is still going; unfinished grid points are blank in the maps. "
        "Finish it with <code>simpact run CONFIG --resume</code>.</p>")
    facts = html_table(None, summary)
    figures = [f'<img alt="xi map" src="data:image/png;base64,{png_base64(xi_figure(content))}">']
    if content["energy"]:
        energy_fig = energy_maps.energy_figure(content["energy"],
                                               title="relative energy loss per ordering")
        figures.append(f'<img alt="energy loss maps" '
                       f'src="data:image/png;base64,{png_base64(energy_fig)}">')
    names, rows = content["provenance"]
    parts = [
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        f"<title>simpact report: {html.escape(os.path.basename(source))}</title>",
        f"<style>{CSS}</style></head><body>",
        f"<h1>simpact sweep report: {html.escape(source)}</h1>", warning,
        "<h2>Sweep</h2>", facts,
        "<h2>Grid axes</h2>",
        html_table(["axis", "long_name", "units", "points", "min", "max", "spacing"],
                   axes_rows(content["axes"]), numeric=(3, 4, 5)),
        "<h2>Maps</h2>", *figures,
        "<h2>Statistics of every map</h2>",
        "<p>Over the grid points with data (NaN: grid points without a value).</p>",
        html_table(["map", "long_name", "units", "min", "mean", "max", "NaN"],
                   statistics_rows(content["statistics"]), numeric=(3, 4, 5, 6)),
        "<h2>Provenance</h2>",
        "<p>One row per run or resume of the sweep.</p>",
        html_table(names, rows, numeric=()) if names else "<p>no /provenance table</p>",
        "<h2>Config</h2>",
        f"<pre>{html.escape(content['config']) or '(no /config in the file)'}</pre>",
        "</body></html>",
    ]
    return "\n".join(p for p in parts if p)


# -- summary PNG -------------------------------------------------------------------------------
def facts_text(content, width=110):
    """The summary facts and an entry per /provenance row, as monospace text lines of at most
    `width` characters."""
    lines = [textwrap.shorten(f"{label}: {value}", width) for label, value in content["summary"]]
    names, rows = content["provenance"]
    for number, row in enumerate(rows, start=1):
        r = dict(zip(names, row))
        lines.append(f"run {number}: simpact {r.get('version', '?')} "
                     f"(git {r.get('git_revision', '?')}), {r.get('ranks', '?')} rank(s) × "
                     f"{r.get('threads', '?')} thread(s), {r.get('tasks_done', '?')} tasks, "
                     f"hosts {r.get('hosts', '?')}"[:width])
        lines.append(f"       {r.get('start_time', '?')} → {r.get('end_time', '?')}")
        lines += textwrap.wrap(r.get("command", ""), width, initial_indent="       $ ",
                               subsequent_indent="         ")
    return "\n".join(lines)


def summary_figure(content):
    """Facts, the ξ map and the energy-loss maps stacked in one figure."""
    xi, energy = content["xi"], content["energy"]
    text_height = 0.15 * facts_text(content).count("\n") + 0.35
    heights = [text_height, sp.block_height(xi)]
    widths = [sp.block_width(xi), 8.0]
    if energy:
        width, height = energy_maps.energy_size(energy)
        heights.append(height)
        widths.append(width)
    fig = sp.plt.figure(figsize=(max(widths), sum(heights)), layout="constrained")
    blocks = fig.subfigures(len(heights), 1, height_ratios=heights)
    blocks[0].text(0.01, 0.98, facts_text(content), va="top", ha="left", family="monospace",
                   fontsize=8.5, color="black" if content["complete"] else "darkred")
    sp.draw_map_block(blocks[1], xi, title=f"headline map {xi.path}")
    if energy:
        energy_maps.draw_energy(blocks[2], energy, title="relative energy loss per ordering")
    return fig


def main():
    args = parse_args()
    out = args.out or ("report.png" if args.png else "report.html")
    sp.check_output(out, (".png", ".pdf") if args.png else (".html", ".htm"))
    with sh.open_sweep(args.file) as sweep:
        content = read_content(sweep)
    if args.png:
        sp.save_figure(summary_figure(content), out)
    else:
        page = render_html(content, args.file)
        try:
            with open(out, "w", encoding="utf-8") as stream:
                stream.write(page)
        except OSError as error:
            raise sh.SweepError(f"cannot write {out}: {error.strerror or error}") from None
    print(f"wrote {out}")


if __name__ == "__main__":
    np.seterr(invalid="ignore")
    sh.run_main(main)
