#!/usr/bin/env python3
"""Layer rules of simpact, checked at build time: a wrong include fails the build.

Usage: check_layers.py SOURCE_DIR  (exit 1 listing every violation, one per line)

Each folder is a layer (src/<layer>/, include/simpact/<layer>/). A file may include simpact
headers of its own layer and of the layers listed below for it, and system headers of MPI,
HDF5 and OpenMP only where the layer is allowed them ("physics never includes MPI or HDF5").
A private header is included by its bare name from beside it, never by a path reaching into
another folder ("../study/x.hpp"), which would hide a crossing from these rules.
"""
import pathlib
import re
import sys

# layer -> layers it may include (besides itself)
ALLOWED = {
    "core": set(),
    "models": {"core"},
    "integrate": {"core", "models"},
    "audit": {"core", "models"},
    "sweep": {"core"},
    "analysis": {"core", "models", "integrate", "sweep", "audit"},
    "io": {"core", "sweep"},
    "study": {"core", "models", "integrate", "sweep", "analysis", "io", "audit"},
    "app": {"core", "models", "integrate", "sweep", "analysis", "io", "study", "audit"},
    # the Python module (pybind11): a front end like app
    "python": {"core", "models", "integrate", "sweep", "analysis", "io", "study", "audit"},
}
# system headers that only some layers may use
RESTRICTED = {
    "mpi.h": {"sweep", "io", "study", "app", "python"},
    "hdf5.h": {"io"},
    "hdf5_hl.h": {"io"},
    "omp.h": {"sweep", "study", "app"},
    "mujoco/mujoco.h": {"models", "audit"},
    "btBulletDynamicsCommon.h": {"audit"},
    "ode/ode.h": {"audit"},
    "yaml-cpp/yaml.h": {"io"},
    "nlohmann/json.hpp": {"io", "app"},
}
INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.M)


def layer_of(path, root):
    rel = path.relative_to(root).parts
    if rel[0] == "src" and len(rel) > 2:
        return rel[1]
    if rel[0] == "include" and len(rel) > 3 and rel[1] == "simpact":
        return rel[2]
    return None


def violations(root):
    root = pathlib.Path(root)
    out = []
    files = sorted(list((root / "src").rglob("*.[ch]pp")) + list((root / "include").rglob("*.hpp")))
    for path in files:
        layer = layer_of(path, root)
        if layer is None:
            continue
        if layer not in ALLOWED:
            out.append(f"{path.relative_to(root)}: folder '{layer}' is not a known layer (cmake/check_layers.py)")
            continue
        text = path.read_text(errors="replace")
        for m in INCLUDE.finditer(text):
            header = m.group(1)
            line = text.count("\n", 0, m.start()) + 1
            where = f"{path.relative_to(root)}:{line}"
            if "../" in header:
                out.append(f"{where}: {header}: a relative include reaches out of layer '{layer}' "
                           f"(include another layer's public header as simpact/<layer>/...)")
            elif header.startswith("simpact/"):
                parts = header.split("/")
                if len(parts) < 3:
                    continue  # simpact/version.hpp (generated)
                target = parts[1]
                if target != layer and target not in ALLOWED[layer]:
                    out.append(f"{where}: layer '{layer}' may not include {header} "
                               f"(allowed: {', '.join(sorted(ALLOWED[layer] | {layer}))})")
            elif header in RESTRICTED and layer not in RESTRICTED[header]:
                out.append(f"{where}: layer '{layer}' may not include <{header}> "
                           f"(only {', '.join(sorted(RESTRICTED[header]))})")
    return out


def main():
    found = violations(sys.argv[1])
    for v in found:
        print(f"layer violation: {v}", file=sys.stderr)
    sys.exit(1 if found else 0)


if __name__ == "__main__":
    main()
