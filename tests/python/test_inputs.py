"""Issue 39, the Python inputs: every bad argument is one simpact.InputError naming it — threads
bounded as `simpact run --threads` (1024) and never more than the process can start (libgomp ended
the interpreter), complex or string numbers refused instead of cast (NumPy dropped the imaginary
part, parsed the text), a config or request nested too deep refused instead of a RecursionError."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import simpact
from conftest import SOURCE

CRADLE = SOURCE / "examples" / "mechanisms" / "cradle3.xml"
CRADLE_CONTACTS = [("ball_a", "ball_b"), ("ball_b", "ball_c")]
M, N, P = np.eye(2), np.array([[1.0, 0.0]]), np.array([-1.0, 0.0])
SMALL = {"model": "billiards", "grid": {"theta": {"start": 1.2, "stop": 3.14, "num": 3}}}


def field_of(call):
    with pytest.raises(simpact.InputError) as e:
        call()
    return e.value.field


@pytest.fixture(scope="module")
def cradle():
    return simpact.Mechanism.from_file(CRADLE, contacts=CRADLE_CONTACTS)


def test_threads_are_bounded_as_the_cli(tmp_path, monkeypatch, cradle):
    monkeypatch.chdir(tmp_path)
    for bad in (100000, 1025, 2 ** 40, "4", 2.0, True):
        assert field_of(lambda: simpact.resolve(M, N, P, threads=bad)) == "threads", bad
    assert field_of(lambda: simpact.check(M, N, P, momentum_after=P, threads=100000)) == "threads"
    assert field_of(lambda: simpact.resolve_model("billiards", theta=2.0, threads=100000)) == "threads"
    assert field_of(lambda: cradle.resolve([0, 0, 0], qvel=[1, 0, 0], threads=100000)) == "threads"
    assert field_of(lambda: simpact.run(SMALL, out="x.h5", threads=100000)) == "threads"
    assert field_of(lambda: simpact.estimate(SMALL, threads=1025)) == "threads"
    assert "1024" in str(pytest.raises(simpact.InputError, simpact.resolve, M, N, P, threads=5000).value)
    assert not list(tmp_path.iterdir())
    # In range: as before (<= 0 is OpenMP's default).
    for fine in (1, 2, 0, -3, np.int64(2)):
        assert simpact.resolve(M, N, P, threads=fine).status_name() == "ok"


def test_more_threads_than_the_process_can_start_is_an_input_error():
    """Under an address-space limit libgomp could not start 500 threads and ended the interpreter
    ("libgomp: Thread creation failed", exit 1, no exception): now the count is refused first."""
    child = textwrap.dedent("""
        import re, resource, numpy as np, simpact
        vm = int(re.search(r"VmSize:\\s+(\\d+) kB", open("/proc/self/status").read()).group(1)) * 1024
        limit = vm + (1 << 30)  # 1 GiB to spare: 499 threads of 16 MiB stacks need 8
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        M = np.tile(np.eye(2), (1000, 1, 1)); n = np.array([[1.0, 0.0]]); p = np.array([-1.0, 0.0])
        try:
            simpact.resolve(M, n, p, threads=500)
            print("accepted")
        except simpact.InputError as e:
            print("InputError", e.field, "|", e)
        print("then", simpact.resolve(M, n, p, threads=2).status_name()[0])
    """)
    env = dict(os.environ, OMP_STACKSIZE="16M")
    p = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, timeout=120, env=env)
    assert p.returncode == 0, (p.returncode, p.stdout, p.stderr)
    lines = p.stdout.splitlines()
    assert lines[0].startswith("InputError threads | threads: cannot start 500 threads"), p.stdout
    assert lines[1] == "then ok", p.stdout


def test_numbers_must_be_real(cradle):
    assert field_of(lambda: simpact.resolve(M.astype(complex), N, P)) == "mass_matrix"
    assert "complex" in str(pytest.raises(simpact.InputError, simpact.resolve, M + 0j, N, P).value)
    assert field_of(lambda: simpact.resolve(M, N.astype(str), P)) == "normals"
    assert field_of(lambda: simpact.resolve(M, N, P, restitution=1 + 0j)) == "restitution"
    assert field_of(lambda: simpact.resolve(M, N, P, gap_tolerance="1e-9")) == "gap_tolerance"
    assert field_of(lambda: simpact.resolve(M, N, [True, False])) == "momentum"
    assert field_of(lambda: simpact.check(M, N, P, momentum_after=P + 1j)) == "momentum_after"
    assert field_of(lambda: simpact.check(M, N, P, momentum_after=P, tolerance="0.1")) == "tolerance"
    assert field_of(lambda: simpact.resolve_model("billiards", theta="2.0")) == "params.theta"
    assert field_of(lambda: simpact.resolve_model("billiards", theta=[2.0, 2.1], speed=[1j, 1])) == "params.speed"
    assert field_of(lambda: cradle.mass_matrix([0, 0, 0], params={"mass.b": "3"})) == "params.mass.b"
    assert field_of(lambda: cradle.resolve([0, 0, 0], qvel=[1, 0, 0], restitution="1")) == "restitution"
    assert field_of(lambda: cradle.resolve([0, 0, 0], qvel=[1 + 1j, 0, 0])) == "qvel"
    assert field_of(lambda: simpact.Mechanism(CRADLE, CRADLE_CONTACTS, gap_tolerance="0")) == "gap_tolerance"
    # Real numbers of any NumPy kind and Python ints beyond int64 are still numbers.
    assert simpact.resolve(M.astype(np.float32), N.astype(np.int8), P).status_name() == "ok"
    assert simpact.resolve_model("billiards", theta=np.float32(2.0), speed=[1, 10 ** 20]).status.shape == (2,)


def test_nesting_is_bounded(tmp_path, monkeypatch, cradle):
    monkeypatch.chdir(tmp_path)
    deep = {}
    inner = deep
    for _ in range(100000):
        inner["a"] = {}
        inner = inner["a"]
    assert field_of(lambda: simpact.run(deep, out="x.h5")) == "config"
    assert field_of(lambda: simpact.estimate({"model": "billiards", "grid": deep})) == "config"
    assert field_of(lambda: simpact.resolve(M, N, P, limits=deep)) == "limits"
    assert field_of(lambda: cradle.simulate([0, 0, 0], [1, 0, 0], dt=1e-3, steps=2, params=deep)) == "params"
    assert field_of(lambda: cradle.design(deep, free=["mass.b"])) == "params"
    cycle = []
    cycle.append(cycle)
    assert field_of(lambda: simpact.run({"model": "billiards", "grid": cycle}, out="x.h5")) == "config"
    assert not list(tmp_path.iterdir())  # no output, no temporary config left
    shallow = {"model": "billiards", "grid": {"theta": {"values": [1.2, 2.0]}}}
    assert simpact.estimate(shallow)["tasks"] == 2
