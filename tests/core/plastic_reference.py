#!/usr/bin/python3
"""Issue 9: `simpact resolve`'s plastic outcome against an extended-precision reference.

plastic_reference.py SIMPACT [--report]

For normals 1e-4 … 1e-10 rad from antiparallel (random p⁻, identity / diagonal / coupled SPD M),
the exact g-projection of p⁻ onto {p : <p,u_i>_g ≥ 0} is computed with mpmath (60 digits) by
enumerating every active set S — the projection onto {<p,u_i>_g = 0, i ∈ S} by Gram–Schmidt on the
whitened normals — and keeping the nearest feasible candidate (the projection onto a polyhedral
cone lies in the relative interior of one face, so it is that face's subspace projection). The
inputs are the doubles written to the JSON file, taken as exact.

Tolerance: the projection's condition number for two normals δ from antiparallel is ~1/δ, so a
double-precision solve errs by ~ε/δ (6e-7 at δ = 1e-10). simpact re-solves such nearly dependent
active sets in long double (whitening included), which brings the error to ~1e-19/δ: the bound is
  ||p_p − p_ref||_g ≤ 1e-9 ||p⁻||_g   for every δ down to 1e-10 rad,
and ≤ 1e-12 ||p⁻||_g outright where the answer does not depend on the pair's difference direction
(M = I₂, both contacts active: p_p = 0). Every solve must report converged
(its KKT check) and a feasible p_p.
Standard library + mpmath (Debian python3-mpmath).
"""
import itertools
import json
import math
import os
import random
import subprocess
import sys
import tempfile

import mpmath as mp

mp.mp.dps = 60
EPS = 2.0**-52


def whiten_system(mass, normals, momentum):
    m = mp.matrix([[mp.mpf(x) for x in row] for row in mass])
    chol = mp.cholesky(m)
    d = len(momentum)

    def lower_solve(v):
        y = [mp.mpf(0)] * d
        for i in range(d):
            y[i] = (mp.mpf(v[i]) - mp.fsum(chol[i, j] * y[j] for j in range(i))) / chol[i, i]
        return y

    return chol, [lower_solve(u) for u in normals], lower_solve(momentum)


def dot(a, b):
    return mp.fsum(x * y for x, y in zip(a, b))


def reference_plastic(mass, normals, momentum):
    """The exact projection (whitened) and the whitening data."""
    chol, b, y0 = whiten_system(mass, normals, momentum)
    k = len(normals)
    norm0 = mp.sqrt(dot(y0, y0))
    best, best_distance = None, None
    for r in range(k + 1):
        for active in itertools.combinations(range(k), r):
            basis = []
            for i in active:
                v = list(b[i])
                for _ in range(2):  # re-orthogonalize
                    for q in basis:
                        c = dot(v, q)
                        v = [x - c * y for x, y in zip(v, q)]
                nv = mp.sqrt(dot(v, v))
                if nv > mp.mpf("1e-45") * mp.sqrt(dot(b[i], b[i])):
                    basis.append([x / nv for x in v])
            y = list(y0)
            for q in basis:
                c = dot(y, q)
                y = [x - c * z for x, z in zip(y, q)]
            if all(dot(y, bi) >= -mp.mpf("1e-40") * norm0 * mp.sqrt(dot(bi, bi)) for bi in b):
                distance = mp.sqrt(dot([x - z for x, z in zip(y, y0)], [x - z for x, z in zip(y, y0)]))
                if best is None or distance < best_distance:
                    best, best_distance = y, distance
    return best, chol, b, y0, norm0


def g_error(chol, p_simpact, y_ref):
    """||p_simpact − L y_ref||_g = |L⁻¹ p_simpact − y_ref|."""
    d = len(y_ref)
    y = [mp.mpf(0)] * d
    for i in range(d):
        y[i] = (mp.mpf(p_simpact[i]) - mp.fsum(chol[i, j] * y[j] for j in range(i))) / chol[i, i]
    return mp.sqrt(dot([x - z for x, z in zip(y, y_ref)], [x - z for x, z in zip(y, y_ref)])), y


def antiparallel_gap(b):
    """Smallest g-angle of a pair of normals from antiparallel (π − angle)."""
    gap = math.pi
    for i, j in itertools.combinations(range(len(b)), 2):
        c = dot(b[i], b[j]) / mp.sqrt(dot(b[i], b[i]) * dot(b[j], b[j]))
        gap = min(gap, float(mp.pi - mp.acos(max(-1, min(1, c)))))
    return gap


def run_simpact(simpact, doc):
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(doc, f)
        path = f.name
    try:
        out = subprocess.run([simpact, "resolve", path], capture_output=True, text=True, check=False)
    finally:
        os.unlink(path)
    if out.returncode != 0:
        raise RuntimeError(f"simpact resolve failed ({out.returncode}): {out.stderr.strip()}")
    return json.loads(out.stdout)


def random_case(rng, delta, mass_kind):
    d = rng.randint(2, 5)
    k = rng.randint(2, min(3, d + 1))
    u1 = [rng.gauss(0, 1) for _ in range(d)]
    w = [rng.gauss(0, 1) for _ in range(d)]
    c = sum(x * y for x, y in zip(w, u1)) / sum(x * x for x in u1)
    w = [x - c * y for x, y in zip(w, u1)]
    scale = math.sqrt(sum(x * x for x in u1) / sum(x * x for x in w))
    s = rng.uniform(0.5, 2.0)
    u2 = [-s * (math.cos(delta) * x + math.sin(delta) * scale * y) for x, y in zip(u1, w)]
    normals = [u1, u2] + [[rng.gauss(0, 1) for _ in range(d)] for _ in range(k - 2)]
    if mass_kind == 0:
        mass = [[float(i == j) for j in range(d)] for i in range(d)]
    elif mass_kind == 1:
        mass = [[rng.uniform(0.5, 20.0) if i == j else 0.0 for j in range(d)] for i in range(d)]
    else:  # coupled SPD: AᵀA + d I
        a = [[rng.gauss(0, 1) for _ in range(d)] for _ in range(d)]
        mass = [[sum(a[r][i] * a[r][j] for r in range(d)) + (d if i == j else 0.0) for j in range(d)]
                for i in range(d)]
        mass = [[mass[min(i, j)][max(i, j)] for j in range(d)] for i in range(d)]  # exactly symmetric
    momentum = [rng.gauss(0, 1) for _ in range(d)]
    return mass, normals, momentum


def check(simpact, mass, normals, momentum, label, tight=False):
    doc = {"mass_matrix": mass, "normals": normals, "momentum": momentum, "restitution": 0.0}
    out = run_simpact(simpact, doc)
    failures = []
    plastic = out["plastic"]
    y_ref, chol, b, y0, norm0 = reference_plastic(mass, normals, momentum)
    err, y_simpact = g_error(chol, plastic["momentum"], y_ref)
    rel = float(err / norm0)
    gap = antiparallel_gap(b)
    bound = 1e-12 if tight else 1e-9
    if not plastic["converged"]:
        failures.append(f"{label}: plastic.converged is false")
    if out["status"] != "ok" or out["outcome_count"] != 1:
        failures.append(f"{label}: status {out['status']}, {out['outcome_count']} outcomes (R = 0: p_p alone)")
    for i, bi in enumerate(b):
        rate = dot(y_simpact, bi) / (norm0 * mp.sqrt(dot(bi, bi)))
        if rate < -1e-10:
            failures.append(f"{label}: p_p violates contact {i} (normalized rate {float(rate):.3g})")
    if rel > bound:
        failures.append(f"{label}: ||p_p − p_ref||_g/||p⁻||_g = {rel:.3g} > {bound:.3g} (gap {gap:.3g} rad)")
    return rel, gap, failures


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    simpact = sys.argv[1]
    report = "--report" in sys.argv[2:]
    failures = []
    # The 2-D sliver: M = I₂, normals [1,0], [−1,1e-8], p⁻ = [−0.3,−1]: p_p = 0 exactly.
    rel, _, f = check(simpact, [[1.0, 0.0], [0.0, 1.0]], [[1.0, 0.0], [-1.0, 1e-8]], [-0.3, -1.0], "sliver", True)
    failures += f
    if report:
        print(f"sliver: {rel:.3g}")
    rng = random.Random(9)
    worst = {}
    for exponent in range(4, 11):
        delta = 10.0**-exponent
        for trial in range(6):
            mass, normals, momentum = random_case(rng, delta, trial % 3)
            label = f"delta=1e-{exponent} trial {trial} (d={len(momentum)}, k={len(normals)})"
            rel, gap, f = check(simpact, mass, normals, momentum, label)
            failures += f
            worst[exponent] = max(worst.get(exponent, 0.0), rel / (EPS / gap))
            if report:
                print(f"{label}: error {rel:.3g}, gap {gap:.3g}, error/(eps/gap) {rel / (EPS / gap):.3g}")
    if report:
        for e, w in sorted(worst.items()):
            print(f"delta 1e-{e}: worst error / (eps/gap) = {w:.3g}")
    for line in failures:
        print("FAIL", line)
    print(f"plastic_reference: {len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
