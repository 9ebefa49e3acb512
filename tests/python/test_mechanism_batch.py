"""Mechanism batches (issue 34 §5): resolve, check, place and M/φ/Dφ of B states and parameter
arrays equal B one-state calls bit for bit, at 1 and 2 threads and from concurrent Python threads;
a state with no closed contact is status no_contact with ξ NaN; the padded outcome array; the GIL
is released during a batch; bad shapes name the argument and the allowed shape."""
import threading
import time

import numpy as np
import pytest

import simpact
from conftest import SOURCE, same_bits

MECHANISMS = SOURCE / "examples" / "mechanisms"
CRADLE_CONTACTS = [("ball_a", "ball_b"), ("ball_b", "ball_c")]
B = 24


@pytest.fixture(scope="module")
def cradle():
    return simpact.Mechanism.from_file(MECHANISMS / "cradle3.xml", contacts=CRADLE_CONTACTS)


@pytest.fixture(scope="module")
def biped():
    """The planar biped, its height and pitch placed so that both feet touch the floor."""
    return simpact.Mechanism.from_file(MECHANISMS / "biped.xml", contacts=[("floor", "foot_l"), ("floor", "foot_r")],
                                       place=["qpos.root_z", "qpos.root_pitch"])


def biped_batch(biped, b=B, seed=3):
    """b random touchdowns of the biped: leg postures (B, nq), falling velocities (B, nv), torso and
    shin masses and restitutions as arrays (B,)."""
    rng = np.random.default_rng(seed)
    q = np.zeros((b, biped.nq))
    q[:, 3:] = rng.uniform(-0.5, 0.5, (b, 4))  # hips and knees
    v = rng.normal(0, 0.3, (b, biped.nv))
    v[:, 1] = -rng.uniform(0.5, 2, b)          # falling
    params = {"mass.torso": rng.uniform(5, 15, b), "mass.shin_l": rng.uniform(0.5, 2, b)}
    return q, v, params, rng.uniform(0, 1, b)


def item(params, b):
    return {name: (value[b] if np.ndim(value) else value) for name, value in params.items()}


def assert_same_record(batch, singles):
    """Every field of the batched record equals the one-state records' bit for bit (outcome rows
    item by item)."""
    for name in batch.__dataclass_fields__:
        if name in ("batched",) or name.startswith("outcome_") and name != "outcome_count":
            continue
        got = getattr(batch, name)
        want = np.array([getattr(s, name) for s in singles])
        assert got.dtype.kind == want.dtype.kind or got.dtype.kind in "fc", name
        assert same_bits(got, want) if got.dtype.kind == "f" else np.array_equal(got, want), name
    for b, s in enumerate(singles):
        for kind in ("momentum", "velocity", "impulses", "energy"):
            rows = batch.padded_outcomes(kind)[b][:batch.outcome_rows()[b]]
            assert same_bits(rows, s.padded_outcomes(kind)), (b, kind)
        assert same_bits(batch.outcomes(b), s.outcomes())


def test_resolve_batch_equals_one_state_calls(biped):
    q, v, params, restitution = biped_batch(biped)
    batch = biped.resolve(q, v, params=params, restitution=restitution)
    assert batch.batched and batch.xi.shape == (B,) and batch.placed_qpos.shape == (B, biped.nq)
    singles = [biped.resolve(q[b], v[b], params=item(params, b), restitution=restitution[b]) for b in range(B)]
    assert not singles[0].batched and singles[0].placed_qpos.shape == (biped.nq,)
    assert_same_record(batch, singles)
    # The thread count changes nothing; nor does the item order (each item stands alone).
    for threads in (1, 2):
        assert_same_record(biped.resolve(q, v, params=params, restitution=restitution, threads=threads), singles)
    order = np.arange(B)[::-1]
    reversed_batch = biped.resolve(q[order], v[order], params={k: a[order] for k, a in params.items()},
                                   restitution=restitution[order])
    assert same_bits(reversed_batch.xi[order], batch.xi)
    assert same_bits(reversed_batch.placed_qpos[order], batch.placed_qpos)
    # The placement: root_z and root_pitch moved so that both feet touch, the rest of q as given.
    assert same_bits(batch.placed_qpos[:, [0, 3, 4, 5, 6]], q[:, [0, 3, 4, 5, 6]])
    assert not same_bits(batch.placed_qpos[:, 1], q[:, 1])
    gaps = biped.gaps(batch.placed_qpos, params=params)
    assert np.all(np.abs(gaps) < 1e-8)
    assert np.all(batch.closed_contacts == 2)
    assert (batch.status_name() != "no_contact").all() and not np.isnan(batch.xi).any()


def test_scalars_broadcast_and_momentum(biped):
    """A number or a single state broadcasts over the batch; momentum instead of qvel."""
    q, v, params, _ = biped_batch(biped, b=6)
    masses = params["mass.torso"]
    batch = biped.resolve(q[0], v[0], params={"mass.torso": masses, "mass.shin_l": 1.5}, restitution=0.5)
    singles = [biped.resolve(q[0], v[0], params={"mass.torso": m, "mass.shin_l": 1.5}, restitution=0.5)
               for m in masses]
    assert_same_record(batch, singles)
    p = batch.momentum_before
    by_momentum = biped.resolve(q[0], momentum=p, params={"mass.torso": masses, "mass.shin_l": 1.5},
                                restitution=0.5)
    singles = [biped.resolve(q[0], momentum=p[b], params={"mass.torso": m, "mass.shin_l": 1.5}, restitution=0.5)
               for b, m in enumerate(masses)]
    assert_same_record(by_momentum, singles)


def test_check_batch_equals_one_state_calls(biped):
    q, v, params, restitution = biped_batch(biped, b=12)
    r = biped.resolve(q, v, params=params, restitution=restitution)
    after = r.plastic_momentum.copy()
    after[::3] = r.momentum_before[::3]  # every third: nothing happened (not consistent)
    batch = biped.check(q, v, momentum_after=after, params=params, restitution=restitution)
    singles = [biped.check(q[b], v[b], momentum_after=after[b], params=item(params, b), restitution=restitution[b])
               for b in range(12)]
    assert_same_record(batch, singles)
    assert not batch.consistent[::3].any()
    assert same_bits(batch.xi, r.xi)


def test_place_and_evaluate_batches_equal_one_state_calls(biped, cradle):
    q, _, params, _ = biped_batch(biped)
    placed = biped.place(q, params=params)
    assert placed.shape == (B, biped.nq)
    for threads in (1, 2):
        assert same_bits(biped.place(q, params=params, threads=threads), placed)
    for b in range(B):
        assert same_bits(biped.place(q[b], params=item(params, b)), placed[b])
    m, g, n = biped._evaluate(placed, params, 2)
    for b in range(B):
        one = biped._evaluate(placed[b], item(params, b), 0)
        assert same_bits(one[0], m[b]) and same_bits(one[1], g[b]) and same_bits(one[2], n[b])
    # Closed forms on the cradle: M = diag(masses), φ = x_b − x_a (radius 1 balls 2 m apart).
    masses = np.array([0.5, 1.0, 2.0, 4.0])
    M = cradle.mass_matrix([0, 0, 0], params={"mass.b": masses})
    assert M.shape == (4, 3, 3)
    np.testing.assert_allclose(M[:, 1, 1], masses, rtol=1e-12)
    np.testing.assert_allclose(M[:, 0, 0], 1.0, rtol=1e-12)
    xa = np.linspace(-0.5, 0, 5)
    np.testing.assert_allclose(cradle.gaps(np.stack([xa, 0 * xa, 0 * xa], axis=1))[:, 0], -xa, atol=1e-9)
    # Sizes: ball b's radius r_b (centres 2 m apart): φ_ab = φ_bc = 1 − r_b.
    radii = np.array([0.5, 0.8, 1.0])
    np.testing.assert_allclose(cradle.gaps([0, 0, 0], params={"size.ball_b[0]": radii}), np.c_[1 - radii, 1 - radii],
                               atol=1e-9)


def test_no_closed_contact_is_nan_not_zero(cradle):
    """Balls apart: status no_contact, ξ NaN (never 0), p⁺ = p⁻; touching items are unaffected."""
    q = np.array([[0, 0, 0], [-0.5, 0, 0.25], [0, 0, 0.1]], dtype=float)
    r = cradle.resolve(q, [1, 0, 0])
    assert list(r.status_name()) == ["ok", "no_contact", "ok"]
    assert r.status[1] == simpact.impacts.STATUS_NAMES.index("no_contact") == 5
    assert list(r.closed_contacts) == [2, 0, 1]
    assert np.isnan(r.xi[1]) and np.isnan(r.xi_argmin_argmax[1]) and not r.unique[1]
    assert same_bits(r.outcomes(1), [[1, 0, 0]])  # nothing closed: p⁺ = p⁻
    assert r.xi[0] == 0 and r.unique[0]  # eq. (15): the reversal, a unique outcome
    np.testing.assert_allclose(r.outcomes(0), [[0, 0, 1]], atol=1e-12)
    one = cradle.resolve(q[1], [1, 0, 0])
    assert one.status_name() == "no_contact" and np.isnan(one.xi)
    c = cradle.check(q, [1, 0, 0], momentum_after=[[0, 0, 1], [1, 0, 0], [0, 1, 0]])
    assert list(c.status_name()) == ["ok", "no_contact", "ok"] and np.isnan(c.xi[1])


def test_padded_outcomes(biped):
    q, v, params, _ = biped_batch(biped)
    r = biped.resolve(q, v, params=params)  # R = 1: the whole outcome set
    rows = r.outcome_rows()
    assert np.array_equal(rows, r.outcome_count)
    padded = r.padded_outcomes()
    assert padded.shape == (B, rows.max(), biped.nv)
    assert r.padded_outcomes("impulses").shape == (B, rows.max(), 2)
    assert r.padded_outcomes("energy").shape == (B, rows.max())
    for b in range(B):
        assert same_bits(padded[b, :rows[b]], r.outcomes(b))
        assert np.isnan(padded[b, rows[b]:]).all()
    with pytest.raises(simpact.InputError) as e:
        r.padded_outcomes("impulse")
    assert e.value.field == "kind"


def test_concurrent_python_threads_share_a_mechanism(biped):
    """Two Python threads resolving on one Mechanism at once (the GIL released): each gets its
    own workspaces, the results equal a serial call."""
    q, v, params, restitution = biped_batch(biped, b=200)
    want = biped.resolve(q, v, params=params, restitution=restitution, threads=1)
    got = [None] * 4

    def work(i):
        got[i] = biped.resolve(q, v, params=params, restitution=restitution, threads=2)

    workers = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    for r in got:
        assert same_bits(r.xi, want.xi) and same_bits(r.outcome_momentum, want.outcome_momentum)
        assert same_bits(r.placed_qpos, want.placed_qpos)


def test_the_gil_is_released_during_a_batch(biped):
    """While a batch runs in one thread, Python code runs in another: the main thread's samples
    fall inside the batch's span (a held GIL would block them for the whole call)."""
    q, v, params, _ = biped_batch(biped, b=1)
    n = 4000
    span = {}

    def work():
        span["t0"] = time.perf_counter()
        biped.resolve(np.repeat(q, n, axis=0), np.repeat(v, n, axis=0), threads=1)
        span["t1"] = time.perf_counter()

    worker = threading.Thread(target=work)
    samples = []
    worker.start()
    while worker.is_alive():
        samples.append(time.perf_counter())
    worker.join()
    t0, t1 = span["t0"], span["t1"]
    margin = 0.1 * (t1 - t0)
    inside = [t for t in samples if t0 + margin < t < t1 - margin]
    assert t1 - t0 > 0.01
    assert len(inside) > 100, (len(inside), t1 - t0)


def test_bad_shapes_name_the_argument(biped, cradle):
    def error(call):
        with pytest.raises(simpact.InputError) as e:
            call()
        return e.value

    e = error(lambda: biped.resolve(np.zeros((3, 6)), np.zeros(7)))
    assert e.field == "qpos" and str(e).startswith("qpos: shape (3, 6) but the mechanism has nq = 7")
    e = error(lambda: biped.resolve(np.zeros((3, 7)), np.zeros((4, 7))))
    assert e.field == "qvel" and "has 4 batch items but qpos has 3" in str(e)
    e = error(lambda: biped.resolve(np.zeros((3, 7)), np.zeros(7), params={"mass.torso": np.ones(5)}))
    assert e.field == "params.mass.torso" and "has 5 batch items but qpos has 3" in str(e)
    e = error(lambda: biped.resolve(None, np.zeros(7), params={"mass.torso": np.ones((2, 2))}))
    assert e.field == "params.mass.torso" and "shape (B,)" in str(e)
    e = error(lambda: biped.resolve(None, np.zeros(7), restitution=np.ones((2, 1))))
    assert e.field == "restitution"
    e = error(lambda: biped.resolve(None, momentum=np.zeros((2, 5))))
    assert e.field == "momentum" and "nv = 7" in str(e)
    e = error(lambda: biped.place(np.zeros((2, 3, 7))))
    assert e.field == "q"
    e = error(lambda: biped.resolve(None, np.zeros(7), params={"mass.torsoo": [1.0, 2.0]}))
    assert e.field == "params.mass.torsoo" and "mass.torso" in str(e)
    e = error(lambda: biped.check(np.zeros((3, 7)), np.zeros(7), momentum_after=np.zeros((2, 7))))
    assert e.field == "momentum_after"
    # A bad value in one item names it: the lowest bad item, whatever the thread count.
    masses = np.ones(10)
    masses[[4, 7]] = -1.0
    for threads in (1, 2):
        e = error(lambda: cradle.resolve([0, 0, 0], [1, 0, 0], params={"mass.b": masses}, threads=threads))
        assert e.field == "params.mass.b" and e.item == 4 and str(e).endswith("(batch item 4)")
        e = error(lambda: cradle.place(None, params={"mass.b": masses}, threads=threads))
        assert e.field == "params.mass.b" and e.item == 4
    e = error(lambda: cradle.resolve([0, 0, 0], [1, 0, 0], params={"mass.b": -1.0}))
    assert e.item is None and "batch item" not in str(e)


def test_simulate_batch_equals_one_state_runs(biped, cradle):
    """B drops of the biped (postures, torso masses, restitutions as arrays) equal B one-state
    simulate calls (the CLI's request) bit for bit, at 1 and 2 threads."""
    b = 4
    rng = np.random.default_rng(5)
    q0 = np.zeros((b, biped.nq))
    q0[:, 1] = 0.05                                # 5 cm up: the feet land within the run
    q0[:, 3:] = rng.uniform(-0.3, 0.3, (b, 4))
    masses, restitution = rng.uniform(5, 15, b), rng.uniform(0.2, 0.9, b)
    runs = {threads: biped.simulate(q0, np.zeros(biped.nv), dt=1e-3, steps=300, restitution=restitution,
                                    record={"every": 100}, params={"mass.torso": masses}, threads=threads)
            for threads in (1, 2)}
    s = runs[2]
    assert s.q.shape == (b, 4, biped.nq) and s.p.shape == (b, 4, biped.nv) and s.energy_final.shape == (b,)
    assert s.coordinates == runs[1].coordinates and len(s.impacts) == b
    for item in range(b):
        one = biped.simulate(q0[item], np.zeros(biped.nv), dt=1e-3, steps=300, restitution=restitution[item],
                             record={"every": 100}, params={"mass.torso": masses[item]})
        assert len(one.impacts) >= 1  # it landed
        for run in runs.values():
            for name in ("step", "t", "q", "p", "energy", "max_energy_drift", "energy_initial", "energy_final",
                         "energy_residual", "newton_mean", "newton_max"):
                assert same_bits(getattr(run, name)[item], getattr(one, name)), (item, name)
            assert same_bits([run.work[k][item] for k in one.work], list(one.work.values()))
            assert len(run.impacts[item]) == len(one.impacts)
            for mine, theirs in zip(run.impacts[item], one.impacts):
                assert mine["step"] == theirs["step"] and mine["contacts"] == theirs["contacts"]
                assert same_bits(mine["momentum_after"], theirs["momentum_after"])
    # The cradle's closed form (unit masses, R = 0.7): ends at [0.1, 0.1, 0.8] m/s whatever the start.
    c = cradle.simulate([[-0.5, 0, 0], [-0.3, 0, 0]], [1, 0, 0], dt=1 / 600, steps=600, restitution=0.7,
                        record={"steps": [0, 600]})
    np.testing.assert_allclose(c.p[:, -1], [[0.1, 0.1, 0.8]] * 2, atol=1e-9)
    # Bad input names the argument (and the item for a bad state).
    with pytest.raises(simpact.InputError) as e:
        cradle.simulate(np.zeros((2, 4)), [1, 0, 0], dt=1e-3, steps=10)
    assert e.value.field == "q0" and "nq = 3" in str(e.value)
    with pytest.raises(simpact.InputError) as e:
        cradle.simulate([[-0.5, 0, 0], [0.1, 0, 0]], [1, 0, 0], dt=1e-3, steps=10)  # item 1 penetrates
    assert e.value.field == "q0" and e.value.item == 1
    with pytest.raises(simpact.InputError) as e:
        cradle.simulate([[-0.5, 0, 0]] * 3, np.ones((2, 3)), dt=1e-3, steps=10)
    assert e.value.field == "v0" and "has 2 batch items but q0 has 3" in str(e.value)


BOX = """<mujoco model="box_foot">
  <worldbody>
    <geom name="floor" type="plane" size="5 5 0.1"/>
    <body name="block" pos="0 0 0.1">
      <joint name="z" type="slide" axis="0 0 1"/>
      <joint name="x" type="slide" axis="1 0 0"/>
      <joint name="pitch" type="hinge" axis="0 1 0"/>
      <geom name="foot" type="box" size="0.2 0.1 0.1" mass="2"/>
    </body>
  </worldbody>
</mujoco>
"""


def test_witness_rows_of_a_box_foot(tmp_path):
    """A box flat on the floor is 4 rows of the impact (its corners), tilted 1 or 2 (an edge);
    every row's contact, point and gap come back per item, impulses have R = 4 columns, and the
    batch equals its one-state calls bit for bit."""
    (tmp_path / "box.xml").write_text(BOX)
    box = simpact.Mechanism.from_file(tmp_path / "box.xml", contacts=[("floor", "foot")])
    assert box.max_problem_rows == 4
    q = np.zeros((5, 3))
    q[:, 2] = [0.0, 1e-3, -1e-3, 0.0, 0.0]  # flat, tilted both ways, flat, flat and lifted
    q[4, 0] = 0.05
    qvel = [-1.0, 0.2, 0.1]
    r = box.resolve(q, qvel, params={"mass.block": [1.0, 2.0, 3.0, 4.0, 5.0]}, restitution=0.0)
    assert list(r.problem_rows) == [4, 2, 2, 4, 1] and list(r.closed_contacts) == [4, 2, 2, 4, 0]
    assert r.plastic_impulses.shape == (5, 4) and r.padded_outcomes("impulses").shape[2] == 4
    assert list(r.status_name()) == ["ok"] * 4 + ["no_contact"]
    for b, rows in enumerate(r.problem_rows):
        assert (r.row_contact[b, :rows] == 0).all() and (r.row_contact[b, rows:] == -1).all()
        assert np.isnan(r.row_gap[b, rows:]).all() and np.isnan(r.row_position[b, rows:]).all()
    corners = sorted(map(tuple, np.round(r.row_position[0], 12)))
    assert corners == [(-0.2, -0.1, 0.0), (-0.2, 0.1, 0.0), (0.2, -0.1, 0.0), (0.2, 0.1, 0.0)]
    assert np.abs(r.row_gap[0]).max() < 1e-12 and r.row_gap[4, 0] == pytest.approx(0.05, abs=1e-12)
    # Plastic drop of a flat box: it stops (p⁺ = 0 in z), whatever the mass.
    np.testing.assert_allclose(r.plastic_momentum[[0, 3], 0], 0, atol=1e-12)
    singles = [box.resolve(q[b], qvel, params={"mass.block": float(b + 1)}, restitution=0.0) for b in range(5)]
    assert_same_record(r, singles)
    for name in ("problem_rows", "row_contact", "row_position", "row_gap"):
        assert same_bits(getattr(r, name), np.array([getattr(s, name) for s in singles])), name
    deepest = simpact.Mechanism.from_file(tmp_path / "box.xml", contacts=[("floor", "foot")], witnesses="deepest")
    assert deepest.max_problem_rows == 1 and list(deepest.resolve(q, qvel).problem_rows) == [1] * 5
    with pytest.raises(simpact.InputError) as e:
        simpact.Mechanism.from_file(tmp_path / "box.xml", contacts=[("floor", "foot")], witnesses="some")
    assert e.value.field == "mechanism.witnesses"


def test_simulate_batch_of_a_floating_base():
    """The quadruped (free base: q has nq = 19 coordinates with the quaternion, p nv = 18) dropped
    from two heights at R = 0 and R = 1 in one call at 2 threads: each item is its one-state run
    bit for bit; at R = 0 the four feet land at once, at R = 1 every touchdown keeps the energy."""
    quadruped = simpact.Mechanism.from_file(MECHANISMS / "quadruped.xml",
                                            contacts=[("floor", f"foot_{leg}") for leg in ("fl", "fr", "rl", "rr")])
    q0 = np.tile(quadruped.default_qpos(), (2, 1))
    q0[:, 2] = [0.4925, 0.495]  # feet 2.5 and 5 mm above the floor
    restitution = np.array([0.0, 1.0])
    s = quadruped.simulate(q0, np.zeros(quadruped.nv), dt=1e-3, steps=100, restitution=restitution,
                           record={"every": 50}, threads=2)
    assert s.q.shape == (2, 3, 19) and s.p.shape == (2, 3, 18) and len(s.configuration) == 19
    # Time stepping's contacts are features: each capsule foot is its two end caps (2 per foot),
    # and the four lower caps (features 0, 2, 4, 6) land at once.
    assert s.impacts[0][0]["contacts"] == [0, 2, 4, 6]
    for impact in s.impacts[1]:
        assert abs(impact["energy_after"] - impact["energy_before"]) <= 1e-9 * impact["energy_before"]
    for item in range(2):
        one = quadruped.simulate(q0[item], np.zeros(quadruped.nv), dt=1e-3, steps=100, restitution=restitution[item],
                                 record={"every": 50})
        assert one.configuration == s.configuration and len(one.impacts) == len(s.impacts[item]) >= 1
        for name in ("t", "q", "p", "energy", "energy_final", "max_energy_drift"):
            assert same_bits(getattr(s, name)[item], getattr(one, name)), (item, name)
