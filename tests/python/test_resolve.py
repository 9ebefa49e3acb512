"""simpact.resolve / check / resolve_model: closed forms, bit equality with the CLI, bad input."""
import math

import numpy as np
import pytest

import simpact
from conftest import cli_error, cli_json, nan_array, same_bits

CRADLE_M = np.eye(3)
CRADLE_N = np.array([[-1.0, 1.0, 0.0], [0.0, -1.0, 1.0]])  # gaps x_b − x_a, x_c − x_b: Dφ


def billiards_batch(b, seed=1):
    """B billiards breaks (d = 6, 2 contacts) at random θ, masses and cue directions: M, N, p."""
    rng = np.random.default_rng(seed)
    theta = rng.uniform(math.pi / 3 + 0.05, math.pi, b)
    masses = rng.uniform(0.5, 2.0, (b, 3))
    mass = np.zeros((b, 6, 6))
    for i in range(3):
        mass[:, 2 * i, 2 * i] = mass[:, 2 * i + 1, 2 * i + 1] = masses[:, i]
    na = np.stack([np.cos(theta / 2), np.sin(theta / 2)], axis=1)    # unit c → a
    nb = np.stack([np.cos(theta / 2), -np.sin(theta / 2)], axis=1)   # unit c → b
    normals = np.zeros((b, 2, 6))
    normals[:, 0, 0:2], normals[:, 0, 4:6] = na, -na    # φ_a grows with x_a − x_c along n_a
    normals[:, 1, 2:4], normals[:, 1, 4:6] = nb, -nb
    angle = rng.uniform(-0.2, 0.2, b)
    momentum = np.zeros((b, 6))
    momentum[:, 4], momentum[:, 5] = masses[:, 2] * np.cos(angle), masses[:, 2] * np.sin(angle)
    return mass, normals, momentum


def request_of(m, n, p, **extra):
    return dict(mass_matrix=m.tolist(), normals=n.tolist(), momentum=p.tolist(), **extra)


def test_cradle_closed_form():
    r = simpact.resolve(CRADLE_M, CRADLE_N, [1.0, 0.0, 0.0])
    assert not r.batched and r.status_name() == "ok"
    assert r.outcome_count == 1 and r.unique and r.xi == 0.0
    np.testing.assert_allclose(r.outcomes(), [[0.0, 0.0, 1.0]], atol=1e-12)
    assert r.energy_before == 0.5
    # the plastic outcome of equal masses: everything moves together at 1/3
    np.testing.assert_allclose(r.plastic_momentum, [1 / 3, 1 / 3, 1 / 3], atol=1e-12)


def test_billiards_xi_zero_at_right_angle_and_positive_elsewhere():
    r = simpact.resolve_model("billiards", theta=[math.pi / 2, 2 * math.pi / 3, math.pi])
    assert r.batched and r.xi.shape == (3,)
    assert abs(r.xi[0]) < 1e-12 and abs(r.xi[2]) < 1e-12 and r.xi[1] > 0.1


def test_batched_resolve_bit_identical_to_cli():
    m, n, p = billiards_batch(12)
    r = simpact.resolve(m, n, p, restitution=0.5)
    for b in range(12):
        out, _ = cli_json("resolve", request_of(m[b], n[b], p[b], restitution=0.5))
        assert simpact.impacts.STATUS_NAMES[r.status[b]] == out["status"]
        assert same_bits(r.xi[b], nan_array([out["xi"]])[0])
        assert same_bits(r.xi_argmin_argmax[b], nan_array([out["xi_argmin_argmax"]])[0])
        assert same_bits(r.energy_before[b], out["energy_before"])
        assert same_bits(r.momentum_before[b], out["momentum_before"])
        assert r.outcome_count[b] == out["outcome_count"]
        assert same_bits(r.outcomes(b), np.array([o["momentum"] for o in out["outcomes"]]))
        lo, hi = r.outcome_offsets[b], r.outcome_offsets[b + 1]
        assert same_bits(r.outcome_energy[lo:hi], [o["energy"] for o in out["outcomes"]])
        assert same_bits(r.outcome_velocity[lo:hi], np.array([o["velocity"] for o in out["outcomes"]]))
        assert same_bits(r.outcome_impulses[lo:hi], np.array([o["impulses"] for o in out["outcomes"]]))
        assert same_bits(r.plastic_momentum[b], out["plastic"]["momentum"])
        assert same_bits(r.plastic_impulses[b], out["plastic"]["impulses"])
        assert same_bits(r.plastic_energy[b], out["plastic"]["energy"])
        assert r.minimal_outcomes[b] == out["minimal_outcomes"]


def assert_resolution_matches_cli(r, b, out):
    assert simpact.impacts.STATUS_NAMES[r.status[b]] == out["status"]
    for name in ("xi", "xi_argmin_argmax"):
        assert same_bits(getattr(r, name)[b], nan_array([out[name]])[0]), name
    assert r.outcome_count[b] == out["outcome_count"] and r.minimal_outcomes[b] == out["minimal_outcomes"]
    lo, hi = r.outcome_offsets[b], r.outcome_offsets[b + 1]
    assert same_bits(r.outcome_momentum[lo:hi], nan_array([o["momentum"] for o in out["outcomes"]]).reshape(-1, r.outcome_momentum.shape[1]))
    assert same_bits(r.outcome_velocity[lo:hi], nan_array([o["velocity"] for o in out["outcomes"]]).reshape(-1, r.outcome_velocity.shape[1]))
    assert same_bits(r.outcome_energy[lo:hi], nan_array([o["energy"] for o in out["outcomes"]]))
    assert same_bits(r.plastic_momentum[b], out["plastic"]["momentum"])
    assert same_bits(r.plastic_velocity[b], out["plastic"]["velocity"])


@pytest.mark.parametrize("limits", [None, {"max_steps": 1}, {"max_nodes": 1}])
def test_elastic_batch_bit_identical_to_cli_with_caps_and_full_mass_matrices(limits):
    """R = 1 (the batch reads the argmin/argmax pair off the enumeration's branches), with caps that
    stop the enumeration or the pair, and full (rotated) mass matrices beside diagonal ones."""
    m, n, p = billiards_batch(8, seed=11)
    c, s = math.cos(0.3), math.sin(0.3)
    rot = np.eye(6)
    rot[0:2, 0:2] = [[c, -s], [s, c]]
    m[1::2] = rot.T @ m[1::2] @ rot  # non-diagonal M on odd items (rotated coordinates of ball a)
    n[1::2] = n[1::2] @ rot
    p[1::2] = p[1::2] @ rot
    r = simpact.resolve(m, n, p, limits=limits)
    extra = {} if limits is None else {"limits": limits}
    statuses = set()
    for b in range(8):
        out, _ = cli_json("resolve", request_of(m[b], n[b], p[b], **extra))
        assert_resolution_matches_cli(r, b, out)
        statuses.add(out["status"])
    assert statuses == ({"ok"} if limits is None else {"cap_hit"})


@pytest.mark.parametrize("ordering", ["argmin", "argmax", "index", "reverse", "random"])
def test_single_orderings_bit_identical_to_cli(ordering):
    m, n, p = billiards_batch(4, seed=7)
    gaps = np.array([0.0, 0.0])
    r = simpact.resolve(m, n, p, ordering=ordering, seed=11, gaps=gaps)
    for b in range(4):
        out, _ = cli_json("resolve", request_of(m[b], n[b], p[b], ordering=ordering, seed=11, gaps=[0.0, 0.0]))
        assert same_bits(r.outcomes(b), np.array([o["momentum"] for o in out["outcomes"]]))


def test_velocity_open_contacts_and_model_requests_match_cli():
    v = [1.0, 0.0, 0.0]
    r = simpact.resolve(CRADLE_M * 2.0, CRADLE_N, velocity=v, gaps=[0.0, 0.5])
    out, _ = cli_json("resolve", dict(mass_matrix=(CRADLE_M * 2.0).tolist(), normals=CRADLE_N.tolist(),
                                      velocity=v, gaps=[0.0, 0.5]))
    assert same_bits(r.outcomes(), np.array([o["momentum"] for o in out["outcomes"]]))
    assert same_bits(r.outcome_impulses, np.array([o["impulses"] for o in out["outcomes"]]))
    assert r.outcome_impulses[0, 1] == 0.0  # the open contact carries none
    thetas = [1.3, 2.0, 2.9]
    rm = simpact.resolve_model("billiards", theta=thetas, m_b=3.0, restitution=0.8)
    for b, theta in enumerate(thetas):
        out, _ = cli_json("resolve", {"model": "billiards", "params": {"theta": theta, "m_b": 3.0},
                                      "restitution": 0.8})
        assert same_bits(rm.xi[b], nan_array([out["xi"]])[0])
        assert same_bits(rm.outcomes(b), np.array([o["momentum"] for o in out["outcomes"]]))


def test_results_do_not_depend_on_threads():
    m, n, p = billiards_batch(300, seed=3)
    one, two = simpact.resolve(m, n, p, threads=1), simpact.resolve(m, n, p, threads=2)
    for name in ("xi", "outcome_momentum", "plastic_momentum", "outcome_offsets"):
        assert same_bits(getattr(one, name), getattr(two, name)), name


def test_check_consistent_and_inconsistent_match_cli():
    m, n, p = billiards_batch(6, seed=5)
    r = simpact.resolve(m, n, p)
    after = np.array([r.outcomes(b)[0] for b in range(6)])
    after[3] = p[3]  # "nothing happened": not a propagative outcome
    c = simpact.check(m, n, p, momentum_after=after)
    assert c.consistent.tolist() == [True, True, True, False, True, True]
    for b in range(6):
        out, proc = cli_json("check", request_of(m[b], n[b], p[b], momentum_after=after[b].tolist()))
        assert out["consistent_with_propagative_model"] == bool(c.consistent[b])
        assert same_bits(c.distance_to_nearest_outcome[b], nan_array([out["distance_to_nearest_outcome"]])[0])
        assert same_bits(c.relative_energy_error[b], nan_array([out["relative_energy_error"]])[0])
        assert same_bits(c.implied_impulses[b], nan_array(out["implied_impulses"]))
        assert same_bits(c.consistency_tolerance[b], out["consistency_tolerance"])
        assert same_bits(c.max_feasibility_violation[b], out["max_feasibility_violation"])


# ---- bad input: a ValueError (simpact.InputError) with the CLI's line and the field ------------

def test_resolve_bad_input_carries_cli_message():
    bad = np.array([[1.0, 2.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    line = cli_error("resolve", request_of(bad, CRADLE_N, np.array([1.0, 0.0, 0.0])))
    with pytest.raises(ValueError) as e:
        simpact.resolve(bad, CRADLE_N, [1.0, 0.0, 0.0])
    assert isinstance(e.value, simpact.InputError)
    assert str(e.value) == line and e.value.field == "mass_matrix" and e.value.item is None
    with pytest.raises(simpact.InputError) as e:
        simpact.resolve(CRADLE_M, CRADLE_N, [1.0, 0.0, 0.0], ordering="alll")
    assert str(e.value) == cli_error("resolve", request_of(CRADLE_M, CRADLE_N, np.array([1.0, 0, 0]),
                                                             ordering="alll"))
    with pytest.raises(simpact.InputError) as e:
        simpact.resolve(CRADLE_M, CRADLE_N, [1.0, 0.0])
    assert e.value.field == "momentum"
    with pytest.raises(simpact.InputError) as e:
        simpact.resolve(CRADLE_M, CRADLE_N, [1.0, 0.0, 0.0], restitution=1.5)
    assert str(e.value) == cli_error("resolve", request_of(CRADLE_M, CRADLE_N, np.array([1.0, 0, 0]),
                                                             restitution=1.5))


def test_batch_error_names_the_first_bad_item():
    m, n, p = billiards_batch(50)
    m[17, 0, 1] = 0.3  # not symmetric
    m[31, 2, 2] = math.nan
    with pytest.raises(simpact.InputError) as e:
        simpact.resolve(m, n, p)
    assert e.value.item == 17 and e.value.field == "mass_matrix"
    assert e.value.line == "mass_matrix: must be symmetric"
    assert str(e.value) == "mass_matrix: must be symmetric (batch item 17)"


def test_check_bad_input():
    with pytest.raises(simpact.InputError) as e:
        simpact.check(CRADLE_M, CRADLE_N, [1.0, 0.0, 0.0])
    assert e.value.field == "momentum_after"
    with pytest.raises(simpact.InputError) as e:
        simpact.check(CRADLE_M, CRADLE_N, [1.0, 0.0, 0.0], momentum_after=[0.0, 0.0, 1.0], tolerance=2.0)
    assert str(e.value) == cli_error("check", request_of(CRADLE_M, CRADLE_N, np.array([1.0, 0, 0]),
                                                           momentum_after=[0.0, 0.0, 1.0], tolerance=2.0))


def test_resolve_model_bad_input():
    with pytest.raises(simpact.InputError) as e:
        simpact.resolve_model("biliards", theta=1.0)
    assert str(e.value) == cli_error("resolve", {"model": "biliards", "params": {"theta": 1.0}})
    with pytest.raises(simpact.InputError) as e:
        simpact.resolve_model("billiards", thetaa=1.0)
    assert e.value.field == "params.thetaa"
    with pytest.raises(simpact.InputError) as e:
        simpact.resolve_model("billiards", theta=[2.0, 0.1])  # θ below π/3: the balls overlap
    line = cli_error("resolve", {"model": "billiards", "params": {"theta": 0.1}})
    assert e.value.item == 1 and e.value.line == line


def test_batch_mixing_fixed_and_dynamic_paths_matches_cli():
    """Items of one batch on both size paths (10 contacts: all closed is the dynamic path, 7 closed
    the fixed one) and a bad item between them: each as `simpact resolve` gives it, bit for bit."""
    d = 11
    masses = np.array([1.0, 3.0, 1.0, 2.0, 1.0, 3.0, 1.0, 2.0, 1.0, 3.0, 1.0])
    m = np.broadcast_to(np.diag(masses), (4, d, d)).copy()
    n = np.zeros((10, d))
    for i in range(10):
        n[i, i], n[i, i + 1] = -1.0, 1.0
    v = np.zeros((4, d))
    v[:, 0] = [1.0, 1.5, 2.0, 0.5]
    gaps = np.zeros((4, 10))
    gaps[1, [2, 5, 8]] = 0.1   # 7 closed contacts: the fixed path
    gaps[3, [1, 4, 7]] = 0.2
    r = simpact.resolve(m, n, velocity=v, gaps=gaps, restitution=[1.0, 0.5, 0.8, 1.0])
    for b in range(4):
        out, _ = cli_json("resolve", dict(mass_matrix=m[b].tolist(), normals=n.tolist(), velocity=v[b].tolist(),
                                          gaps=gaps[b].tolist(), restitution=[1.0, 0.5, 0.8, 1.0][b]))
        assert simpact.impacts.STATUS_NAMES[r.status[b]] == out["status"]
        assert same_bits(r.xi[b], nan_array([out["xi"]])[0])
        assert same_bits(r.outcomes(b), nan_array([o["momentum"] for o in out["outcomes"]]))
        assert same_bits(r.plastic_momentum[b], out["plastic"]["momentum"])
        assert same_bits(r.momentum_before[b], out["momentum_before"])
        lo, hi = r.outcome_offsets[b], r.outcome_offsets[b + 1]
        assert same_bits(r.outcome_impulses[lo:hi], np.array([o["impulses"] for o in out["outcomes"]]))
    bad = v.copy()
    bad[2, 3] = np.inf
    with pytest.raises(simpact.InputError) as e:
        simpact.resolve(m, n, velocity=bad, gaps=gaps)
    assert e.value.item == 2 and e.value.field == "velocity"
    assert str(e.value) == "velocity: must be finite (found NaN or Inf) (batch item 2)"
    m_bad = m.copy()
    m_bad[1, 0, 1] = 0.5  # not symmetric: the request's message, from the request's order of checks
    with pytest.raises(simpact.InputError) as e:
        simpact.resolve(m_bad, n, velocity=v, gaps=gaps)
    line = cli_error("resolve", dict(mass_matrix=m_bad[1].tolist(), normals=n.tolist(), velocity=v[1].tolist(),
                                     gaps=gaps[1].tolist()))
    assert e.value.item == 1 and str(e.value) == line + " (batch item 1)"


def test_plastic_and_definition1_switches_leave_the_rest_bit_identical():
    m, n, p = billiards_batch(20, seed=4)
    full = simpact.resolve(m, n, p)
    lean = simpact.resolve(m, n, p, plastic=False, definition1=False)
    for name in ("status", "xi", "xi_argmin_argmax", "outcome_offsets", "outcome_momentum", "outcome_velocity",
                 "outcome_impulses", "outcome_energy", "energy_before"):
        assert same_bits(getattr(full, name), getattr(lean, name)), name
    assert np.isnan(lean.plastic_momentum).all() and np.isfinite(full.plastic_momentum).all()
    assert (lean.minimal_outcomes == -1).all() and (full.minimal_outcomes >= 1).all()
    # R < 1 needs p_p for the blend: computed (and reported) all the same
    blended = simpact.resolve(m, n, p, restitution=0.5, plastic=False)
    assert np.isfinite(blended.plastic_momentum).all()


@pytest.mark.parametrize("field", ["plastic", "definition1"])
def test_switches_bad_input(field):
    m, n, p = billiards_batch(2)
    with pytest.raises(simpact.InputError) as e:
        simpact.resolve(m, n, p, **{field: "no"})
    assert e.value.field == field and str(e.value) == f"{field}: must be true or false (got 'no')"
    with pytest.raises(ValueError):
        simpact.check(m, n, p, momentum_after=p, **{field: 1})
    with pytest.raises(ValueError):
        simpact.resolve_model("billiards", theta=2.0, **{field: None})


def test_outcomes_bad_item():
    m, n, p = billiards_batch(3)
    r = simpact.resolve(m, n, p)
    for item, got in ((3, "3"), (-1, "-1"), (1.5, "1.5")):
        with pytest.raises(simpact.InputError) as e:
            r.outcomes(item)
        assert e.value.field == "item" and str(e.value) == f"item: must be a batch item in 0..2 (got {got})"
    with pytest.raises(simpact.InputError) as e:
        r.outcomes()
    assert e.value.field == "item"


def test_velocity_batch_with_full_mass_matrices_bit_identical_to_cli():
    """p⁻ = M q̇⁻ formed in the batch as the request forms it, for full (rotated) and diagonal M."""
    m, n, v = billiards_batch(4, seed=21)
    c, s = math.cos(0.7), math.sin(0.7)
    rot = np.eye(6)
    rot[2:4, 2:4] = [[c, -s], [s, c]]
    m[::2] = rot.T @ m[::2] @ rot
    n[::2] = n[::2] @ rot
    r = simpact.resolve(m, n, velocity=v)
    for b in range(4):
        out, _ = cli_json("resolve", dict(mass_matrix=m[b].tolist(), normals=n[b].tolist(), velocity=v[b].tolist()))
        assert same_bits(r.momentum_before[b], out["momentum_before"])
        assert_resolution_matches_cli(r, b, out)


@pytest.mark.parametrize("threads", [1, 2])
def test_recycled_result_storage_leaves_no_trace(threads):
    """Result arrays freed by Python are reused by the next batch: nothing of the old values shows."""
    m, n, p = billiards_batch(500, seed=8)
    reference = simpact.resolve(m[:300], n[:300], p[:300], plastic=False, definition1=False, threads=threads)
    ref = {k: np.array(getattr(reference, k)) for k in ("plastic_momentum", "outcome_momentum", "xi", "status",
                                                      "minimal_outcomes", "outcome_offsets")}
    del reference
    for _ in range(3):  # bigger, then the same size as the reference, on freed storage
        r = simpact.resolve(m, n, p, restitution=0.5, threads=threads)
        del r
        again = simpact.resolve(m[:300], n[:300], p[:300], plastic=False, definition1=False, threads=threads)
        for name, value in ref.items():
            assert same_bits(getattr(again, name), value), name
        del again
