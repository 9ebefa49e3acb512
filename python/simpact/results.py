"""simpact sweep files (HDF5, netCDF-4 compatible) as one xarray.Dataset."""
import os

import h5py
import numpy as np

from .impacts import input_error

# Groups that hold no per-point data (bookkeeping), left out of the Dataset.
SKIPPED = ("progress", "provenance_columns", "config")


def _groups(path):
    """Every group below the root that holds datasets, as 'a' or 'a/b'."""
    out = []
    with h5py.File(path, "r") as f:
        def visit(name, obj):
            if isinstance(obj, h5py.Group) and name.split("/")[0] not in SKIPPED:
                if any(isinstance(v, h5py.Dataset) for v in obj.values()):
                    out.append(name)
        f.visititems(visit)
        attrs = {k: (v.decode() if isinstance(v, bytes) else v) for k, v in f.attrs.items()}
    return out, attrs


def info(path):
    """What a result (or shard) file holds, as `simpact info --json` prints it (the same study
    summary): status ("complete", "incomplete", "not_simpact"), tasks_done and progress_percent
    (from the journal of an interrupted or running sweep), grid, maps, samples, task_status,
    provenance. A missing path raises simpact.InputError (.field "file")."""
    from . import _simpact

    if not isinstance(path, (str, os.PathLike)):
        raise input_error("file", f"must be a path (got {type(path).__name__})")
    return _simpact.result_info(os.fspath(path))


def _unflatten_trajectories(ds):
    """Time-stepped sweeps store each task's recorded states flat (state-major, one variable per
    ordering: samples/trajectory_q_argmin (task, states × n)); here they are
    samples_trajectory_q and samples_trajectory_p over (task, ordering, step, coordinate), and
    samples_trajectory_t (and ξ) over (task, step)."""
    import re

    import xarray as xr

    if "samples_trajectory_t" not in ds:
        return ds
    t = ds["samples_trajectory_t"]
    steps = t.shape[1]
    found = {}
    for name in list(ds.data_vars):
        m = re.fullmatch(r"samples_trajectory_([qp])_(\w+)", name)
        if m and ds[name].ndim in (2, 3):
            found.setdefault(m.group(1), []).append((m.group(2), name))
    drop = []
    out = {}
    for kind, items in found.items():
        items.sort(key=lambda item: ["argmin", "argmax"].index(item[0]) if item[0] in ("argmin", "argmax") else 2)
        arrays = []
        for ordering, name in items:
            flat = ds[name]
            if flat.ndim == 3:  # stored (task, record, coordinate) already
                arrays.append(flat.values)
                drop.append(name)
                continue
            n = flat.shape[1] // steps
            arrays.append(flat.values.reshape(flat.shape[0], steps, n))
            drop += [name, flat.dims[1]]
        attrs = dict(ds[items[0][1]].attrs)
        attrs["long_name"] = ("recorded generalized coordinates" if kind == "q" else "recorded momenta") + \
            " per ordering"
        coords = {"ordering": [o for o, _ in items]}
        if "coordinate" not in ds.coords:  # the file's own coordinate names, where it has them
            coords["coordinate"] = ("coordinate", np.arange(arrays[0].shape[2]),
                                    {"long_name": "index of the generalized coordinate (the model's order)",
                                     "units": "1"})
        out[f"samples_trajectory_{kind}"] = xr.DataArray(
            np.stack(arrays, axis=1), dims=("task", "ordering", "step", "coordinate"), attrs=attrs,
            coords=coords)
    step_dims = {}
    for name in list(ds.data_vars):
        if name.startswith("samples_trajectory_") and name not in drop and ds[name].ndim == 2 \
                and ds[name].shape[1] == steps and ds[name].dims[1] != "step":
            step_dims[ds[name].dims[1]] = "step"
    ds = ds.drop_vars([v for v in drop if v in ds.variables])
    ds = ds.drop_vars([d for d in step_dims if d in ds.variables])
    ds = ds.rename_dims({d: "step" for d in step_dims if d in ds.dims})
    return ds.assign(out)


def open_result(path):
    """The sweep file `path` as an xarray.Dataset (read into memory; the file is closed).

    Maps keep their grid coordinates (with units and long_name attributes); a group's variables
    are named '<group>_<name>' (e.g. 'energy_before', 'xi_maps_outcome_set'; the root's /xi is
    'xi'); /samples is a table over the 'task' dimension; /sensitivity/<output>/{S1, ST, ...}
    have the 'parameter' coordinate; time-stepped records keep their own dimensions. The root
    attributes (model, complete, schema_version, ...) are the Dataset's attributes."""
    import xarray as xr

    path = os.fspath(path)
    if not os.path.exists(path):
        raise input_error("path", f"no such file: {path}")
    if not h5py.is_hdf5(path):
        raise input_error("path", f"not an HDF5 file: {path}")
    groups, attrs = _groups(path)
    if "schema_version" not in attrs:
        raise input_error("path", f"not a simpact result (no schema_version root attribute): {path}")
    parts = []
    root = xr.open_dataset(path, engine="h5netcdf", phony_dims="access", decode_times=False)
    parts.append(root.drop_vars([v for v in root.data_vars if v in SKIPPED or v == "provenance"]).load())
    root.close()
    for group in groups:
        ds = xr.open_dataset(path, engine="h5netcdf", group=group, phony_dims="access", decode_times=False)
        prefix = group.replace("/", "_") + "_"
        ds = ds.rename({v: prefix + v for v in ds.data_vars}).load()
        ds.close()
        parts.append(ds)
    merged = _unflatten_trajectories(xr.merge(parts, compat="override", combine_attrs="drop_conflicts"))
    merged.attrs = {k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in attrs.items()}
    return merged
