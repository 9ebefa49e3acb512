"""simpact result files (HDF5, netCDF-4 compatible: sweeps, shards, `simpact simulate -o OUT.h5`)
as one xarray.Dataset."""
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
    samples_trajectory_t (and ξ) over (task, step). A mechanism with ball or free joints stores q
    over its nq MuJoCo coordinates (quaternions included): q is then over (task, ordering, step,
    configuration), with the file's configuration names, and p over its nv coordinates."""
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
        last = "coordinate"  # q of a ball/free joint mechanism: the file's 'configuration' (nq)
        for ordering, name in items:
            flat = ds[name]
            if flat.ndim == 3:  # stored (task, record, coordinate or configuration) already
                arrays.append(flat.values)
                drop.append(name)
                last = flat.dims[2] if flat.dims[2] in ds.coords else "coordinate"
                continue
            n = flat.shape[1] // steps
            arrays.append(flat.values.reshape(flat.shape[0], steps, n))
            drop += [name, flat.dims[1]]
        attrs = dict(ds[items[0][1]].attrs)
        attrs["long_name"] = ("recorded generalized coordinates" if kind == "q" else "recorded momenta") + \
            " per ordering"
        coords = {"ordering": [o for o, _ in items]}
        if last not in ds.coords:  # the file's own coordinate names, where it has them
            coords[last] = (last, np.arange(arrays[0].shape[2]),
                            {"long_name": "index of the generalized coordinate (the model's order)", "units": "1"})
        out[f"samples_trajectory_{kind}"] = xr.DataArray(
            np.stack(arrays, axis=1), dims=("task", "ordering", "step", last), attrs=attrs, coords=coords)
    step_dims = {}
    for name in list(ds.data_vars):
        if name.startswith("samples_trajectory_") and name not in drop and ds[name].ndim == 2 \
                and ds[name].shape[1] == steps and ds[name].dims[1] != "step":
            step_dims[ds[name].dims[1]] = "step"
    ds = ds.drop_vars([v for v in drop if v in ds.variables])
    ds = ds.drop_vars([d for d in step_dims if d in ds.variables])
    ds = ds.rename_dims({d: "step" for d in step_dims if d in ds.dims})
    return ds.assign(out)


# The groups of a `simpact simulate -o OUT.h5` file (root attribute format = "simpact-simulate").
SIMULATE_GROUPS = ("records", "impacts")
# Names of the simulate file's variables in the Dataset where '<group>_<name>' would repeat itself.
SIMULATE_NAMES = {("impacts", "impact_status"): "impacts_status"}


def _open_group(path, group=None):
    """One group of `path` read into memory with xarray (no time decoding: t [s] stays float)."""
    import xarray as xr

    with xr.open_dataset(path, engine="h5netcdf", group=group, phony_dims="access", decode_times=False,
                         decode_timedelta=False) as ds:
        return ds.load()


def _open_simulate(path, attrs):
    """A `simpact simulate` file: /records as records_<name> over (record, coordinate) (q, p;
    energy over record, with records_step and records_t as coordinates), /impacts as a table over
    'impact' (impacts_t, impacts_energy_before, impacts_momentum_after (impact, coordinate), ...;
    the contact lists flattened as the file stores them: impacts_contacts over contact_entry,
    impact i's entries from impacts_contacts_offsets[i] to [i + 1]). 'coordinate' holds the
    coordinates' names, with their units as the coordinate variable coordinate_units."""
    import xarray as xr

    parts = []
    for group in SIMULATE_GROUPS:
        ds = _open_group(path, group)
        rename = {}
        for name in ds.variables:
            if name in ds.dims or ds[name].dims == ("coordinate",):  # dimensions, coordinate_units
                continue
            rename[name] = SIMULATE_NAMES.get((group, name), f"{group}_{name}")
        ds = ds.rename(rename)
        ds.attrs = {f"{group}_{k}": v for k, v in ds.attrs.items() if not (group == "impacts" and k == "status")}
        parts.append(ds)
    merged = xr.merge(parts, compat="equals", combine_attrs="no_conflicts")
    merged.attrs = {**attrs, **merged.attrs}   # the root's first, then impacts_policy
    return merged


def _plain(value):
    """An attribute value as Python: bytes as str, arrays as lists (of str for strings)."""
    if isinstance(value, bytes):
        return value.decode()
    if isinstance(value, np.ndarray):
        return [_plain(v) for v in value.tolist()] if value.dtype.kind in "OS" else value.tolist()
    return value


def open_result(path):
    """Any file simpact writes as an xarray.Dataset (read into memory; the file is closed).

    Sweep files (`simpact run`, `merge`, shards): maps keep their grid coordinates (with units and
    long_name attributes); a group's variables are named '<group>_<name>' (e.g. 'energy_before',
    'xi_maps_outcome_set'; the root's /xi is 'xi'); /samples is a table over the 'task'
    dimension; /sensitivity/<output>/{S1, ST, ...} have the 'parameter' coordinate; time-stepped
    records are samples_trajectory_{q,p} over (task, ordering, step, coordinate) (q over
    'configuration', the nq MuJoCo coordinates, for ball or free joints).
    `simpact simulate -o OUT.h5` files: records_q and records_p over (record, coordinate) (the
    coordinate's values are the model's coordinate names), records_t/records_step as coordinates
    of 'record', and the impacts as a table over 'impact' (impacts_t, impacts_energy_after, ...).
    The root attributes (model, complete, schema_version or format, ...) are the Dataset's."""
    import xarray as xr

    path = os.fspath(path)
    if not os.path.exists(path):
        raise input_error("path", f"no such file: {path}")
    if not h5py.is_hdf5(path):
        raise input_error("path", f"not an HDF5 file: {path}")
    groups, attrs = _groups(path)
    attrs = {k: _plain(v) for k, v in attrs.items()}
    if attrs.get("format") == "simpact-simulate":
        return _open_simulate(path, attrs)
    if "schema_version" not in attrs:
        raise input_error("path", f"not a simpact result (neither a schema_version root attribute nor "
                                  f"format = simpact-simulate): {path}")
    root = _open_group(path)
    parts = [root.drop_vars([v for v in root.data_vars if v in SKIPPED or v == "provenance"])]
    for group in groups:
        ds = _open_group(path, group)
        prefix = group.replace("/", "_") + "_"
        parts.append(ds.rename({v: prefix + v for v in ds.data_vars}))
    merged = _unflatten_trajectories(xr.merge(parts, compat="override", combine_attrs="drop_conflicts"))
    merged.attrs = attrs
    return merged
