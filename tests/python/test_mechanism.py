"""simpact.Mechanism: M, φ, Dφ of MJCF files against closed forms; resolve/check bit-identical to
`simpact resolve`/`check` of the same mechanism request; bad input."""
import json

import numpy as np
import pytest

import simpact
from conftest import SOURCE, cli, cli_error, cli_json, nan_array, same_bits

CRADLE = SOURCE / "examples" / "mechanisms" / "cradle3.xml"
BILLIARDS = SOURCE / "examples" / "mechanisms" / "billiards.xml"
CRADLE_CONTACTS = [("ball_a", "ball_b"), ("ball_b", "ball_c")]


@pytest.fixture(scope="module")
def cradle():
    return simpact.Mechanism.from_file(CRADLE, contacts=CRADLE_CONTACTS)


def test_cradle_geometry_closed_form(cradle):
    assert cradle.nq == 3 and cradle.nv == 3
    assert cradle.qpos_names == ["qpos.x_a", "qpos.x_b", "qpos.x_c"]
    np.testing.assert_allclose(cradle.mass_matrix([0, 0, 0]), np.eye(3), atol=1e-12)  # 1 kg balls
    np.testing.assert_allclose(cradle.gaps([0, 0, 0]), [0, 0], atol=1e-9)           # touching
    np.testing.assert_allclose(cradle.gaps([-0.5, 0, 0.25]), [0.5, 0.25], atol=1e-9)
    # φ_ab = x_b − x_a + const: Dφ = [−1, 1, 0]; φ_bc: [0, −1, 1]
    np.testing.assert_allclose(cradle.normals([0, 0, 0]), [[-1, 1, 0], [0, -1, 1]], atol=1e-9)
    q = np.array([[0, 0, 0], [-0.5, 0, 0.25]])
    assert cradle.mass_matrix(q).shape == (2, 3, 3) and cradle.gaps(q).shape == (2, 2)
    assert cradle.normals(q).shape == (2, 2, 3)
    # mass.<body> scales M
    np.testing.assert_allclose(np.diag(cradle.mass_matrix([0, 0, 0], params={"mass.b": 3.0})), [1, 3, 1])


def test_cradle_resolve_is_the_cli_request(cradle):
    r = cradle.resolve([0, 0, 0], qvel=[1, 0, 0])
    np.testing.assert_allclose(r.outcomes(), [[0, 0, 1]], atol=1e-12)  # the reversal of eq. (15)
    out, _ = cli_json("resolve", json.load(open(SOURCE / "examples" / "mechanisms" / "cradle3.json")),
                      cwd=SOURCE / "examples" / "mechanisms")
    assert same_bits(r.outcomes(), np.array([o["momentum"] for o in out["outcomes"]]))
    assert same_bits(r.xi, nan_array([out["xi"]])[0])
    assert same_bits(r.plastic_momentum, out["plastic"]["momentum"])


def test_billiards_batch_and_check(cradle):
    mech = simpact.Mechanism.from_file(BILLIARDS, contacts=[("ball_c", "ball_a"), ("ball_c", "ball_b")])
    qvel = np.array([[0, 0, 0, 0, 1, 0], [0, 0, 0, 0, 1, 0.1]], dtype=float)
    r = mech.resolve(None, qvel)
    assert r.batched and r.xi.shape == (2,)
    assert abs(r.xi[0]) < 1e-9  # θ = π/2 in the file: ξ = 0
    for b in range(2):
        req = {"mechanism": {"file": str(BILLIARDS), "contacts": [["ball_c", "ball_a"], ["ball_c", "ball_b"]]},
               "qvel": qvel[b].tolist()}
        out, _ = cli_json("resolve", req)
        assert same_bits(r.outcomes(b), np.array([o["momentum"] for o in out["outcomes"]]))
    c = cradle.check([0, 0, 0], qvel=[1, 0, 0], velocity_after=[0, 0, 1])
    assert c.consistent
    c = cradle.check([0, 0, 0], qvel=[1, 0, 0], velocity_after=[1 / 3, 1 / 3, 1 / 3])  # plastic: not elastic
    assert not c.consistent


def test_mechanism_bad_input(cradle, tmp_path):
    with pytest.raises(simpact.InputError) as e:
        simpact.Mechanism.from_file(tmp_path / "missing.xml", contacts=CRADLE_CONTACTS)
    assert e.value.field == "mechanism.file"
    req = {"mechanism": {"file": str(CRADLE), "contacts": [["ball_a", "ball_x"]]}, "qvel": [1, 0, 0]}
    with pytest.raises(ValueError) as e:
        simpact.Mechanism.from_file(CRADLE, contacts=[("ball_a", "ball_x")])
    assert str(e.value) == cli_error("resolve", req)
    with pytest.raises(simpact.InputError) as e:
        simpact.Mechanism.from_file(CRADLE, contacts=[])
    assert e.value.field == "mechanism.contacts"
    with pytest.raises(simpact.InputError) as e:
        cradle.mass_matrix([0, 0])
    assert e.value.field == "q"
    for method in (cradle.gaps, cradle.normals, cradle.place):
        with pytest.raises(simpact.InputError):
            method([[0, 0, 0, 0]])
    with pytest.raises(simpact.InputError) as e:
        cradle.resolve([0, 0, 0], qvel=[1, 0])
    assert e.value.field == "qvel"
    with pytest.raises(simpact.InputError) as e:
        cradle.resolve([0, 0, 0], qvel=[1, 0, 0], params={"mass.bb": 2.0})
    assert e.value.field == "params.mass.bb"
    with pytest.raises(simpact.InputError) as e:
        cradle.check([0, 0, 0], qvel=[1, 0, 0])
    assert e.value.field == "momentum_after"


MECHANISMS = SOURCE / "examples" / "mechanisms"


def test_simulate_is_the_cli_request(cradle):
    """Mechanism.simulate = `simpact simulate` of examples/mechanisms/cradle3_simulate.json, bit for
    bit (the JSON prints doubles to round-trip), and the physics the example's comment states."""
    request = json.load(open(MECHANISMS / "cradle3_simulate.json"))
    p = cli(["simulate"], stdin=json.dumps(request), cwd=MECHANISMS)
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    s = cradle.simulate(request["q0"], request["v0"], request["dt"], request["steps"],
                        restitution=request["restitution"], record=request["record"])
    assert s.coordinates == out["coordinates"]
    assert s.step.tolist() == [r["step"] for r in out["records"]] == [0, 600]
    assert same_bits(s.t, [r["t"] for r in out["records"]])
    assert same_bits(s.q, np.array([r["q"] for r in out["records"]]))
    assert same_bits(s.p, np.array([r["p"] for r in out["records"]]))
    assert same_bits(s.energy, [r["energy"] for r in out["records"]])
    assert len(s.impacts) == len(out["impacts"]) >= 1
    for mine, theirs in zip(s.impacts, out["impacts"]):
        assert mine["step"] == theirs["step"] and mine["contacts"] == theirs["contacts"]
        assert mine["status"] == theirs["status"] and mine["policy"] == theirs["policy"]
        assert same_bits(mine["momentum_after"], theirs["momentum_after"])
        assert same_bits(mine["energy_after"], theirs["energy_after"])
    assert same_bits(s.max_energy_drift, out["max_energy_drift"])
    assert same_bits(s.energy_final, out["energy"]["final"])
    # "ends at [0.1, 0.1, 0.8] m/s" (R = 0.7, unit masses: p = q̇)
    np.testing.assert_allclose(s.p[-1], [0.1, 0.1, 0.8], atol=1e-9)


def test_simulate_bad_input(cradle):
    with pytest.raises(simpact.InputError) as e:
        cradle.simulate([-0.5, 0, 0], [1, 0, 0], dt=-1.0, steps=10)
    assert e.value.field == "dt"
    with pytest.raises(simpact.InputError) as e:
        cradle.simulate([-0.5, 0], [1, 0, 0], dt=1e-3, steps=10)  # nq = 3
    assert e.value.field == "q0"
    with pytest.raises(simpact.InputError) as e:
        cradle.simulate([-0.5, 0, 0], [1, 0, 0], dt=1e-3, steps=10, newton_tol=1e-9)  # not a key
    assert e.value.field == "newton_tol"
    with pytest.raises(simpact.InputError) as e:
        cradle.simulate([-0.5, 0, 0], [np.nan, 0, 0], dt=1e-3, steps=10)
    assert e.value.field == "v0"
    with pytest.raises(simpact.InputError) as e:
        cradle.simulate([0.1, 0, 0], [1, 0, 0], dt=1e-3, steps=10)  # ball a inside ball b
    assert e.value.field == "q0" and "penetrates" in str(e.value)


def test_design_is_the_cli_request():
    """Mechanism.design = `simpact design examples/mechanisms/biped_design.json`, bit for bit: both
    feet touch and the normals are g-orthogonal in the optimized row."""
    request = json.load(open(MECHANISMS / "biped_design.json"))
    p = cli(["design"], stdin=json.dumps(request), cwd=MECHANISMS)
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    biped = simpact.Mechanism.from_file(MECHANISMS / "biped.xml",
                                        contacts=[tuple(c) for c in request["mechanism"]["contacts"]],
                                        place=request["place"])
    d = biped.design(request["params"], free=request["free"])  # place: the Mechanism's
    assert d.converged and [r["name"] for r in d.rows] == ["initial", "optimized"]
    rows = out["rows"] if "rows" in out else [out[k] for k in ("initial", "optimized")]
    assert len(rows) == 2
    for mine, theirs in zip(d.rows, rows):
        assert mine["status"] == theirs["status"] and mine["iterations"] == theirs["iterations"]
        assert same_bits(mine["normalized_product"], theirs["normalized_product"])
        for group in ("configuration", "design", "gaps"):
            want = theirs[group]
            assert list(mine[group]) == list(want)
            assert same_bits(list(mine[group].values()), list(want.values()))
    assert abs(d.optimized["normalized_product"]) < 1e-6
    assert max(abs(g) for g in d.optimized["gaps"].values()) < 1e-6


def test_design_bad_input():
    biped = simpact.Mechanism.from_file(MECHANISMS / "biped.xml", contacts=[("floor", "foot_l"), ("floor", "foot_r")])
    with pytest.raises(simpact.InputError) as e:
        biped.design({"qpos.root_z": -0.1}, place=["qpos.root_zz"], free=["qpos.hip_r"])
    assert e.value.field.startswith("place")
    with pytest.raises(simpact.InputError) as e:
        biped.design({"qpos.root_z": -0.1}, place=["qpos.root_z"], free=["qpos.hip_r"], dihedral_m=1)
    assert e.value.field == "dihedral_m"
    with pytest.raises(simpact.InputError) as e:
        biped.design({"qpos.root_z": float("inf")}, place=["qpos.root_z"], free=["qpos.hip_r"])
    assert e.value.field == "params"


def test_from_file_refuses_a_fifo_it_would_read(tmp_path):
    """Mechanism.from_file on an MJCF that <include>s a FIFO raises InputError at once, naming it,
    instead of blocking forever in MuJoCo's read (run in a child so a hang fails, not blocks)."""
    import os
    import subprocess
    import sys
    (tmp_path / "robot.xml").write_text('<mujoco><include file="part.xml"/></mujoco>')
    os.mkfifo(tmp_path / "part.xml")
    code = ("import simpact, sys\n"
            "try:\n"
            "    simpact.Mechanism.from_file(sys.argv[1], contacts=[('a', 'b')])\n"
            "except simpact.InputError as e:\n"
            "    print(e.field, '|', e)\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.dirname(os.path.dirname(simpact.__file__))]
                                                      + sys.path))
    p = subprocess.run([sys.executable, "-c", code, str(tmp_path / "robot.xml")], capture_output=True, text=True,
                       timeout=60, env=env)
    assert p.returncode == 0, p.stderr
    assert "part.xml" in p.stdout and "FIFO" in p.stdout, p.stdout
