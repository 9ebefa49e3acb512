#!/usr/bin/env python3
"""Every shipped config's result opens in the netCDF world: `ncdump -h`, and xarray with both the
h5netcdf and the netCDF4 engine on every group; CF items hold (Conventions, numeric root
attributes, flag_values/flag_meanings, cell_methods, fixed parameters, provenance readable by
netCDF-C via /provenance_columns).

    netcdf_compat.py SIMPACT CONFIGS_DIR
Works in its own temporary directory; exits 1 on the first failure.
"""
import os
import shutil
import subprocess
import sys
import tempfile

import h5py
import numpy as np
import xarray as xr

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from checks import FAILED, check  # noqa: E402


def groups(path):
    names = ["/"]
    with h5py.File(path, "r") as f:
        f.visititems(lambda n, o: names.append("/" + n) if isinstance(o, h5py.Group) else None)
    return names


def main():
    simpact, configs = sys.argv[1], sys.argv[2]
    ncdump = shutil.which("ncdump")
    if ncdump is None:
        sys.exit("FAIL: ncdump not found (install netcdf-bin: scripts/install-deps.sh)")
    tmp = tempfile.mkdtemp(prefix="simpact_netcdf_")
    env = dict(os.environ, OMP_NUM_THREADS="1")
    for name in sorted(os.listdir(configs)):
        if not name.endswith(".yaml"):
            continue
        out = os.path.join(tmp, name.replace(".yaml", ".h5"))
        p = subprocess.run([simpact, "run", os.path.join(configs, name), "-o", out, "-q"],
                           capture_output=True, text=True, env=env, cwd=tmp)
        check(p.returncode == 0, f"{name}: runs ({p.stderr.strip()})")
        if p.returncode != 0:
            continue
        d = subprocess.run([ncdump, "-h", out], capture_output=True, text=True)
        check(d.returncode == 0 and ":Conventions = \"CF-1.8\"" in d.stdout, f"{name}: ncdump -h ({d.stderr.strip()})")
        for g in groups(out):
            for engine in ("h5netcdf", "netcdf4"):
                try:
                    with xr.open_dataset(out, engine=engine, group=g) as ds:
                        n = len(ds.variables)
                    check(n > 0 or g == "/", f"{name}: xarray {engine} opens group {g} ({n} variables)")
                except Exception as e:  # noqa: BLE001 - report any reader failure
                    check(False, f"{name}: xarray {engine} opens group {g}: {type(e).__name__}: {e}")
        with h5py.File(out, "r") as f:
            bad_units = []  # UDUNITS strings only: no "SI (m or rad per coordinate)"
            f.visititems(lambda n, o: bad_units.append(f"{n}: {o.attrs['units']}")
                         if isinstance(o, h5py.Dataset) and "units" in o.attrs
                         and any(w in str(o.attrs["units"]) for w in ("SI", "(", " or ", "per ")) else None)
            check(not bad_units, f"{name}: UDUNITS units only {bad_units[:3]}")
            check("dt" not in f.get("grid", {}), f"{name}: no grid axis named dt (xarray's .dt accessor)")
            replicas = f.attrs["replicas"]
            check(isinstance(replicas, (np.integer, int)) and replicas >= 1, f"{name}: replicas is an integer ({replicas!r})")
            check(str(f.attrs["Conventions"]).startswith("CF-1."), f"{name}: Conventions")
            rows = len(f["provenance"])
            mc = replicas > 1
            impact = "energy" in f  # test-function sweeps (ishigami, sobol_g) have /outputs only
            if mc and impact:
                std = next(k for k in f["energy"] if k.endswith("_std"))
                cm = f["energy"][std].attrs["cell_methods"]
                check("replica: standard_deviation" in str(cm) and "ddof = 0" in str(f["energy"][std].attrs["comment"]),
                      f"{name}: {std} cell_methods {cm!r}")
            elif impact and "outcomes/unique" in f:  # with `all` (time-stepped sweeps have none)
                u = f["outcomes/unique"]
                check(list(u.attrs["flag_values"]) == [0.0, 1.0] and str(u.attrs["flag_meanings"]) == "indeterminate unique",
                      f"{name}: outcomes/unique flag_values/flag_meanings")
            for ln in (f[m].attrs["long_name"] for m in f.attrs["map_datasets"]):
                check("||" not in str(ln) and "_g" not in str(ln), f"{name}: readable long_name {str(ln)[:50]!r}")
                break
            if "parameters" in f:
                for k, v in f["parameters"].items():
                    check(v.shape == () and np.isfinite(v[()]) and v.attrs["units"], f"{name}: fixed parameter {k} = {v[()]}")
        with xr.open_dataset(out, engine="netcdf4", group="provenance_columns") as ds:
            check(ds.sizes["run"] == rows and str(ds["command"].values[0]).startswith("simpact run"),
                  f"{name}: provenance readable by netCDF4 ({ds.sizes['run']} row(s))")
    shutil.rmtree(tmp, ignore_errors=True)
    if FAILED:
        sys.exit(f"{len(FAILED)} check(s) failed")


if __name__ == "__main__":
    main()
