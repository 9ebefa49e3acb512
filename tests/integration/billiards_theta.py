"""The shipped configs/billiards_theta.yaml reproduces the paper's Fig. 5: ξ(θ) is zero
(≤ 1e-12) at the grid points nearest π/2 and π and positive elsewhere; equal masses give the
normalized cosine ½cos θ; ξ in the file equals `simpact resolve` on the same task.

usage: billiards_theta.py SIMPACT"""
import json
import subprocess
import sys

import h5py
import numpy as np

import sweep_common as sc


def main():
    simpact = sys.argv[1]
    d = sc.tempdir()
    out = f"{d}/billiards_theta.h5"
    sc.run(simpact, "configs/billiards_theta.yaml", out, ranks=2, threads=1)
    with h5py.File(out, "r") as f:
        theta = f["grid/theta"][:]
        xi = f["xi"][:]
        pair = f["xi_maps/argmin_vs_argmax"][:]
        cosine = f["outcomes/normalized_cosine"][:]
        assert f["xi"].dims[0][0].name.endswith("theta"), f["xi"].dims[0][0].name
    assert len(theta) >= 1024, len(theta)
    assert abs(theta[0] - np.pi / 3) < 1e-12 and abs(theta[-1] - np.pi) < 1e-15
    zeros = [int(np.argmin(abs(theta - np.pi / 2))), int(np.argmin(abs(theta - np.pi)))]
    assert abs(theta[zeros[0]] - np.pi / 2) < 1e-12, "π/2 is not on the grid"
    for i in zeros:
        assert xi[i] <= 1e-12 and pair[i] <= 1e-12, (theta[i], xi[i], pair[i])
    rest = np.delete(np.arange(len(theta)), zeros)
    assert np.all(xi[rest] > 0), theta[rest][xi[rest] <= 0]
    assert np.allclose(cosine, 0.5 * np.cos(theta), atol=1e-14)
    # two contacts: the outcome-set diameter is the paper's ξ between the two orders
    assert np.allclose(xi, pair, rtol=1e-12, atol=1e-15)
    print(f"ok: xi zero at theta={theta[zeros]}, positive at {len(rest)} other points, max {xi.max():.4f}")
    for i in (1, 300, 700, 1000):
        request = {"model": "billiards", "params": {"theta": float(theta[i]), "r_a": 1.0, "r_b": 1.0,
                                                      "r_c": 1.0, "speed": 1.0}, "ordering": "all"}
        p = subprocess.run([simpact, "resolve"], input=json.dumps(request), capture_output=True, text=True,
                           check=True)
        resolved = json.loads(p.stdout)["xi"]
        assert resolved == xi[i], (theta[i], resolved, xi[i])
    print("ok: xi in the file equals `simpact resolve` on the same tasks, bit for bit")


if __name__ == "__main__":
    main()
