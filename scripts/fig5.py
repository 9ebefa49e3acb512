#!/usr/bin/python3
"""usage: scripts/fig5.py results/billiards_theta.h5 -o fig5.png
       (the file from: simpact run configs/billiards_theta.yaml -o results/billiards_theta.h5)

The paper's Fig. 5 (Seghete & Murphey): indeterminacy ξ of a billiards break versus the angle
θ between the two contact normals, with the zeros of ξ marked and named.

Draws /xi (ξ over the outcome set) in percent of ||p⁻||_g as in the paper's caption and, if
present, /xi_maps/argmin_vs_argmax (ξ between the two ordering policies) as markers: for two
contacts the two coincide. The kink where the argmin contact sequence gets longer
(/outcomes/steps_argmin changes, θ ≈ 0.712π for equal balls) is marked. Grid points with ξ <= 1e-12 are
marked; each run of such points is labelled with its θ as a fraction of π and why ξ vanishes
there, read from the file:
  no energy lost even by a plastic impact (/energy/relative_loss_plastic = 0): "grazing"
  normalized Gram entry G_12 = 0 (/outcomes/dihedral_m = 2):                  "g-orthogonal"
  G_12 = -cos(π/m), m >= 3:                                                   "dihedral, m = …"
Monte Carlo files (replicas > 1) are drawn as mean with ±std band and min/max.
Writes fig5.png unless -o names another .png or .pdf file.
"""
import argparse
import dataclasses
import math

import numpy as np

import simpact_h5 as sh
import simpact_plot as sp

ZERO = 1e-12  # ξ at or below this is zero (the paper's exact zeros, up to round-off)


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[1],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("file", help="billiards θ sweep (.h5), e.g. results/billiards_theta.h5")
    parser.add_argument("-o", "--out", default="fig5.png", help="output .png or .pdf")
    return parser.parse_args(argv)


def zero_runs(xi):
    """[(first, last)] index ranges of consecutive grid points where ξ <= ZERO."""
    runs, start = [], None
    for i, is_zero in enumerate(np.isfinite(xi) & (xi <= ZERO)):
        if is_zero and start is None:
            start = i
        if not is_zero and start is not None:
            runs.append((start, i - 1))
            start = None
    if start is not None:
        runs.append((start, len(xi) - 1))
    return runs


def optional_map(sweep, path):
    try:
        return sweep.read_map(path, with_spread=False).values
    except sh.SweepError:
        return None


def zero_reason(i, plastic_loss, dihedral_m):
    """Why ξ vanishes at grid point i, from the file's own diagnostics ('' if unknown)."""
    if plastic_loss is not None and np.isfinite(plastic_loss[i]) and plastic_loss[i] <= ZERO:
        return "grazing: no impact"
    if dihedral_m is not None and np.isfinite(dihedral_m[i]):
        m = int(round(dihedral_m[i]))
        if m == 2:
            return "g-orthogonal"
        if m >= 3:
            return f"dihedral, m = {m}"
    return ""


def theta_text(theta):
    fraction = sh.pi_fraction(theta)
    return f"θ = {fraction}" if fraction else f"θ ≈ {theta:.4f} rad"


def annotate_zeros(ax, x, theta, xi, plastic_loss, dihedral_m):
    """Mark each run of zeros (red dots, dashed line) and name it above the plot frame:
    'θ = π/2 (g-orthogonal)'. x: where the angles θ are drawn (θ, or indices on a categorical
    axis of few angles)."""
    lo, hi = x.min(), x.max()
    for first, last in zero_runs(xi):
        i = (first + last) // 2
        reason = zero_reason(i, plastic_loss, dihedral_m)
        text = theta_text(theta[i]) + (f"\n({reason})" if reason else "")
        if last > first:
            text += f"\n[{last - first + 1} grid points]"
        ax.axvline(x[i], color="crimson", lw=0.8, ls="--", alpha=0.6, zorder=0)
        ax.plot(x[first:last + 1], np.zeros(last - first + 1), "o", color="crimson",
                ms=6, zorder=5, clip_on=False)
        where = (x[i] - lo) / (hi - lo) if hi > lo else 0.5
        align = "right" if where > 0.9 else "left" if where < 0.1 else "center"
        ax.annotate(text, xy=(x[i], 1.0), xycoords=ax.get_xaxis_transform(),
                    xytext=(0, 3), textcoords="offset points", ha=align, va="bottom",
                    fontsize=9, color="crimson")


def percent(m):
    """The map (and its Monte Carlo spread) scaled to percent, as in the paper's caption."""
    return dataclasses.replace(m, values=100.0 * np.asarray(m.values, dtype=float),
                               spread={k: 100.0 * v for k, v in m.spread.items()})


def sequence_kinks(theta, steps):
    """[(θ, before, after, i)] where the argmin sequence length changes between two impacts,
    between grid points i and i + 1 (a change to or from 0 steps — no impact — is not a kink)."""
    kinks = []
    if steps is None or not np.all(np.isnan(steps) | (steps == np.round(steps))):
        return kinks
    for i in range(len(theta) - 1):
        a, b = steps[i], steps[i + 1]
        if np.isfinite(a) and np.isfinite(b) and a != b and a > 0 and b > 0:
            kinks.append((0.5 * (theta[i] + theta[i + 1]), int(a), int(b), i))
    return kinks


def figure(path):
    """(the figure, the summary line's text) of the θ sweep in `path`; tests inspect its labels."""
    with sh.open_sweep(path) as sweep:
        xi = sweep.read_map("/xi")
        if xi.values.ndim != 1:
            raise sh.SweepError(f"{path} sweeps {len(xi.axes)} axes "
                                f"({', '.join(a.name for a in xi.axes)}); Fig. 5 needs a "
                                "1-axis θ sweep such as configs/billiards_theta.yaml")
        pair = None
        try:
            pair = sweep.read_map("/xi_maps/argmin_vs_argmax")
        except sh.SweepError:
            pass
        plastic_loss = optional_map(sweep, "/energy/relative_loss_plastic")
        dihedral_m = optional_map(sweep, "/outcomes/dihedral_m")
        # the sequence length of each angle (not its Monte Carlo mean, which varies smoothly)
        steps = optional_map(sweep, "/outcomes/steps_argmin")
        model, complete, replicas = sweep.model, sweep.complete, sweep.replicas

    fig = sp.plt.figure(figsize=(8.5, 4.8), layout="constrained")
    ax = fig.add_subplot()
    theta, x = xi.axes[0].values, xi.axes[0].positions
    xi_pct = percent(xi)
    sp.draw_curve(ax, xi_pct, label="ξ over the outcome set (all orderings)", colour="tab:blue")
    if pair is not None:
        # The two orderings' ξ coincides with the outcome-set ξ for two contacts: drawn as
        # markers on a sparser set of angles so that both stay visible.
        pair_pct = percent(pair)
        every = max(1, len(theta) // 40)
        ax.plot(x[::every], pair_pct.values[::every], "o", ms=5, mfc="none", mec="darkorange",
                mew=1.2, label="ξ between orderings argmin and argmax (every %d-th angle)" % every
                if every > 1 else "ξ between orderings argmin and argmax", zorder=4)
    annotate_zeros(ax, x, theta, xi.values, plastic_loss, dihedral_m)
    top = np.nanmax([np.nanmax(xi_pct.values)] + ([np.nanmax(100 * pair.values)] if pair else [])
                    + ([np.nanmax(xi_pct.spread["max"])] if "max" in xi_pct.spread else []))
    top = top if math.isfinite(top) and top > 0 else 1.0
    for where, before, after, i in sequence_kinks(theta, steps):
        at = 0.5 * (x[i] + x[i + 1])
        ax.axvline(at, color="0.35", lw=0.8, ls=":", zorder=0)
        frac = where / math.pi
        ax.annotate(f"kink: argmin sequence\n{before} → {after} reflections\nθ ≈ {frac:.3f}π",
                    xy=(at, 0.5 * (xi_pct.values[i] + xi_pct.values[i + 1])), xytext=(-8, -95),
                    textcoords="offset points", ha="right", va="top", fontsize=8, color="0.25",
                    arrowprops=dict(arrowstyle="-", color="0.5", lw=0.6))
    ax.set_xlabel(xi.axes[0].label)  # the file's long_name [units] (draw_curve set it)
    ax.set_ylabel("indeterminacy ξ [% of ‖p⁻‖_g]")
    ax.set_ylim(-0.02 * top, 1.12 * top)
    ax.legend(loc="upper right", fontsize=8)
    what = f"{len(theta)} angles" + (f" × {replicas} replicas" if replicas > 1 else "")
    fig.suptitle(f"Indeterminacy of a {model} break versus the angle θ ({what})"
                 + ("" if complete else "  [INCOMPLETE FILE]"), fontsize=11)
    zeros = [theta_text(theta[(a + b) // 2]) for a, b in zero_runs(xi.values)]
    kinks = [f"θ ≈ {w / math.pi:.3f}π" for w, _, _, _ in sequence_kinks(theta, steps)]
    return fig, (f"ξ = 0 at: {', '.join(zeros) or 'no grid point'}; "
                 f"argmin sequence length changes at: {', '.join(kinks) or 'nowhere'}")


def main():
    args = parse_args()
    sp.check_output(args.out)
    fig, summary = figure(args.file)
    sp.save_figure(fig, args.out)
    print(f"wrote {args.out}; {summary}")


if __name__ == "__main__":
    sh.run_main(main)
