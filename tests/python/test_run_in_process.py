"""simpact.run at ranks = 1 runs in this process through the study library (the code of `simpact
run`): the same file bit for bit, progress through a callback, Ctrl-C (SIGINT) leaving a journal
that resume=True finishes into the file an uninterrupted run writes; bad input."""
import json
import os
import signal
import subprocess
import sys

import h5py
import numpy as np
import pytest

import simpact
from conftest import SIMPACT, SOURCE, cli

MAP = {"model": "billiards", "grid": {"theta": {"start": "pi/3", "stop": "pi", "num": 161},
                                      "r_c": {"start": 1.0, "stop": 3.0, "num": 81}},
       "orderings": ["all", "argmin", "argmax"], "output": {"chunk_size": 64}}


def datasets(path):
    """Every dataset outside the bookkeeping groups, as bytes (bit-for-bit comparison)."""
    out = {}
    with h5py.File(path, "r") as f:
        def visit(name, obj):
            if isinstance(obj, h5py.Dataset) and not name.startswith(("provenance", "progress", "config")):
                out[name] = np.asarray(obj[()]).tobytes()
        f.visititems(visit)
    return out


def test_in_process_run_is_the_cli_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "map.yaml").write_text(__import__("json").dumps(MAP))
    calls = []
    ds = simpact.run(str(tmp_path / "map.yaml"), out="py.h5", progress=lambda done, total: calls.append((done, total)))
    assert ds.xi.dims == ("theta", "r_c") and ds.attrs["complete"] == 1
    total = 161 * 81
    assert calls[-1] == (total, total) and all(b[0] >= a[0] for a, b in zip(calls, calls[1:]))
    assert len(calls) == -(-total // 64)   # one call per chunk of 64
    p = cli(["run", str(tmp_path / "map.yaml"), "-o", str(tmp_path / "cli.h5"), "--quiet"])
    assert p.returncode == 0, p.stderr
    mine, theirs = datasets(tmp_path / "py.h5"), datasets(tmp_path / "cli.h5")
    assert mine.keys() == theirs.keys() and "xi" in mine
    assert all(mine[k] == theirs[k] for k in mine)


CHILD = """
import sys, time, simpact
started = []
def progress(done, total):
    if not started:
        started.append(1)
        print("started", flush=True)
    time.sleep(0.02)
try:
    simpact.run(sys.argv[1], out=sys.argv[2], progress=progress)
    print("finished", flush=True)
except KeyboardInterrupt as e:
    print("interrupted:", e, flush=True)
    sys.exit(130)
"""


def test_sigint_leaves_a_resumable_journal(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "map.yaml").write_text(__import__("json").dumps(MAP))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.dirname(os.path.dirname(simpact.__file__))]
                                                      + sys.path))
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(tmp_path / "map.yaml"), "cut.h5"], cwd=tmp_path,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    assert child.stdout.readline().strip() == "started"
    child.send_signal(signal.SIGINT)
    out, err = child.communicate(timeout=120)
    assert child.returncode == 130, (out, err)
    assert "interrupted:" in out and "resume with simpact.run(..., resume=True)" in out
    saved = int(out.split("interrupted: ")[2].split(" of ")[0])
    assert 0 < saved < 161 * 81
    assert any(n.startswith("cut.h5") and n != "cut.h5" for n in os.listdir(tmp_path))   # the journal
    with pytest.raises(simpact.InputError):   # not complete, exists: neither a fresh run
        simpact.run(str(tmp_path / "map.yaml"), out="cut.h5", quiet=True)
    # simpact.info is `simpact info --json`: incomplete, progress from the journal
    cut_info = simpact.info(tmp_path / "cut.h5")
    p = cli(["info", "--json", str(tmp_path / "cut.h5")])
    assert p.returncode == 3 and cut_info == json.loads(p.stdout)
    assert cut_info["status"] == "incomplete" and cut_info["tasks_done"] == saved and cut_info["journal"]
    calls = []
    ds = simpact.run(str(tmp_path / "map.yaml"), out="cut.h5", resume=True, progress=lambda d, t: calls.append(d))
    assert ds.attrs["complete"] == 1 and calls[0] > saved - 64   # only the rest was computed
    simpact.run(str(tmp_path / "map.yaml"), out="whole.h5", quiet=True)
    cut, whole = datasets(tmp_path / "cut.h5"), datasets(tmp_path / "whole.h5")
    assert cut.keys() == whole.keys() and [k for k in cut if cut[k] != whole[k]] == ["run"]
    with h5py.File(tmp_path / "cut.h5", "r") as f:
        assert f["run"].shape == (2,)   # /run: one row per run (the interrupted one, the resume)


def test_run_bad_input(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for kwargs, field in [({"ranks": 0}, "ranks"), ({"threads": 0}, "threads"), ({"progress": 3}, "progress")]:
        with pytest.raises(simpact.InputError) as e:
            simpact.run(MAP, out="x.h5", **kwargs)
        assert e.value.field == field
    with pytest.raises(simpact.InputError) as e:
        simpact.run(42, out="x.h5")
    assert e.value.field == "config"
    bad = dict(MAP, orderings=["argmn"])
    with pytest.raises(simpact.InputError) as e:
        simpact.run(bad, out="x.h5", quiet=True)
    assert e.value.field.startswith("orderings") and "argmin" in str(e.value)
    assert not (tmp_path / "x.h5").exists() and not list(tmp_path.glob(".simpact-config-*"))


def test_info_of_a_time_stepped_result_is_the_cli_info(tmp_path, monkeypatch):
    """A time-stepped sweep has no minimality: null in `simpact info --json`, None in Python (it
    was "" in Python)."""
    monkeypatch.chdir(tmp_path)
    config = {"simulate": {"model": "billiards", "t_end": 0.03, "dt": 1e-3, "simultaneity_tolerance": 1e-6},
              "params": {"mass": 1.0, "radius": 0.05, "speed": 1.0, "distance": 0.01},
              "grid": {"offset": {"values": [0.0]}, "theta": {"start": 1.1, "stop": 3.0, "num": 2}},
              "orderings": ["argmin", "argmax"]}
    simpact.run(config, out="stepped.h5", quiet=True)
    mine = simpact.info("stepped.h5")
    p = cli(["info", "--json", "stepped.h5"], cwd=tmp_path)
    assert p.returncode == 0 and mine == json.loads(p.stdout)
    assert mine["minimality"] is None and mine["tasks_done"] == mine["tasks"] == 2


def test_info_is_the_cli_info(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    simpact.run(MAP, out="whole.h5", quiet=True)
    mine = simpact.info("whole.h5")
    p = cli(["info", "--json", "whole.h5"], cwd=tmp_path)
    assert p.returncode == 0 and mine == json.loads(p.stdout)
    assert mine["status"] == "complete" and mine["tasks_done"] == mine["tasks"] == 161 * 81
    assert [a["name"] for a in mine["grid"]] == ["theta", "r_c"] and mine["grid"][0]["units"] == "rad"
    assert sum(mine["task_status"].values()) == 161 * 81   # every task counted once
    (tmp_path / "text.h5").write_text("not hdf5")
    p = cli(["info", "--json", "text.h5"], cwd=tmp_path)
    assert p.returncode == 4 and simpact.info("text.h5") == json.loads(p.stdout)
    assert simpact.info("text.h5")["status"] == "not_simpact"
    with pytest.raises(simpact.InputError) as e:
        simpact.info(tmp_path / "missing.h5")
    assert e.value.field == "file" and "does not exist" in str(e.value)
    with pytest.raises(simpact.InputError) as e:
        simpact.info(3)
    assert e.value.field == "file"


SMALL = {"model": "billiards", "grid": {"theta": {"start": "pi/3", "stop": "pi", "num": 24},
                                        "r_c": {"start": 1.0, "stop": 3.0, "num": 5}},
         "orderings": ["all", "argmin"], "output": {"chunk_size": 16}}


def test_merge_of_shards_is_the_whole_run_and_the_cli_merge(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "small.yaml").write_text(json.dumps(SMALL))
    config = str(tmp_path / "small.yaml")
    shards = [simpact.run(config, out=f"s{i}.h5", shard=f"{i}/3", quiet=True) for i in (2, 0, 1)]
    assert shards == ["s2.h5", "s0.h5", "s1.h5"]
    ds = simpact.merge(shards, "merged.h5")
    assert ds.xi.dims == ("theta", "r_c") and ds.attrs["complete"] == 1
    simpact.run(config, out="whole.h5", quiet=True, open_result=False)
    p = cli(["merge", *shards, "-o", str(tmp_path / "cli.h5"), "--quiet"])
    assert p.returncode == 0, p.stderr
    # every dataset but "run", the provenance's row axis (one row per shard and merge, one for a run)
    merged, whole, by_cli = (datasets(p) for p in ("merged.h5", "whole.h5", tmp_path / "cli.h5"))
    for d in (merged, whole, by_cli):
        del d["run"]
    assert merged.keys() == whole.keys() == by_cli.keys() and "xi" in merged
    assert all(merged[k] == whole[k] == by_cli[k] for k in merged)
    with pytest.raises(simpact.InputError) as e:  # the CLI's refusal, word for word
        simpact.merge(shards, "merged.h5")
    line = cli(["merge", *shards, "-o", "merged.h5"]).stderr.strip()
    assert e.value.field == "output" and line == f"simpact: error: {e.value}"
    assert simpact.merge(shards, "merged.h5", overwrite=True, open_result=False) == "merged.h5"


def test_merge_bad_input(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "notes.h5").write_text("not HDF5")
    for shards, message in ([[], "shards: at least one shard file is required"],
                            ["s0.h5", "shards: must be a list of shard files (got str)"],
                            [["missing.h5"], "shards: File does not exist: missing.h5"],
                            [["notes.h5"], "shards: notes.h5: not a shard file (not even an HDF5 file)"]):
        with pytest.raises(simpact.InputError) as e:
            simpact.merge(shards, "out.h5")
        assert str(e.value) == message and e.value.field == "shards"
    p = cli(["merge", "notes.h5", "-o", "out.h5"])
    assert p.returncode == 2 and p.stderr.strip() == "simpact: error: shards: notes.h5: not a shard file (not even an HDF5 file)"
    with pytest.raises(simpact.InputError) as e:
        simpact.run(SMALL, out="x.h5", shard="3/3")
    assert e.value.field == "shard" and "expected i/N" in str(e.value)


def test_estimate_is_the_dry_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "small.yaml").write_text(json.dumps(SMALL))
    e = simpact.estimate("small.yaml", threads=2)
    p = cli(["run", "small.yaml", "--dry-run", "--threads", "2"], cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert f"tasks: {e['tasks']} ({e['grid_points']} grid points x 1 replicas)" in p.stdout
    mib = lambda b: f"{b / (1024.0 * 1024.0):.1f} MiB"  # noqa: E731
    assert f"at most {mib(e['file_bytes'])} before compression" in p.stdout
    assert f"journal while running: at most {mib(e['journal_bytes'])}" in p.stdout
    assert e["tasks"] == 24 * 5 and 1.0 <= e["thread_speedup"] <= 2.0 and e["seconds_per_task"] > 0
    assert e["total_seconds"] == pytest.approx(e["seconds_per_task"] * e["tasks"] / e["thread_speedup"])
    assert not list(tmp_path.glob("results*")), "an estimate writes nothing"


def test_estimate_bad_input(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    bad = dict(SMALL, orderings=["alll"])
    (tmp_path / "bad.yaml").write_text(json.dumps(bad))
    with pytest.raises(simpact.InputError) as e:
        simpact.estimate("bad.yaml")
    p = cli(["run", "bad.yaml", "--dry-run"], cwd=tmp_path)
    assert p.returncode == 2 and p.stderr.splitlines()[0] == f"simpact: error: {e.value}"
    with pytest.raises(simpact.InputError) as e:
        simpact.estimate(SMALL, ranks=0)
    assert e.value.field == "ranks"
    with pytest.raises(simpact.InputError) as e:
        simpact.estimate(3.5)
    assert e.value.field == "config"


ROBOT = """<mujoco model="cradle3"><option gravity="0 0 0"/><include file="balls.xml"/></mujoco>"""
BALLS = """<mujoco><worldbody>
  <body name="a"><joint name="x_a" type="slide" axis="1 0 0"/><geom name="ball_a" type="sphere" size="1" mass="{m}"/></body>
  <body name="b" pos="2 0 0"><joint name="x_b" type="slide" axis="1 0 0"/><geom name="ball_b" type="sphere" size="1" mass="1"/></body>
  <body name="c" pos="4 0 0"><joint name="x_c" type="slide" axis="1 0 0"/><geom name="ball_c" type="sphere" size="1" mass="1"/></body>
</worldbody></mujoco>"""
ROBOT_SWEEP = """model: {file: robot.xml, contacts: [[ball_a, ball_b], [ball_b, ball_c]]}
params: {qvel.x_a: 1.0}
grid: {restitution: {start: 0, stop: 1, num: 40}}
monte_carlo: {samples_per_point: 3000, seed: 5, params: {qvel.x_b: {dist: uniform, low: -0.2, high: 0.2}}}
orderings: [all, argmin, argmax]
output: {samples: true, chunk_size: 500}
"""


def test_inputs_bound_to_results_in_python(tmp_path, monkeypatch):
    """run(resume=True) and merge refuse a changed included file as the CLI does, naming it."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "robot.xml").write_text(ROBOT)
    (tmp_path / "balls.xml").write_text(BALLS.format(m=1))
    (tmp_path / "sweep.yaml").write_text(ROBOT_SWEEP)
    simpact.run("sweep.yaml", out="s0.h5", shard="0/2", quiet=True)
    (tmp_path / "balls.xml").write_text(BALLS.format(m=2))
    simpact.run("sweep.yaml", out="s1.h5", shard="1/2", quiet=True)
    with pytest.raises(simpact.InputError) as e:
        simpact.merge(["s0.h5", "s1.h5"], "merged.h5")
    assert e.value.field == "shards" and "balls.xml' (include) changed" in str(e.value)
    assert not os.path.exists("merged.h5") and not os.path.exists("merged.h5.journal")
    assert [i["role"] for i in simpact.info("s1.h5")["inputs"]] == ["config", "mechanism_file", "include"]
    # A journal of a run killed mid-way, then the include edited: resume=True refuses naming it.
    child = subprocess.Popen([SIMPACT, "run", "sweep.yaml", "-o", "cut.h5", "-q"])
    for _ in range(6000):
        if os.path.isdir("cut.h5.journal") and any(n.endswith(".bin") and os.path.getsize(f"cut.h5.journal/{n}")
                                                   for n in os.listdir("cut.h5.journal")):
            break
        __import__("time").sleep(0.01)
    child.kill()
    child.wait()
    assert os.path.isdir("cut.h5.journal")
    (tmp_path / "balls.xml").write_text(BALLS.format(m=3))
    with pytest.raises(simpact.InputError) as e:
        simpact.run("sweep.yaml", out="cut.h5", resume=True, quiet=True)
    assert "balls.xml' (include) changed" in str(e.value) and "--overwrite" in str(e.value)
