"""Batched `simpact resolve` and `simpact check` on NumPy arrays (the loop runs in C++ with OpenMP,
the GIL released)."""
import dataclasses
import json
import numbers

import numpy as np

from . import _simpact

# Status codes: 0 ok, 1 no_impact, 2 no_elastic_outcome, 3 cap_hit, 4 plastic_unverified (the
# core's), and 5 no_contact (a Mechanism state with every contact open: ξ NaN).
STATUS_NAMES = tuple(_simpact.status_names()) + ("no_contact",)
assert STATUS_NAMES.index("no_contact") == _simpact.no_contact_status
ORDERINGS = ("argmin", "argmax", "index", "reverse", "random", "all")
MAX_THREADS = _simpact.max_threads  # `simpact run --threads`'s bound
MAX_NESTING = 100  # dicts and lists in a request or config (json.dumps would raise RecursionError)


def input_error(field, message, item=None):
    """A simpact.InputError as the C++ side raises it: 'field: message', .field, .item."""
    line = f"{field}: {message}"
    err = _simpact.InputError(line if item is None else f"{line} (batch item {item})")
    err.field, err.item, err.line = field, item, line
    return err


def thread_count(threads):
    """`threads` of a batch call (<= 0: OpenMP's default) as the module takes it, bounded as
    `simpact run --threads`."""
    if isinstance(threads, (bool, np.bool_)) or not isinstance(threads, numbers.Integral) or threads > MAX_THREADS:
        raise input_error("threads", f"must be an integer <= {MAX_THREADS} (0 or less: OpenMP's default) "
                                     f"(got {threads!r})")
    return max(int(threads), 0)


def run_threads(threads):
    """`threads` of a sweep (None: the default), bounded as `simpact run --threads`."""
    if threads is None:
        return 0
    if (isinstance(threads, (bool, np.bool_)) or not isinstance(threads, numbers.Integral)
            or not 1 <= threads <= MAX_THREADS):
        raise input_error("threads", f"must be an integer in 1..{MAX_THREADS} (got {threads!r})")
    return int(threads)


def check_nesting(value, field):
    """Refuses dicts and lists nested more than MAX_NESTING deep (or a cycle): one InputError
    naming `field`, where json.dumps would raise RecursionError. Iterative, depth first."""
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children = item.values()
        elif isinstance(item, (list, tuple)):
            children = item
        else:
            continue
        if depth >= MAX_NESTING:
            raise input_error(field, f"nested more than {MAX_NESTING} levels deep (dicts and lists)")
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list, tuple)))


def _kind(a):
    """What an array holds, in words, for an error message."""
    return {"c": "complex numbers", "b": "booleans", "U": "strings", "S": "bytes", "M": "dates",
            "m": "time deltas", "V": "records"}.get(a.dtype.kind, f"{a.dtype} values")


def _real(x):
    return isinstance(x, numbers.Real) and not isinstance(x, (bool, np.bool_))


def real_number(value, field, allowed="a real number"):
    """value as a float: a real number (not a string, complex or boolean) or a 0-d array of one."""
    if isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "iuf":
        value = value.item()
    if not _real(value):
        raise input_error(field, f"must be {allowed} (got {value!r})")
    return float(value)


def options_json(ordering, minimality, seed, limits):
    """The request's option keys, read by the same C++ reader as `simpact resolve`."""
    doc = {"ordering": ordering, "minimality": minimality, "seed": seed}
    if limits is not None:
        check_nesting(limits, "limits")
        doc["limits"] = limits
    try:
        return json.dumps(doc, allow_nan=False)
    except (TypeError, ValueError) as e:
        raise input_error("limits" if limits is not None else "seed", f"must be JSON numbers ({e})") from None


def _switches(plastic, definition1):
    """The plastic and definition1 switches, as the module takes them (booleans)."""
    for field, value in (("plastic", plastic), ("definition1", definition1)):
        if not isinstance(value, (bool, np.bool_)):
            raise input_error(field, f"must be true or false (got {value!r})")
    return bool(plastic), bool(definition1)


def call(batched, function, *args):
    """function(*args); for one problem (not batched) a bad item's error is the CLI's line alone."""
    try:
        return function(*args)
    except _simpact.InputError as e:
        if batched or getattr(e, "item", None) is None:
            raise
        field = e.field
        raise input_error(field, e.line[len(field) + 2:]) from None


def real_array(value, field):
    """value as a C-ordered float64 array: real numbers only (a complex, string or boolean array is
    refused, not cast: NumPy would drop the imaginary part or parse the text)."""
    try:
        raw = np.asarray(value)
    except (TypeError, ValueError):
        raise input_error(field, f"must be an array of numbers (got {type(value).__name__})") from None
    if raw.dtype.kind == "O" and all(_real(x) for x in raw.flat):
        raw = raw.astype(float)
    if raw.dtype.kind not in "iuf":
        got = type(value).__name__ if raw.dtype.kind == "O" else _kind(raw)
        raise input_error(field, f"must be an array of real numbers (got {got})")
    return np.ascontiguousarray(raw, dtype=float)


def as_array(value, field, ndim_single, ndim_batch=None):
    """value as a C-ordered float64 array of ndim_single or ndim_batch dimensions."""
    ndim_batch = ndim_single + 1 if ndim_batch is None else ndim_batch
    a = real_array(value, field)
    if a.ndim not in (ndim_single, ndim_batch):
        raise input_error(field, f"must have {ndim_single} dimensions (one problem) or {ndim_batch} "
                                 f"(a batch) (got shape {a.shape})")
    return a


@dataclasses.dataclass
class Resolution:
    """What `simpact resolve` reports, as arrays with a leading batch axis (none for one problem).

    Outcome sets vary in size: item b's distinct outcomes are rows
    outcome_offsets[b]:outcome_offsets[b+1] of outcome_momentum/velocity/impulses/energy;
    outcomes(b) gives them. Impulses are indexed by the given normals (open contacts carry 0).
    NaN marks a value not computed exactly (a cap hit, no plastic outcome), never 0."""
    status: np.ndarray            # int codes; status_name() gives 'ok', 'no_impact', ...
    xi: np.ndarray                # ξ = diameter of the outcome set / ||p⁻||_g
    xi_lower_bound: np.ndarray
    xi_argmin_argmax: np.ndarray
    outcome_count: np.ndarray
    minimal_outcomes: np.ndarray  # outcomes with a Definition 1 minimal sequence (-1: unchecked)
    unique: np.ndarray
    cap_hit: np.ndarray
    momentum_before: np.ndarray   # p⁻
    energy_before: np.ndarray     # ½||p⁻||²_g [J]
    plastic_momentum: np.ndarray
    plastic_velocity: np.ndarray
    plastic_impulses: np.ndarray
    plastic_energy: np.ndarray
    outcome_offsets: np.ndarray
    outcome_momentum: np.ndarray
    outcome_velocity: np.ndarray
    outcome_impulses: np.ndarray
    outcome_energy: np.ndarray
    batched: bool = True
    # Mechanism.resolve/check only: the configuration resolved at (after `place`), (B, nq), and
    # the number of closed rows (0: status no_contact). The impact's rows (its given contacts: the
    # witness points of the named contacts, at most R = Mechanism.max_problem_rows; impulses
    # have R columns): how many (B,), the contact each belongs to (B, R) (an index of `contacts`,
    # -1 past the item's rows), its point [m] (B, R, 3) and gap [m] (B, R) (NaN past them).
    placed_qpos: np.ndarray = None
    closed_contacts: np.ndarray = None
    problem_rows: np.ndarray = None
    row_contact: np.ndarray = None
    row_position: np.ndarray = None
    row_gap: np.ndarray = None

    def status_name(self):
        names = np.array(STATUS_NAMES, dtype=object)[np.asarray(self.status)]
        return names if self.batched else str(names)

    def outcomes(self, item=None):
        """Item `item`'s distinct outcome momenta, shape (n, d) (item None: the one problem)."""
        if item is None:
            if self.batched:
                raise input_error("item", "give the batch item whose outcomes you want")
            item = 0
        offsets = np.atleast_1d(self.outcome_offsets)
        if not isinstance(item, (int, np.integer)) or not 0 <= item < len(offsets) - 1:
            raise input_error("item", f"must be a batch item in 0..{len(offsets) - 2} (got {item!r})")
        return self.outcome_momentum[offsets[item]:offsets[item + 1]]

    def padded_outcomes(self, kind="momentum"):
        """Every item's distinct outcomes in one array, (B, n_max, d) (energy: (B, n_max)), rows
        past an item's count NaN: kind momentum, velocity, impulses (B, n_max, k) or energy.
        n_max = outcome_rows().max(); without a batch axis for one problem."""
        if kind not in ("momentum", "velocity", "impulses", "energy"):
            raise input_error("kind", f"must be momentum, velocity, impulses or energy (got {kind!r})")
        flat = getattr(self, f"outcome_{kind}")
        offsets = np.atleast_1d(self.outcome_offsets)
        counts = np.diff(offsets)
        n_max = int(counts.max()) if counts.size else 0
        out = np.full((counts.size, n_max) + flat.shape[1:], np.nan)
        item = np.repeat(np.arange(counts.size), counts)
        out[item, np.arange(offsets[-1] - offsets[0]) - np.repeat(offsets[:-1] - offsets[0], counts)] = flat
        return out if self.batched else out[0]

    def outcome_rows(self):
        """Each item's number of distinct outcome rows (the padded_outcomes count)."""
        counts = np.diff(np.atleast_1d(self.outcome_offsets))
        return counts if self.batched else int(counts[0])


@dataclasses.dataclass
class Check(Resolution):
    """What `simpact check` reports (and the resolution it compares with)."""
    consistent: np.ndarray = None           # consistent_with_propagative_model
    negative_impulses: np.ndarray = None
    momentum_after: np.ndarray = None
    energy_after: np.ndarray = None
    relative_energy_error: np.ndarray = None
    predicted_energy_after: np.ndarray = None
    relative_energy_error_vs_model: np.ndarray = None
    max_feasibility_violation: np.ndarray = None
    impulse_residual: np.ndarray = None
    nonnegative_impulse_residual: np.ndarray = None
    complementarity_residual: np.ndarray = None
    distance_to_nearest_outcome: np.ndarray = None
    distance_to_plastic: np.ndarray = None
    tolerance: np.ndarray = None
    consistency_tolerance: np.ndarray = None
    nearest_outcome: np.ndarray = None
    printed_significant_digits: np.ndarray = None
    implied_impulses: np.ndarray = None


BOOLEAN = ("unique", "cap_hit", "consistent", "negative_impulses")
FLAT = ("outcome_offsets", "outcome_momentum", "outcome_velocity", "outcome_impulses", "outcome_energy")


def make_record(cls, arrays, batched):
    fields = {}
    for name, value in arrays.items():
        if name in BOOLEAN:
            value = value.astype(bool)
        if not batched and name not in FLAT:
            value = value[0]
        fields[name] = value
    return cls(batched=batched, **fields)


def _raw_inputs(mass_matrix, normals, momentum, velocity, gaps, restitution):
    m = as_array(mass_matrix, "mass_matrix", 2)
    batched = m.ndim == 3
    if not batched:
        m = m[None]
    b, d = m.shape[0], m.shape[1]
    if m.shape[2] != d:
        raise input_error("mass_matrix", f"must be a square d×d matrix (got {m.shape[1]}×{m.shape[2]})")
    n = as_array(normals, "normals", 2)
    if n.ndim == 2:
        n = np.broadcast_to(n, (b,) + n.shape)
    if n.shape[0] != b or n.shape[2] != d or n.shape[1] < 1:
        raise input_error("normals", f"must have shape (B, k, d) = ({b}, k ≥ 1, {d}) (got {n.shape})")
    if (momentum is None) == (velocity is None):
        raise input_error("momentum", "give exactly one of 'momentum' and 'velocity'"
                                      + (" (got both)" if momentum is not None else ""))
    field = "momentum" if momentum is not None else "velocity"
    p = as_array(momentum if momentum is not None else velocity, field, 1)
    if p.ndim == 1:
        p = np.broadcast_to(p, (b, p.shape[0]))
    if p.shape != (b, d):
        raise input_error(field, f"must have shape (B, d) = ({b}, {d}) (got {p.shape})")
    k = n.shape[1]
    g = None
    if gaps is not None:
        g = as_array(gaps, "gaps", 1)
        if g.ndim == 1:
            g = np.broadcast_to(g, (b, g.shape[0]))
        if g.shape != (b, k):
            raise input_error("gaps", f"must have one entry per normal: shape (B, k) = ({b}, {k}) (got {g.shape})")
        g = np.ascontiguousarray(g)
    r = as_array(restitution, "restitution", 0, 1)
    r = np.ascontiguousarray(np.broadcast_to(r, (b,)) if r.ndim == 0 or r.shape == (1,) else r)
    if r.shape != (b,):
        raise input_error("restitution", f"must be a number or one per problem, shape ({b},) (got {r.shape})")
    return batched, m, np.ascontiguousarray(n), np.ascontiguousarray(p), field == "velocity", g, r


def resolve(mass_matrix, normals, momentum=None, *, velocity=None, restitution=1.0, ordering="all",
            minimality="propagation", seed=0, limits=None, gaps=None, gap_tolerance=1e-9, threads=0,
            plastic=True, definition1=True):
    """Resolve B simultaneous impacts, each as `simpact resolve` would.

    mass_matrix (B, d, d); normals (B, k, d) or (k, d) shared; momentum p⁻ (B, d) or velocity q̇⁻
    (p⁻ = M q̇⁻); restitution a number or (B,); gaps (B, k) or (k,) (contacts with φ > gap_tolerance
    are open). Without the batch axis (M of shape (d, d)) one problem is resolved and the record's
    fields have no batch axis. ordering: all (the full outcome set and ξ), argmin, argmax, index,
    reverse, random (with seed). threads ≤ 0: OpenMP's default. plastic=False skips the plastic
    outcome p_p (NaN; still computed where R < 1) and definition1=False the Definition 1 test of each
    outcome (minimal_outcomes −1): `simpact resolve` computes both; every other field is the same,
    bit for bit. Returns a Resolution."""
    batched, m, n, p, is_velocity, g, r = _raw_inputs(mass_matrix, normals, momentum, velocity, gaps,
                                                      restitution)
    arrays = call(batched, _simpact.resolve_raw, m, n, p, is_velocity, g, r,
                  real_number(gap_tolerance, "gap_tolerance"), options_json(ordering, minimality, seed, limits),
                  *_switches(plastic, definition1), thread_count(threads))
    return make_record(Resolution, arrays, batched)


def check(mass_matrix, normals, momentum=None, *, velocity=None, momentum_after=None, velocity_after=None,
          restitution=1.0, tolerance=None, consistency_tolerance=None, ordering="all",
          minimality="propagation", seed=0, limits=None, gaps=None, gap_tolerance=1e-9, threads=0,
          plastic=True, definition1=True):
    """Check B post-impact states of another simulator against the propagative model, each as
    `simpact check` would: arguments as resolve(), plus momentum_after (B, d) or velocity_after.
    Tolerances not given follow the printed precision of the numbers (as the CLI). Returns a Check
    (its .consistent gates a test suite: `assert c.consistent.all()`)."""
    batched, m, n, p, is_velocity, g, r = _raw_inputs(mass_matrix, normals, momentum, velocity, gaps,
                                                      restitution)
    after, after_velocity = _after(momentum_after, velocity_after, m.shape[0], m.shape[1])
    arrays = call(batched, _simpact.check_raw, m, n, p, is_velocity, g, r, real_number(gap_tolerance, "gap_tolerance"),
                  after, after_velocity, _tolerance(tolerance, "tolerance"),
                  _tolerance(consistency_tolerance, "consistency_tolerance"),
                  options_json(ordering, minimality, seed, limits), *_switches(plastic, definition1),
                  thread_count(threads))
    return make_record(Check, arrays, batched)


def _tolerance(value, field):
    if value is None:
        return None
    return real_number(value, field, "a number in (0, 1)")


def _after(momentum_after, velocity_after, b, d):
    if momentum_after is not None and velocity_after is not None:
        raise input_error("momentum_after", "give exactly one of 'momentum_after' and 'velocity_after' (got both)")
    if momentum_after is None and velocity_after is None:
        raise input_error("momentum_after", "required field is missing (or give 'velocity_after')")
    field = "momentum_after" if momentum_after is not None else "velocity_after"
    a = as_array(momentum_after if momentum_after is not None else velocity_after, field, 1)
    if a.ndim == 1:
        a = a[None] if b == 1 else a
    if a.ndim == 1 or a.shape[0] != b or a.shape[1] != d:
        raise input_error(field, f"must have shape (B, d) = ({b}, {d}) (got {a.shape})")
    return np.ascontiguousarray(a), field == "velocity_after"


def resolve_model(model, *, ordering="all", minimality="propagation", seed=0, limits=None, threads=0,
                  plastic=True, definition1=True, **params):
    """Resolve a built-in model (billiards, cradle, ...) at B parameter points, as
    `simpact resolve {"model": model, "params": {...}}` would. Each parameter is a number or an
    array; arrays broadcast to the batch shape (one axis). Returns a Resolution (batched when
    any parameter is an array)."""
    names = sorted(params)
    values = []
    for name in names:
        values.append(real_array(params[name], f"params.{name}"))
    batched = any(v.ndim > 0 for v in values)
    try:
        columns = np.broadcast_arrays(*values) if values else []
    except ValueError:
        raise input_error("params", "parameter arrays must have one common length "
                                    f"(got shapes {[v.shape for v in values]})") from None
    if any(c.ndim > 1 for c in columns):
        raise input_error("params", "parameter arrays must be one-dimensional")
    b = columns[0].size if columns else 1
    table = np.ascontiguousarray(np.column_stack([c.reshape(-1) for c in columns]) if columns
                                 else np.zeros((b, 0)))
    arrays = call(batched, _simpact.resolve_model, str(model), names, table.reshape(b, len(names)),
                  options_json(ordering, minimality, seed, limits), *_switches(plastic, definition1),
                  thread_count(threads))
    return make_record(Resolution, arrays, batched)
