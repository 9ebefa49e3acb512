"""Every shipped configs/*.yaml runs (2 ranks) and its file passes the layout checker: axes as
dimension scales with units, every map group opened by xarray with named coordinates,
provenance complete, progress all done, config hash consistent.

usage: example_configs.py SIMPACT CHECK_LAYOUT_PY"""
import glob
import os
import subprocess
import sys

import h5py

import sweep_common as sc


def main():
    simpact, checker = sys.argv[1], sys.argv[2]
    d = sc.tempdir()
    configs = sorted(glob.glob("configs/*.yaml"))
    assert len(configs) >= 4, configs
    for config in configs:
        out = os.path.join(d, os.path.basename(config).replace(".yaml", ".h5"))
        sc.run(simpact, config, out, ranks=2, threads=1)
        with h5py.File(out, "r") as f:
            groups = sorted({p.split("/")[1] for p in f.attrs["map_datasets"] if p.count("/") == 2})
            text = f["config"][()].decode()
            prov = f["provenance"][:]
        assert text == open(config).read(), "the /config text is not the YAML as given"
        assert prov["ranks"][-1] == 2 and prov["tasks_done"][-1] > 0, prov
        args = [sys.executable, checker, out] + [a for g in groups for a in ("--group", g)]
        subprocess.run(args, check=True)
    print(f"ok: {len(configs)} example configs run and pass the layout check")


if __name__ == "__main__":
    main()
