"""Mechanisms from MJCF/URDF files (MuJoCo 2.2.2): M(q), φ(q), Dφ(q), placement, impacts, time
stepping (`simpact simulate`) and impact design (`simpact design`)."""
import dataclasses
import json
import os

import numpy as np

from . import _simpact
from .impacts import (Check, Resolution, _after, _switches, _tolerance, as_array, call, check_nesting, input_error,
                      make_record, options_json, real_array, real_number, thread_count)


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
    # A mechanism with ball or free joints: q's nq coordinate names (quaternions included), where
    # `coordinates` names the nv velocities; None when q and p share `coordinates`.
    configuration: list = None


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


def _column(value, field):
    """A parameter value as a float array of its own dimensions (a number: 0-d)."""
    a = real_array(value, field)
    return a.reshape(()) if a.size == 1 and np.ndim(value) == 0 else a


def _batch_length(sizes):
    """The batch length of the batched arguments [(field, rows)]: one common B (rows of 1
    broadcast, as NumPy's), else an InputError naming the argument that differs."""
    b, first = 1, None
    for field, rows in sizes:
        if rows == 1:
            continue
        if first is None:
            b, first = rows, field
        elif rows != b:
            raise input_error(field, f"has {rows} batch items but {first} has {b} (every batched argument "
                                     "needs the same B, or 1)")
    return b


def _stacked_simulation(runs):
    """B simulations' dicts as one batched Simulation: arrays and numbers stacked on a leading
    batch axis, the coordinate names once, impacts and work as per-item lists / arrays."""
    if not runs:
        raise input_error("q0", "a batch needs at least one item (got 0)")
    first = runs[0]
    out = {}
    for key in first:
        values = [run[key] for run in runs]
        if key in ("coordinates", "configuration", "coordinate_units", "configuration_units"):
            out[key] = values[0]
        elif key == "impacts":
            out[key] = values
        elif isinstance(values[0], dict):
            out[key] = {name: np.array([v[name] for v in values]) for name in values[0]}
        else:
            out[key] = np.stack([np.asarray(v) for v in values])
    return Simulation(**out)


class Mechanism:
    """A mechanism file with named contacts (geom pairs), as a `mechanism` request names it:

        mech = simpact.Mechanism.from_file("examples/mechanisms/cradle3.xml",
                                           contacts=[("ball_a", "ball_b"), ("ball_b", "ball_c")])
        mech.mass_matrix(q), mech.gaps(q), mech.normals(q)   # q (nq,) or (B, nq)
        mech.resolve(q, qvel=v)                               # as `simpact resolve` of that request

    params: the file's parameters (mass.<body>, size.<geom>[i], pos.<body>[i], qpos.*, qvel.*)
    as a dict, applied before evaluating; `parameters` lists them."""

    def __init__(self, file, contacts, place=(), gap_tolerance=1e-9, witnesses="all"):
        pairs = []
        for i, pair in enumerate(contacts):
            if isinstance(pair, str) or len(pair) != 2:
                raise input_error(f"mechanism.contacts[{i}]", "must be a pair [geom_a, geom_b] of geom names")
            pairs.append((str(pair[0]), str(pair[1])))
        if not pairs:
            raise input_error("mechanism.contacts", "must be a non-empty array of [geom_a, geom_b] pairs")
        if not isinstance(witnesses, str):
            raise input_error("mechanism.witnesses", f"must be 'all' or 'deepest' (got {witnesses!r})")
        self._m = _simpact.Mechanism(os.fspath(file), pairs, [str(p) for p in place],
                                     real_number(gap_tolerance, "gap_tolerance"), witnesses)
        self.contacts = pairs
        self.place_coordinates = list(place)

    @classmethod
    def from_file(cls, file, contacts, place=(), gap_tolerance=1e-9, witnesses="all"):
        """witnesses: "all" (a contact contributes every witness point within the gap tolerance:
        a box flat on a plane, 4 rows of the impact) or "deepest" (one row per contact)."""
        return cls(file, contacts, place, gap_tolerance, witnesses)

    file = property(lambda self: self._m.file)
    max_problem_rows = property(lambda self: self._m.max_problem_rows)  # R: rows an impact may have
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

    def _coordinates(self, value, field, n, name):
        """value as (rows, n): one state (n,) or B states (B, n); None stays None."""
        if value is None:
            return None, False
        a = as_array(value, field, 1)
        if a.shape[-1] != n:
            raise input_error(field, f"shape {a.shape} but the mechanism has {name} = {n} "
                                     f"(give ({n},) for one state or (B, {n}) for B)")
        return (a if a.ndim == 2 else a[None]), a.ndim == 2

    def _batch(self, q, q_field, qvel=None, momentum=None, restitution=None, params=None):
        """The arguments of a batch call, broadcast to one B: (qpos, qvel or momentum, is_momentum,
        restitution, parameter names, parameter table (B, P), B, batched). qpos/qvel: (n,) or
        (B, n); restitution and each parameter: a number or (B,)."""
        if qvel is not None and momentum is not None:
            raise input_error("qvel", "give exactly one of 'qvel' and 'momentum' (got both)")
        qa, q_batched = self._coordinates(q, q_field, self.nq, "nq")
        v_field = "momentum" if momentum is not None else "qvel"
        v, v_batched = self._coordinates(momentum if momentum is not None else qvel, v_field, self.nv, "nv")
        columns = {}  # field → (name or None for restitution, array of 0 or 1 dimensions)
        if restitution is not None:
            r = _column(restitution, "restitution")
            if r.ndim > 1:
                raise input_error("restitution", f"must be a number in [0, 1] or one per batch item, shape (B,) "
                                                 f"(got shape {r.shape})")
            columns["restitution"] = (None, r)
        if params is not None and not isinstance(params, dict):
            raise input_error("params", "must be a dict of parameter name → number or array (B,) "
                                        f"(got {type(params).__name__})")
        for name, value in (params or {}).items():
            field = f"params.{name}"
            a = _column(value, field)
            if a.ndim > 1:
                raise input_error(field, f"must be a number or one per batch item, shape (B,) (got shape {a.shape})")
            columns[field] = (str(name), a)
        sizes = ([(q_field, qa.shape[0])] if q_batched else []) + ([(v_field, v.shape[0])] if v_batched else [])
        sizes += [(field, a.shape[0]) for field, (_, a) in columns.items() if a.ndim == 1]
        b = _batch_length(sizes)
        batched = bool(sizes)
        def rows(a, shape):  # a as C-ordered (B, ...) (as_array's arrays are C-ordered already)
            return a if a.shape == shape else np.ascontiguousarray(np.broadcast_to(a, shape))

        qa = None if qa is None else rows(qa, (b, self.nq))
        v = None if v is None else rows(v, (b, self.nv))
        r = None
        if "restitution" in columns:
            r = rows(columns.pop("restitution")[1], (b,))
        named = sorted(columns.values(), key=lambda column: column[0])
        table = np.empty((b, len(named)))
        for j, (_, a) in enumerate(named):
            table[:, j] = a
        return qa, v, momentum is not None, r, [name for name, _ in named], table, b, batched

    def _evaluate(self, q, params, threads):
        qa, _, _, _, names, table, b, batched = self._batch(q, "q", params=params)
        mass, gaps, normals = call(batched, self._m.evaluate, qa, names, table, b, thread_count(threads))
        return (mass, gaps, normals) if batched else (mass[0], gaps[0], normals[0])

    def mass_matrix(self, q=None, params=None, threads=0):
        """M(q) (nv × nv; (B, nv, nv) for B configurations or parameter arrays)."""
        return self._evaluate(q, params, threads)[0]

    def gaps(self, q=None, params=None, threads=0):
        """φ_i(q) of the contacts [m] (+inf beyond every reach of the pair)."""
        return self._evaluate(q, params, threads)[1]

    def normals(self, q=None, params=None, threads=0):
        """Dφ_i(q): rows u_i = n_iᵀ(J_b − J_a), k × nv."""
        return self._evaluate(q, params, threads)[2]

    def place(self, q=None, params=None, threads=0):
        """q with the `place` coordinates solved so every contact closes: (nq,), or (B, nq) for
        B configurations (B, nq) or parameter arrays (B,). q None: the file's qpos0 with the
        params' qpos.*."""
        qa, _, _, _, names, table, b, batched = self._batch(q, "q", params=params)
        out = call(batched, self._m.place, qa, names, table, b, thread_count(threads))
        return out if batched else out[0]

    def resolve(self, q=None, qvel=None, *, momentum=None, restitution=None, params=None, ordering="all",
                minimality="propagation", seed=0, limits=None, threads=0, plastic=True, definition1=True):
        """The impact at B states, as `simpact resolve {"mechanism": ..., "qpos": q, "qvel": qvel}`
        of each. q (nq,) or (B, nq) (None: the file's qpos0 with the params' qpos.*); qvel or
        momentum (nv,) or (B, nv); restitution and each params value a number or (B,). Any
        argument with a batch axis makes a batch (the others broadcast); the record then has a
        leading batch axis. Items with no closed contact: status no_contact, ξ NaN."""
        qa, v, is_momentum, r, names, table, b, batched = self._batch(q, "qpos", qvel, momentum, restitution,
                                                                      params)
        arrays = call(batched, self._m.resolve, qa, v, is_momentum, r, names, table, b,
                      options_json(ordering, minimality, seed, limits), *_switches(plastic, definition1),
                      thread_count(threads))
        return make_record(Resolution, arrays, batched)

    def check(self, q=None, qvel=None, *, momentum=None, momentum_after=None, velocity_after=None,
              restitution=None, tolerance=None, consistency_tolerance=None, params=None, ordering="all",
              minimality="propagation", seed=0, limits=None, threads=0, plastic=True, definition1=True):
        """Another simulator's post-impact state at B states, as `simpact check` would (arguments
        as resolve; momentum_after or velocity_after (nv,) or (B, nv))."""
        qa, v, is_momentum, r, names, table, b, batched = self._batch(q, "qpos", qvel, momentum, restitution,
                                                                      params)
        after, after_velocity = _after(momentum_after, velocity_after, b, self.nv)
        arrays = call(batched, self._m.check, qa, v, is_momentum, r, names, table, b, after,
                      after_velocity, _tolerance(tolerance, "tolerance"),
                      _tolerance(consistency_tolerance, "consistency_tolerance"),
                      options_json(ordering, minimality, seed, limits), *_switches(plastic, definition1),
                      thread_count(threads))
        return make_record(Check, arrays, batched)

    def _spec(self):
        return {"file": os.path.abspath(self.file), "contacts": [list(c) for c in self.contacts]}

    def simulate(self, q0=None, v0=None, dt=None, steps=None, *, p0=None, t_end=None, restitution=None,
                 ordering=None, record=None, params=None, threads=0, **options):
        """Time-step the mechanism through its impacts, as `simpact simulate {"mechanism": ...,
        "q0": q0, "v0": v0, "dt": dt, "steps": steps, ...}` (the same run, bit for bit). options:
        the request's other keys (simultaneity_tolerance, gap_tolerance, localization_tolerance,
        newton, seed). Returns a Simulation.

        A batch: q0 (B, nq), v0 or p0 (B, nv), restitution (B,) or any params value (B,) (the
        others broadcast) runs B simulations in C++ with the GIL released, in parallel on
        `threads` (≤ 0: OpenMP's default), each equal to its one-state call bit for bit; the
        Simulation's arrays then have a leading batch axis (q (B, R, nq), t (B, R), energy_final
        (B,), ...) and `impacts` holds one list per item."""
        batched = (any(np.ndim(x) == 2 for x in (q0, v0, p0) if x is not None)
                   or (restitution is not None and np.ndim(restitution) == 1)
                   or (isinstance(params, dict) and any(np.ndim(x) == 1 for x in params.values())))
        if not batched:
            doc = {"mechanism": self._spec(), "params": params, "q0": q0, "v0": v0, "p0": p0, "dt": dt,
                   "steps": steps, "t_end": t_end, "restitution": restitution, "ordering": ordering,
                   "record": record, **options}
            return Simulation(**_simpact.simulate_request(_request_text(doc), ""))
        if v0 is not None and p0 is not None:
            raise input_error("v0", "give at most one of 'v0' and 'p0' (got both)")
        q, _, _, r, names, table, b, _ = self._batch(q0, "q0", restitution=restitution, params=params)
        velocity = None
        if v0 is not None or p0 is not None:
            field = "v0" if v0 is not None else "p0"
            velocity, _ = self._coordinates(v0 if v0 is not None else p0, field, self.nv, "nv")
            b = _batch_length([("q0" if q is not None else "params", b), (field, velocity.shape[0])])
            velocity = np.ascontiguousarray(np.broadcast_to(velocity, (b, self.nv)))
            if q is not None:
                q = np.ascontiguousarray(np.broadcast_to(q, (b, self.nq)))
            if r is not None:
                r = np.ascontiguousarray(np.broadcast_to(r, (b,)))
            table = np.ascontiguousarray(np.broadcast_to(table, (b, table.shape[1])))
        doc = {"mechanism": self._spec(), "dt": dt, "steps": steps, "t_end": t_end, "ordering": ordering,
               "record": record, **options}
        runs = call(True, _simpact.simulate_batch, _request_text(doc), "", q,
                    velocity if v0 is not None else None, velocity if p0 is not None else None, r, names, table, b,
                    thread_count(threads))
        return _stacked_simulation(runs)

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
