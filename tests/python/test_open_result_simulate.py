"""simpact.open_result on the files `simpact simulate -o OUT.h5` writes (and on a shard file): the
records over (record, coordinate) with the model's coordinate names, the impacts as a table over
'impact', every number equal bit for bit to the JSON output of the same request."""
import json

import pytest

import simpact
from conftest import SOURCE, cli, same_bits

# Ball 1 closes a 1 cm gap at 1 m/s and hits the touching pair 2, 3 at t = 0.01 s (R = 0.7); the
# states every 20 steps of 0.5 ms.
CRADLE = {"model": "cradle", "params": {"n": 3, "gap": 0.01, "speed": 1.0}, "dt": 5e-4, "steps": 100,
          "restitution": 0.7, "record": {"every": 20}}
# The billiards break: cue ball c hits a and b at once (one impact, two contacts).
BILLIARDS = {"model": "billiards", "params": {"theta": 2.0, "distance": 0.01}, "dt": 1e-3, "steps": 30,
             "restitution": 1.0, "record": {"steps": [0, 5, 30]}}


def simulate_both(request, tmp_path, name):
    """(the JSON report, the HDF5 file's path) of one request, from the CLI."""
    request_path = tmp_path / f"{name}.json"
    request_path.write_text(json.dumps(request))
    out = tmp_path / f"{name}.h5"
    p = cli(["simulate", str(request_path), "-o", str(out)])
    assert p.returncode == 0, p.stderr
    p = cli(["simulate", str(request_path)])
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout), out


@pytest.mark.parametrize("name, request_", [("cradle", CRADLE), ("billiards", BILLIARDS)])
def test_open_result_of_simulate_equals_its_json(name, request_, tmp_path):
    report, path = simulate_both(request_, tmp_path, name)
    ds = simpact.open_result(path)
    # the records: q and p over (record, coordinate), named by the model's coordinates
    assert ds.records_q.dims == ("record", "coordinate") and ds.records_p.dims == ("record", "coordinate")
    assert list(ds.coordinate.values) == report["coordinates"]
    records = report["records"]
    assert ds.sizes["record"] == len(records) >= 2
    for key in ("q", "p"):
        assert same_bits(ds[f"records_{key}"].values, [r[key] for r in records]), key
    for key in ("t", "energy", "step"):
        assert same_bits(ds[f"records_{key}"].values, [r[key] for r in records]), key
    # the state recorded at step k, picked by its step
    k = records[1]["step"]
    at_k = ds.records_q.where(ds.records_step == k, drop=True)
    assert same_bits(at_k.values[0], records[1]["q"]) and k > 0
    second = report["coordinates"][1]
    assert same_bits(ds.records_q.sel(coordinate=second).values, [r["q"][1] for r in records])
    assert ds.records_q.attrs["units"] == "m" and ds.records_t.attrs["units"] == "s"
    assert list(ds.coordinate_units.values) == ["m"] * len(report["coordinates"])
    # the impacts: a table over 'impact'
    impacts = report["impacts"]
    assert ds.sizes["impact"] == len(impacts) >= 1
    for key in ("t", "step", "energy_before", "energy_after", "restitution"):
        assert same_bits(ds[f"impacts_{key}"].values, [i[key] for i in impacts]), key
    for key in ("momentum_before", "momentum_after"):
        assert ds[f"impacts_{key}"].dims == ("impact", "coordinate")
        assert same_bits(ds[f"impacts_{key}"].values, [i[key] for i in impacts]), key
    assert [bool(v) for v in ds.impacts_plastic.values] == [i["plastic"] for i in impacts]
    assert list(ds.impacts_status.values) == [i["status"] for i in impacts]
    offsets = ds.impacts_contacts_offsets.values
    for i, impact in enumerate(impacts):
        assert list(ds.impacts_contacts.values[offsets[i]:offsets[i + 1]]) == impact["contacts"]
    # the root attributes
    assert ds.attrs["format"] == "simpact-simulate" and ds.attrs["model"] == report["model"]
    assert ds.attrs["dof"] == report["dof"] and ds.attrs["complete"] == 1
    assert ds.attrs["coordinate_names"] == report["coordinates"]
    assert same_bits(ds.attrs["max_energy_drift"], report["max_energy_drift"])


def test_open_result_of_simulate_cases(tmp_path):
    # the cradle's one impact at t = 0.01 s and its restitution; billiards: both contacts at once
    ds = simpact.open_result(simulate_both(CRADLE, tmp_path, "cradle")[1])
    assert ds.sizes["impact"] == 1 and abs(float(ds.impacts_t[0]) - 0.01) < 5e-4
    assert float(ds.impacts_restitution[0]) == 0.7 and list(ds.coordinate.values) == ["x1", "x2", "x3"]
    ds = simpact.open_result(simulate_both(BILLIARDS, tmp_path, "billiards")[1])
    assert list(ds.impacts_contacts.values) == [0, 1] and list(ds.records_step.values) == [0, 5, 30]
    # no impact at all (a chain swinging freely): an empty table, the records all there
    chain = {"model": "chain", "params": {"n": 2}, "q0": [0.3, 0.3], "p0": [0, 0], "dt": 1e-3,
             "steps": 50, "record": {"every": 10}}
    report, path = simulate_both(chain, tmp_path, "chain")
    ds = simpact.open_result(path)
    assert ds.sizes["impact"] == 0 and ds.impacts_momentum_after.shape == (0, 2)
    assert ds.sizes["record"] == 6 and same_bits(ds.records_q.values, [r["q"] for r in report["records"]])
    assert ds.records_q.attrs["units"] == "rad"
    # a mechanism file: its joint names are the coordinates
    mechanism = {"mechanism": {"file": str(SOURCE / "examples/mechanisms/cradle3.xml"),
                               "contacts": [["ball_a", "ball_b"], ["ball_b", "ball_c"]]},
                 "q0": [-0.5, 0, 0], "v0": [1, 0, 0], "dt": 1 / 600, "steps": 600, "restitution": 0.7,
                 "record": {"steps": [0, 600]}}
    report, path = simulate_both(mechanism, tmp_path, "mechanism")
    ds = simpact.open_result(path)
    assert list(ds.coordinate.values) == report["coordinates"] == ["x_a", "x_b", "x_c"]
    assert same_bits(ds.records_p.sel(coordinate="x_c").values, [r["p"][2] for r in report["records"]])


def test_open_result_of_a_shard(tmp_path):
    """The shards of a job array (`simpact run --shard i/2`) open as their tables of tasks: each
    holds its own chunks' tasks, named by the 'task' coordinate, each task's ξ that of the single
    run's map at its angle."""
    config = tmp_path / "small.yaml"
    config.write_text(json.dumps({"model": "billiards", "grid": {"theta": {"start": "pi/3", "stop": "pi", "num": 300}},
                                  "orderings": ["all", "argmin", "argmax"]}))
    whole = tmp_path / "small.h5"
    p = cli(["run", str(config), "-o", str(whole), "--quiet"])
    assert p.returncode == 0, p.stderr
    single = simpact.open_result(whole)
    tasks = []
    for i in range(2):
        shard = tmp_path / f"small.{i}.h5"
        p = cli(["run", str(config), "-o", str(shard), "--shard", f"{i}/2", "--quiet"])
        assert p.returncode == 0, p.stderr
        ds = simpact.open_result(shard)
        assert ds.attrs["shard"] == f"{i}/2" and "schema_version" in ds.attrs and ds.sizes["theta"] == 300
        assert ds.samples_xi_maps_outcome_set.dims == ("task",) and 0 < ds.sizes["task"] < 300
        assert same_bits(ds.samples_xi_maps_outcome_set.values, single.xi.values[ds.task.values])
        tasks += list(ds.task.values)
    assert sorted(tasks) == list(range(300))
