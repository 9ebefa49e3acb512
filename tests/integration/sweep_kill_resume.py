"""SIGKILL a sweep running under mpirun -n 2 at three points (early, middle, during the final
HDF5 write), check the file left behind is not marked complete, resume, and compare with an
uninterrupted run bit for bit — with a journal of rows (per-task samples) and of partial
statistics (no samples). Also: --resume refuses a changed config; an existing output is not
overwritten without --resume/--overwrite.

usage: sweep_kill_resume.py SIMPACT"""
import glob
import os
import signal
import subprocess
import sys
import time

import h5py

import sweep_common as sc

CONFIG = """model: billiards
params: {speed: 1.0, restitution: 0.9}
grid:
  theta: {start: 1.3, stop: pi, num: 64}
monte_carlo:
  samples_per_point: 3000
  seed: 3
  method: random
  params:
    r_a: {dist: uniform, low: 0.95, high: 1.05}
    r_b: {dist: uniform, low: 0.95, high: 1.05}
    psi: {dist: truncated_normal, mean: 0.0, std: 0.05, low: -0.2, high: 0.2}
orderings: [all, argmin, argmax, index]
minimality: definition1
output: {samples: true, chunk_size: 500}
"""


HEADER_BYTES = 144  # a journal record's header (version 3)


TASK_STATUSES = 6  # task statuses 0..5 (ok .. no_contact): a count each per grid point in a record


def journal_total(manifest):
    """Bytes of a whole journal (every chunk's record once) described by its manifest."""
    tasks, size = int(manifest["task_count"]), int(manifest["chunk_size"])
    chunks = -(-tasks // size)
    if manifest["records"] == "rows":
        return chunks * HEADER_BYTES + tasks * (16 + 8 * int(manifest["values_per_task"]))
    replicas, point = int(manifest["replicas"]), 8 * TASK_STATUSES + 40 * int(manifest["statistic_columns"])
    total = 0
    for c in range(chunks):
        first, last = c * size, min(tasks, (c + 1) * size) - 1
        total += HEADER_BYTES + (last // replicas - first // replicas + 1) * point
    return total


def read_manifest(out):
    return dict(line.split(" ", 1) for line in open(f"{out}.journal/manifest").read().splitlines())


def journal_fraction(out):
    """Share of the task records present in the journal (0..1)."""
    try:
        manifest = read_manifest(out)
    except OSError:
        return 0.0
    size = sum(os.path.getsize(f) for f in glob.glob(f"{out}.journal/*.bin"))
    return size / journal_total(manifest)


def job_processes(out):
    """PIDs of the ranks writing `out` (Open MPI gives each rank its own session, so killing
    mpirun's process group does not reach them)."""
    pids = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmd = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")
            state = open(f"/proc/{pid}/stat").read().split(")")[-1].split()[0]
        except OSError:
            continue
        if state != "Z" and out.encode() in cmd and cmd[0].endswith(b"simpact"):
            pids.append(int(pid))
    return pids


def kill_at(simpact, config, out, fraction, whole_job):
    """SIGKILL one rank (mpirun must then end the others) or the whole job once the journal
    holds `fraction` of the results. Returns True only when the kill landed: a rank was alive
    and was killed by the signal, and mpirun then failed; False when the run ended first (or
    its ranks were already gone), so the caller can try again or fail — never pass."""
    p = subprocess.Popen(sc.command(simpact, config, out, ranks=2), env=sc.env(1),
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.time() + 240
    while p.poll() is None and time.time() < deadline:
        if journal_fraction(out) >= fraction:
            break
        time.sleep(0.002)
    if p.poll() is not None:
        return False
    ranks = job_processes(out)
    killed = 0
    for pid in (ranks if whole_job else ranks[-1:]):
        try:
            os.kill(pid, signal.SIGKILL)
            killed += 1
        except ProcessLookupError:  # exited between the scan and the kill
            pass
    if whole_job:
        os.killpg(p.pid, signal.SIGKILL)
    p.wait(timeout=60)
    t0 = time.time()
    while job_processes(out):
        if time.time() - t0 > 20:
            sys.exit(f"FAIL: ranks {job_processes(out)} still running 20 s after the kill")
        time.sleep(0.05)
    return killed > 0 and p.returncode != 0


def kill_landed(simpact, config, out, fraction, whole_job, label, attempts=3):
    """kill_at until a kill lands (a fast machine may finish a phase between two polls); a
    kill that never lands FAILS the test."""
    for _ in range(attempts):
        for leftover in glob.glob(out + "*"):
            subprocess.run(["rm", "-rf", leftover], check=True)
        if kill_at(simpact, config, out, fraction, whole_job):
            return
    sys.exit(f"FAIL: killed {label}: the kill never landed in {attempts} attempts (the run ended first)")


def is_complete(path):
    try:
        with h5py.File(path, "r") as f:
            return int(f.attrs["complete"]) == 1
    except Exception:  # a file torn by the kill is not complete either
        return False


def main():
    simpact = sys.argv[1]
    d = sc.tempdir()
    config = sc.write_config(CONFIG, d, "sweep.yaml")
    ref = f"{d}/ref.h5"
    sc.run(simpact, config, ref, ranks=2, threads=1)
    statistics = sc.write_config(CONFIG.replace("samples: true", "samples: false"), d, "statistics.yaml")
    ref_statistics = f"{d}/ref_statistics.h5"
    sc.run(simpact, statistics, ref_statistics, ranks=2, threads=1)

    for records, cfg, reference in (("rows", config, ref), ("statistics", statistics, ref_statistics)):
        kill_and_resume(simpact, d, records, cfg, reference)
    check_refusals(simpact, d, config, ref)


def kill_and_resume(simpact, d, records, config, ref):
    for label, fraction, whole_job in (("early, one rank", 0.05, False), ("middle, whole job", 0.5, True),
                                       ("finalize, whole job", 1.0, True)):
        label = f"{records} journal, {label}"
        out = f"{d}/{label.split(',')[0].replace(' ', '_')}_{fraction}.h5"
        kill_landed(simpact, config, out, fraction, whole_job, label)
        if os.path.exists(out + ".journal/manifest") and read_manifest(out)["records"] != records:
            sys.exit(f"FAIL: killed {label}: the journal holds {read_manifest(out)['records']}")
        if not os.path.exists(out) and not os.path.exists(out + ".journal"):
            sys.exit(f"FAIL: killed {label}: neither the file nor its journal exists")
        if is_complete(out):
            sys.exit(f"FAIL: killed {label}: file is marked complete")
        left = journal_fraction(out)
        if fraction < 1.0 and left >= 1.0:
            sys.exit(f"FAIL: killed {label}: the journal already held every result ({left:.0%})")
        info = subprocess.run([simpact, "info", out], capture_output=True, text=True)
        if info.returncode != 3 or "INCOMPLETE" not in info.stdout + info.stderr:
            sys.exit(f"FAIL: simpact info on a killed file: rc={info.returncode} {info.stdout}{info.stderr}")
        print(f"killed {label}: journal held {left:.0%} of the results; simpact info: INCOMPLETE")
        p = sc.run(simpact, config, out, ranks=2, threads=1, extra=("--resume",))
        if os.path.exists(out + ".journal"):
            sys.exit(f"FAIL: {label}: journal left behind after a complete resume")
        sc.assert_identical(ref, out, f"killed {label} then resumed")


def check_refusals(simpact, d, config, ref):
    # Resume of a finished file does nothing and succeeds.
    p = sc.run(simpact, config, ref, ranks=0, extra=("--resume",))
    # An existing output is never replaced silently.
    p = sc.run(simpact, config, ref, ranks=0, check=False)
    if p.returncode == 0 or "--resume" not in p.stderr:
        sys.exit(f"FAIL: rerun over an existing file: rc={p.returncode} {p.stderr}")
    # --resume refuses a changed config (its hash is in the journal and the file).
    out = f"{d}/changed.h5"
    kill_landed(simpact, config, out, 0.2, True, "for the changed-config resume")
    changed = sc.write_config(CONFIG.replace("seed: 3", "seed: 4"), d, "changed.yaml")
    p = sc.run(simpact, changed, out, ranks=0, extra=("--resume",), check=False)
    if p.returncode == 0 or "config changed" not in p.stderr or len(p.stderr.strip().splitlines()) != 1:
        sys.exit(f"FAIL: resume with a changed config: rc={p.returncode} stderr={p.stderr!r}")
    print("ok: resume refuses a changed config:", p.stderr.strip())


if __name__ == "__main__":
    main()
