"""Fig. 8 of Seghete & Murphey for TREX (issue 14, docs/trex.md): runs build/bench/trex_fig8
(the optimized design dropped from 17 cm in the straight-legged "initial gait" and the
g-orthogonal "optimized gait", each resolved with argmin and with argmax) and plots
ξ(t) = ||p_argmin − p_argmax||_g / ||p||_g for both gaits on a log axis.

usage: /usr/bin/python3 scripts/trex_fig8.py [-b build] [-o results/trex_fig8.png] [--dt 1e-4]
ξ that is exactly 0 (the copies agree to the last bit) is drawn at 1e-16 and says so in the legend.
"""
import argparse
import io
import os
import subprocess

import numpy as np

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

FLOOR = 1e-16


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-b", "--build", default="build")
    ap.add_argument("-o", "--output", default="results/trex_fig8.png")
    ap.add_argument("--dt", default="1e-4")
    ap.add_argument("--after", default="0.1", help="seconds after touchdown")
    args = ap.parse_args()
    exe = os.path.join(args.build, "bench", "trex_fig8")
    run = subprocess.run([exe, args.dt, args.after], check=True, capture_output=True, text=True)
    print(run.stderr.strip())
    data = np.genfromtxt(io.StringIO(run.stdout), delimiter=",", names=True)
    after = data["t_after_touchdown_s"] > 0
    t_ms = 1e3 * data["t_after_touchdown_s"][after]
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    for key, label, colour in (("xi_initial", "initial gait", "tab:red"), ("xi_optimized", "optimized gait", "tab:blue")):
        xi = data[key][after]
        zero = xi == 0.0
        ax.semilogy(t_ms, np.where(zero, FLOOR, xi), color=colour,
                    label=label + (" (0 drawn at 1e-16)" if zero.any() else ""))
    ax.set_xlabel("time after first collision (ms)")
    ax.set_ylabel(r"outcome indeterminacy $\xi = \|p-\tilde p\|_g / \|p\|_g$")
    ax.set_ylim(FLOOR / 10, 10)
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(loc="center right")
    ax.set_title("TREX, optimized design: argmin vs argmax at every simultaneous impact", fontsize=9)
    os.makedirs(os.path.dirname(args.output) or ".", exist_ok=True)
    fig.tight_layout()
    fig.savefig(args.output, dpi=120)
    csv = os.path.splitext(args.output)[0] + ".csv"
    with open(csv, "w") as f:
        f.write(run.stdout)
    win = after & (data["t_after_touchdown_s"] <= 0.06)
    print(f"first 60 ms: min xi_initial {data['xi_initial'][win].min():.3e}, "
          f"max xi_optimized {data['xi_optimized'][win].max():.3e}")
    print(f"max |energy balance| initial {np.abs(data['energy_balance_initial']).max():.3e}, "
          f"optimized {np.abs(data['energy_balance_optimized']).max():.3e}")
    print(f"wrote {args.output} and {csv}")


if __name__ == "__main__":
    main()
