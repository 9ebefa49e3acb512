"""Fig. 8 of Seghete & Murphey for TREX (issue 14, docs/trex.md): ξ(t) = ||p_argmin − p_argmax||_g /
||p||_g for the straight-legged "initial gait" and the g-orthogonal "optimized gait" of the
optimized design (dropped from 17 cm, each resolved with argmin and with argmax), on a log axis.

Two sources:
  --h5 FILE   the HDF5 of `simpact run configs/trex_fig8.yaml -o FILE` (a `gait` grid axis,
              simulate.record: ξ(t) from /samples/trajectory_xi_argmin_vs_argmax per task)
  (default)   runs build/bench/trex_fig8 (which also prints the energy balance) and keeps its CSV

usage: /usr/bin/scripts/trex_fig8.py [--h5 results/trex_fig8.h5 | -b build --dt 1e-4]
                                             [-o results/trex_fig8.png]
ξ that is exactly 0 (the copies agree to the last bit) is drawn at 1e-16 and says so in the legend.
"""
import argparse
import io
import math
import os
import subprocess
import sys

import numpy as np

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

FLOOR = 1e-16
GAITS = {1: ("initial gait", "tab:red"), 2: ("optimized gait", "tab:blue")}


def from_bench(args):
    """{gait: (t after touchdown [s], ξ)} from bench/trex_fig8; also writes its CSV."""
    exe = os.path.join(args.build, "bench", "trex_fig8")
    run = subprocess.run([exe, args.dt, args.after], check=True, capture_output=True, text=True)
    print(run.stderr.strip())
    data = np.genfromtxt(io.StringIO(run.stdout), delimiter=",", names=True)
    csv = os.path.splitext(args.output)[0] + ".csv"
    with open(csv, "w") as f:
        f.write(run.stdout)
    print(f"max |energy balance| initial {np.abs(data['energy_balance_initial']).max():.3e}, "
          f"optimized {np.abs(data['energy_balance_optimized']).max():.3e}; wrote {csv}")
    t = data["t_after_touchdown_s"]
    return {1: (t, data["xi_initial"]), 2: (t, data["xi_optimized"])}


def parameter(f, name, task, default):
    """A task's parameter: a grid axis (/samples/NAME) or a fixed one (/parameters/NAME)."""
    if f"samples/{name}" in f:
        return float(f[f"samples/{name}"][task])
    if f"parameters/{name}" in f:
        return float(f[f"parameters/{name}"][()])
    return default


def from_h5(path):
    """{gait: (t after touchdown [s], ξ)} from a configs/trex_fig8.yaml result file."""
    import h5py

    out = {}
    if not os.path.isfile(path):
        sys.exit(f"trex_fig8.py: error: {path}: no such file")
    with h5py.File(path, "r") as f:
        if "samples/trajectory_xi_argmin_vs_argmax" not in f or "samples/gait" not in f:
            sys.exit(f"trex_fig8.py: error: {path}: no /samples/trajectory_xi_argmin_vs_argmax or "
                     "/samples/gait (run configs/trex_fig8.yaml: simulate.record, a gait axis, "
                     "output.samples)")
        xi = f["samples/trajectory_xi_argmin_vs_argmax"][()]
        times = f["samples/trajectory_t"][()]
        for task, gait in enumerate(f["samples/gait"][()]):
            # The hips are held until the free-fall time of the held stance: the touchdown.
            touchdown = math.sqrt(2.0 * parameter(f, "drop", task, 0.17) / parameter(f, "g", task, 9.81))
            out[int(gait)] = (times[task] - touchdown, xi[task])
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--h5", help="result file of configs/trex_fig8.yaml (else run the bench)")
    ap.add_argument("-b", "--build", default="build")
    ap.add_argument("-o", "--output", default="results/trex_fig8.png")
    ap.add_argument("--dt", default="1e-4")
    ap.add_argument("--after", default="0.1", help="seconds after touchdown")
    args = ap.parse_args()
    os.makedirs(os.path.dirname(args.output) or ".", exist_ok=True)
    curves = from_h5(args.h5) if args.h5 else from_bench(args)
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    for gait, (t, xi) in sorted(curves.items()):
        label, colour = GAITS.get(gait, (f"gait {gait}", None))
        after = t > 0
        zero = xi[after] == 0.0
        ax.semilogy(1e3 * t[after], np.where(zero, FLOOR, xi[after]), color=colour,
                    label=label + (" (0 drawn at 1e-16)" if zero.any() else ""))
    ax.set_xlabel("time after first collision (ms)")
    ax.set_ylabel(r"outcome indeterminacy $\xi = \|p-\tilde p\|_g / \|p\|_g$")
    ax.set_ylim(FLOOR / 10, 10)
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(loc="center right")
    ax.set_title("TREX, optimized design: argmin vs argmax at every simultaneous impact", fontsize=9)
    fig.tight_layout()
    fig.savefig(args.output, dpi=120)
    if 1 in curves and 2 in curves:
        (t1, x1), (t2, x2) = curves[1], curves[2]
        w1, w2 = t1 > 0, t2 > 0
        print(f"after touchdown ({t1[w1].max() * 1e3:.1f} ms): min xi_initial {x1[w1].min():.3e}, "
              f"max xi_optimized {x2[w2].max():.3e}")
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
