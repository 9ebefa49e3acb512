"""Mechanisms from MJCF/URDF files (MuJoCo 2.2.2): M(q), φ(q), Dφ(q), placement and impacts."""
import os

import numpy as np

from . import _simpact
from .impacts import Check, Resolution, _after, call, _tolerance, as_array, input_error, make_record, options_json


class Mechanism:
    """A mechanism file with named contacts (geom pairs), as a `mechanism` request names it:

        mech = simpact.Mechanism.from_file("examples/mechanisms/cradle3.xml",
                                           contacts=[("ball_a", "ball_b"), ("ball_b", "ball_c")])
        mech.mass_matrix(q), mech.gaps(q), mech.normals(q)   # q (nq,) or (B, nq)
        mech.resolve(q, qvel=v)                               # as `simpact resolve` of that request

    params: the file's parameters (mass.<body>, size.<geom>[i], pos.<body>[i], qpos.*, qvel.*)
    as a dict, applied before evaluating; `parameters` lists them."""

    def __init__(self, file, contacts, place=(), gap_tolerance=1e-9):
        pairs = []
        for i, pair in enumerate(contacts):
            if isinstance(pair, str) or len(pair) != 2:
                raise input_error(f"mechanism.contacts[{i}]", "must be a pair [geom_a, geom_b] of geom names")
            pairs.append((str(pair[0]), str(pair[1])))
        if not pairs:
            raise input_error("mechanism.contacts", "must be a non-empty array of [geom_a, geom_b] pairs")
        self._m = _simpact.Mechanism(os.fspath(file), pairs, [str(p) for p in place], float(gap_tolerance))
        self.contacts = pairs
        self.place_coordinates = list(place)

    @classmethod
    def from_file(cls, file, contacts, place=(), gap_tolerance=1e-9):
        return cls(file, contacts, place, gap_tolerance)

    file = property(lambda self: self._m.file)
    nq = property(lambda self: self._m.nq)
    nv = property(lambda self: self._m.nv)
    qpos_names = property(lambda self: list(self._m.qpos_names))
    qvel_names = property(lambda self: list(self._m.qvel_names))

    @property
    def parameters(self):
        """[{name, units, default, min, max, long_name}, ...] of the file."""
        keys = ("name", "units", "default", "min", "max", "long_name")
        return [dict(zip(keys, p)) for p in self._m.parameters]

    def default_qpos(self):
        return self._m.default_qpos()

    def _q(self, q, field="q"):
        if q is None:
            return self.default_qpos()[None], False
        a = as_array(q, field, 1)
        batched = a.ndim == 2
        a = a if batched else a[None]
        if a.shape[1] != self.nq:
            raise input_error(field, f"must have length nq = {self.nq} (got {a.shape[1]})")
        return np.ascontiguousarray(a), batched

    def _evaluate(self, q, params):
        a, batched = self._q(q)
        mass, gaps, normals = self._m.evaluate(a, dict(params or {}))
        return (mass, gaps, normals) if batched else (mass[0], gaps[0], normals[0])

    def mass_matrix(self, q=None, params=None):
        """M(q) (nv × nv; (B, nv, nv) for B configurations)."""
        return self._evaluate(q, params)[0]

    def gaps(self, q=None, params=None):
        """φ_i(q) of the contacts [m] (+inf beyond every reach of the pair)."""
        return self._evaluate(q, params)[1]

    def normals(self, q=None, params=None):
        """Dφ_i(q): rows u_i = n_iᵀ(J_b − J_a), k × nv."""
        return self._evaluate(q, params)[2]

    def place(self, q=None, params=None):
        """q with the `place` coordinates solved so every contact closes."""
        a, batched = self._q(q)
        out = self._m.place(a, dict(params or {}))
        return out if batched else out[0]

    def _state(self, q, qvel, momentum):
        if qvel is not None and momentum is not None:
            raise input_error("qvel", "give exactly one of 'qvel' and 'momentum' (got both)")
        qa, qb = (None, False) if q is None else self._q(q, "qpos")
        v, vb = None, False
        if qvel is not None or momentum is not None:
            field = "qvel" if qvel is not None else "momentum"
            v = as_array(qvel if qvel is not None else momentum, field, 1)
            vb = v.ndim == 2
            v = v if vb else v[None]
            if v.shape[1] != self.nv:
                raise input_error(field, f"must have length nv = {self.nv} (got {v.shape[1]})")
        b = max(1 if qa is None else qa.shape[0], 1 if v is None else v.shape[0])
        if qa is not None and qa.shape[0] != b:
            qa = np.ascontiguousarray(np.broadcast_to(qa, (b, self.nq)))
        if v is not None and v.shape[0] != b:
            if v.shape[0] != 1:
                raise input_error("qvel", f"must have {b} rows like qpos (got {v.shape[0]})")
            v = np.ascontiguousarray(np.broadcast_to(v, (b, self.nv)))
        return qa, None if v is None else np.ascontiguousarray(v), momentum is not None, b, qb or vb

    def resolve(self, q=None, qvel=None, *, momentum=None, restitution=None, params=None, ordering="all",
                minimality="propagation", seed=0, limits=None, threads=0):
        """The impact at B states, as `simpact resolve {"mechanism": ..., "qpos": q, "qvel": qvel}`.
        q (nq,) or (B, nq) (None: the file's qpos0); qvel or momentum (nv,) or (B, nv)."""
        qa, v, is_momentum, b, batched = self._state(q, qvel, momentum)
        arrays = call(batched, self._m.resolve, qa, v, is_momentum, None if restitution is None else float(restitution),
                                 dict(params or {}), b, options_json(ordering, minimality, seed, limits),
                                 int(threads))
        return make_record(Resolution, arrays, batched)

    def check(self, q=None, qvel=None, *, momentum=None, momentum_after=None, velocity_after=None,
              restitution=None, tolerance=None, consistency_tolerance=None, params=None, ordering="all",
              minimality="propagation", seed=0, limits=None, threads=0):
        """Another simulator's post-impact state at B states, as `simpact check` would."""
        qa, v, is_momentum, b, batched = self._state(q, qvel, momentum)
        after, after_velocity = _after(momentum_after, velocity_after, b, self.nv)
        arrays = call(batched, self._m.check, qa, v, is_momentum, None if restitution is None else float(restitution),
                               dict(params or {}), b, after, after_velocity, _tolerance(tolerance, "tolerance"),
                               _tolerance(consistency_tolerance, "consistency_tolerance"),
                               options_json(ordering, minimality, seed, limits), int(threads))
        return make_record(Check, arrays, batched)
