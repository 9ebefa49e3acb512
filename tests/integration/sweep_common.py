"""Helpers for the end-to-end sweep tests: run the real `simpact` binary (plain or under
mpirun) on real configs and compare the HDF5 results dataset by dataset, bit for bit."""
import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np

MPI_ENV = {
    "OMPI_ALLOW_RUN_AS_ROOT": "1",
    "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
    "OMPI_MCA_rmaps_base_oversubscribe": "1",
    "OMPI_MCA_btl_vader_single_copy_mechanism": "none",
    "OMPI_MCA_btl_base_warn_component_unused": "0",
}

# Groups whose every dataset must be identical between two runs of the same sweep.
RESULT_GROUPS = ("xi_maps", "energy", "outcomes", "samples", "grid", "placed", "contacts")


def env(threads=2):
    e = dict(os.environ)
    e.update(MPI_ENV)
    e["OMP_NUM_THREADS"] = str(threads)
    return e


def command(simpact, config, out, ranks=0, extra=()):
    cmd = [simpact, "run", config, "-o", out, "--quiet", *extra]
    if ranks:
        cmd = ["mpirun", "-n", str(ranks), *cmd]
    return cmd


def run(simpact, config, out, ranks=0, threads=2, extra=(), check=True):
    p = subprocess.run(command(simpact, config, out, ranks, extra), env=env(threads),
                       capture_output=True, text=True, timeout=300)
    if check and p.returncode != 0:
        sys.exit(f"FAIL: {' '.join(command(simpact, config, out, ranks, extra))} exited {p.returncode}:\n"
                 f"{p.stdout}{p.stderr}")
    return p


def dataset_bytes(dataset):
    """A dataset as (dtype, shape, raw bytes), so NaNs compare equal bit for bit; strings
    (coordinate names) by value, not by their object pointers."""
    v = dataset[()]
    return (dataset.dtype.str, dataset.shape,
            repr(v.tolist()) if v.dtype == object else np.ascontiguousarray(v).tobytes())


def datasets(path):
    """Every result dataset as {name: dataset_bytes}."""
    out = {}
    with h5py.File(path, "r") as f:
        def visit(name, obj):
            if isinstance(obj, h5py.Dataset) and name.split("/")[0] in RESULT_GROUPS + ("xi",):
                out[name] = dataset_bytes(obj)
        f.visititems(visit)
        complete = int(f.attrs["complete"])
    return out, complete


def assert_identical(reference, other, what):
    a, ca = datasets(reference)
    b, cb = datasets(other)
    if ca != 1 or cb != 1:
        sys.exit(f"FAIL: {what}: complete flags {ca}, {cb}")
    if a.keys() != b.keys():
        sys.exit(f"FAIL: {what}: different datasets: {sorted(a.keys() ^ b.keys())}")
    for name in a:
        if a[name] != b[name]:
            sys.exit(f"FAIL: {what}: dataset /{name} differs")
    print(f"ok: {what}: {len(a)} datasets bit-identical")


def assert_close(reference, other, what, rtol=1e-13):
    """Like assert_identical, except that means and standard deviations over replicas (and /xi,
    a mean) may differ in rounding only: statistics merged from other chunk partials."""
    a, _ = datasets(reference)
    b, _ = datasets(other)
    if a.keys() != b.keys():
        sys.exit(f"FAIL: {what}: different datasets: {sorted(a.keys() ^ b.keys())}")
    rounded = 0
    for name in a:
        if a[name] == b[name]:
            continue
        if not (name == "xi" or name.endswith("_mean") or name.endswith("_std")):
            sys.exit(f"FAIL: {what}: dataset /{name} differs (only means and stds may round differently)")
        x = np.frombuffer(a[name][2], dtype=a[name][0])
        y = np.frombuffer(b[name][2], dtype=b[name][0])
        if not np.allclose(x, y, rtol=rtol, atol=rtol * np.nanmax(np.abs(x)), equal_nan=True):
            sys.exit(f"FAIL: {what}: dataset /{name} differs beyond rounding (rtol {rtol})")
        rounded += 1
    print(f"ok: {what}: {len(a) - rounded} datasets bit-identical, {rounded} equal to rtol {rtol}")


def write_config(text, directory, name):
    path = os.path.join(directory, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def billiards_rows_sweep(replicas):
    """A billiards Monte Carlo sweep journaling rows (samples, four orderings, Definition 1):
    16 angles x `replicas`, chunks of 100 tasks (the ownership and one-writer tests)."""
    return f"""model: billiards
params: {{speed: 1.0, restitution: 0.9}}
grid:
  theta: {{start: 1.3, stop: pi, num: 16}}
monte_carlo:
  samples_per_point: {replicas}
  seed: 5
  params:
    r_a: {{dist: uniform, low: 0.95, high: 1.05}}
orderings: [all, argmin, argmax, index]
minimality: definition1
output: {{samples: true, chunk_size: 100}}
"""


def tempdir():
    return tempfile.mkdtemp(prefix="simpact-test-")


def fail(message):
    sys.exit(f"FAIL: {message}")


def check(condition, message):
    if not condition:
        fail(message)


def cli(simpact, args, stdin=None, cwd=None):
    """One `simpact` command (one thread), its CompletedProcess."""
    return subprocess.run([simpact, *args], input=stdin, capture_output=True, text=True, timeout=120,
                          cwd=cwd, env=env(1))
