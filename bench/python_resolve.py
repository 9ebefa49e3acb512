#!/usr/bin/env python3
"""Batched resolve from Python vs the C++ core (issue 24 acceptance: >= 0.5x the core's `all`
rate per core). Run after the build (scripts/install-python.sh, or PYTHONPATH=build/python):

    /usr/bin/python3 bench/python_resolve.py [--count 100000] [--threads 1]
    build/bench/core_bench --benchmark_filter='AllWithXi|BilliardsBatch' --benchmark_min_time=0.5

(core_bench's BilliardsBatch* are the same kind of batch in C++: the core alone on prebuilt problems
with simpact resolve's defaults, resolve_batch as simpact.resolve runs it, and the old per-item
request path; compare items_per_second with the CPU-second rate here.)

Prints impacts per second of simpact.resolve on B billiards breaks (d = 6, 2 contacts, random θ,
masses and cue direction; arrays built once, not timed), ordering "all" with the CLI's defaults
(plastic outcome and Definition 1 checked, as `simpact resolve`), per thread.
"""
import argparse
import math
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


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=100000)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    m, n, p = billiards_batch(args.count)
    for ordering in ("all", "argmin"):
        best = best_cpu = math.inf
        for _ in range(args.repeat):
            t0, c0 = time.perf_counter(), time.process_time()
            r = simpact.resolve(m, n, p, ordering=ordering, threads=args.threads)
            best = min(best, time.perf_counter() - t0)
            best_cpu = min(best_cpu, time.process_time() - c0)
        rate = args.count / best
        # CPU time too: on a loaded machine the wall clock counts other processes' turns
        print(f"simpact.resolve ordering={ordering}: {args.count} impacts in {best:.3f} s = {rate:.3e}/s "
              f"on {args.threads} thread(s) = {rate / args.threads:.3e}/s per thread, "
              f"{args.count / best_cpu:.3e}/s per CPU second "
              f"(status ok: {int((r.status == 0).sum())}, mean xi {np.nanmean(r.xi) if ordering == 'all' else math.nan:.4f})")


if __name__ == "__main__":
    main()
