#!/usr/bin/env python3
"""Checks that FILE follows the simpact sweep file layout (DESIGN.md section 4).

    check_layout.py FILE [--group G ...] [--allow-incomplete]

With h5py: schema_version, complete == 1, every /grid axis has units and long_name and is a
dimension scale, every map (root attribute map_datasets; --group G adds every map-shaped dataset
of group G) has each dimension attached to a scale named after its axis, visible from the map's
group, holding the /grid values; /provenance has rows with version, git_revision and start_time;
/progress/done is all ones; /config is non-empty and its sha256 equals the root config_hash.
With xarray + h5netcdf: every map group opens and has coordinates named after the axes equal to
/grid. Exits 1 with one line "check_layout: FILE: what" on the first failure, 0 when all hold.
"""
import argparse
import posixpath
import sys

import h5py
import numpy as np


class LayoutError(Exception):
    pass


def require(condition, message):
    if not condition:
        raise LayoutError(message)


def text(value):
    """An HDF5 string (variable length: str, fixed length: bytes) as str."""
    if isinstance(value, np.ndarray) and value.shape == ():
        value = value[()]
    if isinstance(value, (bytes, np.bytes_)):
        return value.decode("utf-8")
    return str(value)


def attr(obj, name):
    require(name in obj.attrs, f"{obj.name}: attribute '{name}' missing")
    return obj.attrs[name]


def is_scale(dataset):
    return text(dataset.attrs.get("CLASS", b"")) == "DIMENSION_SCALE"


def grid_axes(f):
    require("grid" in f and isinstance(f["grid"], h5py.Group), "group /grid missing")
    if "grid_axes" in f.attrs:
        names = [text(n) for n in f.attrs["grid_axes"]]
    elif "map_datasets" in f.attrs and len(f.attrs["map_datasets"]) > 0:
        # no axis list: the order of the first map's dimension scales
        first = f[text(f.attrs["map_datasets"][0])]
        names = [posixpath.basename(next(iter(dim.values())).name) for dim in first.dims]
    else:
        names = sorted(f["grid"].keys())
    for name in names:
        require(name in f["grid"], f"/grid/{name} missing")
        axis = f["grid"][name]
        require(axis.ndim == 1, f"{axis.name}: not 1-D")
        require(axis.dtype == np.float64, f"{axis.name}: not float64")
        for key in ("units", "long_name"):
            attr(axis, key)
        require(is_scale(axis), f"{axis.name}: not a dimension scale")
    return names


def map_paths(f, axes, groups):
    """The listed maps, plus every grid-shaped float64 dataset of their groups and of `groups`."""
    paths = [text(p) for p in f.attrs["map_datasets"]] if "map_datasets" in f.attrs else []
    shape = tuple(f["grid"][a].shape[0] for a in axes)
    for group in list(groups) + [posixpath.dirname(p).strip("/") for p in paths]:
        require(group == "" or group in f, f"group /{group} missing")
        g = f[group] if group else f
        require(isinstance(g, h5py.Group), f"/{group}: not a group")
        for obj in g.values():
            if (isinstance(obj, h5py.Dataset) and obj.shape == shape and obj.dtype == np.float64
                    and not is_scale(obj)):
                if obj.name not in paths:
                    paths.append(obj.name)
    require(paths, "no maps (root attribute map_datasets is empty and no --group given)")
    return paths


def check_map(f, path, axes):
    require(path in f, f"map {path} missing")
    m = f[path]
    group = posixpath.dirname(m.name)
    require(m.dtype == np.float64, f"{path}: not float64")
    require(m.ndim == len(axes), f"{path}: {m.ndim} dimensions for {len(axes)} axes")
    for key in ("units", "long_name"):
        attr(m, key)
    for d, axis in enumerate(axes):
        scales = list(m.dims[d].values())
        require(scales, f"{path}: dimension {d} has no dimension scale")
        scale = scales[0]
        require(posixpath.basename(scale.name) == axis,
                f"{path}: dimension {d} scale is {scale.name}, expected one named {axis}")
        scale_group = posixpath.dirname(scale.name)
        visible = scale_group == "/" or group == scale_group or group.startswith(scale_group + "/")
        require(visible, f"{path}: scale {scale.name} not visible from group {group}")
        require(np.array_equal(scale[()], f["grid"][axis][()]),
                f"{path}: scale {scale.name} values differ from /grid/{axis}")
        for key in ("units", "long_name"):
            attr(scale, key)
    return group


def check_root(f, allow_incomplete):
    version = attr(f, "schema_version")
    require(np.issubdtype(np.asarray(version).dtype, np.integer) and int(version) >= 1,
            f"schema_version {version!r} is not a positive integer")
    if not allow_incomplete:
        require(int(attr(f, "complete")) == 1, "not complete (root attribute complete != 1)")

    require("config" in f, "/config missing")
    config = text(f["config"][()])
    require(config.strip() != "", "/config is empty")
    require(text(attr(f["config"], "sha256")) == text(attr(f, "config_hash")),
            "/config sha256 differs from the root attribute config_hash")

    require("provenance" in f, "/provenance missing")
    rows = f["provenance"][:]
    require(len(rows) >= 1, "/provenance has no rows")
    for i, row in enumerate(rows):
        for field in ("version", "git_revision", "start_time"):
            require(text(row[field]) != "", f"/provenance row {i}: empty {field}")

    require("progress/done" in f, "/progress/done missing")
    done = f["progress/done"][()]
    if "chunk_count" in f.attrs:
        require(len(done) == int(f.attrs["chunk_count"]),
                f"/progress/done has {len(done)} entries, chunk_count is {int(f.attrs['chunk_count'])}")
    if not allow_incomplete:
        require(bool(np.all(done == 1)), f"/progress/done: {int(np.sum(done != 1))} chunks not done")


def check_xarray(path, group, axes, grid, maps):
    import xarray

    try:
        ds = xarray.open_dataset(path, engine="h5netcdf", group=group or None)
    except Exception as e:  # noqa: BLE001 - any failure to open is the finding
        raise LayoutError(f"xarray cannot open group '{group or '/'}': {type(e).__name__}: {e}")
    with ds:
        where = f"xarray group '{group or '/'}'"
        for axis in axes:
            require(axis in ds.coords, f"{where}: no coordinate {axis} (has {list(ds.coords)})")
            require(np.array_equal(ds[axis].values, grid[axis]),
                    f"{where}: coordinate {axis} differs from /grid/{axis}")
        for name in maps:
            require(name in ds.data_vars, f"{where}: no variable {name}")
            require(ds[name].dims == tuple(axes),
                    f"{where}: {name} has dimensions {ds[name].dims}, expected {tuple(axes)}")


def check(path, groups, allow_incomplete):
    with h5py.File(path, "r") as f:
        check_root(f, allow_incomplete)
        axes = grid_axes(f)
        grid = {a: f["grid"][a][()] for a in axes}
        by_group = {}
        for p in map_paths(f, axes, [g.strip("/") for g in groups]):
            group = check_map(f, p, axes).strip("/")
            by_group.setdefault(group, []).append(posixpath.basename(p))
    for group, maps in by_group.items():
        check_xarray(path, group, axes, grid, maps)
    return by_group


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file")
    parser.add_argument("--group", action="append", default=[],
                        help="also check every map-shaped dataset of this group")
    parser.add_argument("--allow-incomplete", action="store_true",
                        help="do not require complete == 1 and all chunks done")
    args = parser.parse_args()
    try:
        by_group = check(args.file, args.group, args.allow_incomplete)
    except LayoutError as e:
        print(f"check_layout: {args.file}: {e}", file=sys.stderr)
        return 1
    except (OSError, KeyError, ValueError) as e:
        print(f"check_layout: {args.file}: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    summary = ", ".join(f"/{g}: {len(m)}" if g else f"/: {len(m)}" for g, m in by_group.items())
    print(f"check_layout: {args.file}: ok (maps per group {summary})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
