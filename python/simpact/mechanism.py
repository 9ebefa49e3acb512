"""Mechanisms from MJCF/URDF files (MuJoCo 2.2.2): M(q), φ(q), Dφ(q), placement, impacts, time
stepping (`simpact simulate`) and impact design (`simpact design`)."""
import dataclasses
import json
import os

import numpy as np

from . import _simpact
from .impacts import (Check, Resolution, _after, _switches, _tolerance, as_array, call, check_nesting, input_error,
                      make_record, options_json, real_number, thread_count)


@dataclasses.dataclass
class Simulation:
    """`simpact simulate` of a mechanism, as arrays: the recorded states (step, t, q, p, energy
    over the records; q and p are (R, n) over `coordinates`), the impacts (one dict each, as the
    JSON's), the energy bookkeeping [J] (work by source) and Newton's iteration counts."""
    coordinates: list
    step: np.ndarray
    t: np.ndarray
    q: np.ndarray
    p: np.ndarray
    energy: np.ndarray
    impacts: list
    max_energy_drift: float
    energy_initial: float
    energy_final: float
    energy_residual: float
    work: dict
    newton_mean: float
    newton_max: int


@dataclasses.dataclass
class Design:
    """`simpact design` of a mechanism: rows "initial" (placed so every contact touches) and
    "optimized" (normals g-orthogonal, or at −cos(π/m) for dihedral_m), each a dict of
    configuration, design, gaps, normalized_product, ...; `converged` as the CLI's exit 0.
    With `place`: placed_qpos (the optimized row's qpos by name) and placement (each placed
    coordinate's start/initial/optimized; `far` when a placed angle moved more than
    max_place_change from its start, the CLI's exit 1)."""
    model: str
    foot: str
    rows: list
    at_bound: list
    converged: bool
    placed_qpos: dict = None
    placement: dict = None

    @property
    def optimized(self):
        return self.rows[-1]


def _request_text(doc):
    """A request document as the CLI reads it (NumPy values as JSON numbers, exactly)."""
    def plain(value):
        if isinstance(value, np.ndarray):
            return value.tolist()
        if isinstance(value, np.generic):
            return value.item()
        if isinstance(value, dict):
            return {str(k): plain(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [plain(v) for v in value]
        return value
    for key, value in doc.items():
        check_nesting(value, key)
    doc = {k: plain(v) for k, v in doc.items() if v is not None}
    try:
        return json.dumps(doc, allow_nan=False)
    except (TypeError, ValueError) as e:
        bad = next((k for k, v in doc.items() if not _json_ok(v)), "request")
        raise input_error(bad, f"must be finite JSON numbers, strings or arrays ({e})") from None


def _json_ok(value):
    try:
        json.dumps(value, allow_nan=False)
        return True
    except (TypeError, ValueError):
        return False


def _params(params):
    """A mechanism's params (name → real number) as the module takes them."""
    if params is None:
        return {}
    if not isinstance(params, dict):
        raise input_error("params", f"must be a dict of parameter name → number (got {type(params).__name__})")
    return {str(name): real_number(value, f"params.{name}") for name, value in params.items()}


def _restitution(value):
    return None if value is None else real_number(value, "restitution", "a number in [0, 1]")


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
        self._m = _simpact.Mechanism(os.fspath(file), pairs, [str(p) for p in place],
                                     real_number(gap_tolerance, "gap_tolerance"))
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
        mass, gaps, normals = self._m.evaluate(a, _params(params))
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
        out = self._m.place(a, _params(params))
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
                minimality="propagation", seed=0, limits=None, threads=0, plastic=True, definition1=True):
        """The impact at B states, as `simpact resolve {"mechanism": ..., "qpos": q, "qvel": qvel}`.
        q (nq,) or (B, nq) (None: the file's qpos0); qvel or momentum (nv,) or (B, nv)."""
        qa, v, is_momentum, b, batched = self._state(q, qvel, momentum)
        arrays = call(batched, self._m.resolve, qa, v, is_momentum, _restitution(restitution), _params(params), b,
                      options_json(ordering, minimality, seed, limits), *_switches(plastic, definition1),
                      thread_count(threads))
        return make_record(Resolution, arrays, batched)

    def check(self, q=None, qvel=None, *, momentum=None, momentum_after=None, velocity_after=None,
              restitution=None, tolerance=None, consistency_tolerance=None, params=None, ordering="all",
              minimality="propagation", seed=0, limits=None, threads=0, plastic=True, definition1=True):
        """Another simulator's post-impact state at B states, as `simpact check` would."""
        qa, v, is_momentum, b, batched = self._state(q, qvel, momentum)
        after, after_velocity = _after(momentum_after, velocity_after, b, self.nv)
        arrays = call(batched, self._m.check, qa, v, is_momentum, _restitution(restitution), _params(params), b, after,
                      after_velocity, _tolerance(tolerance, "tolerance"),
                      _tolerance(consistency_tolerance, "consistency_tolerance"),
                      options_json(ordering, minimality, seed, limits), *_switches(plastic, definition1),
                      thread_count(threads))
        return make_record(Check, arrays, batched)

    def _spec(self):
        return {"file": os.path.abspath(self.file), "contacts": [list(c) for c in self.contacts]}

    def simulate(self, q0=None, v0=None, dt=None, steps=None, *, p0=None, t_end=None, restitution=None,
                 ordering=None, record=None, params=None, **options):
        """Time-step the mechanism through its impacts, as `simpact simulate {"mechanism": ...,
        "q0": q0, "v0": v0, "dt": dt, "steps": steps, ...}` (the same run, bit for bit). options:
        the request's other keys (simultaneity_tolerance, gap_tolerance, localization_tolerance,
        newton, seed). Returns a Simulation."""
        doc = {"mechanism": self._spec(), "params": params, "q0": q0, "v0": v0, "p0": p0, "dt": dt,
               "steps": steps, "t_end": t_end, "restitution": restitution, "ordering": ordering,
               "record": record, **options}
        return Simulation(**_simpact.simulate_request(_request_text(doc), ""))

    def design(self, params=None, place=None, free=None, *, dihedral_m=None, **options):
        """Impact design: place the mechanism so every contact touches, then move the `free`
        parameters until the contact normals are g-orthogonal, as `simpact design {"mechanism": ...,
        "params", "place", "free", "dihedral_m"}`. place defaults to the Mechanism's `place`;
        free: {name: {"min", "max", "scale"}} or a list of names. options: cosine_tolerance,
        gap_tolerance, length_scale, max_iterations. Returns a Design."""
        if place is None and self.place_coordinates:
            place = list(self.place_coordinates)
        if free is not None and not isinstance(free, dict):
            free = {str(name): {} for name in free}
        doc = {"mechanism": self._spec(), "params": params, "place": place, "free": free,
               "dihedral_m": dihedral_m, **options}
        return Design(**_simpact.design_request(_request_text(doc), ""))
