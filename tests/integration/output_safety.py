"""Issue 10, "files that are not ours", journal integrity, provenance, signals and bad input, on
the real `simpact` binary (one process; the MPI cases are in mpi_failures.py):
  * --resume never replaces a file simpact did not make for this config (text, h5py, other config);
  * planted symlinks (OUT.tmp, the journal directory, -o itself) are never written through;
  * run outputs must be regular files; JSON outputs stream into a char device / FIFO, never replace it;
  * an empty/missing/old-version manifest stops --resume and keeps the finished work;
  * journal records of another config, or a crafted short record, are refused (values identical
    to a clean run);
  * malformed provenance.tsv lines are dropped with a warning, valid rows kept;
  * SIGTERM/SIGINT print where the work is and the resume command, exit 128+signal;
  * --resume onto a directory is refused before computing;
  * FIFO / char-device / oversized inputs are refused, NUL bytes in YAML give one clean line.

usage: output_safety.py SIMPACT"""
import glob
import os
import shutil
import signal
import struct
import subprocess
import sys
import threading
import time

import h5py

import sweep_common as sc

CONFIG = """model: billiards
params: {speed: SPEED, restitution: 0.9}
grid:
  theta: {start: 1.3, stop: pi, num: 32}
monte_carlo:
  samples_per_point: 400
  seed: 5
  params:
    r_a: {dist: uniform, low: 0.95, high: 1.05}
orderings: [all, argmin, argmax, index]
minimality: definition1
output: {samples: true, chunk_size: 200}
"""


def fail(message):
    sys.exit(f"FAIL: {message}")


def run(simpact, args, timeout=120, stdin=None):
    return subprocess.run([simpact, *args], env=sc.env(1), capture_output=True, timeout=timeout,
                          input=stdin)


def one_error(p, *needles, rc=None):
    err = p.stderr.decode(errors="replace")
    lines = [l for l in err.splitlines() if l.strip()]
    if p.returncode == 0 or (rc is not None and p.returncode != rc):
        fail(f"expected failure (rc {rc}), got rc={p.returncode}: {err}")
    if len(lines) != 1 or not lines[0].startswith("simpact: error:"):
        fail(f"expected one error line, got: {err!r}")
    for n in needles:
        if n not in lines[0]:
            fail(f"'{n}' not in {lines[0]!r}")
    return lines[0]


def interrupt(simpact, config, out, sig=signal.SIGTERM, min_records=1):
    """Starts a run and sends `sig` once the journal holds a record; returns the process result."""
    p = subprocess.Popen([simpact, "run", config, "-o", out, "--quiet", "--resume"], env=sc.env(1),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 60

    def size():
        return sum(os.path.getsize(f) for f in glob.glob(f"{out}.journal/*.bin"))
    start = size()
    while p.poll() is None and time.time() < deadline:
        if size() - start > min_records * 200 * 100:
            break
        time.sleep(0.002)
    if p.poll() is not None:
        fail(f"{out}: the run ended before it could be interrupted: {p.stderr.read()}")
    p.send_signal(sig)
    stdout, stderr = p.communicate(timeout=60)
    return p.returncode, stderr


def records(out):
    return sorted(glob.glob(f"{out}.journal/*.bin"))


def fnv1a(data, h=0xcbf29ce484222325):
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


def main():
    simpact = sys.argv[1]
    d = sc.tempdir()
    config = sc.write_config(CONFIG.replace("SPEED", "1.0"), d, "sweep.yaml")
    other = sc.write_config(CONFIG.replace("SPEED", "2.0"), d, "other.yaml")
    ref = f"{d}/ref.h5"
    sc.run(simpact, config, ref, threads=1)

    # ---- --resume on files that are not ours --------------------------------------------------
    thesis = f"{d}/thesis.h5"
    open(thesis, "w").write("thesis\n")
    one_error(run(simpact, ["run", config, "-o", thesis, "--resume"]), "not an HDF5 file", rc=2)
    assert open(thesis).read() == "thesis\n"
    foreign = f"{d}/foreign.h5"
    with h5py.File(foreign, "w") as f:
        f["data"] = [1, 2, 3]
    before = open(foreign, "rb").read()
    one_error(run(simpact, ["run", config, "-o", foreign, "--resume"]), "did not write", rc=2)
    assert open(foreign, "rb").read() == before
    other_result = f"{d}/other_result.h5"
    shutil.copy(ref, other_result)
    one_error(run(simpact, ["run", other, "-o", other_result, "--resume"]), "another config", rc=2)
    assert not os.path.exists(other_result + ".journal")
    print("ok: --resume refuses a text file, an h5py file and another config's result, untouched")

    # ---- planted symlinks ---------------------------------------------------------------------
    important = f"{d}/important.txt"
    open(important, "w").write("important\n")
    os.symlink(important, f"{d}/planted.h5.tmp")
    sc.run(simpact, config, f"{d}/planted.h5", threads=1)
    assert open(important).read() == "important\n", "OUT.tmp symlink was written through"
    os.symlink(d + "/elsewhere", f"{d}/jlink.h5.journal")
    one_error(run(simpact, ["run", config, "-o", f"{d}/jlink.h5"]), "symbolic link", rc=2)
    assert not os.path.exists(d + "/elsewhere") and not os.path.exists(f"{d}/jlink.h5")
    os.symlink(important, f"{d}/olink.h5")
    one_error(run(simpact, ["run", config, "-o", f"{d}/olink.h5", "--overwrite"]), "symbolic link", rc=2)
    assert os.path.islink(f"{d}/olink.h5") and open(important).read() == "important\n"
    print("ok: symlinks at OUT.tmp, OUT.journal and -o are never written through")

    # ---- run/merge outputs must be regular; JSON outputs stream into devices and FIFOs --------
    fifo = f"{d}/fifo"
    os.mkfifo(fifo)
    one_error(run(simpact, ["run", config, "-o", fifo]), "FIFO", rc=2)
    assert os.path.exists(fifo) and not os.path.isfile(fifo)
    request = f"{d}/cradle.json"
    open(request, "w").write('{"mass_matrix": [[1,0,0],[0,1,0],[0,0,1]], "normals": [[-1,1,0],[0,-1,1]],'
                             ' "momentum": [1,0,0]}')
    got = {}
    reader = threading.Thread(target=lambda: got.update(text=open(fifo).read()))
    reader.start()
    p = run(simpact, ["resolve", request, "-o", fifo])
    reader.join(30)
    assert p.returncode == 0 and '"outcomes"' in got.get("text", ""), (p.returncode, p.stderr, got)
    assert not os.path.isfile(fifo)
    full, null = f"{d}/full", f"{d}/null"
    if subprocess.run(["mknod", full, "c", "1", "7"]).returncode == 0 and \
            subprocess.run(["mknod", null, "c", "1", "3"]).returncode == 0:
        p = run(simpact, ["resolve", request, "-o", full])
        err = p.stderr.decode()
        assert p.returncode != 0 and "No space left" in err, (p.returncode, err)
        p = run(simpact, ["resolve", request, "-o", null])
        assert p.returncode == 0, p.stderr
        for dev in (full, null):
            assert os.path.exists(dev) and not os.path.isfile(dev), f"{dev} was replaced by a file"
        one_error(run(simpact, ["run", config, "-o", null]), "character device", rc=2)
        print("ok: resolve -o FIFO/char device writes through (ENOSPC on a 'full' device reported); run refuses")
    target = f"{d}/target.json"
    open(target, "w").write("old\n")
    os.symlink(target, f"{d}/jlink.json")
    assert run(simpact, ["resolve", request, "-o", f"{d}/jlink.json"]).returncode == 0
    assert os.path.islink(f"{d}/jlink.json") and '"outcomes"' in open(target).read()
    print("ok: a symlinked JSON output is resolved: the link stays, its target gets the result")

    # ---- --resume with -o a non-empty directory: refused before computing ----------------------
    outdir = f"{d}/outdir"
    os.makedirs(f"{outdir}/x")
    t0 = time.time()
    one_error(run(simpact, ["run", config, "-o", outdir, "--resume"]), "directory", rc=2)
    assert time.time() - t0 < 5 and os.path.isdir(f"{outdir}/x")
    print("ok: --resume onto a directory refused at once")

    # ---- SIGTERM / SIGINT: say where the work is and how to resume -----------------------------
    out = f"{d}/sig.h5"
    for sig in (signal.SIGTERM, signal.SIGINT):
        rc, err = interrupt(simpact, config, out, sig)
        if rc != 128 + sig or "--resume" not in err or ".journal" not in err:
            fail(f"{sig.name}: rc={rc} stderr={err!r}")
        if not records(out):
            fail(f"{sig.name}: no journal left")
    print("ok: SIGTERM/SIGINT:", err.strip())

    # ---- unreadable manifests stop --resume and keep the work ----------------------------------
    manifest = f"{out}.journal/manifest"
    saved = open(manifest).read()
    kept = {f: os.path.getsize(f) for f in records(out)}
    for label, damage in (("empty", lambda: open(manifest, "w").close()),
                          ("missing", lambda: os.remove(manifest)),
                          ("version 1", lambda: open(manifest, "w").write(saved.split("\n", 1)[1]))):
        damage()
        line = one_error(run(simpact, ["run", config, "-o", out, "--resume"]), "--resume refused", rc=2)
        if {f: os.path.getsize(f) for f in records(out)} != kept:
            fail(f"{label} manifest: journal records were touched")
        print(f"ok: {label} manifest refused, records kept:", line)
    open(manifest, "w").write(saved)

    # ---- foreign and crafted records are refused --------------------------------------------
    other_out = f"{d}/other.h5"
    interrupt(simpact, other, other_out, min_records=3)
    for i, f in enumerate(records(other_out)):
        shutil.copy(f, f"{out}.journal/rank-9-{i}.bin")  # same shape, speed 2 instead of 1
    # A crafted 1-task row record (journal version 3: output.samples keeps rows) for chunk 0 with
    # a valid checksum and this config's hash.
    hash_hex = saved.split("config_hash ")[1].split()[0].encode()
    vpt = int(saved.split("values_per_task ")[1].split()[0])
    if saved.split("records ")[1].split()[0] != "rows":
        fail("output.samples: true must journal rows")
    payload = struct.pack("<qQ", 0, 0) + struct.pack(f"<{vpt}d", *([0.5] * vpt))
    # magic "SIMPJRN3", kind 0 (rows), chunk 0, first task 0, 1 task, width, no grid points
    head = (struct.pack("<Qqqqqqqq Q", 0x334e524a504d4953, 0, 0, 0, 1, vpt, 0, 0, len(payload)) +
            hash_hex.ljust(64, b"\0"))
    crafted = head + struct.pack("<Q", fnv1a(payload, fnv1a(head))) + payload
    open(f"{out}.journal/rank-0-0.bin", "wb").write(crafted)

    # ---- provenance.tsv damage is dropped with a warning --------------------------------------
    with open(f"{out}.journal/provenance.tsv", "a") as f:
        f.write("1\t2\t3\t4\t5\t6\t7\t8\tnine\t10\t11\t12\n")  # `stoll` used to abort every resume here
        f.write("garbage without tabs\n\x00\x01\x02")
    valid_rows = 2  # the SIGTERM and SIGINT runs
    p = subprocess.run([simpact, "run", config, "-o", out, "--resume"], env=sc.env(1), capture_output=True,
                       text=True, timeout=300)
    if p.returncode != 0:
        fail(f"resume after damage: rc={p.returncode} {p.stderr}")
    log = p.stdout + p.stderr
    for needle in ("another config", "does not fit", "malformed line"):
        if needle not in log:
            fail(f"resume did not warn about '{needle}':\n{log}")
    sc.assert_identical(ref, out, "resumed past foreign/crafted records and bad provenance lines")
    with h5py.File(out, "r") as f:
        rows = len(f["provenance"])
    if rows != valid_rows + 1:
        fail(f"/provenance has {rows} rows, expected {valid_rows + 1}")
    print(f"ok: foreign + crafted records refused, {rows} provenance rows kept, results bit-identical")

    # ---- bad inputs -----------------------------------------------------------------------------
    zero = f"{d}/zero"
    if subprocess.run(["mknod", zero, "c", "1", "5"]).returncode == 0:
        one_error(run(simpact, ["run", zero], timeout=20), "character device", rc=2)
        one_error(run(simpact, ["resolve", zero], timeout=20), "character device")
    one_error(run(simpact, ["run", fifo], timeout=20), "FIFO", rc=2)
    big = sc.write_config("#" * (17 << 20), d, "big.yaml")
    one_error(run(simpact, ["run", big], timeout=20), "larger than", rc=2)
    one_error(run(simpact, ["resolve", "-"], timeout=60, stdin=b" " * ((64 << 20) + 1)), "larger than")
    nul = f"{d}/nul.yaml"
    open(nul, "wb").write(b"model: billiards\nparams: {speed: 1.0}\noutput:\n  long_name: ab\x00cd\n")
    line = one_error(run(simpact, ["run", nul, "-o", f"{d}/nul.h5"]), "line 4", "U+0000", rc=2)
    assert "\x00" not in line and not os.path.exists(f"{d}/nul.h5")
    print("ok: char device, FIFO, 17 MiB config, 64 MiB stdin and NUL bytes refused in one line each")


if __name__ == "__main__":
    main()
