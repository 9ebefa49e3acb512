"""A time-stepped sweep of a floating base (issue 34 §2): configs/humanoid_drop.yaml, the
humanoid (free root, ball waist, 18 hinges: nq 29, nv 27) dropped through its touchdowns (0.5 s)
over restitution x orderings:
* bit-identical at 1 and 2 ranks x 1 and 2 threads;
* every task ok; /samples/trajectory_q_* have the 29 configuration coordinates (a `configuration`
  dimension named by qpos: root[0..6], waist[0..3], the hinges), trajectory_p_* the 27 momenta;
  the root's and the waist's quaternions stay unit to 1e-14;
* the free fall before the touchdowns is exact in the vertical momentum: at 10 ms,
  p_z = -m g t (m = 65.4 kg);
* R = 1 keeps the energy (E_end/E_0 within 1e-4: the integrator's error after the fast swing of
  the feet), R = 0 and 0.5 lose some, both orderings alike.

usage: humanoid_timestep_sweep.py SIMPACT"""
import os
import sys

import h5py
import numpy as np

import sweep_common as sc

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CONFIG = os.path.join(ROOT, "configs", "humanoid_drop.yaml")


def fail(message):
    sys.exit(f"FAIL: {message}")


def check(path):
    with h5py.File(path, "r") as f:
        s = f["samples"]
        if np.any(s["status"][()] != 0):
            fail(f"task status {s['status'][()]}")
        names = [n.decode() if isinstance(n, bytes) else n for n in s["configuration"][()]]
        if len(names) != 29 or names[:4] != ["root[0]", "root[1]", "root[2]", "root[3]"] or names[7] != "waist[0]":
            fail(f"configuration names {names}")
        r = s["restitution"][()]
        for o in ("argmin", "argmax"):
            q, p = s[f"trajectory_q_{o}"][()], s[f"trajectory_p_{o}"][()]
            if q.shape != (3, 51, 29) or p.shape != (3, 51, 27):
                fail(f"trajectory shapes {q.shape} {p.shape}")
            for a in (3, 7):
                worst = np.max(np.abs(np.linalg.norm(q[:, :, a:a + 4], axis=2) - 1.0))
                if worst > 1e-14:
                    fail(f"quaternion at qpos[{a}] off unit norm by {worst:.3g}")
            fall = p[:, 1, 2] - p[:, 0, 2]  # 10 ms of free fall
            if np.max(np.abs(fall + 65.4 * 9.81 * 0.01)) > 1e-9:
                fail(f"vertical momentum after 10 ms {fall}, not -m g t")
            ratio = s[f"energy_ratio_{o}"][()]
            if abs(ratio[r == 1.0][0] - 1.0) > 1e-4 or np.any(ratio[r < 1.0] > 0.999):
                fail(f"energy ratios {ratio} at R {r}")
            if np.any(s[f"outcomes_impacts_{o}"][()] < 2):
                fail("fewer than two touchdowns")
        print(f"ok: 3 tasks, q 29 and p 27 coordinates, unit quaternions, exact free fall, "
              f"E_end/E_0 = {s['energy_ratio_argmin'][()]} at R = {r}")


def main():
    simpact = sys.argv[1]
    d = sc.tempdir()
    ref = os.path.join(d, "ref.h5")
    sc.run(simpact, CONFIG, ref, ranks=0, threads=1)
    for ranks, threads in ((0, 2), (2, 1), (2, 2)):
        out = os.path.join(d, f"r{ranks}t{threads}.h5")
        sc.run(simpact, CONFIG, out, ranks=ranks, threads=threads)
        sc.assert_identical(ref, out, f"humanoid time-stepped sweep at {max(ranks, 1)} rank(s) x {threads} thread(s)")
    check(ref)


if __name__ == "__main__":
    main()
