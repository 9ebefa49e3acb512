#!/usr/bin/env python3
"""`simpact simulate -o OUT.h5` (issue 12): the HDF5 layout against the JSON output of the same run,
dimension scales, the `complete` flag, and the output safety rules (temporary + rename, never
through a symbolic link). Usage: simulate_hdf5.py SIMPACT EXAMPLES_DIR (needs h5py)."""
import json
import os
import subprocess
import sys
import tempfile

import h5py

SIMPACT, EXAMPLES = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from checks import check, finish  # noqa: E402


def run(args, stdin=None):
    return subprocess.run([SIMPACT, "simulate"] + args, input=stdin, capture_output=True, text=True, timeout=120)


with tempfile.TemporaryDirectory() as d:
    out = os.path.join(d, "cradle.h5")
    p = run([EXAMPLES + "/simulate_cradle.json", "-o", out])
    check(p.returncode == 0 and p.stdout == "", f"cradle to HDF5 exits 0 silently ({p.stderr.strip()})")
    ref = json.loads(run([EXAMPLES + "/simulate_cradle.json"]).stdout)
    with h5py.File(out, "r") as f:
        a = f.attrs
        check(a["complete"] == 1 and a["format"] == "simpact-simulate" and a["status"] == "ok", "complete, format, status")
        check(a["model"] == ref["model"] and a["dof"] == ref["dof"] and a["dt"] == ref["dt"] and a["steps"] == ref["steps"],
              "model, dof, dt, steps as in the JSON")
        check(list(a["coordinate_names"]) == ref["coordinates"], "coordinate_names attribute")
        check("coordinates" not in a, "no root `coordinates` (CF reserves it for auxiliary coordinate variables)")
        check([x.decode() if isinstance(x, bytes) else x for x in f["records/coordinate"][:]] == ref["coordinates"],
              "coordinate dimension holds the names")
        check(a["max_energy_drift"] == ref["max_energy_drift"] and a["newton_max"] == ref["newton"]["max"],
              "scalars as attributes")
        r = f["records"]
        n = len(ref["records"])
        check(r["q"].shape == (n, ref["dof"]) and r["p"].shape == (n, ref["dof"]), f"records [record, coordinate]: {r['q'].shape}")
        check(list(r["step"][:]) == [x["step"] for x in ref["records"]], "record steps")
        check(max(abs(r["t"][i] - x["t"]) for i, x in enumerate(ref["records"])) == 0, "record times")
        check(all(list(r["q"][i]) == x["q"] and list(r["p"][i]) == x["p"] and r["energy"][i] == x["energy"]
                  for i, x in enumerate(ref["records"])), "q, p, energy equal to the JSON's")
        scales = [s.name for s in r["q"].dims[0].values()]
        check(scales == ["/records/record"], f"one dimension scale per dimension (record): {scales}")
        check([s.name for s in r["q"].dims[1].values()] == ["/records/coordinate"], "coordinate scale")
        check([s.name for s in r["energy"].dims[0].values()] == ["/records/record"], "energy scale")
        check(r["q"].attrs["units"] == "m" and r["p"].attrs["units"] == "kg m s-1" and r["t"].attrs["units"] == "s"
              and r["energy"].attrs["units"] == "J", "units of q, p, t, energy (cradle: positions)")
        # CF: every variable has units (or units_per_coordinate) and long_name; `coordinates` names variables.
        for gname in ("records", "impacts"):
            for name, v in f[gname].items():
                check("long_name" in v.attrs and ("units" in v.attrs or "units_per_coordinate" in v.attrs
                                                  or v.dtype.kind == "O"), f"{gname}/{name}: units and long_name")
                for aux in v.attrs.get("coordinates", "").split():
                    check(aux in f[gname], f"{gname}/{name}: coordinates names the variable {aux}")
        im = f["impacts"]
        check(im["t"].shape == (len(ref["impacts"]),), "one row per impact")
        for i, x in enumerate(ref["impacts"]):
            o = im["contacts_offsets"]
            so = im["sequence_offsets"]
            check(list(im["contacts"][o[i]:o[i + 1]]) == x["contacts"], f"impact {i} contacts")
            check(list(im["sequence"][so[i]:so[i + 1]]) == x["sequence"], f"impact {i} sequence")
            check(im["t"][i] == x["t"] and im["energy_before"][i] == x["energy_before"]
                  and im["energy_after"][i] == x["energy_after"] and bool(im["plastic"][i]) == x["plastic"],
                  f"impact {i} time, energies, plastic")
            check(list(im["momentum_after"][i]) == x["momentum_after"], f"impact {i} momentum after")
    check(sorted(os.listdir(d)) == ["cradle.h5"], f"no temporary left: {os.listdir(d)}")

    # netCDF-4 readers: ncdump, and xarray with both engines on both groups.
    p = subprocess.run(["ncdump", "-h", out], capture_output=True, text=True)
    check(p.returncode == 0 and "group: records" in p.stdout and "group: impacts" in p.stdout,
          f"ncdump -h reads the file ({p.stderr.strip()})")
    import xarray as xr
    for engine in ("h5netcdf", "netcdf4"):
        for group in ("records", "impacts"):
            try:
                with xr.open_dataset(out, group=group, engine=engine) as ds:
                    if group == "records":
                        ok = (list(ds.q.dims) == ["record", "coordinate"] and list(ds.coordinate.values) == ref["coordinates"]
                              and "t" in ds.q.coords and "step" in ds.q.coords
                              and float(ds.q.sel(coordinate=ref["coordinates"][0])[-1]) == ref["records"][-1]["q"][0])
                    else:
                        ok = ds.sizes["impact"] == len(ref["impacts"]) and "t" in ds.energy_after.coords
                    df = ds.to_dataframe() if group == "records" else None
                    ok = ok and (df is None or set(df.index.names) == {"record", "coordinate"})
            except Exception as e:  # noqa: BLE001
                ok, engine = False, f"{engine}: {type(e).__name__}: {e}"
            check(ok, f"xarray ({engine}) opens /{group} with its coordinates")

    # A run without impacts: empty impact datasets, records every 250 steps.
    chain = {"model": "chain", "params": {"n": 2}, "q0": [0.3, 0.3], "p0": [0, 0], "dt": 0.001, "steps": 500,
             "record": {"every": 250}}
    out2 = os.path.join(d, "chain.h5")
    p = run(["-", "-o", out2], json.dumps(chain))
    with h5py.File(out2, "r") as f:
        check(f["impacts/t"].shape == (0,) and f["impacts/momentum_after"].shape == (0, 2), "no impacts: empty datasets")
        check(f["records/q"].attrs["units"] == "rad" and f["records/p"].attrs["units"] == "kg m2 s-1", "chain: angles")
        check(list(f["records/step"][:]) == [0, 250, 500], "records every 250 steps")
    # Mixed units (trex: x, y in m, angles in rad): no single `units`, one per coordinate.
    out4 = os.path.join(d, "trex.h5")
    p = run(["-", "-o", out4], json.dumps({"model": "trex", "dt": 0.001, "steps": 20, "record": {"every": 10}}))
    with h5py.File(out4, "r") as f:
        q = f["records/q"]
        units = [x.decode() if isinstance(x, bytes) else x for x in f["records/coordinate_units"][:]]
        check(p.returncode == 0 and "units" not in q.attrs and units[:3] == ["m", "m", "rad"]
              and q.attrs["units_per_coordinate"].startswith("m, m, rad"), f"trex: units per coordinate ({units})")
    # Replacing an existing regular file works.
    p = run([EXAMPLES + "/simulate_cradle.json", "-o", out2])
    with h5py.File(out2, "r") as f:
        check(f.attrs["model"] == "cradle", "an existing regular file is replaced")

    # Never through a symbolic link: refused, the link and its target untouched.
    target = os.path.join(d, "target.txt")
    with open(target, "w") as fh:
        fh.write("keep")
    link = os.path.join(d, "link.h5")
    os.symlink(target, link)
    p = run([EXAMPLES + "/simulate_cradle.json", "-o", link])
    check(p.returncode != 0 and "simpact: error" in p.stderr, f"symlink output refused ({p.returncode}, {p.stderr.strip()!r})")
    check(open(target).read() == "keep" and os.path.islink(link), "link and target untouched")
    # Bad input: no file appears.
    out3 = os.path.join(d, "bad.h5")
    p = run(["-", "-o", out3], json.dumps({"model": "chain", "dt": -1, "steps": 1}))
    check(p.returncode == 2 and not os.path.exists(out3), "bad input: exit 2, no file")
    check(not any(".tmp." in x for x in os.listdir(d)), "no temporary left after failures")

finish()
