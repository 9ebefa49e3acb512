#!/usr/bin/python3
"""usage: scripts/plot_xi.py results/billiards_theta.h5 --out xi.png
       scripts/plot_xi.py results/billiards_map.h5 --map /xi /outcomes/count -o map.pdf
       scripts/plot_xi.py results/billiards_map.h5 --log -o map_log.png  # ξ near its zeros
       scripts/plot_xi.py results/cradle_masses.h5 --group energy --out energy.png
       scripts/plot_xi.py results/billiards_mc.h5 --log   # mean ξ, ±std band, min/max
       scripts/plot_xi.py results/biped_touchdown.h5 --mark 0.3 -1.0722 "designed" -o biped.png

Plot maps of a simpact sweep file: curves over 1-axis grids, heatmaps over 2-axis grids, one
heatmap panel per value of the first axis over 3-axis grids. Labels come from the file; the
title is the sweep's description, the first sentence of its config's leading comment, whole.
Counts and flags (e.g. /outcomes/dihedral_m) get one colour per value that occurs.

Default map: /xi (the headline ξ). With Monte Carlo files a name without a statistic
('/xi_maps/outcome_set') means its `_mean`, drawn with its std and min/max. `--group G` draws
every map of /G. `--log`: logarithmic colour (or y) scale; values <= 0 are masked (white
cells, or ▼ marks under a curve). An incomplete file is plotted with a warning; missing file,
unknown map or a bad output extension exit with status 1 and a one-line message.
An axis is labelled with its coordinate's long_name [units] (the config's long_name/units, else
the model's); an axis of at most 6 values (a restitution list, time steps) is drawn as categories,
one tick per value. The values are labelled name [units], their long names in a caption under the
figure (--no-caption leaves it out). --title, --label (of the values) and --dpi (PNG
resolution) adjust a figure for a paper.
Writes <file stem>_xi.png in the current folder unless --out names a .png or .pdf file.
"""
import argparse
import os

import simpact_h5 as sh
import simpact_plot as sp


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[1],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("file", help="simpact result file (.h5)")
    parser.add_argument("--map", dest="maps", nargs="+", action="extend", metavar="PATH",
                        help="map(s) to draw, e.g. /xi /energy/relative_loss_argmin "
                             "(default: /xi)")
    parser.add_argument("--group", metavar="G",
                        help="draw every map of group G (xi_maps, energy, outcomes)")
    parser.add_argument("--log", action="store_true", help="logarithmic colour / y scale")
    parser.add_argument("--mark", nargs="+", action="append", metavar="X Y [LABEL]",
                        help="mark a point (first axis, second axis) on every heatmap, e.g. a "
                             "designed configuration from `simpact design`; repeatable")
    parser.add_argument("--title", help="figure title (default: the config's description and the file)")
    parser.add_argument("--label", help="label of the values (colour bar or y axis; default: name [units])")
    parser.add_argument("--no-caption", action="store_true",
                        help="leave out the caption of long names under the figure")
    parser.add_argument("--dpi", type=float, default=150, help="resolution of a PNG (default 150)")
    parser.add_argument("-o", "--out", help="output .png or .pdf (default: <stem>_xi.png)")
    args = parser.parse_args(argv)
    if not args.dpi > 0 or args.dpi > 2400:
        raise sh.SweepError(f"--dpi: must be in (0, 2400] (got {args.dpi:g})")
    return args


def selected_paths(sweep, args):
    """The map paths to draw, in order: --map ones, then --group ones; /xi if neither."""
    paths = [sweep.resolve(p) for p in (args.maps or [])]
    if args.group:
        group = args.group.strip("/")
        in_group = sweep.quantity_paths(group)
        if not in_group:
            groups = sorted({p.split("/")[1] for p in sweep.quantity_paths() if p.count("/") > 1})
            raise sh.SweepError(f"no maps in group '/{group}' of {sweep.path} "
                                f"(groups: {', '.join(groups)})")
        paths += [p for p in in_group if p not in paths]
    return paths or [sweep.resolve("/xi")]


def figure(args):
    """(the figure, the maps drawn) of parsed arguments; tests inspect its labels in-process."""
    with sh.open_sweep(args.file) as sweep:
        maps = [sweep.read_map(p) for p in selected_paths(sweep, args)]
        described = sh.config_description(sweep.config_text())
        title = ((args.title if args.title is not None
                  else f"{described or sweep.model} ({os.path.basename(args.file)})")
                 + ("" if sweep.complete else "  [INCOMPLETE]"))
    fig = sp.figure_of_maps(maps, log=args.log, suptitle=title or None, label=args.label,
                            caption=not args.no_caption)
    for mark in args.mark or []:
        if len(mark) not in (2, 3):
            raise sh.SweepError(f"--mark takes X Y [LABEL] (got {' '.join(mark)})")
        try:
            x, y = float(mark[0]), float(mark[1])
        except ValueError:
            raise sh.SweepError(f"--mark: X and Y must be numbers (got {mark[0]} {mark[1]})") from None
        sp.mark_point(fig, x, y, mark[2] if len(mark) == 3 else None)
    return fig, maps


def main():
    args = parse_args()
    out = args.out or sp.default_output(args.file, "xi")
    sp.check_output(out)
    fig, maps = figure(args)
    sp.save_figure(fig, out, dpi=args.dpi)
    print(f"wrote {out} ({', '.join(m.path for m in maps)})")


if __name__ == "__main__":
    sh.run_main(main)
