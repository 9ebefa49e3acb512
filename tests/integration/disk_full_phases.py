"""Issues 23 §1 / 27 §4: a disk that fills up in any phase never hangs and never loses finished work.
A private tmpfs is shrunk (remount, instantly) to what is in use plus a little slack at a chosen
moment: the compute phase, the final write of `run`, the at-end sensitivity analysis, `analyze`
and `merge`, at 1 and 2 ranks. Each failed job must end within LIMIT seconds with exactly one
"simpact: error:" line and a non-zero status; the journal (or the shards, or the complete file)
must survive unchanged; and once space is freed, a retry must succeed with the same results as
a clean run. Issue 39: the exit status is the error's own, never a crash (HDF5 1.10 crashed in its
shutdown inside MPI_Finalize after it had failed to flush a file: 139 or SIGSEGV after the error
line): 3 for a journal write error, 1 for an I/O error of the final write, the analysis or a merge,
and no "Segmentation fault", signal report or core in stderr. Needs root to mount; otherwise prints
SKIP (exit 77).

usage: disk_full_phases.py SIMPACT"""
import glob
import hashlib
import os
import shutil
import subprocess
import sys
import time

import h5py
import numpy as np

import sweep_common as sc

SKIP = 77
LIMIT = 40  # seconds: a failed step may wait 10 s for stuck peers; a hang takes forever
CONFIG = """model: ishigami
design:
  method: saltelli
  base_samples: 32768
  params:
    x1: {dist: uniform, low: -pi, high: pi}
    x2: {dist: uniform, low: -pi, high: pi}
    x3: {dist: uniform, low: -pi, high: pi}
sensitivity: {outputs: [y], bootstrap: 2000, seed: 1}
output: {chunk_size: 2048}
"""
SIMPACT = sys.argv[1] if len(sys.argv) > 1 else "simpact"


def fail(message):
    sys.exit(f"FAIL: {message}")


def mount(path, size):
    os.makedirs(path, exist_ok=True)
    p = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", path], capture_output=True,
                       text=True)
    if p.returncode != 0:
        print(f"SKIP: cannot mount a small tmpfs here ({p.stderr.strip() or 'mount failed'})")
        sys.exit(SKIP)


def resize(path, size_bytes):
    kib = max(4, (size_bytes + 4095) // 4096 * 4)
    subprocess.run(["mount", "-o", f"remount,size={kib}k", path], check=True, capture_output=True)


def shrink(path, slack):
    """Shrinks the tmpfs to what is in use + slack (retried: the job keeps writing meanwhile)."""
    for _ in range(200):
        kib = max(4, (used(path) + slack + 4095) // 4096 * 4)
        if subprocess.run(["mount", "-o", f"remount,size={kib}k", path], capture_output=True).returncode == 0:
            return
    fail(f"cannot shrink {path}")


def used(path):
    st = os.statvfs(path)
    return (st.f_blocks - st.f_bfree) * st.f_frsize


def contents(path):
    """Every dataset and root attribute but the run's provenance (times, hosts)."""
    out = {}
    with h5py.File(path, "r") as f:
        def visit(name, obj):
            if isinstance(obj, h5py.Dataset) and not name.startswith("provenance") and name != "run":
                v = obj[()]
                if isinstance(v, bytes):
                    out[name] = v
                else:
                    out[name] = repr(v.tolist()) if v.dtype == object else np.ascontiguousarray(v).tobytes()
        f.visititems(visit)
        out["complete"] = int(f.attrs["complete"])
    return out


def digest(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def journal_records(journal):
    return {p: digest(p) for p in glob.glob(f"{journal}/*.bin")}


def run_filling(cmd, mnt, trigger, slack):
    """Runs cmd; when trigger() first holds, shrinks the tmpfs to what is in use + slack."""
    t0 = time.time()
    proc = subprocess.Popen(cmd, env=sc.env(1), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    shrunk = False
    while proc.poll() is None and time.time() - t0 < LIMIT:
        if not shrunk and trigger():
            shrink(mnt, slack)
            shrunk = True
        time.sleep(0.002)
    if proc.poll() is None:
        proc.kill()
        proc.communicate()
        fail(f"{' '.join(cmd)} hung for {LIMIT} s (disk filled, slack {slack} B)")
    out, err = proc.communicate()
    return proc.returncode, out, err, time.time() - t0, shrunk


CRASH_SIGNS = ("Segmentation fault", "core dumped", "Process received signal", "Signal: ")


def one_line(rc, err, what, expected=None, exit_status=True):
    """The one error line of a failed job whose exit status is `expected` (default: the documented
    status for the line: 3 for a journal write error, else 1), with no sign of a crash."""
    lines = [l for l in err.splitlines() if l.startswith("simpact: error:")]
    if rc == 0 or len(lines) != 1:
        fail(f"{what}: expected one error line and a non-zero exit, got rc={rc} stderr={err!r}")
    if not exit_status:
        return lines[0]
    if rc < 0 or any(sign in err for sign in CRASH_SIGNS):
        fail(f"{what}: crashed after its error (rc={rc}): {err!r}")
    if expected is None:
        expected = 3 if ".journal/rank-" in lines[0] and ".bin" in lines[0] else 1
    if rc != expected:
        fail(f"{what}: exit {rc}, not the documented {expected} for: {lines[0]}")
    return lines[0]


def run_cmd(ranks, config, out, extra=()):
    return sc.command(SIMPACT, config, out, ranks=ranks if ranks > 1 else 0, extra=extra)


def check_run_phase(d, config, ref, ranks, phase, trigger_of, slacks):
    """Fills the disk during `phase` of `simpact run`, for each slack; returns the failure lines."""
    mnt = f"{d}/{phase}{ranks}"
    failures = []
    for slack in slacks:
        mount(mnt, "200m")
        try:
            out = f"{mnt}/out.h5"
            journal = f"{out}.journal"
            rc, _, err, seconds, shrunk = run_filling(run_cmd(ranks, config, out), mnt, trigger_of(journal), slack)
            if rc == 0:
                if contents(out) != contents(ref):
                    fail(f"{phase}, {ranks} rank(s), slack {slack}: exit 0 but the result differs")
                continue
            line = one_line(rc, err, f"{phase}, {ranks} rank(s), slack {slack}")
            if os.path.exists(out) and sc.datasets(out)[1] == 1:
                fail(f"{phase}: a failed run left {out} marked complete")
            records = journal_records(journal)
            if not records:
                fail(f"{phase}, {ranks} rank(s): the journal is gone after a failure: {line}")
            failures.append((slack, seconds, line))
            resize(mnt, 200 << 20)  # free the space: the retry finishes from the journal
            p = subprocess.run(run_cmd(ranks, config, out, ("--resume",)), env=sc.env(1), capture_output=True,
                               text=True, timeout=LIMIT * 3)
            if p.returncode != 0:
                fail(f"{phase}: --resume after freeing space exited {p.returncode}: {p.stderr}")
            if contents(out) != contents(ref):
                fail(f"{phase}, {ranks} rank(s): the resumed result differs from a clean run")
            if os.path.exists(journal):
                fail(f"{phase}: the journal outlived a complete file")
        finally:
            subprocess.run(["umount", "-l", mnt], capture_output=True)
    for slack, seconds, line in failures:
        print(f"ok: {phase}, {ranks} rank(s), slack {slack} B: failed in {seconds:.1f} s, resumed: {line}")
    return failures


def main():
    d = sc.tempdir()
    config = sc.write_config(CONFIG, d, "sweep.yaml")
    ref = f"{d}/ref.h5"
    sc.run(SIMPACT, config, ref, threads=1)
    no_analysis = sc.write_config(CONFIG.replace("sensitivity: {", "sensitivity: {at_end: false, "), d, "plain.yaml")
    # The file's size without /sensitivity, per rank count (MPI-IO lays out chunks differently).
    size_plain = {}
    for ranks in (1, 2):
        plain = f"{d}/plain{ranks}.h5"
        sc.run(SIMPACT, no_analysis, plain, ranks=ranks if ranks > 1 else 0, threads=1)
        size_plain[ranks] = os.path.getsize(plain)
    size_ref = os.path.getsize(ref)
    if size_ref - size_plain[1] < 8192:
        fail(f"the analysis adds only {size_ref - size_plain[1]} B: too little to aim at")

    def records_exist(journal):
        return lambda: bool(glob.glob(f"{journal}/*.bin"))

    def staging_exists(journal):
        return lambda: bool(glob.glob(f"{journal}/staging-final-*"))

    for ranks in (1, 2):
        check_run_phase(d, config, ref, ranks, "compute", records_exist, [0])
        final = check_run_phase(d, config, ref, ranks, "final", staging_exists,
                                [0, 8192, size_plain[ranks] // 2])
        if not final:
            fail(f"final write, {ranks} rank(s): no slack made it fail")
        # Room for the sweep file but not for /sensitivity as well.
        analysis = check_run_phase(d, config, ref, ranks, "analysis", staging_exists,
                                   [size_plain[ranks] + 2048, size_plain[ranks] + 6144])
        if not any("analysis of" in line for _, _, line in analysis):
            fail(f"at-end analysis, {ranks} rank(s): no slack made the analysis fail: {analysis}")

    # ---- one rank alone cannot write the final file (EFBIG under ulimit -f, as a quota would): rank
    # 0, which writes a small sweep's file alone (larger ones collectively) --------------------------
    work = f"{d}/efbig"
    os.makedirs(work)
    out = f"{work}/out.h5"
    limit_kib = 4400  # above any rank's journal file (< 4 MB), below the 2-rank final file (5 MB)
    cmd = ["mpirun", "-n", "2", "sh", "-c", f"trap '' XFSZ; [ $OMPI_COMM_WORLD_RANK = 0 ] && ulimit -f {limit_kib}; "
           f"exec {SIMPACT} run {config} -o {out} -q"]
    rc, _, err, seconds, _ = run_filling(cmd, work, lambda: False, 0)
    # Its documented code: 1 in the final write; 3 when rank 0 claimed enough chunks (a loaded
    # machine slows rank 1) for its journal file to pass the limit first (seen under ctest -j2).
    line = one_line(rc, err, "final write, rank 0 over ulimit -f")
    if not journal_records(f"{out}.journal"):
        fail("EFBIG on one rank: the journal is gone")
    p = subprocess.run(run_cmd(2, config, out, ("--resume",)), env=sc.env(1), capture_output=True, text=True,
                       timeout=LIMIT * 3)
    if p.returncode != 0 or contents(out) != contents(ref):
        fail(f"EFBIG on one rank: --resume without the limit: rc {p.returncode} {p.stderr}")
    print(f"ok: final write, rank 0 over ulimit -f: failed in {seconds:.1f} s, resumed: {line}")

    # ---- simpact analyze on a full disk: the complete file is left exactly as it was ----------------
    mnt = f"{d}/analyze"
    for slack in (0, size_ref // 2, size_ref + 4096):
        mount(mnt, "200m")
        try:
            target = f"{mnt}/out.h5"
            shutil.copyfile(ref, target)
            before = digest(target)
            shrink(mnt, slack)
            t0 = time.time()
            analyze = [SIMPACT, "analyze", target, "--bootstrap", "500", "-q"]
            p = subprocess.run(analyze, capture_output=True, text=True, timeout=LIMIT)
            if [f for f in os.listdir(mnt) if f != "out.h5"]:
                fail(f"analyze left {os.listdir(mnt)}")
            line = None
            if p.returncode != 0:
                # The documented exit 1, no crash in HDF5's shutdown after a failed close (main
                # ends the process at once then, as MpiSession::finish does for run and merge).
                line = one_line(p.returncode, p.stderr, f"analyze, slack {slack}")
                if digest(target) != before:
                    fail(f"analyze on a full disk changed {target}")
                resize(mnt, 200 << 20)
                p = subprocess.run(analyze, capture_output=True, text=True, timeout=LIMIT)
                if p.returncode != 0:
                    fail(f"analyze after freeing space: {p.stderr}")
            if {k: v for k, v in contents(target).items() if not k.startswith("sensitivity")} != \
                    {k: v for k, v in contents(ref).items() if not k.startswith("sensitivity")}:
                fail("analyze changed more than /sensitivity")
            with h5py.File(target, "r") as f:
                if f["sensitivity/y"].attrs["bootstrap"] != 500 or "ST" not in f["sensitivity/y"]:
                    fail("analyze did not write the new /sensitivity")
            if line:
                print(f"ok: analyze, slack {slack} B: failed in {time.time() - t0:.1f} s, file unchanged, "
                      f"then rewritten: {line}")
            else:
                print(f"ok: analyze, slack {slack} B: room enough, /sensitivity rewritten")
        finally:
            subprocess.run(["umount", "-l", mnt], capture_output=True)

    # ---- simpact merge on a full disk, 1 and 2 ranks ---------------------------------------------------
    shards = [f"{d}/shard{i}.h5" for i in range(2)]
    for i, s in enumerate(shards):
        sc.run(SIMPACT, no_analysis, s, threads=1, extra=("--shard", f"{i}/2"))
    merged_ref = f"{d}/merged.h5"
    subprocess.run([SIMPACT, "merge", *shards, "-o", merged_ref, "-q"], check=True, capture_output=True)
    for ranks in (1, 2):
        for slack in (0, 8192, size_plain[1] // 2):
            mnt = f"{d}/merge{ranks}"
            mount(mnt, "200m")
            try:
                local = [shutil.copyfile(s, f"{mnt}/{os.path.basename(s)}") for s in shards]
                sums = [digest(s) for s in local]
                out = f"{mnt}/merged.h5"
                cmd = [SIMPACT, "merge", *local, "-o", out, "-q"]
                if ranks > 1:
                    cmd = ["mpirun", "-n", str(ranks), *cmd]
                rc, _, err, seconds, _ = run_filling(cmd, mnt, lambda: glob.glob(f"{out}.journal/staging-*"),
                                                     slack)
                if rc == 0:
                    if contents(out) != contents(merged_ref):
                        fail(f"merge, slack {slack}: exit 0 but the result differs")
                    continue
                line = one_line(rc, err, f"merge, {ranks} rank(s), slack {slack}", 1)
                if [digest(s) for s in local] != sums:
                    fail("a failed merge changed a shard")
                resize(mnt, 200 << 20)
                p = subprocess.run(cmd, env=sc.env(1), capture_output=True, text=True, timeout=LIMIT * 3)
                if p.returncode != 0 or contents(out) != contents(merged_ref):
                    fail(f"merge after freeing space: rc {p.returncode} {p.stderr}")
                print(f"ok: merge, {ranks} rank(s), slack {slack} B: failed in {seconds:.1f} s, retried: {line}")
            finally:
                subprocess.run(["umount", "-l", mnt], capture_output=True)


if __name__ == "__main__":
    main()
