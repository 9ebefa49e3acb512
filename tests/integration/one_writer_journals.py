"""Issue 39 §2 and §3 on the real `simpact` binary: one writer per output, journals recognized by
what simpact wrote, refusals that change nothing, and `analyze` keeping a file's kind and mode.
  * `analyze X` holds X's output lock from its first read to its rename: `run --overwrite -o X`
    and `merge -o X --overwrite` started meanwhile are refused in one line naming analyze's pid,
    and analyze started during a run is refused naming the run's; X then holds one run's samples
    and the /sensitivity computed from them. A file replaced behind analyze's back (not by
    simpact) is noticed before the rename: analyze fails and leaves the replacement as it is;
  * a user's folder at X.journal holding files named like simpact's (manifest, provenance.tsv,
    staging-plot.h5, rank-data.bin) is refused by run (plain, --overwrite, --resume) and merge,
    every byte under it unchanged; what a killed merge leaves (its lock, a staging file) is
    still taken for ours;
  * refused resumes of a shard 0/2 journal (--shard 0/3, no --shard, --shard 1/2, another
    config, another build) leave every journal file byte-identical, a killed final write's
    staging file included; the right resume then finishes it bit-identical to an uninterrupted run;
  * analyze through a symbolic link replaces the link's target (the link stays a link), and the
    file keeps its mode (0600, 0640) and owner.

Every process runs under a timeout; processes are paused with SIGSTOP while the others are
refused, so the races are exercised the same way on a loaded machine.

usage: one_writer_journals.py SIMPACT"""
import glob
import os
import shutil
import signal
import stat
import subprocess
import sys
import time

import h5py
import numpy as np

import sweep_common as sc

LIMIT = 120  # seconds for any one process: far above what each needs

SOBOL = """model: ishigami
design:
  method: saltelli
  base_samples: {base}
  params:
    x1: {{dist: uniform, low: -pi, high: pi}}
    x2: {{dist: uniform, low: -pi, high: pi}}
    x3: {{dist: uniform, low: -pi, high: pi}}
sensitivity:
  outputs: [y]
  bootstrap: 200
  seed: 1
"""

SWEEP = sc.billiards_rows_sweep(4000)
SMALL = sc.billiards_rows_sweep(8)


def fail(message):
    sys.exit(f"FAIL: {message}")


def run(args, **kw):
    return subprocess.run(args, env=sc.env(1), capture_output=True, text=True, timeout=LIMIT, **kw)


def one_line(p, what, *needles, rc=None):
    lines = [l for l in p.stderr.splitlines() if l.startswith("simpact")]
    if p.returncode == 0 or (rc is not None and p.returncode != rc) or len(lines) != 1 or \
            not lines[0].startswith("simpact: error:") or any(n not in lines[0] for n in needles):
        fail(f"{what}: expected one error line naming {needles} (exit {rc or 'non-zero'}); "
             f"got rc={p.returncode} stderr={p.stderr!r}")
    print(f"ok: {what}: exit {p.returncode}: {lines[0]}")
    return lines[0]


def snapshot(root, skip=()):
    """Every path under root with its bytes or link target (names in `skip` left out)."""
    out = {}
    for base, dirs, files in os.walk(root):
        for name in dirs + files:
            p = os.path.join(base, name)
            if name in skip:
                continue
            if os.path.islink(p):
                out[p] = ("link", os.readlink(p))
            elif os.path.isfile(p):
                out[p] = ("file", open(p, "rb").read())
            else:
                out[p] = ("dir",)
    return out


def contents(path):
    """Every dataset's bytes and every attribute, /sensitivity included."""
    out = {}
    with h5py.File(path, "r") as f:
        def visit(name, obj):
            attrs = {k: repr(v) for k, v in obj.attrs.items() if k not in ("DIMENSION_LIST", "REFERENCE_LIST")}
            if isinstance(obj, h5py.Dataset):
                v = obj[()]
                if isinstance(v, (bytes, str)):
                    out[name] = (repr(v), attrs)
                else:
                    out[name] = (repr(v.tolist()) if v.dtype == object else np.ascontiguousarray(v).tobytes(),
                                 attrs)
            else:
                out[name] = attrs
        f.visititems(visit)
    return out


def parts(path):
    """(samples, sensitivity) of a result: which run's samples, and which indices."""
    c = contents(path)
    return ({k: v for k, v in c.items() if k.startswith("samples")},
            {k: v for k, v in c.items() if k.startswith("sensitivity")})


def wait_for_lock(out, proc, what):
    """Waits until `proc` holds the output lock of `out` (its pid in out.journal/lock)."""
    deadline = time.time() + LIMIT
    needle = f" pid {proc.pid}\n"
    while time.time() < deadline and proc.poll() is None:
        try:
            if open(f"{out}.journal/lock").read().endswith(needle):
                return
        except OSError:
            pass
        time.sleep(0.001)
    proc.kill()
    fail(f"{what} (pid {proc.pid}) never held the lock of {out} (it ended with rc={proc.poll()}: "
         f"{proc.communicate()[1]!r})")


def wait_for_open(path, proc, what):
    """Waits until `proc` has `path` open (analyze has then taken the file's identity)."""
    real = os.path.realpath(path)
    deadline = time.time() + LIMIT
    while time.time() < deadline and proc.poll() is None:
        try:
            fds = os.listdir(f"/proc/{proc.pid}/fd")
        except OSError:
            fds = []
        for fd in fds:
            try:
                if os.readlink(f"/proc/{proc.pid}/fd/{fd}") == real:
                    return
            except OSError:
                pass
        time.sleep(0.001)
    proc.kill()
    fail(f"{what} never opened {path} (rc={proc.poll()}: {proc.communicate()[1]!r})")


def finish(proc, what):
    try:
        _, err = proc.communicate(timeout=LIMIT)
    except subprocess.TimeoutExpired:
        proc.kill()
        fail(f"{what} did not end within {LIMIT} s")
    if proc.returncode != 0:
        fail(f"{what}: rc={proc.returncode} {err!r}")


def leftovers(d):
    return [f for f in os.listdir(d) if ".sensitivity-" in f or f.endswith(".journal")]


# ---- §2: one writer per output ------------------------------------------------------------------

def one_writer(simpact, d):
    a_cfg = sc.write_config(SOBOL.format(base=4096), d, "a.yaml")
    b_cfg = sc.write_config(SOBOL.format(base=32768), d, "b.yaml")
    a_ref, b_ref = f"{d}/a_ref.h5", f"{d}/b_ref.h5"
    sc.run(simpact, a_cfg, a_ref, threads=1)
    sc.run(simpact, b_cfg, b_ref, threads=1)
    shards = [f"{d}/a_shard{i}.h5" for i in range(2)]
    for i, s in enumerate(shards):
        sc.run(simpact, a_cfg, s, threads=1, extra=("--shard", f"{i}/2"))
    x = f"{d}/x.h5"
    analyze_cmd = [simpact, "analyze", x, "--bootstrap", "20000", "-q"]

    # analyze holds X: run --overwrite and merge --overwrite are refused, naming it.
    shutil.copy(a_ref, x)
    analyze = subprocess.Popen(analyze_cmd, env=sc.env(1), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    wait_for_lock(x, analyze, "analyze")
    os.kill(analyze.pid, signal.SIGSTOP)
    try:
        one_line(run(sc.command(simpact, b_cfg, x, extra=("--overwrite",))),
                 "run --overwrite while analyze works on the file", "in use", f"pid {analyze.pid}")
        one_line(run([simpact, "merge", *shards, "-o", x, "--overwrite", "-q"]),
                 "merge --overwrite while analyze works on the file", "in use", f"pid {analyze.pid}")
    finally:
        os.kill(analyze.pid, signal.SIGCONT)
    finish(analyze, "analyze beside the refused run and merge")
    samples, sens = parts(x)
    if samples != parts(a_ref)[0]:
        fail("after analyze beside run --overwrite: the file's samples are not its own run's")
    with h5py.File(x, "r") as f:
        if f["sensitivity/y"].attrs["bootstrap"] != 20000:
            fail("analyze's /sensitivity is not in the file")
    again = f"{d}/again.h5"
    shutil.copy(x, again)
    if run([simpact, "analyze", again, "--bootstrap", "20000", "-q"]).returncode != 0 or parts(again)[1] != sens:
        fail("the /sensitivity in the file is not the one its own samples give")
    if leftovers(d):
        fail(f"left behind: {leftovers(d)}")
    print("ok: the file holds its own samples and the indices computed from them")

    # A run --overwrite holds X: analyze is refused naming it; the run's file is whole.
    writer = subprocess.Popen(sc.command(simpact, b_cfg, x, extra=("--overwrite",)), env=sc.env(1),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_for_lock(x, writer, "run --overwrite")
    os.kill(writer.pid, signal.SIGSTOP)
    try:
        one_line(run(analyze_cmd), "analyze while run --overwrite writes the file", "in use",
                 f"pid {writer.pid}")
    finally:
        os.kill(writer.pid, signal.SIGCONT)
    finish(writer, "run --overwrite beside the refused analyze")
    if parts(x) != parts(b_ref):
        fail("after run --overwrite beside analyze: the file is not the run's own")
    print("ok: the run's file is whole, samples and /sensitivity")

    # Replaced behind analyze's back (by another program): noticed, the replacement left alone.
    shutil.copy(a_ref, x)
    analyze = subprocess.Popen(analyze_cmd, env=sc.env(1), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    wait_for_lock(x, analyze, "analyze")
    wait_for_open(x, analyze, "analyze")
    os.kill(analyze.pid, signal.SIGSTOP)
    shutil.copy(b_ref, f"{d}/replacement.h5")
    os.replace(f"{d}/replacement.h5", x)
    os.kill(analyze.pid, signal.SIGCONT)
    try:
        _, err = analyze.communicate(timeout=LIMIT)
    except subprocess.TimeoutExpired:
        analyze.kill()
        fail("analyze did not end")
    analyze.stderr = err
    one_line(analyze, "analyze of a file replaced meanwhile", "changed while it was analysed")
    if open(x, "rb").read() != open(b_ref, "rb").read():
        fail("analyze replaced a file that changed under it")
    if leftovers(d):
        fail(f"left behind: {leftovers(d)}")
    return a_ref


# ---- §2: analyze keeps a link a link, and the file's mode and owner --------------------------------

def link_and_mode(simpact, d, a_ref):
    os.makedirs(f"{d}/data")
    target = f"{d}/data/result.h5"
    shutil.copy(a_ref, target)
    link = f"{d}/link.h5"
    os.symlink(target, link)
    for mode in (0o600, 0o640):
        os.chmod(target, mode)
        owner = (os.stat(target).st_uid, os.stat(target).st_gid)
        if os.geteuid() == 0:
            owner = (4321, 8765)
            os.chown(target, *owner)
        p = run([simpact, "analyze", link, "--bootstrap", str(300 + mode), "-q"])
        if p.returncode != 0:
            fail(f"analyze through a link: {p.stderr!r}")
        if not os.path.islink(link) or os.readlink(link) != target:
            fail("analyze replaced the symbolic link (it must write its target)")
        st = os.stat(target)
        if stat.S_IMODE(st.st_mode) != mode or (st.st_uid, st.st_gid) != owner:
            fail(f"analyze changed the file's mode or owner: {oct(stat.S_IMODE(st.st_mode))} "
                 f"{st.st_uid}:{st.st_gid}, was {oct(mode)} {owner[0]}:{owner[1]}")
        with h5py.File(target, "r") as f:
            if f["sensitivity/y"].attrs["bootstrap"] != 300 + mode:
                fail("analyze through a link did not write the target's /sensitivity")
        for where in (d, f"{d}/data"):
            if leftovers(where):
                fail(f"left behind in {where}: {leftovers(where)}")
        print(f"ok: analyze through a link: the link stays, the target keeps mode {oct(mode)} and owner "
              f"{owner[0]}:{owner[1]}")


# ---- §3: a user's folder named like a journal is never taken for one -------------------------------

def planted_folders(simpact, d):
    config = sc.write_config(SMALL, d, "small.yaml")
    h5 = f"{d}/plot.h5"
    with h5py.File(h5, "w") as f:
        f["figure"] = np.arange(5.0)
    plot = open(h5, "rb").read()
    names = {
        "manifest": b"# what I ran, and why\nconfig_hash of my notebook\n",
        "provenance.tsv": b"date\tsource\n2024-01-01\tlab\n",
        "staging-plot.h5": plot,
        "rank-data.bin": b"\x00\x01\x02\x03 my data",
    }
    shards = [f"{d}/small_shard{i}.h5" for i in range(2)]
    for i, s in enumerate(shards):
        sc.run(simpact, config, s, threads=1, extra=("--shard", f"{i}/2"))
    cases = [{n: b} for n, b in names.items()] + [names]
    for k, files in enumerate(cases):
        out = f"{d}/user{k}.h5"
        os.makedirs(f"{out}.journal")
        for name, data in files.items():
            open(f"{out}.journal/{name}", "wb").write(data)
        before = snapshot(f"{out}.journal")
        for extra in ((), ("--overwrite",), ("--resume",)):
            one_line(run(sc.command(simpact, config, out, extra=extra)),
                     f"run {' '.join(extra)} beside a folder holding {sorted(files)}", "not a simpact journal",
                     rc=2)
            if snapshot(f"{out}.journal") != before or os.path.exists(out):
                fail(f"{sorted(files)}: the folder changed or an output was created")
        one_line(run([simpact, "merge", *shards, "-o", out, "--overwrite", "-q"]),
                 f"merge beside a folder holding {sorted(files)}", "not a simpact journal", rc=2)
        if snapshot(f"{out}.journal") != before or os.path.exists(out):
            fail(f"merge: {sorted(files)}: the folder changed or an output was created")
    # What a killed merge leaves (its lock, a staging file it began) is ours: taken over.
    out = f"{d}/merged.h5"
    os.makedirs(f"{out}.journal")
    open(f"{out}.journal/lock", "w").write("host somewhere pid 12345\n")
    open(f"{out}.journal/staging-merge-12345-1.h5", "wb").write(plot[:4096])
    p = run([simpact, "merge", *shards, "-o", out, "-q"])
    if p.returncode != 0 or os.path.exists(f"{out}.journal"):
        fail(f"a killed merge's leftovers were not taken over: rc={p.returncode} {p.stderr!r}")
    print("ok: a killed merge's lock and staging file are taken over")


# ---- §3: a refused --resume leaves every journal file byte-identical -------------------------------

def refused_resumes(simpact, d):
    config = sc.write_config(SWEEP, d, "sweep.yaml")
    out = f"{d}/part.h5"
    p = subprocess.Popen(sc.command(simpact, config, out, extra=("--shard", "0/2")), env=sc.env(1),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + LIMIT
    while p.poll() is None and time.time() < deadline:
        if sum(os.path.getsize(f) for f in glob.glob(f"{out}.journal/*.bin")) > 8 * 100 * 100:
            break
        time.sleep(0.002)
    p.send_signal(signal.SIGTERM)
    p.communicate(timeout=LIMIT)
    if p.returncode != 128 + signal.SIGTERM or not glob.glob(f"{out}.journal/rank-*.bin"):
        fail(f"the shard run was not interrupted with its journal kept (rc={p.returncode})")
    journal = f"{out}.journal"
    # What a kill in the final write and one in writing the manifest leave: a staging file (the
    # bulk of the journal's bytes at scale) and a manifest.tmp.
    shutil.copy(out, f"{journal}/staging-final-{p.pid}-1.h5")
    shutil.copy(f"{journal}/manifest", f"{journal}/manifest.tmp")
    manifest = open(f"{journal}/manifest").read()
    other = sc.write_config(SWEEP.replace("seed: 5", "seed: 6"), d, "other.yaml")
    other_build = manifest.replace("\nbuild ", "\nbuild 0.0.1 git 000000000000 flags other ", 1)
    cases = [
        ("--shard 0/3", config, ("--shard", "0/3"), manifest, ("shard 0/2", "shard 0/3")),
        ("no --shard", config, (), manifest, ("shard 0/2", "whole sweep")),
        ("--shard 1/2", config, ("--shard", "1/2"), manifest, ("shard 0/2", "shard 1/2")),
        ("another config", other, ("--shard", "0/2"), manifest, ("config",)),
        ("another build", config, ("--shard", "0/2"), other_build, ("another simpact build",)),
    ]
    for what, cfg, extra, manifest_text, needles in cases:
        open(f"{journal}/manifest", "w").write(manifest_text)
        before = snapshot(d, skip=("lock",))
        one_line(run(sc.command(simpact, cfg, out, extra=(*extra, "--resume"))),
                 f"--resume of a shard 0/2 journal with {what}", "--resume refused", *needles, rc=2)
        if snapshot(d, skip=("lock",)) != before:
            changed = sorted(k for k in set(before) | set(snapshot(d, skip=("lock",)))
                             if before.get(k) != snapshot(d, skip=("lock",)).get(k))
            fail(f"refused --resume with {what} changed {changed}")
    open(f"{journal}/manifest", "w").write(manifest)
    print("ok: every refused --resume left every journal file and the output byte-identical")
    sc.run(simpact, config, out, threads=1, extra=("--shard", "0/2", "--resume"))
    ref = f"{d}/part_ref.h5"
    sc.run(simpact, config, ref, threads=1, extra=("--shard", "0/2"))
    if parts(out)[0] != parts(ref)[0]:
        fail("the accepted --resume does not equal an uninterrupted shard run")
    if os.path.exists(journal):
        fail("the accepted --resume left its journal (stale staging files included)")
    print("ok: the right --resume finished it, bit-identical to an uninterrupted shard run")


def main():
    simpact = sys.argv[1]
    dirs = [sc.tempdir() for _ in range(4)]
    t0 = time.time()
    a_ref = one_writer(simpact, dirs[0])
    link_and_mode(simpact, dirs[1], a_ref)
    planted_folders(simpact, dirs[2])
    refused_resumes(simpact, dirs[3])
    for d in dirs:
        shutil.rmtree(d, ignore_errors=True)
    print(f"ok: all ({time.time() - t0:.1f} s)")


if __name__ == "__main__":
    main()
