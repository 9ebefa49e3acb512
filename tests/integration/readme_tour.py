#!/usr/bin/env python3
"""Replays README.md's "Quick tour" line by line, in order, in a fresh copy of the repository (the
tracked files only: no build/, no results/), with `build/simpact` pointing at the binary under
test, then "Your own mechanism" the same way, then runs the "Reading results" Python snippet. Skipped, and only these: the cluster
submission lines of step 5 (`sbatch`, `qsub`, `jobs/slurm/submit_sharded.sh`), which need a
cluster (tests/jobs runs the job files for real). A `python3` that is not Debian's (one without
numpy) is put first on PATH, as on a machine with pyenv: the scripts must not depend on it.

    readme_tour.py SIMPACT REPO_ROOT
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

CLUSTER = ("sbatch ", "qsub ", "jobs/slurm/submit_sharded.sh ")


def fresh_copy(root, dest):
    try:
        files = subprocess.run(["git", "-C", root, "ls-files", "-z"], capture_output=True, check=True).stdout
        names = [n for n in files.decode().split("\0") if n]
    except (OSError, subprocess.CalledProcessError):
        names = None
    if not names:  # not a git checkout (an exported tarball): everything but build outputs
        shutil.copytree(root, dest, ignore=shutil.ignore_patterns("build*", "results", ".git"))
        return
    for name in names:
        src = os.path.join(root, name)
        if not os.path.isfile(src):
            continue
        os.makedirs(os.path.dirname(os.path.join(dest, name)), exist_ok=True)
        shutil.copy2(src, os.path.join(dest, name))


def block(text, heading, lang):
    start = text.index(heading)
    m = re.compile(r"```" + lang + r"\n(.*?)```", re.S).search(text, start)
    return m.group(1)


def main():
    simpact, root = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    tmp = tempfile.mkdtemp(prefix="simpact_tour_")
    clone = os.path.join(tmp, "simpact")
    fresh_copy(root, clone)
    os.makedirs(os.path.join(clone, "build"))
    os.symlink(simpact, os.path.join(clone, "build", "simpact"))
    fake = os.path.join(tmp, "fakebin")
    os.makedirs(fake)
    with open(os.path.join(fake, "python3"), "w") as f:
        f.write("#!/bin/sh\necho 'ModuleNotFoundError: No module named numpy (not Debian python3)' >&2\nexit 1\n")
    os.chmod(os.path.join(fake, "python3"), 0o755)
    env = dict(os.environ, PATH=fake + os.pathsep + os.environ.get("PATH", ""), MPLBACKEND="Agg",
               OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1", OMPI_MCA_btl_vader_single_copy_mechanism="none")
    env.pop("OMP_NUM_THREADS", None)
    with open(os.path.join(clone, "README.md")) as f:
        readme = f.read()
    failed = []
    ran = skipped = 0
    lines = block(readme, "## Quick tour", "bash").splitlines()
    lines += block(readme, "## Your own mechanism", "bash").splitlines()
    for line in lines:
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith(CLUSTER):
            print(f"skipped (cluster submission): {line}")
            skipped += 1
            continue
        t0 = time.time()
        p = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", line], cwd=clone, env=env,
                           capture_output=True, text=True, timeout=120)
        ran += 1
        # `simpact check` of the example whose _comment says "(exit 5)": the documented verdict
        # "not consistent with the propagative model" (README "Exit codes"), with its report
        expected = 5 if "simpact check configs/examples/check_cradle.json" in line else 0
        ok = p.returncode == expected and (expected == 0 or '"consistent_with_propagative_model": false' in p.stdout)
        status = "ok" if ok else f"FAIL (exit {p.returncode})"
        print(f"{status}: {line}  [{time.time() - t0:.1f} s]")
        if not ok:
            print(p.stdout[-2000:] + p.stderr[-2000:])
            failed.append(line)
    for made in ("results/billiards_theta.h5", "results/billiards_map.h5", "results/fig5.png",
                 "results/billiards_map.png", "results/cradle_energy.png", "results/billiards_map.html",
                 "results/biped_touchdown.h5", "results/biped_touchdown.png"):
        if not os.path.isfile(os.path.join(clone, made)) or os.path.getsize(os.path.join(clone, made)) == 0:
            print(f"FAIL: the tour did not make {made}")
            failed.append(made)
    snippet = block(readme, "### Reading results", "python")
    p = subprocess.run(["/usr/bin/python3", "-c", snippet], cwd=clone, env=env, capture_output=True, text=True,
                       timeout=120)
    print(("ok" if p.returncode == 0 else f"FAIL (exit {p.returncode})") + ": the Reading results snippet")
    if p.returncode != 0:
        print(p.stderr[-3000:])
        failed.append("Reading results snippet")
    print(f"{ran} tour lines run, {skipped} cluster lines skipped")
    if ran < 10 or skipped > 3:
        failed.append(f"unexpected tour size: {ran} run, {skipped} skipped")
    if failed:
        sys.exit(f"{len(failed)} failure(s): {failed}")
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
