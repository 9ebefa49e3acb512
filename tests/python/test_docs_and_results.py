"""The ```python blocks of README.md and docs/python.md run as written; open_result's dims and
units; run's bad input."""
import os
import re

import numpy as np
import pytest

import simpact
from conftest import SIMPACT, SOURCE, cli

DOC = SOURCE / "docs" / "python.md"
README = SOURCE / "README.md"


def python_blocks(path):
    return re.findall(r"```python\n(.*?)```", path.read_text(), re.S)


def doc_blocks():
    return python_blocks(DOC)


def with_simpact_on_path(monkeypatch):
    """The docs' `simpact` (the program the suite tests) first on PATH."""
    monkeypatch.setenv("PATH", os.path.dirname(os.path.abspath(SIMPACT)) + os.pathsep + os.environ.get("PATH", ""))


def per_coordinate_units(comment):
    """A comment standing for units that differ by coordinate: it points at coordinate_units, or
    (q of a ball/free joint mechanism, over 'configuration') lists them."""
    return "coordinate_units" in comment or comment.startswith("units differ by coordinate: ")


@pytest.mark.parametrize("index", range(len(doc_blocks())))
def test_doc_example_runs(index, tmp_path, monkeypatch):
    blocks = doc_blocks()
    assert len(blocks) == 6
    monkeypatch.chdir(tmp_path)
    with_simpact_on_path(monkeypatch)
    exec(compile(blocks[index], f"{DOC}:block{index}", "exec"), {"SOURCE": str(SOURCE)})
    if "simulate" in blocks[index] and "open_result" in blocks[index]:
        ds = simpact.open_result(tmp_path / "cradle.h5")
        assert ds.records_q.dims == ("record", "coordinate") and ds.sizes["record"] == 6
        assert ds.sizes["impact"] == 1 and abs(float(ds.impacts_t[0]) - 0.01) < 5e-4
    if "sobol.png" in blocks[index]:
        assert (tmp_path / "sobol.png").stat().st_size > 0
        ds = simpact.open_result(tmp_path / "sobol.h5")
        assert ds["sensitivity_outcome_set_ST"].dims == ("parameter",)
        assert sorted(ds["parameter"].values) == ["m_b", "m_c", "restitution", "theta"]
        assert not list(tmp_path.glob(".simpact-config-*"))  # the dict's file is removed


README_BLOCKS = python_blocks(README)


@pytest.mark.parametrize("index", range(len(README_BLOCKS)))
def test_readme_python_block_runs(index, tmp_path, monkeypatch):
    """Every ```python block of the README, as written, in a fresh folder that has the
    repository's configs/ and examples/ (the README runs from the repository root) and, made by
    the program first, the results/<config>.h5 of the tour the block reads."""
    assert len(README_BLOCKS) == 2
    block = README_BLOCKS[index]
    for folder in ("configs", "examples"):
        (tmp_path / folder).symlink_to(SOURCE / folder)
    for stem in sorted(set(re.findall(r"results/(\w+)\.h5", block))):
        config = SOURCE / "configs" / f"{stem}.yaml"
        if config.exists() and f'out="results/{stem}.h5"' not in block:
            p = cli(["run", str(config), "-o", str(tmp_path / "results" / f"{stem}.h5"), "--quiet"])
            assert p.returncode == 0, p.stderr
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    with_simpact_on_path(monkeypatch)
    names = {"__name__": "__readme__"}
    exec(compile(block, f"{README}:python block {index}", "exec"), names)
    if "simpact.check(M, N, p" in block:  # the tour: what its comments say
        assert np.array_equal(names["r"].outcomes(), [[0, 0, 1]])
        c = names["c"]
        assert not np.any(c.consistent)   # the simultaneous answer is no propagative outcome
        assert abs(float(np.ravel(c.distance_to_nearest_outcome)[0]) - 0.816) < 1e-3  # README "Audit"
        assert names["ds"].xi.dims == ("theta",) and names["s"].p.shape[1] == 3
        assert simpact.open_result("results/mc.h5").attrs["complete"] == 1
    for value in list(names.values()):   # the h5py/xarray handles the block left open
        if hasattr(value, "close") and type(value).__module__.split(".")[0] in ("h5py", "xarray"):
            value.close()


SMALL = {"model": "billiards", "grid": {"theta": {"start": "pi/3", "stop": "pi", "num": 9},
                                        "restitution": {"values": [0.5, 1.0]}},
         "orderings": ["all", "argmin", "argmax"], "output": {"samples": True}}


def test_open_result_maps_samples_units(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    ds = simpact.run(SMALL, out="small.h5", quiet=True)
    assert ds.xi.dims == ("theta", "restitution") and ds.xi.shape == (9, 2)
    assert ds.theta.attrs["units"] == "rad" and ds.xi.attrs["units"] == "1"
    assert ds.energy_before.attrs["units"] == "J" and ds.energy_before.dims == ("theta", "restitution")
    np.testing.assert_allclose(ds.theta.values[[0, -1]], [np.pi / 3, np.pi])
    assert ds.samples_status.dims == ("task",) and ds.samples_status.size == 18
    assert ds.attrs["model"] == "billiards" and ds.attrs["complete"] == 1
    # ξ(π/2) = 0 at every restitution (the grid holds θ = π/2: index 3 of 9 from π/3 to π)
    assert abs(ds.xi.sel(theta=np.pi / 2, method="nearest")).max() < 1e-12


def test_open_result_and_run_bad_input(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(simpact.InputError) as e:
        simpact.open_result(tmp_path / "missing.h5")
    assert e.value.field == "path"
    (tmp_path / "text.h5").write_text("not hdf5")
    with pytest.raises(ValueError):
        simpact.open_result(tmp_path / "text.h5")
    bad = dict(SMALL, grid={"theta": {"start": 1.2, "stop": "pi", "nmu": 9}})
    (tmp_path / "bad.yaml").write_text(__import__("json").dumps(bad))
    p = cli(["run", str(tmp_path / "bad.yaml"), "-o", str(tmp_path / "bad_cli.h5")])
    with pytest.raises(simpact.InputError) as e:
        simpact.run(bad, out="bad.h5", quiet=True)
    assert p.returncode == 2 and str(e.value) in p.stderr
    assert e.value.field.startswith("grid.theta")
    with pytest.raises(simpact.InputError) as e:
        simpact.run(SMALL, out="x.h5", ranks=0)
    assert e.value.field == "ranks"
    with pytest.raises(simpact.InputError) as e:
        simpact.run(42, out="x.h5")
    assert e.value.field == "config"
    assert not os.path.exists("x.h5")


CONFIGS = sorted((SOURCE / "configs").glob("*.yaml"))


@pytest.mark.parametrize("config", CONFIGS, ids=[c.stem for c in CONFIGS])
def test_open_result_of_every_shipped_config(config, tmp_path):
    """Every configs/*.yaml, run by the program, opens whole: no phony dimension, every variable and
    coordinate with units, the maps over the grid's own coordinates, and the time-stepped records
    as (task, ordering, step, coordinate) rather than flattened."""
    import h5py

    out = tmp_path / (config.stem + ".h5")
    p = cli(["run", str(config), "-o", str(out), "--quiet"])
    assert p.returncode == 0, p.stderr
    ds = simpact.open_result(out)
    assert ds.attrs["complete"] == 1 and "schema_version" in ds.attrs
    assert not [d for d in ds.dims if str(d).startswith("phony_dim") or str(d).endswith("_element")], dict(ds.sizes)
    for name in list(ds.data_vars) + list(ds.coords):
        if ds[name].dtype.kind not in "OUS":   # labels (parameter, ordering names) carry none
            # units, or (mixed m/rad coordinates) a comment pointing at the per-coordinate units
            assert "units" in ds[name].attrs or per_coordinate_units(ds[name].attrs.get("comment", "")), name
    with h5py.File(out, "r") as f:   # the root maps keep the file's dimension scales, in order
        for name, item in f.items():
            if isinstance(item, h5py.Dataset) and item.dims and name in ds.data_vars and item.ndim > 0:
                scales = [dim[0].name.split("/")[-1] if len(dim) else None for dim in item.dims]
                if all(scales):
                    assert list(ds[name].dims) == scales, (name, ds[name].dims, scales)
                assert ds[name].shape == item.shape, name
    text = config.read_text()
    if re.search(r"^\s+record:\s*\d", text, re.M):   # a time-stepped sweep recording states
        q, t = ds["samples_trajectory_q"], ds["samples_trajectory_t"]
        p = ds["samples_trajectory_p"]
        assert p.dims == ("task", "ordering", "step", "coordinate") and t.dims == ("task", "step")
        # q over the velocities' coordinates, or (ball/free joints) the nq MuJoCo coordinates
        assert q.dims == p.dims or (q.dims[:3] == p.dims[:3] and q.dims[3] == "configuration"
                                    and q.shape[3] > p.shape[3])
        assert list(q["ordering"].values) == ["argmin", "argmax"]
        assert q.shape[0] == ds.sizes["task"] and q.shape[2] == t.shape[1] >= 2 and t.attrs["units"] == "s"
        assert ("units" in q.attrs or per_coordinate_units(q.attrs.get("comment", ""))) and \
            np.isfinite(t.values).all()
        assert (np.diff(t.values, axis=1) > 0).all()   # the states in time order


def test_info_bad_input(tmp_path):
    missing = str(tmp_path / "missing.h5")
    with pytest.raises(simpact.InputError) as e:
        simpact.info(missing)
    p = cli(["info", missing])
    assert e.value.field == "file" and p.returncode == 2 and p.stderr.strip() == f"simpact: error: {e.value}"
    with pytest.raises(simpact.InputError) as e:
        simpact.info(42)
    assert e.value.field == "file" and str(e.value) == "file: must be a path (got int)"
