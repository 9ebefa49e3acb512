"""jobs/pbs/sweep.pbs outside PBS (none is installed here), with the variables PBS would set faked:

1. `bash -n`, then a run as Torque would start it (PBS_O_WORKDIR, PBS_JOBID, PBS_NP, PBS_NUM_PPN;
   default layout 1 rank × ppn threads; default output results/<config>-<job number>.h5 under
   PBS_O_WORKDIR): a complete file, bit-identical to a plain run;
2. a second job with the same output is refused (no clobbering);
3. a job killed (SIGKILL, every process of it) while it computes, then run again: it resumes from
   the journal (--resume, 2 ranks × 1 thread) and ends bit-identical to a plain run.

usage (from the source dir): /usr/bin/python3 tests/jobs/pbs_job_test.py build/simpact"""
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

SOURCE = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(SOURCE, "tests", "integration"))
import sweep_common as sc  # noqa: E402  (plain runs, bit-for-bit comparison of result files)

SCRIPT = os.path.join(SOURCE, "jobs", "pbs", "sweep.pbs")
CONFIG = os.path.join(SOURCE, "tests", "jobs", "billiards_theta_mc.yaml")


def fail(message):
    raise SystemExit(f"FAIL: {message}")


def pbs_env(simpact, workdir, jobid, **extra):
    e = sc.env(1)
    for k in [k for k in e if k.startswith(("PBS_", "SIMPACT_", "SLURM_"))]:
        del e[k]
    e.update(PBS_O_WORKDIR=workdir, PBS_JOBID=jobid, PBS_JOBNAME="simpact-sweep", PBS_NP="2",
             PBS_NUM_PPN="2", PBS_NUM_NODES="1", SIMPACT_BIN=simpact, **extra)
    return e


def run_job(env, check=True):
    # cwd "/" : the script must cd to PBS_O_WORKDIR itself, as PBS starts jobs in $HOME
    p = subprocess.run(["bash", SCRIPT], env=env, cwd="/", capture_output=True, text=True, timeout=240)
    if check and p.returncode != 0:
        fail(f"sweep.pbs exited {p.returncode}:\n{p.stdout}{p.stderr}")
    return p


def kill_session(sid):
    """SIGKILL every process of session `sid` (bash, mpirun and the ranks, which Open MPI puts in
    process groups of their own): a node crash, as far as the files can tell."""
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                if int(fields[3]) == sid:
                    os.kill(int(entry), signal.SIGKILL)
            except (OSError, IndexError, ValueError):
                pass


def main():
    simpact = os.path.abspath(sys.argv[1])
    p = subprocess.run(["bash", "-n", SCRIPT], capture_output=True, text=True)
    if p.returncode != 0:
        fail(f"bash -n {SCRIPT}: {p.stderr}")
    d = tempfile.mkdtemp(prefix="simpact-pbs-")
    reference = os.path.join(d, "plain.h5")
    sc.run(simpact, CONFIG, reference)

    # 1. as PBS would start it; default output path from the job number
    env = pbs_env(simpact, d, "4242.pbs-server", SIMPACT_CONFIG=CONFIG)
    p = run_job(env)
    if "1 rank(s) x 2 thread(s)" not in p.stdout:
        fail(f"default layout is not 1 rank x ppn threads:\n{p.stdout}")
    out = os.path.join(d, "results", "billiards_theta_mc-4242.h5")
    if not os.path.exists(out):
        fail(f"no {out}; job output:\n{p.stdout}{p.stderr}")
    sc.assert_identical(reference, out, "sweep.pbs (faked PBS job, 1 rank x 2 threads) vs plain run")

    # 2. the same output again: refused, the file stays complete
    p = run_job(env, check=False)
    if p.returncode == 0 or "already exists" not in p.stderr:
        fail(f"a second job onto an existing output was not refused: rc {p.returncode}\n{p.stderr}")
    sc.assert_identical(reference, out, "the refused second job left the file")

    # 3. killed while computing, run again: --resume from the journal
    with open(CONFIG) as f:
        text = f.read().replace("samples_per_point: 8\n", "samples_per_point: 8192\n")
    long_config = sc.write_config(text, d, "long.yaml")
    env = pbs_env(simpact, d, "4243.pbs-server", SIMPACT_CONFIG=long_config, SIMPACT_OUT="long.h5",
                  SIMPACT_RANKS="2", SIMPACT_THREADS="1")
    out = os.path.join(d, "long.h5")
    journal = out + ".journal"
    job = subprocess.Popen(["bash", SCRIPT], env=env, cwd="/", start_new_session=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 60
    while time.time() < deadline and job.poll() is None:
        ranks = [e for e in os.listdir(journal) if e.startswith("rank-")] if os.path.isdir(journal) else []
        if any(os.path.getsize(os.path.join(journal, e)) > 0 for e in ranks):
            break
        time.sleep(0.05)
    kill_session(job.pid)
    job.wait()
    if job.returncode != -signal.SIGKILL or not os.path.isdir(journal):
        fail(f"could not kill the long job mid-run (rc {job.returncode}, journal {os.path.isdir(journal)})")
    p = run_job(env)
    m = re.search(r"tasks in (\d+) chunks of \d+; (\d+) chunks to compute on 2 rank\(s\) x 1 thread", p.stdout + p.stderr)
    if "--resume" not in p.stdout or not m or not 0 < int(m.group(2)) < int(m.group(1)):
        fail(f"the rerun did not resume from the journal:\n{p.stdout}{p.stderr}")
    print(f"ok: killed job resumed with {m.group(2)} of {m.group(1)} chunks left")
    long_reference = os.path.join(d, "long_plain.h5")
    sc.run(simpact, long_config, long_reference)
    sc.assert_identical(long_reference, out, "killed + resumed sweep.pbs vs plain run")
    shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
