"""Design files (issue 23 §3): crafted .npy headers and sizes, fuzz-style, each refused by
`run --dry-run` with exit 2 and one line naming design.file (never libstdc++ internals such as
basic_string::substr or vector::_M_default_append); a design path is resolved from the config's
folder, not the working directory; a file design stores its per-row outputs by default, and
`analyze` says why it refuses one.

usage: design_files.py SIMPACT"""
import os
import random
import struct
import subprocess
import sys

import h5py
import numpy as np

import sweep_common as sc

SIMPACT = sys.argv[1]
TMP = sc.tempdir()
failures = []


def check(ok, what):
    print(("ok: " if ok else "FAIL: ") + what)
    if not ok:
        failures.append(what)


def npy(header, data=b"", major=1, length=None):
    """A .npy file with `header` as is (padding and newline not added), header length `length`."""
    h = header.encode("latin-1")
    n = len(h) if length is None else length
    size = struct.pack("<H", n) if major == 1 else struct.pack("<I", n)
    return b"\x93NUMPY" + bytes([major, 0]) + size + h + data


def dry_run(content, name="d.npy"):
    path = os.path.join(TMP, name)
    with open(path, "wb") as fh:
        fh.write(content)
    cfg = sc.write_config(f"model: ishigami\nparams: {{x2: 0, x3: 0}}\ndesign: {{file: {name}, columns: [x1]}}\n",
                          TMP, "fuzz.yaml")
    out = os.path.join(TMP, "fuzz.h5")
    p = subprocess.run([SIMPACT, "run", cfg, "-o", out, "--dry-run"], capture_output=True, text=True,
                       env=sc.env(), cwd="/", timeout=60)  # strict UTF-8: file bytes are escaped
    return p, out


good = np.array([[0.1], [0.2]])
v1 = "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 1), }"
data = good.tobytes()
cases = {
    "empty header": npy(""),
    "header not a dict": npy("hello"),
    "key without value": npy("{'descr'"),
    "key, colon, nothing": npy("{'descr':"),
    "descr: open quote": npy("{'descr': '<f8"),
    "shape: open tuple": npy("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 1"),
    "shape: (": npy("{'shape': ("),
    "shape: letters": npy("{'descr': '<f8', 'fortran_order': False, 'shape': (a, b), }", data),
    "shape: negative": npy("{'descr': '<f8', 'fortran_order': False, 'shape': (-2, 1), }", data),
    "shape: huge (size overflow)": npy("{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904, 4), }", data),
    "shape: 2^32 x 2^32": npy("{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296), }", data),
    "shape: 99999999999999999999": npy("{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999999999999,), }", data),
    "shape: zero rows": npy("{'descr': '<f8', 'fortran_order': False, 'shape': (0, 1), }"),
    "shape: 3-D": npy("{'descr': '<f8', 'fortran_order': False, 'shape': (1, 1, 2), }", data),
    "shape: ()": npy("{'descr': '<f8', 'fortran_order': False, 'shape': (), }", data[:8]),
    "missing shape": npy("{'descr': '<f8', 'fortran_order': False, }", data),
    "duplicate shape": npy("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 1), 'shape': (1, 2), }", data),
    "unknown key": npy("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 1), 'x': 1, }", data),
    "fortran_order: maybe": npy("{'descr': '<f8', 'fortran_order': maybe, 'shape': (2, 1), }", data),
    "dtype big-endian": npy("{'descr': '>f8', 'fortran_order': False, 'shape': (2, 1), }", data),
    "dtype object": npy("{'descr': '|O', 'fortran_order': False, 'shape': (2, 1), }", data),
    "too few data bytes": npy(v1, data[:-1]),
    "too many data bytes": npy(v1, data + b"\0"),
    "header length past the end": npy(v1, data, length=60000),
    "v2 header length 2^32-1": npy(v1, data, major=2, length=0xFFFFFFFF),
    "version 9": npy(v1, data, major=9),
    "truncated magic": b"\x93NUMPY\x01",
    "NaN value": npy(v1, np.array([[np.nan], [0.2]]).tobytes()),
}
rng = random.Random(23)
base = npy(v1, data)
for k in range(40):  # random byte flips and truncations of a valid file
    b = bytearray(base)
    for _ in range(rng.randint(1, 4)):
        b[rng.randrange(len(b))] = rng.randrange(256)
    cases[f"mutation {k}"] = bytes(b[: rng.randint(8, len(b))] if k % 3 == 0 else b)

internal = ("basic_string", "vector::", "_M_", "std::", "terminate")
for what, content in cases.items():
    p, out = dry_run(content)
    lines = [l for l in p.stderr.splitlines() if l.strip()]
    mutation = what.startswith("mutation")
    if mutation and p.returncode == 0:  # a flip that leaves a valid file (e.g. in the padding)
        continue
    ok = (p.returncode == 2 and len(lines) == 1 and "design.file" in lines[0]
          and not any(w in p.stderr for w in internal) and not os.path.exists(out))
    check(ok, f"{what}: exit 2, one line naming design.file ({p.returncode}: {p.stderr.strip()[:160]!r})")

p, _ = dry_run(npy(v1 + " " * 3 + "\n", data))
check(p.returncode == 0, f"a valid .npy still passes ({p.stderr.strip()[:160]!r})")

# Paths resolve from the config's folder: the config and its design in a folder, run from "/".
sub = os.path.join(TMP, "sub")
os.makedirs(sub, exist_ok=True)
with open(os.path.join(sub, "pts.csv"), "w") as fh:
    fh.write("x1\n0.5\n1.0\n1.5\n")
cfg = sc.write_config("model: ishigami\nparams: {x2: 0, x3: 0}\ndesign: {file: pts.csv}\n", sub, "rel.yaml")
out = os.path.join(TMP, "rel.h5")
p = subprocess.run([SIMPACT, "run", cfg, "-o", out, "-q"], capture_output=True, text=True, env=sc.env(), cwd="/")
check(p.returncode == 0, f"design.file relative to the config's folder, run from / ({p.stderr.strip()!r})")
if p.returncode == 0:
    with h5py.File(out, "r") as f:
        y = f["samples/outputs_y"][()] if "samples/outputs_y" in f else None
        check(y is not None and np.allclose(y, np.sin([0.5, 1.0, 1.5])),
              f"a file design stores its per-row outputs without output.samples ({list(f.get('samples', {}))[:8]})")
    p = subprocess.run([SIMPACT, "analyze", out], capture_output=True, text=True, env=sc.env())
    check(p.returncode == 2 and "user-supplied design" in p.stderr and "/samples" in p.stderr,
          f"analyze of a file design says why it refuses ({p.stderr.strip()!r})")
cfg = sc.write_config("model: ishigami\nparams: {x2: 0, x3: 0}\ndesign: {file: pts.csv}\noutput: {samples: false}\n",
                      sub, "nosamples.yaml")
out = os.path.join(TMP, "nosamples.h5")
p = subprocess.run([SIMPACT, "run", cfg, "-o", out, "-q"], capture_output=True, text=True, env=sc.env(), cwd="/")
with h5py.File(out, "r") as f:
    check("samples/outputs_y" not in f, "output: {samples: false} is respected")

sys.exit(1 if failures else 0)
