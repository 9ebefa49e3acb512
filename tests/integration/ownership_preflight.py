"""Issue 27 §1-3 on the real `simpact` binary, at 1 and 2 ranks where MPI decides:
  * a journal directory simpact did not create is refused, its files untouched byte for byte;
  * a hard link planted as <output>.journal/lock and a symlink planted as provenance.tsv are
    refused, their targets untouched;
  * a shard's journal or file and the whole sweep's never stand in for each other on --resume;
  * errors the config alone shows (t_end/dt over 10^9 steps, record over a grid of the cradle's n,
    a distribution whose support leaves the magnitude range, a repeated sensitivity output, and
    `analyze --variable y --variable y`) exit 2 in one line before any file is created.

usage: ownership_preflight.py SIMPACT"""
import glob
import os
import signal
import subprocess
import sys
import time

import sweep_common as sc

SWEEP = sc.billiards_rows_sweep(400)
SMALL = sc.billiards_rows_sweep(8)


def fail(message):
    sys.exit(f"FAIL: {message}")


def snapshot(root):
    """Every path under root (itself included) with its bytes or link target."""
    out = {}
    for base, dirs, files in os.walk(root):
        for name in dirs + files:
            p = os.path.join(base, name)
            if os.path.islink(p):
                out[p] = ("link", os.readlink(p))
            elif os.path.isfile(p):
                out[p] = ("file", open(p, "rb").read())
            else:
                out[p] = ("dir",)
    return out


def refused(p, what, *needles):
    lines = [l for l in p.stderr.splitlines() if l.startswith("simpact")]  # not mpirun's report
    if p.returncode != 2 or len(lines) != 1 or not lines[0].startswith("simpact: error:") or \
            any(n not in lines[0] for n in needles):
        fail(f"{what}: expected one refusal line naming {needles}, exit 2; got rc={p.returncode} {p.stderr!r}")
    print(f"ok: {what}: {lines[0]}")


def unchanged(before, root, what):
    if snapshot(root) != before:
        fail(f"{what}: files under {root} changed")


def interrupted(simpact, config, out, extra=()):
    """A run stopped by SIGTERM once its journal holds records: leaves an output and a journal."""
    p = subprocess.Popen([simpact, "run", config, "-o", out, "--quiet", *extra], env=sc.env(1),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 60
    while p.poll() is None and time.time() < deadline:
        if sum(os.path.getsize(f) for f in glob.glob(f"{out}.journal/*.bin")) > 4 * 100 * 100:
            break
        time.sleep(0.002)
    p.send_signal(signal.SIGTERM)
    p.communicate(timeout=60)
    if p.returncode != 128 + signal.SIGTERM or not glob.glob(f"{out}.journal/rank-*.bin"):
        fail(f"{out}: the run was not interrupted with its journal kept (rc={p.returncode})")


def section1(simpact, d, ranks):
    config = sc.write_config(SMALL, d, "small.yaml")
    # A notebook folder named like the journal: refused, nothing under it changes, no output.
    lab = f"{d}/lab{ranks}"
    os.makedirs(f"{lab}.journal/figures")
    open(f"{lab}.journal/notes.md", "w").write("# my notes\n")
    open(f"{lab}.journal/figures/a.txt", "w").write("data\n")
    before = snapshot(f"{lab}.journal")
    for extra in ((), ("--overwrite",), ("--resume",)):
        p = sc.run(simpact, config, lab, ranks=ranks, extra=extra, check=False)
        refused(p, f"{ranks} rank(s): foreign {lab}.journal {' '.join(extra)}", "not a simpact journal", "figures")
        unchanged(before, f"{lab}.journal", "foreign journal directory")
        if os.path.exists(lab):
            fail(f"{lab} was created")
    # A hard link planted as the lock file: the linked file is never truncated.
    precious = f"{d}/precious{ranks}.txt"
    open(precious, "w").write("precious bytes\n")
    out = f"{d}/locked{ranks}.h5"
    os.makedirs(f"{out}.journal")
    os.link(precious, f"{out}.journal/lock")
    p = sc.run(simpact, config, out, ranks=ranks, check=False)
    refused(p, f"{ranks} rank(s): hard link as journal lock", "lock", "hard link")
    if open(precious).read() != "precious bytes\n" or os.path.exists(out):
        fail("the hard-linked lock target changed or an output was created")


def provenance_symlink(simpact, d):
    config = sc.write_config(SWEEP, d, "sweep.yaml")
    out = f"{d}/prov.h5"
    interrupted(simpact, config, out)
    target = f"{d}/target.txt"
    open(target, "w").write("not simpact's\n")
    os.replace(f"{out}.journal/provenance.tsv", f"{d}/saved.tsv")
    os.symlink(target, f"{out}.journal/provenance.tsv")
    before = snapshot(d)
    p = sc.run(simpact, config, out, extra=("--resume",), check=False)
    refused(p, "symlink planted as provenance.tsv on --resume", "provenance.tsv", "symbolic link")
    unchanged(before, d, "provenance symlink")
    os.unlink(f"{out}.journal/provenance.tsv")
    os.replace(f"{d}/saved.tsv", f"{out}.journal/provenance.tsv")
    sc.run(simpact, config, out, extra=("--resume",))
    ref = f"{d}/prov_ref.h5"
    sc.run(simpact, config, ref)
    sc.assert_identical(ref, out, "resumed after the planted link was removed")


def section2(simpact, d, ranks):
    config = sc.write_config(SWEEP, d, "sweep.yaml")
    # An interrupted whole-sweep run: --shard 0/2 --resume must not consume its journal.
    out = f"{d}/whole{ranks}.h5"
    interrupted(simpact, config, out)
    before = snapshot(d)
    p = sc.run(simpact, config, out, ranks=ranks, extra=("--shard", "0/2", "--resume"), check=False)
    refused(p, f"{ranks} rank(s): --shard 0/2 --resume of a whole-sweep journal", "shard 0/2", "whole sweep")
    unchanged(before, d, "whole-sweep journal")
    # An interrupted shard: resumed as the whole sweep, refused.
    shard_out = f"{d}/part{ranks}.h5"
    interrupted(simpact, config, shard_out, extra=("--shard", "1/2", "--resume"))
    before = snapshot(d)
    p = sc.run(simpact, config, shard_out, ranks=ranks, extra=("--resume",), check=False)
    refused(p, f"{ranks} rank(s): --resume of a shard 1/2 journal", "shard 1/2", "whole sweep")
    unchanged(before, d, "shard journal")
    # A complete shard 0/2 file: neither the whole sweep nor shard 1/2 calls it complete.
    small = sc.write_config(SMALL, d, "small.yaml")
    done = f"{d}/shard0_{ranks}.h5"
    sc.run(simpact, small, done, extra=("--shard", "0/2"))
    before = snapshot(d)
    for extra, needle in ((("--resume",), "whole sweep"), (("--shard", "1/2", "--resume"), "shard 1/2")):
        p = sc.run(simpact, small, done, ranks=ranks, extra=extra, check=False)
        refused(p, f"{ranks} rank(s): {' '.join(extra)} on a complete shard 0/2 file", "shard 0/2", needle)
        unchanged(before, d, "complete shard file")
    # The same shard still resumes (nothing to do).
    p = sc.run(simpact, small, done, ranks=ranks, extra=("--shard", "0/2", "--resume"))


CONFIG_ERRORS = [
    ("t_end/dt over 10^9 steps", """simulate: {model: cradle, t_end: 1000, dt: 1.0e-7}
params: {n: 3, radius: 0.05, mass: 1.0, speed: 1.0, gap: 0.05}
grid:
  restitution: {values: [0.5, 1.0]}
orderings: [argmin, argmax]
""", "steps"),
    ("record over a grid of the cradle's n", """simulate: {model: cradle, t_end: 0.01, dt: 0.001, record: 2}
params: {radius: 0.05, mass: 1.0, speed: 1.0, gap: 0.05}
grid:
  n: {values: [3, 4]}
orderings: [argmin, argmax]
""", "simulate.record"),
    ("choice support outside the magnitude range", """model: billiards
params: {restitution: 0.9}
grid:
  theta: {start: 1.3, stop: pi, num: 4}
monte_carlo:
  samples_per_point: 8
  seed: 1
  params:
    speed: {dist: choice, values: [1.0, 1.0e100]}
""", "monte_carlo.params.speed"),
    ("repeated sensitivity output", """model: ishigami
design:
  method: saltelli
  base_samples: 64
  params:
    x1: {dist: uniform, low: -pi, high: pi}
    x2: {dist: uniform, low: -pi, high: pi}
    x3: {dist: uniform, low: -pi, high: pi}
sensitivity: {outputs: [y, y], bootstrap: 10}
""", "sensitivity.outputs[1]"),
]


def section3(simpact, d, ranks):
    for i, (what, text, needle) in enumerate(CONFIG_ERRORS):
        config = sc.write_config(text, d, f"bad{i}.yaml")
        out = f"{d}/bad{i}_{ranks}.h5"
        p = sc.run(simpact, config, out, ranks=ranks, check=False)
        refused(p, f"{ranks} rank(s): {what}", needle)
        if os.path.exists(out) or os.path.exists(out + ".journal"):
            fail(f"{what}: an output or journal was created")


def analyze_repeat(simpact, d):
    text = CONFIG_ERRORS[3][1].replace("outputs: [y, y]", "outputs: [y]")
    config = sc.write_config(text, d, "sobol.yaml")
    out = f"{d}/sobol.h5"
    sc.run(simpact, config, out)
    before = snapshot(d)
    p = subprocess.run([simpact, "analyze", out, "--variable", "y", "--variable", "y"], env=sc.env(1),
                       capture_output=True, text=True, timeout=120)
    refused(p, "analyze --variable y --variable y", "--variable[1]")
    unchanged(before, d, "analyzed file")


def main():
    simpact = sys.argv[1]
    d = sc.tempdir()
    for ranks in (0, 2):
        section1(simpact, d, ranks)
    provenance_symlink(simpact, sc.tempdir())
    for ranks in (0, 2):
        section2(simpact, sc.tempdir(), ranks)
        section3(simpact, d, ranks)
    analyze_repeat(simpact, sc.tempdir())
    print("ok: all")


if __name__ == "__main__":
    main()
