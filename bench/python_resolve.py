#!/usr/bin/env python3
"""Batched resolve from Python vs the C++ core (issue 24 acceptance: >= 0.5x the core's `all`
rate per core). Run after the build (scripts/install-python.sh, or PYTHONPATH=build/python):

    OMP_NUM_THREADS=1 /usr/bin/python3 bench/python_resolve.py [--count 100000] [--threads 1] \\
        [--core-bench build/bench/core_bench]

Prints impacts per second of simpact.resolve on B billiards breaks (d = 6, 2 contacts, random θ,
masses and cue direction; arrays built once, not timed), per CPU second of one thread, in two
modes: "core work" (plastic=False, definition1=False: the work of core_bench's
BM_BilliardsResolveAllWithXi, the full outcome set and ξ with its argmin/argmax pair) and "CLI
defaults" (plastic outcome and Definition 1 checked, as `simpact resolve`), and argmin alone.
With --core-bench (default: build/bench/core_bench when it exists) it runs, in the same session,
BM_BilliardsResolveAllWithXi (one problem resolved over and over: a warm best case) and
BM_BilliardsBatchCoreWork (the core alone on varied billiards problems like these, built
beforehand), and prints each mode's ratio to both rates.
(core_bench's BilliardsBatch* are the same kind of batch in C++: the core alone on prebuilt
problems, resolve_batch as simpact.resolve runs it, and the old per-item request path.)
"""
import argparse
import json
import math
import os
import subprocess
import time

import numpy as np

import simpact


def billiards_batch(b, seed=1):
    rng = np.random.default_rng(seed)
    theta = rng.uniform(math.pi / 3 + 0.05, math.pi, b)
    masses = rng.uniform(0.5, 2.0, (b, 3))
    mass = np.zeros((b, 6, 6))
    for i in range(3):
        mass[:, 2 * i, 2 * i] = mass[:, 2 * i + 1, 2 * i + 1] = masses[:, i]
    na = np.stack([np.cos(theta / 2), np.sin(theta / 2)], axis=1)
    nb = np.stack([np.cos(theta / 2), -np.sin(theta / 2)], axis=1)
    normals = np.zeros((b, 2, 6))
    normals[:, 0, 0:2], normals[:, 0, 4:6] = na, -na
    normals[:, 1, 2:4], normals[:, 1, 4:6] = nb, -nb
    angle = rng.uniform(-0.2, 0.2, b)
    momentum = np.zeros((b, 6))
    momentum[:, 4], momentum[:, 5] = masses[:, 2] * np.cos(angle), masses[:, 2] * np.sin(angle)
    return mass, normals, momentum


def core_rates(path):
    """items_per_second (CPU time, one thread) of BM_BilliardsResolveAllWithXi (one problem, resolved
    over and over) and BM_BilliardsBatchCoreWork (4096 varied billiards problems like these, built
    beforehand), as {name: rate}."""
    out = subprocess.run([path, "--benchmark_filter=Billiards(ResolveAllWithXi|BatchCoreWork)$",
                          "--benchmark_min_time=1", "--benchmark_format=json"],
                         check=True, capture_output=True, text=True).stdout
    return {b["name"]: b["items_per_second"] for b in json.loads(out)["benchmarks"]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=100000)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=5)
    default_core = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build", "bench", "core_bench")
    ap.add_argument("--core-bench", default=default_core if os.path.exists(default_core) else None)
    args = ap.parse_args()
    m, n, p = billiards_batch(args.count)
    modes = [("all, core work (plastic=False, definition1=False)", dict(ordering="all", plastic=False,
                                                                          definition1=False)),
             ("all, CLI defaults", dict(ordering="all")),
             ("argmin, CLI defaults", dict(ordering="argmin"))]
    cores = core_rates(args.core_bench) if args.core_bench else {}
    for bench, rate in cores.items():
        print(f"core_bench {bench}: {rate:.3e}/s per CPU second")
    for name, options in modes:
        best = best_cpu = math.inf
        for _ in range(args.repeat):
            t0, c0 = time.perf_counter(), time.process_time()
            r = simpact.resolve(m, n, p, threads=args.threads, **options)
            best = min(best, time.perf_counter() - t0)
            best_cpu = min(best_cpu, time.process_time() - c0)
        per_cpu = args.count / best_cpu
        # CPU time: on a loaded machine the wall clock counts other processes' turns
        ratio = "".join(f", {per_cpu / rate:.2f}x {bench[3:]}" for bench, rate in cores.items()
                        if args.threads == 1)
        print(f"simpact.resolve {name}: {args.count} impacts in {best:.3f} s wall on {args.threads} thread(s), "
              f"{per_cpu:.3e}/s per CPU second{ratio} (status ok: {int((r.status == 0).sum())})")


if __name__ == "__main__":
    main()
