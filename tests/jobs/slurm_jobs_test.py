"""The Slurm job files on a real one-node Slurm (scripts/slurm-local.sh), end to end:

1. jobs/slurm/sweep.sbatch under `sbatch --wait` (srun --mpi=pmix, 2 ranks): a complete file
   whose /provenance names the job, identical to a plain run;
2. jobs/slurm/submit_sharded.sh: a 3-task array + a merge job after it (afterok): the merged file
   is complete, bit-identical to a plain run, and names the array tasks and the merge job;
3. a Sobol' study (Saltelli design) as a 3-task array + merge: the merge job computes the
   indices (sensitivity.at_end), bit-identical to a plain run's /sensitivity;
4. requeue: sweep.sbatch on a longer sweep, `scontrol requeue` while it runs: the job restarts
   with --resume, computes only the missing chunks and ends bit-identical to a plain run.

Starts Slurm if it is not up, and stops it at the end only then. Exits 77 (ctest: Skipped) when
Slurm cannot be started here (not root, not installed); a start that fails where Slurm is
installed is a FAIL (scripts/slurm-local.sh picks free ports itself).

usage (from the source dir): /usr/bin/python3 tests/jobs/slurm_jobs_test.py build/simpact"""
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import h5py

SOURCE = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(SOURCE, "tests", "integration"))
import sweep_common as sc  # noqa: E402  (plain runs, bit-for-bit comparison of result files)

SLURM_LOCAL = os.path.join(SOURCE, "scripts", "slurm-local.sh")
JOBS = os.path.join(SOURCE, "jobs", "slurm")
CONFIG = os.path.join(SOURCE, "tests", "jobs", "billiards_theta_mc.yaml")
SOBOL_CONFIG = os.path.join(SOURCE, "tests", "jobs", "billiards_sobol_small.yaml")
FINAL = {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "PREEMPTED", "OUT_OF_MEMORY",
         "BOOT_FAIL", "DEADLINE"}
SKIP = 77

submitted = []  # job ids to cancel if the test is interrupted


def sh(cmd, timeout=60, check=True, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)
    if check and p.returncode != 0:
        fail(f"{' '.join(cmd)} exited {p.returncode}:\n{p.stdout}{p.stderr}")
    return p


def fail(message):
    raise SystemExit(f"FAIL: {message}")


def job_state(job):
    """The job's state: from slurmctld while it knows the job (MinJobAge=5 s after the end), then
    from the jobcomp file (`sacct -c`, last record: a requeued job has one per run)."""
    p = sh(["scontrol", "show", "job", "-o", job], timeout=15, check=False)
    m = re.search(r"\bJobState=(\S+)", p.stdout)
    if p.returncode == 0 and m:
        return m.group(1)
    p = sh(["sacct", "-c", "-n", "-X", "-j", job, "-o", "State"], timeout=15, check=False)
    states = p.stdout.split()
    return states[-1] if states else "UNKNOWN"


def wait_job(job, timeout=180):
    deadline = time.time() + timeout
    while time.time() < deadline:
        state = job_state(job)
        if state in FINAL:
            return state
        time.sleep(0.5)
    fail(f"job {job} not finished after {timeout} s (state {job_state(job)})")


def show_logs(directory, pattern):
    for name in sorted(os.listdir(directory)):
        if re.fullmatch(pattern, name):
            with open(os.path.join(directory, name)) as f:
                print(f"---- {name}\n{f.read()}", end="")


def provenance(path):
    with h5py.File(path, "r") as f:
        rows = f["provenance"][()]
    return [(r["slurm_job_id"].decode(), r["command"].decode()) for r in rows]


def check_complete(simpact, path, what):
    p = sh([simpact, "info", path], check=False)
    if p.returncode != 0:
        fail(f"{what}: simpact info {path} exited {p.returncode}:\n{p.stdout}{p.stderr}")


def test_sweep(simpact, d, reference):
    out = os.path.join(d, "sweep.h5")
    p = sh(["sbatch", "--wait", "--parsable", os.path.join(JOBS, "sweep.sbatch"), CONFIG, out], timeout=180,
           cwd=d)
    job = p.stdout.strip().split(";")[0]
    submitted.append(job)
    state = wait_job(job, 30)  # sbatch --wait also returns 0 for a job cancelled while pending
    if p.returncode != 0 or state != "COMPLETED":
        show_logs(d, rf"simpact-sweep-{job}\.(out|err)")
        fail(f"sweep.sbatch job {job}: sbatch rc {p.returncode}, state {state}")
    check_complete(simpact, out, "sweep.sbatch")
    rows = provenance(out)
    if [r[0] for r in rows] != [job]:
        fail(f"sweep.sbatch job {job}: /provenance slurm_job_id {rows}")
    if not os.path.exists(os.path.join(d, f"simpact-sweep-{job}.out")):
        fail(f"sweep.sbatch job {job}: no log simpact-sweep-{job}.out in the submit directory")
    sc.assert_identical(reference, out, f"sweep.sbatch job {job} (srun --mpi=pmix, 2 ranks) vs plain run")


def test_sharded(simpact, d, reference, config=CONFIG, name="merged"):
    out = os.path.join(d, f"{name}.h5")
    p = sh([os.path.join(JOBS, "submit_sharded.sh"), config, out, "3"], cwd=d)
    print(p.stdout, end="")
    array = re.search(r"^array job (\d+)", p.stdout, re.M)
    merge = re.search(r"^merge job (\d+) \(afterok:(\d+)", p.stdout, re.M)
    if not array or not merge or merge.group(2) != array.group(1):
        fail(f"submit_sharded.sh printed no job ids: {p.stdout!r}")
    array, merge = array.group(1), merge.group(1)
    submitted.extend([array, merge])
    state = wait_job(merge)
    if state != "COMPLETED":
        show_logs(d, rf"simpact-(shard-{array}_\d+|merge-{merge})\.(out|err)")
        fail(f"merge job {merge} after array {array}: {state}")
    check_complete(simpact, out, "merged shards")
    ids = sorted(r[0] for r in provenance(out))
    if ids != sorted([f"{array}_0", f"{array}_1", f"{array}_2", merge]):
        fail(f"merged file: /provenance slurm_job_id {ids}, expected {array}_0..2 and {merge}")
    shards = sorted(os.listdir(os.path.join(d, f"{name}.shards")))
    if shards != ["shard_0.h5", "shard_1.h5", "shard_2.h5"]:
        fail(f"shard folder holds {shards}")
    sc.assert_identical(reference, out, f"array job {array} (3 shards) + merge job {merge} vs plain run")
    return out, merge


def sensitivity(path):
    """Every /sensitivity dataset by value (NaN equal to NaN); {} when there is none."""
    out = {}
    with h5py.File(path, "r") as f:
        if "sensitivity" in f:
            f["sensitivity"].visititems(lambda name, obj: out.__setitem__(name, sc.dataset_bytes(obj))
                                        if isinstance(obj, h5py.Dataset) else None)
    return out


def test_sobol_array(simpact, d):
    reference = os.path.join(d, "sobol_plain.h5")
    sc.run(simpact, SOBOL_CONFIG, reference)
    out, merge = test_sharded(simpact, d, reference, SOBOL_CONFIG, "sobol")
    expected, merged = sensitivity(reference), sensitivity(out)
    if not expected or "outcome_set/S1" not in expected or merged != expected:
        fail(f"Sobol' array: /sensitivity of the merged file {sorted(merged)} differs from the plain run's "
             f"{sorted(expected)}")
    with open(os.path.join(d, f"simpact-merge-{merge}.out")) as f:
        log = f.read()
    if "outcome_set" not in log:
        fail(f"merge job {merge}: its log does not show the indices:\n{log}")
    print(f"ok: Sobol' array + merge job {merge}: {len(merged)} /sensitivity datasets bit-identical to a plain run")


def test_requeue(simpact, d):
    # 65 θ × 8192 replicas: a few seconds, long enough to requeue the job while it computes.
    with open(CONFIG) as f:
        text = f.read().replace("samples_per_point: 8\n", "samples_per_point: 8192\n")
    config = sc.write_config(text, d, "long.yaml")
    out = os.path.join(d, "requeue.h5")
    p = sh(["sbatch", "--parsable", os.path.join(JOBS, "sweep.sbatch"), config, out], cwd=d)
    job = p.stdout.strip().split(";")[0]
    submitted.append(job)
    journal = out + ".journal"
    deadline = time.time() + 60
    while time.time() < deadline:  # until a rank has journaled a finished chunk
        ranks = [e for e in os.listdir(journal) if e.startswith("rank-")] if os.path.isdir(journal) else []
        if any(os.path.getsize(os.path.join(journal, e)) > 0 for e in ranks):
            break
        time.sleep(0.05)
    else:
        fail(f"requeue job {job}: no journal record after 60 s (state {job_state(job)})")
    sh(["scontrol", "requeue", job])
    # A requeued job may start again only after 2 minutes (BeginTime); allow it at once.
    deadline = time.time() + 30
    while job_state(job) != "PENDING" and time.time() < deadline:
        time.sleep(0.2)
    sh(["scontrol", "update", f"JobId={job}", "StartTime=now"])
    state = wait_job(job)
    with open(os.path.join(d, f"simpact-sweep-{job}.out")) as f:
        log = f.read()
    if state != "COMPLETED":
        show_logs(d, rf"simpact-sweep-{job}\.(out|err)")
        fail(f"requeued job {job}: {state}")
    check_complete(simpact, out, "requeued sweep")
    rows = provenance(out)
    if [r[0] for r in rows] != [job, job] or "--resume" in rows[0][1] or "--resume" not in rows[1][1]:
        fail(f"requeued job {job}: /provenance rows {rows}, expected a run and a --resume of job {job}")
    m = re.search(r"restart 1 .*?tasks in (\d+) chunks of \d+; (\d+) chunks to compute", log, re.S)
    if not m or not 0 < int(m.group(2)) < int(m.group(1)):
        print(log)
        fail(f"requeued job {job}: the restart did not continue from the journal")
    print(f"ok: requeued job {job} resumed with {m.group(2)} of {m.group(1)} chunks left")
    reference = os.path.join(d, "long_plain.h5")
    sc.run(simpact, config, reference)
    sc.assert_identical(reference, out, f"requeued job {job} vs plain run")


def start_slurm():
    """True if this test started the cluster (and must stop it); exits 77 if it cannot."""
    if os.geteuid() != 0:
        print("SKIP: the local Slurm needs root")
        sys.exit(SKIP)
    for tool in ("slurmctld", "slurmd", "munged", "sbatch", "scontrol", "sacct"):
        if not shutil.which(tool):
            print(f"SKIP: '{tool}' not installed (scripts/install-deps.sh --with-slurm)")
            sys.exit(SKIP)
    if subprocess.run([SLURM_LOCAL, "status", "-q"], timeout=60).returncode == 0:
        print("slurm: already up, using it (not stopped at the end)")
        return False
    p = subprocess.run([SLURM_LOCAL, "start"], capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        subprocess.run([SLURM_LOCAL, "stop"], capture_output=True, timeout=60)  # what it did start
        # Slurm is installed and we are root: a start that fails is a failure, never a skip
        # (slurm-local.sh picks free ports itself, so a taken 6817 is no excuse).
        print(p.stderr)
        fail(f"scripts/slurm-local.sh start failed: {(p.stderr.strip().splitlines() or ['?'])[-1]}")
    print("slurm: started by this test")
    return True


def main():
    simpact = os.path.abspath(sys.argv[1])
    signal.signal(signal.SIGTERM, lambda *_: fail("terminated (ctest timeout?)"))
    env = sh([SLURM_LOCAL, "env"]).stdout  # export SLURM_CONF=...
    os.environ["SLURM_CONF"] = env.strip().split("=", 1)[1]
    os.environ["SIMPACT_BIN"] = simpact   # the jobs inherit the environment (sbatch --export=ALL)
    started = start_slurm()
    d = tempfile.mkdtemp(prefix="simpact-jobs-")
    ok = False
    try:
        reference = os.path.join(d, "plain.h5")
        sc.run(simpact, CONFIG, reference)
        test_sweep(simpact, d, reference)
        test_sharded(simpact, d, reference)
        test_sobol_array(simpact, d)
        test_requeue(simpact, d)
        ok = True
    finally:
        active = [j for j in submitted if job_state(j) not in FINAL]
        if active:
            subprocess.run(["scancel", *active], timeout=30)
        if started:
            subprocess.run([SLURM_LOCAL, "stop"], timeout=120)
        if ok:
            shutil.rmtree(d, ignore_errors=True)
        else:
            print(f"kept {d} for inspection")


if __name__ == "__main__":
    main()
