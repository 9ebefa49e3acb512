"""Sensitivity analysis end to end, on the real program:
  * configs/ishigami_sobol.yaml (2^14 base samples): /sensitivity/y S1 and ST within 0.02 of the
    closed form, the 95 % bootstrap intervals cover it; configs/sobol_g.yaml within 0.02;
  * the indices (and /samples) bit-identical under mpirun -n 1, 2 and 4, and after a SIGKILL +
    --resume; `simpact analyze` rerun on the file gives the same bits;
  * a design written by scipy.stats.qmc (.csv and .npy) run via design: {file: ...} gives the
    same per-task results as the same points on a grid (each point's grid cell);
  * a Morris design writes mu, mu_star, sigma, mu_star_conf with a `parameter` scale;
  * bad design/sensitivity input: exit 2, one line naming the field.

usage: sensitivity.py SIMPACT"""
import glob
import math
import os
import signal
import subprocess
import sys
import time

import h5py
import numpy as np

import sweep_common as sc

SIMPACT = sys.argv[1]
TMP = sc.tempdir()
PI = math.pi


def fail(msg):
    sys.exit(f"FAIL: {msg}")


def sensitivity(path):
    out = {}
    with h5py.File(path, "r") as f:
        def visit(name, obj):
            if isinstance(obj, h5py.Dataset):
                v = obj[()]
                out[name] = repr(v.tolist()) if v.dtype == object else np.ascontiguousarray(v).tobytes()
        f["sensitivity"].visititems(visit)
    return out


def read(path, output="y"):
    with h5py.File(path, "r") as f:
        g = f["sensitivity"][output]
        names = [n.decode() if isinstance(n, bytes) else n for n in f["sensitivity/parameter"][()]]
        first = g["S1"] if "S1" in g else g["mu"]
        dims = [d[0].name.split("/")[-1] for d in first.dims]  # the attached dimension scales
        return names, {k: g[k][()] for k in g if g[k].attrs.get("CLASS") != b"DIMENSION_SCALE"}, dims  # indices, not the scales


# ---- Ishigami: closed form, coverage -------------------------------------------------------
a, b = 7.0, 0.1
V = a * a / 8 + b * PI**4 / 5 + b * b * PI**8 / 18 + 0.5
V1, V2, V13 = 0.5 * (1 + b * PI**4 / 5) ** 2, a * a / 8, 8 * b * b * PI**8 / 225
S1_TRUE = np.array([V1, V2, 0]) / V
ST_TRUE = np.array([V1 + V13, V2, V13]) / V
ref = os.path.join(TMP, "ish1.h5")
t0 = time.time()
sc.run(SIMPACT, "configs/ishigami_sobol.yaml", ref, ranks=1, threads=1)
names, r, dims = read(ref)
if names != ["x1", "x2", "x3"] or dims != ["parameter"]:
    fail(f"parameter scale {names}, dims {dims}")
for key, truth in (("S1", S1_TRUE), ("ST", ST_TRUE)):
    err = np.abs(r[key] - truth)
    print(f"ishigami {key} = {np.round(r[key], 4)} truth {np.round(truth, 4)} |err| {np.round(err, 4)} "
          f"conf {np.round(r[key + '_conf'], 4)}")
    if not (err <= 0.02).all():
        fail(f"ishigami {key} off by more than 0.02")
    if not (err <= r[key + "_conf"]).all():
        fail(f"ishigami {key}: the 95 % interval misses the truth")
print(f"ok: ishigami within 0.02, intervals cover ({time.time() - t0:.1f} s)")

g_out = os.path.join(TMP, "g.h5")
sc.run(SIMPACT, "configs/sobol_g.yaml", g_out)
ga = np.array([0, 1, 4.5, 9, 99, 99, 99, 99.0])
vi = 1 / (3 * (1 + ga) ** 2)
VG = np.prod(1 + vi) - 1
_, r, _ = read(g_out)
for key, truth in (("S1", vi / VG), ("ST", vi * np.prod(1 + vi) / (1 + vi) / VG)):
    err = np.abs(r[key] - truth)
    print(f"sobol_g {key} |err| max {err.max():.4f}")
    if not (err <= 0.02).all():
        fail(f"sobol_g {key} off by more than 0.02: {r[key]} vs {truth}")
print("ok: sobol_g within 0.02")

# ---- bit identity: ranks, re-analysis, kill + resume ------------------------------------------
base = sensitivity(ref)
for ranks in (2, 4):
    other = os.path.join(TMP, f"ish{ranks}.h5")
    sc.run(SIMPACT, "configs/ishigami_sobol.yaml", other, ranks=ranks, threads=1)
    if sensitivity(other) != base:
        fail(f"/sensitivity differs between 1 and {ranks} ranks")
    sc.assert_identical(ref, other, f"ishigami 1 vs {ranks} ranks")
subprocess.run([SIMPACT, "analyze", ref, "-q"], check=True, env=sc.env())
if sensitivity(ref) != base:
    fail("simpact analyze again changed /sensitivity")
print("ok: /sensitivity bit-identical for 1/2/4 ranks and a re-analysis")

KILL_CONFIG = open("configs/ishigami_sobol.yaml").read().replace("base_samples: 16384", "base_samples: 65536") \
    .replace("bootstrap: 1000", "bootstrap: 100") + "output: {chunk_size: 256}\n"
kill_cfg = sc.write_config(KILL_CONFIG, TMP, "ish_kill.yaml")
full = os.path.join(TMP, "g_full.h5")
sc.run(SIMPACT, kill_cfg, full, threads=1)
killed = False
for attempt in range(5):
    out = os.path.join(TMP, f"g_killed{attempt}.h5")
    p = subprocess.Popen(sc.command(SIMPACT, kill_cfg, out), env=sc.env(1),
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 30
    while time.time() < deadline and p.poll() is None:
        if sum(os.path.getsize(f) for f in glob.glob(out + ".journal/*.bin")) > 100_000 * (attempt + 1):
            p.send_signal(signal.SIGKILL)
            break
        time.sleep(0.002)
    p.wait()
    if p.returncode == -signal.SIGKILL:
        with h5py.File(out, "r") as f:
            if int(f.attrs["complete"]) != 0:
                fail("a killed run left a file marked complete")
        sc.run(SIMPACT, kill_cfg, out, threads=1, extra=("--resume",))
        killed = True
        break
if not killed:
    fail("could not kill the sweep before it finished (5 attempts)")
if sensitivity(out) != sensitivity(full):
    fail("/sensitivity differs after kill + resume")
sc.assert_identical(full, out, "ishigami (2^16) kill + resume")
print("ok: /sensitivity bit-identical after SIGKILL + --resume")

# ---- scipy.stats.qmc design file = the same points on a grid ----------------------------------
from scipy.stats import qmc  # noqa: E402

pts = qmc.scale(qmc.Sobol(d=2, scramble=True, seed=5).random(16), [1.9, 0.6], [3.1, 1.6])
csv = os.path.join(TMP, "points.csv")
with open(csv, "w") as f:
    f.write("theta,r_c\n")
    for t, rc in pts:
        f.write(f"{t!r},{rc!r}\n")
npy = os.path.join(TMP, "points.npy")
np.save(npy, pts)
common = "model: billiards\nparams: {restitution: 0.8, psi: 0.05}\noutput: {samples: true}\n"
design_csv = sc.write_config(common + f"design: {{file: {csv}}}\n", TMP, "design_csv.yaml")
design_npy = sc.write_config(common + f"design: {{file: {npy}, columns: [theta, r_c]}}\n", TMP, "design_npy.yaml")
ts = ", ".join(repr(float(t)) for t in pts[:, 0])
rs = ", ".join(repr(float(x)) for x in pts[:, 1])
grid = sc.write_config(common + f"on_task_error: record\ngrid:\n  theta: [{ts}]\n  r_c: [{rs}]\n", TMP, "grid.yaml")
outs = {}
for name, cfg in (("csv", design_csv), ("npy", design_npy), ("grid", grid)):
    outs[name] = os.path.join(TMP, f"qmc_{name}.h5")
    sc.run(SIMPACT, cfg, outs[name])
with h5py.File(outs["csv"], "r") as d, h5py.File(outs["npy"], "r") as e, h5py.File(outs["grid"], "r") as g:
    if not (d["samples/replica"][()] == np.arange(16)).all() or not (d["samples/grid_point"][()] == 0).all():
        fail("/samples/replica and grid_point of a design")
    if not (g["samples/grid_point"][()] == np.arange(256)).all():
        fail("/samples/grid_point of a grid")
    diag = np.arange(16) * 16 + np.arange(16)  # grid cell (i, i) is design point i
    checked = 0
    for name in d["samples"]:
        if name in ("task", "replica", "grid_point", "random_counter"):
            continue
        x, y, z = d["samples"][name][()], e["samples"][name][()], g["samples"][name][()][diag]
        if x.tobytes() != y.tobytes():
            fail(f"/samples/{name}: .csv and .npy designs differ")
        if x.tobytes() != z.tobytes():
            fail(f"/samples/{name}: the design file and the grid differ")
        checked += 1
    if not np.array_equal(d["samples/theta"][()], pts[:, 0]):
        fail("design points were not read exactly")
print(f"ok: scipy.qmc design (.csv, .npy) = grid points, {checked} per-task columns bit-identical")

# ---- Morris ---------------------------------------------------------------------------------------
morris = sc.write_config("""model: ishigami
design:
  method: morris
  trajectories: 200
  levels: 4
  seed: 3
  params:
    x1: {dist: uniform, low: -pi, high: pi}
    x2: {dist: uniform, low: -pi, high: pi}
    x3: {dist: uniform, low: -pi, high: pi}
sensitivity: {bootstrap: 200}
""", TMP, "morris.yaml")
m_out = os.path.join(TMP, "morris.h5")
sc.run(SIMPACT, morris, m_out)
names, r, dims = read(m_out)
if sorted(r) != ["mu", "mu_star", "mu_star_conf", "sigma"] or dims != ["parameter"]:
    fail(f"morris datasets {sorted(r)} dims {dims}")
# Ishigami: x3 acts only with x1 — its mu is ~0 while its mu_star and sigma are not;
# x2's effect (7 sin^2) is symmetric: mu ~ 0, mu_star large.
print(f"morris mu* {np.round(r['mu_star'], 3)} sigma {np.round(r['sigma'], 3)} mu {np.round(r['mu'], 3)}")
if not (r["mu_star"][1] > r["mu_star"][2] and r["mu_star"][0] > r["mu_star"][2] and r["sigma"][2] > 0):
    fail("morris ranking of the Ishigami inputs")
print("ok: morris")

# ---- the parameter coordinate, a constant output --------------------------------------------------
import xarray as xr  # noqa: E402

for engine in ("h5netcdf", "netcdf4"):
    with xr.open_dataset(m_out, group="sensitivity/y", engine=engine) as ds:
        df = ds.to_dataframe()
        if df.index.name != "parameter" or list(df.index) != ["x1", "x2", "x3"]:
            fail(f"xarray {engine}: /sensitivity/y to_dataframe() index {df.index.name} {list(df.index)}")
print("ok: /sensitivity/<output> to_dataframe() is indexed by the parameter names (both engines)")
# x1 = x2 = 0: y = sin x1 + 7 sin^2 x2 + 0.1 x3^4 sin x1 = 0 whatever x3: no indices.
const = sc.write_config("""model: ishigami
params: {x1: 0, x2: 0}
design:
  method: saltelli
  base_samples: 64
  params:
    x3: {dist: uniform, low: -pi, high: pi}
sensitivity: {bootstrap: 20}
""", TMP, "constant.yaml")
c_out = os.path.join(TMP, "constant.h5")
p = subprocess.run([SIMPACT, "run", const, "-o", c_out], capture_output=True, text=True, env=sc.env())
if p.returncode != 0 or "S1=nan" not in p.stdout + p.stderr or "y is constant (0) over the design" not in p.stdout + p.stderr:
    fail(f"constant output: the summary does not say why S1 is nan: {p.returncode} {p.stdout + p.stderr!r}")
png = os.path.join(TMP, "constant.png")
p = subprocess.run(["/usr/bin/python3", "scripts/sensitivity.py", c_out, "-o", png], capture_output=True, text=True,
                   env=dict(os.environ, MPLBACKEND="Agg"))
if p.returncode != 0 or not os.path.getsize(png) > 1000:
    fail(f"scripts/sensitivity.py on a constant output: {p.returncode} {p.stderr[-400:]!r}")
print("ok: a constant output: the run says why S1 is nan; scripts/sensitivity.py draws it")

# ---- bad input --------------------------------------------------------------------------------------
bad = {
    "design:\n  method: saltelly\n": "design.method: unknown design method 'saltelly'",
    "design: {method: saltelli, params: {x1: {dist: uniform, low: 0, high: 1}}}\n": "design.base_samples: required",
    "design: {file: /nonexistent/p.csv}\n": "design.file: cannot read",
    "design: {zip: {x1: [0, 1], x2: [0]}}\n": "design.zip.x2: has 1 values",
    f"design: {{file: {csv}}}\n": "design.file[0]: unknown parameter of model 'ishigami'",
    "design: {zip: {x1: [0, 9]}}\n": "design.zip.x1[1]: 9 is outside",
    "sensitivity: {bootstrap: -1}\n": "sensitivity.bootstrap: must be an integer",
}
for text, expected in bad.items():
    cfg = sc.write_config("model: ishigami\nparams: {x2: 0, x3: 0}\n" + text, TMP, "bad.yaml")
    p = subprocess.run([SIMPACT, "run", cfg, "-o", os.path.join(TMP, "bad.h5")], capture_output=True, text=True,
                       env=sc.env())
    lines = [l for l in p.stderr.splitlines() if l.strip()]
    if p.returncode != 2 or not any(expected in l for l in lines):
        fail(f"{text!r}: exit {p.returncode}, stderr {p.stderr!r} (expected a line with {expected!r})")
cfg = sc.write_config(open("configs/ishigami_sobol.yaml").read().replace("outputs: [y]", "outputs: [z]"), TMP, "o.yaml")
p = subprocess.run([SIMPACT, "run", cfg, "-o", os.path.join(TMP, "o.h5")], capture_output=True, text=True, env=sc.env())
if p.returncode != 2 or "sensitivity.outputs[0]: unknown output 'z' (allowed: y)" not in p.stderr:
    fail(f"unknown output: {p.returncode} {p.stderr!r}")
p = subprocess.run([SIMPACT, "analyze", outs["csv"]], capture_output=True, text=True, env=sc.env())
if p.returncode != 2 or "no design.method saltelli, morris or radial" not in p.stderr:
    fail(f"analyze of a point design: {p.returncode} {p.stderr!r}")
print("ok: bad input gives exit 2 and one line naming the field")
