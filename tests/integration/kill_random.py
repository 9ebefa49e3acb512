"""Randomized kill test (issue 10): SIGKILL `mpirun -n 2 simpact run --resume` at random moments
of the compute and of the final write, one rank or the whole job, over and over on the same
output; each chain of kills ends with a resume that must give results bit-identical to an
uninterrupted run. A kill counts only if it landed mid-run: the rank processes were alive when
killed, mpirun failed, and the output was left incomplete. Fails unless >= 12 kills landed, some
in the compute and some in the final write.

usage: kill_random.py SIMPACT [SEED]"""
import glob
import os
import random
import signal
import subprocess
import sys
import time

import sweep_common as sc
from sweep_kill_resume import CONFIG, is_complete, job_processes

WANTED = 12
MAX_ATTEMPTS = 45
BUDGET_S = 150


def fail(message):
    sys.exit(f"FAIL: {message}")


def journal_bytes(out):
    return sum(os.path.getsize(f) for f in glob.glob(f"{out}.journal/rank-*.bin"))


def in_final_write(out):
    return bool(glob.glob(f"{out}.journal/staging-final-*"))


def attempt(simpact, config, out, rng):
    """One run with a kill at a random moment; returns (landed, phase, scope)."""
    phase = "final" if rng.random() < 0.35 else "compute"
    scope = "one rank" if rng.random() < 0.5 else "whole job"
    p = subprocess.Popen(sc.command(simpact, config, out, ranks=2, extra=("--resume",)), env=sc.env(1),
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    start = journal_bytes(out)
    grow = rng.randint(1, 8) * 500 * 150  # a few more chunks journaled
    deadline = time.time() + 60
    while p.poll() is None and time.time() < deadline:
        if phase == "final" and in_final_write(out):
            time.sleep(rng.uniform(0.0, 0.08))
            break
        if phase == "compute" and (journal_bytes(out) - start >= grow or in_final_write(out)):
            break
        time.sleep(0.001)
    ranks = job_processes(out)
    final_at_kill = in_final_write(out)
    if p.poll() is not None or not ranks:
        p.wait()
        return False, phase, scope
    try:
        for pid in (ranks if scope == "whole job" else [rng.choice(ranks)]):
            os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    if scope == "whole job":
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    try:
        p.wait(timeout=60)
    except subprocess.TimeoutExpired:
        fail(f"mpirun still running 60 s after killing {scope}")
    t0 = time.time()
    while job_processes(out):
        if time.time() - t0 > 20:
            fail(f"ranks {job_processes(out)} still running 20 s after the kill")
        time.sleep(0.05)
    landed = p.returncode != 0 and not is_complete(out)
    return landed, ("final write" if final_at_kill else "compute"), scope


def main():
    simpact = sys.argv[1]
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else random.SystemRandom().randrange(1 << 30)
    rng = random.Random(seed)
    print(f"seed {seed}")
    d = sc.tempdir()
    config = sc.write_config(CONFIG, d, "sweep.yaml")
    ref = f"{d}/ref.h5"
    sc.run(simpact, config, ref, ranks=2, threads=1)

    t_begin = time.time()
    landed = {"compute": 0, "final write": 0}
    chain, chains, attempts, missed = 0, 0, 0, 0
    out = f"{d}/chain{chains}.h5"
    while attempts < MAX_ATTEMPTS and time.time() - t_begin < BUDGET_S:
        if sum(landed.values()) >= WANTED and landed["final write"] and landed["compute"]:
            break
        attempts += 1
        ok, phase, scope = attempt(simpact, config, out, rng)
        if ok:
            landed[phase] += 1
            chain += 1
            print(f"kill {sum(landed.values())}: {scope} during the {phase}")
            continue
        missed += 1
        if is_complete(out):  # the run finished before the kill: the chain is over
            sc.assert_identical(ref, out, f"chain {chains} ({chain} kills) finished")
            chains += 1
            chain = 0
            out = f"{d}/chain{chains}.h5"
    sc.run(simpact, config, out, ranks=2, threads=1, extra=("--resume",))
    sc.assert_identical(ref, out, f"chain {chains} ({chain} kills) resumed to the end")
    total = sum(landed.values())
    print(f"{total} kills landed ({landed['compute']} in the compute, {landed['final write']} in the final "
          f"write) in {attempts} attempts ({missed} did not land), {chains + 1} chains, all bit-identical, "
          f"{time.time() - t_begin:.0f} s")
    if total < 10 or not landed["compute"] or not landed["final write"]:
        fail(f"not enough kills landed mid-run: {landed} (seed {seed})")


if __name__ == "__main__":
    main()
