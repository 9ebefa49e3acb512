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
    merged = xr.merge(parts, compat="override", combine_attrs="drop_conflicts")
    merged.attrs = {k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in attrs.items()}
    return merged
