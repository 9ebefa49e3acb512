"""Bit-identical sweep results for 1, 2 and 4 MPI ranks, 1 and 2 OpenMP threads and two chunk
sizes (DESIGN §3: task randomness keyed by (seed, task); statistics reduced in task order).

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
output: {{samples: true, momenta: true, chunk_size: {chunk}}}
"""


def main():
    simpact = sys.argv[1]
    d = sc.tempdir()
    c16 = sc.write_config(CONFIG.format(chunk=16), d, "c16.yaml")
    c7 = sc.write_config(CONFIG.format(chunk=7), d, "c7.yaml")
    ref = f"{d}/ref.h5"
    sc.run(simpact, c16, ref, ranks=0, threads=2)
    cases = [
        ("1 rank under mpirun", c16, 1, 2),
        ("2 ranks", c16, 2, 1),
        ("4 ranks", c16, 4, 1),
        ("1 thread", c16, 0, 1),
        ("chunk size 7", c7, 0, 2),
        ("chunk size 7, 2 ranks x 2 threads", c7, 2, 2),
    ]
    for i, (what, config, ranks, threads) in enumerate(cases):
        out = f"{d}/case{i}.h5"
        sc.run(simpact, config, out, ranks=ranks, threads=threads)
        sc.assert_identical(ref, out, what)


if __name__ == "__main__":
    main()
