"""Bit-identical sweep results for 1, 2, 3 and 4 MPI ranks and 1 and 2 OpenMP threads, for a
journal of rows (per-task samples) and of partial statistics (DESIGN §3: task randomness keyed
by (seed, task); each chunk's statistics folded in task order, chunks merged in chunk order).
The chunk size is part of the config: another chunk size merges other partials, so its means
and stds may differ in rounding only; the rows and the statistics journal give the same maps.

usage: sweep_determinism.py SIMPACT"""
import sys

import sweep_common as sc

CONFIG = """# a small Monte Carlo sweep touching every code path: four orderings incl. random, R < 1,
# Latin hypercube draws, per-task samples
model: billiards
params: {{speed: 1.0, restitution: 0.8}}
grid:
  theta: {{start: 1.3, stop: pi, num: 9}}
monte_carlo:
  samples_per_point: 40
  seed: 11
  method: lhs
  params:
    r_a: {{dist: uniform, low: 0.95, high: 1.05}}
    r_c: {{dist: uniform, low: 0.95, high: 1.05}}
    psi: {{dist: truncated_normal, mean: 0.0, std: 0.05, low: -0.2, high: 0.2}}
orderings: [all, argmin, argmax, random]
seed: 5
output: {{samples: {samples}, momenta: {samples}, chunk_size: {chunk}}}
"""


# More grid points than one collective write round of the maps holds (65536): one rank writes its
# maps in two rounds, two and three ranks in one each. R = 2 merges statistics, R = 1 reads rows.
MANY_POINTS = """model: billiards
params: {{speed: 1.0, restitution: 0.9}}
grid:
  theta: {{start: 1.3, stop: pi, num: 65537}}
monte_carlo: {{samples_per_point: {replicas}, seed: 3, method: lhs, params: {{psi: {{dist: uniform, low: -0.1, high: 0.1}}}}}}
orderings: [all, argmin, argmax]
"""


def maps_identical(reference, other, what):
    """The grid maps (not the samples) of two files are bit-identical."""
    a, _ = sc.datasets(reference)
    b, _ = sc.datasets(other)
    maps = [n for n in a if not n.startswith("samples")]
    for name in maps:
        if name not in b or a[name] != b[name]:
            sys.exit(f"FAIL: {what}: dataset /{name} differs")
    print(f"ok: {what}: {len(maps)} map datasets bit-identical")


def main():
    simpact = sys.argv[1]
    d = sc.tempdir()
    refs = {}
    for samples in ("true", "false"):
        for chunk in (16, 7):
            config = sc.write_config(CONFIG.format(chunk=chunk, samples=samples), d, f"c{chunk}{samples}.yaml")
            journal = "rows" if samples == "true" else "statistics"
            ref = refs[(samples, chunk)] = f"{d}/ref{chunk}{samples}.h5"
            sc.run(simpact, config, ref, ranks=0, threads=2)
            cases = [
                ("1 rank under mpirun", 1, 2),
                ("2 ranks", 2, 1),
                ("3 ranks", 3, 1),
                ("4 ranks", 4, 1),
                ("1 thread", 0, 1),
                ("2 ranks x 2 threads", 2, 2),
            ]
            for i, (what, ranks, threads) in enumerate(cases):
                out = f"{d}/case{chunk}{samples}{i}.h5"
                sc.run(simpact, config, out, ranks=ranks, threads=threads)
                sc.assert_identical(ref, out, f"{journal} journal, chunk size {chunk}, {what}")
    for chunk in (16, 7):
        maps_identical(refs[("true", chunk)], refs[("false", chunk)],
                       f"chunk size {chunk}: rows journal vs statistics journal")
    sc.assert_close(refs[("true", 16)], refs[("true", 7)], "chunk size 7 vs 16")
    for replicas in (2, 1):
        config = sc.write_config(MANY_POINTS.format(replicas=replicas), d, f"many{replicas}.yaml")
        ref = f"{d}/many{replicas}.h5"
        sc.run(simpact, config, ref, ranks=0, threads=1)
        for ranks in (2, 3):
            out = f"{d}/many{replicas}_{ranks}.h5"
            sc.run(simpact, config, out, ranks=ranks, threads=1)
            sc.assert_identical(ref, out, f"65537 grid points x {replicas} replicas: maps written in two "
                                          f"rounds (1 rank) vs one ({ranks} ranks)")


if __name__ == "__main__":
    main()
