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

Mechanism touchdowns (issue 34 §5), --mechanism biped,quadruped (default; "none" skips them):
--rows random touchdowns of a mechanism file with `place` (the biped: legs in step, height placed,
torso and shin masses; the quadruped: a trot's diagonal pair fl/rr, trunk mass), as a NumPy study
would run them: a Python loop of one-state Mechanism.resolve calls, then one batched call at 1
thread and at --mechanism-threads (default: the CPU count). Prints microseconds per row (wall
clock and CPU time of all threads, each the best of --repeat: on a shared machine the CPU time of
the 1-thread runs is the steadier number) and checks the batch equals the loop bit for bit. A build whose
Mechanism takes no parameter arrays prints the loop alone.
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


def touchdowns(name, rows, seed=2):
    """(mechanism, qpos (B, nq), qvel (B, nv), params {name: (B,)}) of `rows` random touchdowns."""
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples", "mechanisms")
    rng = np.random.default_rng(seed)
    if name == "biped":  # legs in step (equal hips, equal knees): both feet land together
        m = simpact.Mechanism.from_file(os.path.join(here, "biped.xml"),
                                        contacts=[("floor", "foot_l"), ("floor", "foot_r")], place=["qpos.root_z"])
        q = np.zeros((rows, m.nq))
        q[:, 3] = q[:, 5] = rng.uniform(-0.5, 0.5, rows)
        q[:, 4] = q[:, 6] = rng.uniform(-0.5, 0, rows)
        v = rng.normal(0, 0.3, (rows, m.nv))
        v[:, 1] = -rng.uniform(0.5, 2, rows)
        return m, q, v, {"mass.torso": rng.uniform(5, 15, rows), "mass.shin_l": rng.uniform(0.5, 2, rows)}
    m = simpact.Mechanism.from_file(os.path.join(here, "quadruped.xml"),
                                    contacts=[("floor", "foot_fl"), ("floor", "foot_rr")], place=["qpos.root[2]"])
    names = m.qpos_names
    q = np.tile(m.default_qpos(), (rows, 1))
    hip, knee = rng.uniform(-0.3, 0.3, rows), rng.uniform(-0.6, 0, rows)
    for leg in ("fl", "rr"):  # the diagonal pair lands together
        q[:, names.index(f"qpos.{leg}_hip")], q[:, names.index(f"qpos.{leg}_knee")] = hip, knee
    for leg in ("fr", "rl"):  # the other pair tucked
        q[:, names.index(f"qpos.{leg}_knee")] = -1.2
    v = np.zeros((rows, m.nv))
    v[:, 2] = -1
    v[:, 6:] = rng.normal(0, 0.5, (rows, m.nv - 6))
    return m, q, v, {"mass.trunk": rng.uniform(8, 16, rows)}


def mechanism_rows(name, rows, repeat, threads):
    """Microseconds per touchdown: a loop of one-state calls, and the batch at 1 and `threads`."""
    m, q, v, params = touchdowns(name, rows)

    def timed(run):  # best wall and best CPU seconds (all threads) of `repeat` runs, and the result
        wall = cpu = math.inf
        for _ in range(repeat):
            t0, c0 = time.perf_counter(), time.process_time()
            result = run()
            wall, cpu = min(wall, time.perf_counter() - t0), min(cpu, time.process_time() - c0)
        return wall / rows * 1e6, cpu / rows * 1e6, result

    wall, cpu, singles = timed(lambda: [m.resolve(q[b], v[b], params={k: float(a[b]) for k, a in params.items()})
                                        for b in range(rows)])
    line = (f"Mechanism.resolve {name} (nv = {m.nv}), {rows} touchdowns: loop of one-state calls "
            f"{wall:.1f} us/row wall ({cpu:.1f} CPU)")
    try:
        m.resolve(q[:2], v[:2], params={k: a[:2] for k, a in params.items()})
    except ValueError:
        print(line + "; batch: parameter arrays not supported by this build")
        return
    for t in sorted({1, threads}):
        b_wall, b_cpu, r = timed(lambda: m.resolve(q, v, params=params, threads=t))
        same = all(np.array_equal(r.xi[b], s.xi, equal_nan=True) and np.array_equal(r.outcomes(b), s.outcomes())
                   for b, s in enumerate(singles))
        line += (f"; batch at {t} thread(s) {b_wall:.1f} us/row wall ({b_cpu:.1f} CPU, {wall / b_wall:.1f}x wall), "
                 f"equal: {same}")
    print(line)


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
    ap.add_argument("--mechanism", default="biped,quadruped")
    ap.add_argument("--rows", type=int, default=2000)
    ap.add_argument("--mechanism-threads", type=int, default=os.cpu_count())
    args = ap.parse_args()
    for name in args.mechanism.split(","):
        if name != "none":
            mechanism_rows(name, args.rows, args.repeat, args.mechanism_threads)
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
