#!/usr/bin/python3
"""Runs the post-processing scripts (scripts/plot_xi.py, fig5.py, energy_maps.py, report.py,
sensitivity.py) on real sweep files made by the real `simpact` program, and checks what they
write: non-empty PNG/PDF files with the right signature, HTML holding the provenance and embedded
figures, a warning (not a failure) for an incomplete file, and a one-line error with a non-zero
exit for a missing file, an unknown map or a bad output name. `--only labels` builds the figures
in this process (matplotlib Agg) and checks their text: axes labelled with the coordinate's
long_name [units] from the file (tests/scripts/billiards_labels_9x2.yaml sets them), a 2- or
3-value axis drawn as categories (one tick per value, labelled with it), the config's first
sentence kept whole as the title.

usage: /usr/bin/python3 tests/scripts/run_scripts.py build/simpact
       /usr/bin/python3 tests/scripts/run_scripts.py build/simpact --files DIR --only fig5 --out O

SIMPACT makes the four sweep files from tests/scripts/*.yaml (into --files DIR, or a temporary
folder) unless DIR already holds them (CTest's generate tests make them first). --only runs the
checks of some scripts; --out keeps the outputs in OUT (default: a temporary folder).
Needs h5py, numpy and matplotlib (Debian's /usr/bin/python3); run with MPLBACKEND=Agg.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

import h5py
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.normpath(os.path.join(HERE, "..", "..", "scripts"))
SWEEPS = ("billiards_theta_65", "billiards_map_17x9", "cradle_masses_3x9x9", "billiards_mc_8x16")
# More sweep files, each for some checks: a time-stepped sweep (energy_maps), long names, units
# and a 2-value axis set by the config (labels), Sobol' indices over 3 angles (sensitivity).
MORE_SWEEPS = ("cradle_timestep_3x3", "billiards_labels_9x2", "billiards_sobol_theta_3")
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
PDF_SIGNATURE = b"%PDF"

failures = []


# -- files -------------------------------------------------------------------------------------
def make_sweeps(simpact, folder):
    """{name: path} of the four sweep files, running simpact for those not in `folder` yet."""
    os.makedirs(folder, exist_ok=True)
    paths = {}
    for name in SWEEPS:
        path = os.path.join(folder, f"{name}.h5")
        if not os.path.exists(path):
            command = [simpact, "run", os.path.join(HERE, f"{name}.yaml"), "-o", path,
                       "--overwrite", "--quiet"]
            done = subprocess.run(command, capture_output=True, text=True, timeout=300)
            if done.returncode != 0:
                sys.exit(f"FAIL: {' '.join(command)} exited {done.returncode}:\n"
                         f"{done.stdout}{done.stderr}")
        paths[name] = path
    for name in MORE_SWEEPS:
        path = os.path.join(folder, f"{name}.h5")
        if not os.path.exists(path):
            subprocess.run([simpact, "run", os.path.join(HERE, f"{name}.yaml"), "-o", path,
                            "--overwrite", "--quiet"], capture_output=True, text=True, timeout=300, check=True)
        paths[name] = path
    return paths


def make_incomplete(source, target):
    """A copy of `source` as an interrupted run leaves it: complete = 0, half of the chunks not
    done, their grid points NaN in every map."""
    shutil.copyfile(source, target)
    with h5py.File(target, "r+") as f:
        f.attrs["complete"] = np.uint8(0)
        done = f["progress/done"]
        done[done.shape[0] // 2:] = 0
        for path in list(f.attrs["map_datasets"]):
            ds = f[path if isinstance(path, str) else path.decode()]
            values = ds[()]
            values.reshape(-1)[values.size // 2:] = np.nan
            ds[()] = values
    return target


# -- running and checking ----------------------------------------------------------------------
def run_script(script, *args):
    env = dict(os.environ, MPLBACKEND="Agg")
    command = [sys.executable, os.path.join(SCRIPTS, f"{script}.py"), *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=300, env=env)


def check(condition, what, done=None):
    if condition:
        print(f"ok: {what}")
        return True
    detail = ""
    if done:
        detail = f"\n  exit {done.returncode}\n  stdout: {done.stdout}\n  stderr: {done.stderr}"
    failures.append(what)
    print(f"FAIL: {what}{detail}")
    return False


def file_starts_with(path, signature):
    try:
        with open(path, "rb") as stream:
            head = stream.read(len(signature))
        return os.path.getsize(path) > 1000 and head == signature
    except OSError:
        return False


def png_size(path):
    """(width, height) from the PNG header."""
    with open(path, "rb") as stream:
        header = stream.read(24)
    return int.from_bytes(header[16:20], "big"), int.from_bytes(header[20:24], "big")


def expect_figure(script, out, *args):
    """Run a script that must write the figure `out` (PNG or PDF) and succeed."""
    done = run_script(script, *args)
    what = f"{script} {' '.join(os.path.basename(a) for a in args)}"
    if not check(done.returncode == 0, f"{what}: exit 0", done):
        return done
    signature = PDF_SIGNATURE if out.endswith(".pdf") else PNG_SIGNATURE
    check(file_starts_with(out, signature), f"{what}: {os.path.basename(out)} is a non-empty "
          f"{'PDF' if out.endswith('.pdf') else 'PNG'}")
    if out.endswith(".png") and os.path.exists(out):
        width, height = png_size(out)
        check(width >= 400 and height >= 300, f"{what}: image {width}×{height} px")
    return done


def expect_error(script, words, *args):
    """Run a script that must fail with a one-line 'script.py: error: ...' naming `words`."""
    done = run_script(script, *args)
    lines = done.stderr.strip().splitlines()
    what = f"{script} {' '.join(os.path.basename(a) for a in args)}"
    check(done.returncode != 0 and len(lines) == 1 and lines[0].startswith(f"{script}.py: error:")
          and all(w in lines[0] for w in words),
          f"{what}: fails with one line naming {words}", done)


def expect_incomplete_warning(done, what):
    check("warning" in done.stderr and "incomplete" in done.stderr,
          f"{what}: warns that the file is incomplete", done)


# -- the checks of each script -----------------------------------------------------------------
def check_plot_xi(files, out):
    theta, plane, cradle, mc = (files[n] for n in SWEEPS)
    expect_figure("plot_xi", f"{out}/theta.png", theta, "--out", f"{out}/theta.png")
    expect_figure("plot_xi", f"{out}/theta_log.pdf", theta, "--log", "--out",
                  f"{out}/theta_log.pdf")
    expect_figure("plot_xi", f"{out}/plane.png", plane, "--map", "/xi", "xi_maps/argmin_vs_argmax",
                  "/outcomes/dihedral_m", "--out", f"{out}/plane.png")
    expect_figure("plot_xi", f"{out}/plane_log.png", plane, "--log", "-o", f"{out}/plane_log.png")
    expect_figure("plot_xi", f"{out}/cradle.png", cradle, "-o", f"{out}/cradle.png")
    expect_figure("plot_xi", f"{out}/cradle_energy.pdf", cradle, "--group", "energy", "-o",
                  f"{out}/cradle_energy.pdf")
    expect_figure("plot_xi", f"{out}/mc.png", mc, "--map", "/xi_maps/outcome_set", "--log",
                  "-o", f"{out}/mc.png")
    done = expect_figure("plot_xi", f"{out}/incomplete.png", files["incomplete"], "-o",
                         f"{out}/incomplete.png")
    expect_incomplete_warning(done, "plot_xi on an incomplete file")
    expect_error("plot_xi", ["no such file"], f"{out}/missing.h5", "-o", f"{out}/x.png")
    expect_error("plot_xi", ["no map", "/nonexistent"], theta, "--map", "/nonexistent", "-o",
                 f"{out}/x.png")
    expect_error("plot_xi", ["no maps in group"], theta, "--group", "nonexistent", "-o",
                 f"{out}/x.png")
    expect_error("plot_xi", ["extension"], theta, "-o", f"{out}/x.jpeg")
    # A paper's figure: own title and label, resolution; a signed cosine under --log (symlog).
    expect_figure("plot_xi", f"{out}/paper.png", theta, "--title", "ξ over θ", "--label", "ξ",
                  "--dpi", "300", "-o", f"{out}/paper.png")
    if os.path.exists(f"{out}/paper.png") and os.path.exists(f"{out}/theta.png"):
        check(png_size(f"{out}/paper.png")[0] == 2 * png_size(f"{out}/theta.png")[0], "--dpi 300 doubles the width")
    done = expect_figure("plot_xi", f"{out}/cosine_log.png", plane, "--log", "--map", "/xi",
                         "/outcomes/normalized_cosine", "-o", f"{out}/cosine_log.png")
    check("no positive values" not in done.stderr, "a signed cosine on --log is drawn (symmetric log)", done)
    expect_error("plot_xi", ["--dpi"], theta, "--dpi", "0", "-o", f"{out}/x.png")
    expect_error("plot_xi", ["not an HDF5 file"], os.path.join(HERE, "billiards_theta_65.yaml"),
                 "-o", f"{out}/x.png")


def check_fig5(files, out):
    done = expect_figure("fig5", f"{out}/fig5.png", files["billiards_theta_65"], "-o",
                         f"{out}/fig5.png")
    check("θ = π/2" in done.stdout and "θ = π" in done.stdout,
          f"fig5 finds the zeros θ = π/2 and θ = π ({done.stdout.strip()})", done)
    kink = re.search(r"changes at: θ ≈ (0\.\d+)π", done.stdout)
    check(kink is not None and abs(float(kink.group(1)) - 0.712) < 0.02,
          f"fig5 marks the kink of the argmin sequence near θ ≈ 0.712π ({done.stdout.strip()})", done)
    expect_figure("fig5", f"{out}/fig5_mc.pdf", files["billiards_mc_8x16"], "-o",
                  f"{out}/fig5_mc.pdf")
    expect_error("fig5", ["1-axis"], files["billiards_map_17x9"], "-o", f"{out}/x.png")
    expect_error("fig5", ["no such file"], f"{out}/missing.h5")


def check_energy_maps(files, out):
    # A time-stepped sweep: E_end/E_0 per ordering (no relative_loss maps), one row of panels.
    done = expect_figure("energy_maps", f"{out}/energy_timestep.png", files["cradle_timestep_3x3"], "-o",
                         f"{out}/energy_timestep.png")
    check("ratio_argmin" in done.stdout, "energy_maps draws a time-stepped file's E_end/E_0", done)
    for name in SWEEPS:
        expect_figure("energy_maps", f"{out}/energy_{name}.png", files[name], "-o",
                      f"{out}/energy_{name}.png")
    done = expect_figure("energy_maps", f"{out}/energy_incomplete.pdf", files["incomplete"],
                         "-o", f"{out}/energy_incomplete.pdf")
    expect_incomplete_warning(done, "energy_maps on an incomplete file")
    expect_error("energy_maps", ["no such file"], f"{out}/missing.h5")


def check_report(files, out):
    for name in SWEEPS + ("incomplete",):
        page = f"{out}/report_{name}.html"
        done = run_script("report", files[name], "-o", page)
        if not check(done.returncode == 0 and os.path.getsize(page) > 1000,
                     f"report {name}: writes {os.path.basename(page)}", done):
            continue
        text = open(page, encoding="utf-8").read()
        with h5py.File(files[name], "r") as f:
            revision = f["provenance"]["git_revision"][0].decode()
            config_first_line = f["config"][()].decode().splitlines()[0]
        check("<h2>Provenance</h2>" in text and revision in text,
              f"report {name}: provenance table with git revision {revision}")
        check(text.count("data:image/png;base64,") >= 2, f"report {name}: ξ and energy figures")
        check("Statistics of every map" in text and "/energy/relative_loss_plastic" in text,
              f"report {name}: statistics table")
        check(config_first_line in text, f"report {name}: config text")
        if name == "incomplete":
            check("incomplete" in text, "report: the page says the file is incomplete")
            expect_incomplete_warning(done, "report on an incomplete file")
    expect_figure("report", f"{out}/summary.png", files["cradle_masses_3x9x9"], "--png", "-o",
                  f"{out}/summary.png")
    expect_figure("report", f"{out}/summary_mc.png", files["billiards_mc_8x16"], "--png", "-o",
                  f"{out}/summary_mc.png")
    expect_error("report", ["extension"], files["billiards_theta_65"], "-o", f"{out}/x.txt")


def check_sensitivity(files, out):
    expect_figure("sensitivity", f"{out}/sobol_theta.png", files["billiards_sobol_theta_3"], "-o",
                  f"{out}/sobol_theta.png")
    done = run_script("sensitivity", files["billiards_theta_65"], "-o", f"{out}/x.png")
    check(done.returncode != 0 and "no /sensitivity" in done.stderr, "sensitivity: a file without /sensitivity fails",
          done)


# -- the figures' text, in this process ----------------------------------------------------------
def script_module(name):
    """scripts/<name>.py imported (its main() not run)."""
    import importlib

    if SCRIPTS not in sys.path:
        sys.path.insert(0, SCRIPTS)
    return importlib.import_module(name)


def one_line(text):
    """A label or title as one line (wrapping only breaks lines: compare without whitespace)."""
    return "".join(text.split())


def heatmap_axes(fig):
    from matplotlib.collections import QuadMesh
    return [ax for ax in fig.get_axes() if ax.get_visible() and ax.get_label() != "<colorbar>"
            and any(isinstance(c, QuadMesh) for c in ax.collections)]


def tick_texts(axis):
    axis.axes.figure.canvas.draw()  # the tick labels are set on drawing
    return [t.get_text() for t in axis.get_ticklabels()]


def grid_label(path, name):
    """'long_name [units]' of /grid/<name>, read with h5py (what the figures must show)."""
    with h5py.File(path, "r") as f:
        attrs = f[f"grid/{name}"].attrs
        text = lambda v: v.decode() if isinstance(v, bytes) else str(v)
        return f"{text(attrs['long_name'])} [{text(attrs['units'])}]"


def check_categories(ax, which, labels, what):
    axis = ax.xaxis if which == "x" else ax.yaxis
    ticks = list(axis.get_ticklocs())
    check(ticks == list(range(len(labels))) and tick_texts(axis) == labels,
          f"{what}: {which} axis drawn as {len(labels)} categories {labels} (got ticks {ticks} {tick_texts(axis)})")


def check_labels(files, out):
    import matplotlib.pyplot as plt

    plot_xi, energy_maps, fig5 = (script_module(n) for n in ("plot_xi", "energy_maps", "fig5"))
    sh, sp = script_module("simpact_h5"), script_module("simpact_plot")
    labels = files["billiards_labels_9x2"]
    # plot_xi: ξ over θ × restitution, the names and units the config set, R ∈ {0, 1} two cells
    fig, _ = plot_xi.figure(plot_xi.parse_args([labels]))
    axes = heatmap_axes(fig)
    check(len(axes) == 1, f"plot_xi labels: one heatmap ({len(axes)})")
    ax = axes[0]
    check(one_line(ax.get_xlabel()) == one_line("impact angle θ [rad]"),
          f"plot_xi: x label is the config's long_name [units] ({ax.get_xlabel()!r})")
    check(one_line(ax.get_ylabel()) == one_line("coefficient of restitution e [1]"),
          f"plot_xi: y label is the config's long_name [units] ({ax.get_ylabel()!r})")
    check_categories(ax, "y", ["0", "1"], "plot_xi: the 2-value restitution")
    check(ax.get_ylim() == (-0.5, 1.5) and "0.5" not in tick_texts(ax.yaxis),
          f"plot_xi: the restitution's two cells, no tick between them ({ax.get_ylim()})")
    check(len(ax.get_xticks()) >= 4 and "$\\pi$" in tick_texts(ax.xaxis),
          f"plot_xi: θ (9 values) stays continuous, π ticks ({tick_texts(ax.xaxis)})")
    title = fig._suptitle.get_text()
    expected = ("Labels from the config: ξ of the billiards break over θ (9 points, π/3..π) × a 2-value "
                "restitution list (0 and 1), with long names and units set here (Fig. 5's axis, renamed) "
                "(billiards_labels_9x2.h5)")
    check(one_line(title) == one_line(expected),
          f"plot_xi: the title keeps the config's first sentence whole ({title!r})")
    sp.save_figure(fig, f"{out}/labels_xi.png")
    fig, _ = plot_xi.figure(plot_xi.parse_args([labels, "--mark", "2.0", "1", "designed"]))
    stars = [line for line in heatmap_axes(fig)[0].get_lines() if line.get_marker() == "*"]
    check(len(stars) == 1 and list(stars[0].get_ydata()) == [1.0] and list(stars[0].get_xdata()) == [2.0],
          "plot_xi --mark 2.0 1: the star on the category R = 1 (index 1), at θ = 2.0")
    plt.close(fig)
    # energy_maps: the same axes on every panel
    with sh.open_sweep(labels) as sweep:
        maps = energy_maps.read_energy_maps(sweep)
    fig = energy_maps.energy_figure(maps, title="energy")
    axes = heatmap_axes(fig)
    ylabels = {one_line(ax.get_ylabel()) for ax in axes} - {""}
    check(ylabels == {one_line("coefficient of restitution e [1]")}, f"energy_maps: restitution labelled {ylabels}")
    check(all(list(ax.get_yticks()) == [0, 1] for ax in axes) and all(   # shared y: inner panels unlabelled
          tick_texts(ax.yaxis) == ["0", "1"] for ax in axes if ax.get_ylabel()),
          f"energy_maps: restitution as 2 categories on all {len(axes)} panels")
    sp.save_figure(fig, f"{out}/labels_energy.png")
    # energy_maps of a time-stepped sweep: dt (3 values) × restitution (3 values), both categorical
    timestep = files["cradle_timestep_3x3"]
    with sh.open_sweep(timestep) as sweep:
        maps = energy_maps.read_energy_maps(sweep)
    fig = energy_maps.energy_figure(maps, title="time-stepped")
    ax = heatmap_axes(fig)[0]
    check(one_line(ax.get_xlabel()) == one_line(grid_label(timestep, "time_step")),
          f"energy_maps: dt labelled with the file's long_name [units] ({ax.get_xlabel()!r})")
    check_categories(ax, "x", ["0.01", "0.001", "0.0002"], "energy_maps: the 3 time steps")
    check_categories(ax, "y", ["0", "0.5", "1"], "energy_maps: the 3 restitutions")
    sp.save_figure(fig, f"{out}/labels_timestep.png")
    # fig5: θ labelled from the file (the model's long name, not a fixed text)
    theta = files["billiards_theta_65"]
    fig, summary = fig5.figure(theta)
    ax = fig.get_axes()[0]
    check(ax.get_xlabel() == grid_label(theta, "theta"), f"fig5: x label from the file ({ax.get_xlabel()!r})")
    check("θ = π/2" in summary, f"fig5: zeros ({summary})")
    sp.save_figure(fig, f"{out}/labels_fig5.png")
    # sensitivity.py: indices over 3 angles as 3 categories, labelled with π fractions
    sensitivity = script_module("sensitivity")
    sobol = files["billiards_sobol_theta_3"]
    fig = sensitivity.figure(sensitivity.parse_args([sobol]))
    ax = fig.get_axes()[0]
    check(one_line(ax.get_xlabel()) == one_line("angle between the target balls θ [rad]"),
          f"sensitivity: x label is the config's long_name [units] ({ax.get_xlabel()!r})")
    check_categories(ax, "x", ["π/2", "2π/3", "5π/6"], "sensitivity: the 3 angles")
    fig.savefig(f"{out}/labels_sensitivity.png", dpi=110)
    plt.close(fig)
    # the title of a config whose first sentence has a colon, parentheses and 'Fig. 5'
    text = ("# simpact run configs/billiards_theta.yaml -o results/billiards_theta.h5\n"
            "# The paper's Fig. 5: indeterminacy ξ versus the angle θ (a and b touching: π/3\n"
            "# for equal radii) to π. 1025 points put θ = π/2 on the grid.\nmodel: billiards\n")
    got = sh.config_description(text)
    check(got == "The paper's Fig. 5: indeterminacy ξ versus the angle θ (a and b touching: π/3 for equal radii) "
          "to π",
          f"config_description keeps 'Fig. 5:' and the parentheses ({got!r})")


CHECKS = {"plot_xi": check_plot_xi, "fig5": check_fig5, "energy_maps": check_energy_maps,
          "report": check_report, "sensitivity": check_sensitivity, "labels": check_labels}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("simpact", help="the simpact program (build/simpact)")
    parser.add_argument("--files", help="folder of the sweep files (made there if missing)")
    parser.add_argument("--only", nargs="+", choices=sorted(CHECKS), help="scripts to check")
    parser.add_argument("--out", help="folder for the outputs (default: a temporary folder)")
    args = parser.parse_args()

    scratch = tempfile.mkdtemp(prefix="simpact_scripts_")
    out = args.out or os.path.join(scratch, "out")
    os.makedirs(out, exist_ok=True)
    files = make_sweeps(args.simpact, args.files or os.path.join(scratch, "files"))
    files["incomplete"] = make_incomplete(files["billiards_map_17x9"], f"{out}/incomplete.h5")
    for name in args.only or CHECKS:
        CHECKS[name](files, out)
    if failures:
        sys.exit(f"{len(failures)} check(s) failed (outputs in {out}): {'; '.join(failures)}")
    shutil.rmtree(scratch, ignore_errors=True)
    print(f"all checks passed ({', '.join(args.only or CHECKS)})")


if __name__ == "__main__":
    main()
