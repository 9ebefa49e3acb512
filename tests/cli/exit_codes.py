#!/usr/bin/env python3
"""The exit-code table of README ("Exit codes"), command by command, on the real program:
0 ok, 1 runtime failure, 2 input error (one line per problem: command line, JSON, YAML),
3 incomplete result, 4 not a simpact result file, 5 `check`: a state not consistent with the
propagative model (one request, or any line of JSON Lines). Also `simpact` alone, `simpact models`,
`run -o` creating its directories, `run --dry-run`, threads per rank, `info --json` with
progress from the journal of a killed sweep, inadmissible grid points under on_task_error.

    exit_codes.py SIMPACT
Works in its own temporary directory only; exits 1 listing the failed checks.
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import h5py

FAILED = []
MPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
           "OMPI_MCA_rmaps_base_oversubscribe": "1", "OMPI_MCA_btl_vader_single_copy_mechanism": "none"}


def check(cond, what):
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        FAILED.append(what)


def env(**extra):
    e = dict(os.environ, **MPI_ENV)
    e.pop("OMP_NUM_THREADS", None)
    e.update(extra)
    return e


def sh(args, stdin=None, cwd=None, **kw):
    return subprocess.run(args, input=stdin, capture_output=True, text=True, cwd=cwd, timeout=120,
                          env=env(**kw))


def expect(p, code, label, lines=None, needles=()):
    err = [line for line in p.stderr.splitlines() if line.strip()]
    ok = p.returncode == code
    if lines is not None:
        ok = ok and len(err) == lines and all(line.startswith("simpact: error: ") for line in err)
    ok = ok and all(n in p.stderr + p.stdout for n in needles)
    check(ok, f"{label}: exit {code}" + (f", {lines} error line(s)" if lines is not None else "")
          + f" (got {p.returncode}; stderr {p.stderr.strip()[:300]!r})")


SMALL = """model: billiards
grid:
  theta: {start: 1.2, stop: pi, num: 17}
"""
BAD = """model: billiards
grid:
  theta: {start: 1.2, stop: pi, nmu: 17}
orderings: [argmn]
"""
# θ from 0.9: below the smallest admissible angle π/3 for the first points
INADMISSIBLE = """model: billiards
grid:
  theta: {{start: 0.9, stop: pi, num: 33}}
on_task_error: {mode}
output: {{samples: true}}
"""
# two Monte Carlo draws together (r_c = 0.7 with r_a = 1.5) make the balls overlap mid-sweep: each
# value alone is admissible, so the preflight (every distribution's extremes, one at a time) passes
FAILING = """model: billiards
grid:
  theta: {start: 1.3, stop: 1.35, num: 20}
monte_carlo:
  samples_per_point: 500
  seed: 5
  params:
    r_c: {dist: choice, values: [1.0, 0.7], weights: [0.9, 0.1]}
    r_a: {dist: choice, values: [1.0, 1.5], weights: [0.9, 0.1]}
"""
BIG = """model: billiards
grid:
  theta: {start: 1.3, stop: pi, num: 64}
monte_carlo:
  samples_per_point: 40000
  seed: 1
  params:
    psi: {dist: uniform, low: -0.2, high: 0.2}
"""
# two axes of 10^8 points: refused from the declared sizes, before either axis is built
HUGE = """model: billiards
grid:
  theta: {start: 1.2, stop: pi, num: 100000000}
  r_c: {start: 0.5, stop: 1, num: 1e8}
"""
# 1.7e16 tasks: centuries of work in over 2^32 chunks
FOREVER = """model: billiards
grid:
  theta: {start: 1.2, stop: pi, num: 17}
monte_carlo:
  samples_per_point: 1000000000000000
  params:
    psi: {dist: uniform, low: -0.2, high: 0.2}
"""


def write(d, name, text):
    path = os.path.join(d, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def main():
    s = os.path.abspath(sys.argv[1])
    d = tempfile.mkdtemp(prefix="simpact_exit_codes_")
    small, bad = write(d, "small.yaml", SMALL), write(d, "bad.yaml", BAD)

    # ---- the program itself ----
    p = sh([s])
    check(p.returncode == 0 and "models" in p.stdout and "run" in p.stdout and "Exit codes" in p.stdout,
          "simpact alone: help listing the commands, exit 0")
    expect(sh([s, "frob"]), 2, "unknown command", 1, ("unknown command 'frob'",))
    expect(sh([s, "--version"]), 0, "--version")
    expect(sh([s, "--frob"]), 2, "unknown option", 1)

    # ---- models ----
    p = sh([s, "models"])
    check(p.returncode == 0 and "billiards" in p.stdout and "cradle" in p.stdout, "models lists the models")
    p = sh([s, "models", "billiards"])
    check(p.returncode == 0 and "theta" in p.stdout and "required" in p.stdout and "rad" in p.stdout,
          "models billiards: parameters with units and required/default")
    p = sh([s, "models", "cradle", "--json"])
    m = json.loads(p.stdout)["cradle"]["parameters"] if p.returncode == 0 else []
    n = next((x for x in m if x["name"] == "n"), {})
    check(n.get("integer") is True and n.get("min") == 2 and n.get("default") == 3, f"models cradle --json: n {n}")
    expect(sh([s, "models", "snooker"]), 2, "models snooker", 1, ("unknown model 'snooker'",))
    # --simulate: the time-stepping catalogue (its trex has the drive and the gait, not the posture solve)
    p = sh([s, "models"])
    check("time-stepping models" in p.stdout and "tree8" in p.stdout, "models points at the time-stepping models")
    p = sh([s, "models", "--simulate", "trex", "--json"])
    m = json.loads(p.stdout)["trex"]["parameters"] if p.returncode == 0 else []
    kv = next((x for x in m if x["name"] == "hip_kv"), {})
    check(kv.get("default") == 1e4 and any(x["name"] == "gait" for x in m), f"models --simulate trex --json: hip_kv {kv}")
    expect(sh([s, "models", "--simulate", "snooker"]), 2, "models --simulate snooker", 1,
           ("unknown model 'snooker' (allowed: ball,",))

    # ---- resolve / check: JSON ----
    good = '{"model": "billiards", "params": {"theta": 2.0944}, "ordering": "all"}'
    expect(sh([s, "resolve"], stdin=good), 0, "resolve")
    expect(sh([s, "resolve"], stdin='{"model": "billiards", "params": {"theta": "x", "r_z": 1}, '
                                    '"ordering": "argmn", "foo": 1}'),
           2, "resolve with four problems", 4, ("foo:", "ordering:", "params.r_z:", "params.theta:"))
    expect(sh([s, "resolve"], stdin='{"mass_matrix": [[1]], "normals": [[1, 2]], "momentum": [1, 2], '
                                    '"minimality": "x"}'),
           2, "resolve raw problem, three problems", 3, ("normals[0]", "momentum", "minimality"))
    expect(sh([s, "resolve"], stdin="{"), 2, "resolve JSON syntax error", 1, ("input: invalid JSON",))
    expect(sh([s, "resolve", os.path.join(d, "missing.json")]), 2, "resolve missing file", 1, ("input: cannot read",))
    # Missing folders are created (as run -o does); a folder that cannot be (a file is in the way) fails.
    blocker = os.path.join(d, "a-file")
    open(blocker, "w").close()
    expect(sh([s, "resolve", "-o", os.path.join(blocker, "x.json")], stdin=good), 1,
           "resolve unwritable output (runtime)", 1)
    expect(sh([s, "resolve", "--frob"]), 2, "resolve bad option", 1)
    chk = '{"model": "billiards", "params": {"theta": 2.0944}, "momentum_after": [0, 0, 0, 0, 0, 0]}'
    # check: exit 5 for a state the propagative model does not allow (all balls stopped), 0 for one
    # it does (the resolve outcome), the report on stdout either way
    p = sh([s, "check"], stdin=chk)
    expect(p, 5, "check of an inconsistent state", 0)
    check(p.returncode == 5 and json.loads(p.stdout)["consistent_with_propagative_model"] is False,
          "check exit 5: the report is written")
    outcome = json.loads(sh([s, "resolve"], stdin=good).stdout)["outcomes"][0]["momentum"]
    consistent = chk.replace("[0, 0, 0, 0, 0, 0]", json.dumps(outcome))
    expect(sh([s, "check"], stdin=consistent), 0, "check of a consistent state", 0)
    # check --jsonl: one request per line, one report per line; 5 if any line is inconsistent
    p = sh([s, "check", "--jsonl"], stdin=consistent + "\n" + consistent + "\n")
    expect(p, 0, "check --jsonl, all consistent", 0)
    check(len(p.stdout.splitlines()) == 2 and all(json.loads(x)["consistent_with_propagative_model"]
                                                 for x in p.stdout.splitlines()), "check --jsonl: two reports")
    jsonl = os.path.join(d, "states.jsonl")
    with open(jsonl, "w") as f:
        f.write(consistent + "\n" + chk + "\n" + consistent + "\n")
    p = sh([s, "check", jsonl])  # .jsonl: JSON Lines without the flag
    expect(p, 5, "check of a .jsonl file with one inconsistent line", 0)
    check([json.loads(x)["consistent_with_propagative_model"] for x in p.stdout.splitlines()] == [True, False, True],
          "check .jsonl: reports in line order")
    p = sh([s, "check", "--jsonl", "-o", os.path.join(d, "bad.jsonl")],
           stdin=consistent + "\n\n" + chk.replace('"momentum_after"', '"momentum_aftr"') + "\n")
    expect(p, 2, "check --jsonl with an empty and a bad line", 3, ("line 2: input: empty line", "line 3: momentum_aftr"))
    check(not os.path.exists(os.path.join(d, "bad.jsonl")), "check --jsonl with a bad line: no output file")
    expect(sh([s, "check", "--jsonl", "--pretty"], stdin=chk), 2, "check --jsonl --pretty", 1, ("--pretty",))
    expect(sh([s, "check", "--jsonl"], stdin=""), 2, "check --jsonl of nothing", 1, ("no check request",))
    expect(sh([s, "check"], stdin='{"model": "billiards", "params": {"theta": 2.0944}, "tolerance": 2}'),
           2, "check with two problems", 2, ("momentum_after", "tolerance"))
    # a nonzero number below the doubles is not 0 (it was: no_impact, exit 0)
    expect(sh([s, "resolve"], stdin='{"mass_matrix": [[1]], "normals": [[1]], "momentum": [1e-999]}'), 2,
           "resolve momentum 1e-999", 1, ("momentum[0]: number underflow",))
    # check: resolve's magnitude range (1e200 was exit 0 with energy_after null, impulses [0, 0])
    expect(sh([s, "check"], stdin=chk.replace("[0, 0, 0, 0, 0, 0]", "[1e200, 0, 0, 0, 0, 0]")), 2,
           "check momentum_after 1e200", 1, ("momentum_after[0]", "magnitude range"))
    out_json = os.path.join(d, "r.json")
    expect(sh([s, "resolve", "-o", ""], stdin=good), 2, 'resolve -o ""', 1, ("--output: must not be empty",))
    expect(sh([s, "resolve", "-o", out_json], stdin='{"mass_matrix": [[1]], "normals": [[1]], "momentum": [1e-999]}'),
           2, "resolve -o with a bad request", 1)
    check(not os.path.exists(out_json), "bad request: no output file")

    # ---- design ----
    expect(sh([s, "design"], stdin='{"model": "trex", "design": {"r1": 1e300}}'), 2, "design r1 = 1e300", 1,
           ("design.r1: must be a length in",))

    # ---- run ----
    expect(sh([s, "run"]), 2, "run without config", 1)
    expect(sh([s, "run", small, "--frob"]), 2, "run unknown option", 1)
    expect(sh([s, "run", small, "--log-level", "loud"]), 2, "run bad --log-level", 1)
    expect(sh([s, "run", bad, "-o", os.path.join(d, "bad.h5")]), 2, "run config with three problems", 3,
           ("grid.theta.nmu", "orderings[0]"))
    check(not os.path.exists(os.path.join(d, "bad.h5")), "bad config: no output file")
    expect(sh([s, "run", os.path.join(d, "nope.yaml")]), 2, "run missing config", 1)
    expect(sh([s, "run", small, "--shard", "5/2", "-o", os.path.join(d, "x.h5")]), 2, "run bad --shard", 1)
    # numeric flags that accepted nonsense: one line naming the flag, nothing written
    expect(sh([s, "run", small, "--shard", "0/99999999999999999999", "-o", os.path.join(d, "x.h5")]), 2,
           "run --shard N beyond int64 (was clamped)", 1, ("--shard:",))
    expect(sh([s, "run", small, "--progress-interval", "nan", "-o", os.path.join(d, "x.h5")]), 2,
           "run --progress-interval nan", 1, ("--progress-interval:",))
    expect(sh([s, "run", small, "-o", ""], cwd=d), 2, 'run -o ""', 1, ("--output: must not be empty",))
    check(not os.path.exists(os.path.join(d, "x.h5")) and not os.path.exists(os.path.join(d, "results")),
          "bad flags: no output file")
    huge = write(d, "huge.yaml", HUGE)
    t0 = time.time()
    expect(sh([s, "run", huge, "-o", os.path.join(d, "huge.h5")]), 2, "run 1e8 x 1e8 grid", 1, ("grid:", "2^40"))
    check(time.time() - t0 < 5, f"the 1e8 x 1e8 grid is refused before it is built ({time.time() - t0:.1f} s)")
    forever = write(d, "forever.yaml", FOREVER)
    p = sh([s, "run", forever, "--dry-run", "-o", os.path.join(d, "forever.h5")])
    check(p.returncode == 0 and "warning: the estimate exceeds a year" in p.stdout
          and "more than the journal indexes" in p.stdout, f"run --dry-run warns of centuries and chunks ({p.stdout[-300:]!r})")
    expect(sh([s, "run", forever, "-o", os.path.join(d, "forever.h5")]), 2, "run of more chunks than the journal indexes",
           1, ("raise output.chunk_size",))
    check(not os.path.exists(os.path.join(d, "forever.h5")) and not os.path.exists(os.path.join(d, "forever.h5.journal")),
          "refused run: no output file, no journal")
    out = os.path.join(d, "new", "deeper", "small.h5")
    p = sh([s, "run", small, "-o", out, "-q"], cwd=d)
    check(p.returncode == 0 and os.path.exists(out), f"run -o creates parent directories ({p.stderr.strip()})")
    expect(sh([s, "run", small, "-o", out]), 2, "run onto an existing output", 1, ("already exists",))
    p = sh([s, "run", small, "--dry-run", "-o", os.path.join(d, "dry", "x.h5")], cwd=d)
    check(p.returncode == 0 and "tasks: 17" in p.stdout and "estimated compute time" in p.stdout
          and "journal" in p.stdout and not os.path.exists(os.path.join(d, "dry"))
          and not os.path.exists(os.path.join(d, "results")), f"run --dry-run writes nothing ({p.stdout[:200]!r})")
    check("warning" not in p.stdout, "run --dry-run of a small sweep: no warning")
    abort = write(d, "inadmissible_abort.yaml", INADMISSIBLE.format(mode="abort"))
    expect(sh([s, "run", abort, "-o", os.path.join(d, "ia.h5")]), 2, "inadmissible grid point, abort", 1,
           ("below the smallest admissible angle",))
    record = write(d, "inadmissible_record.yaml", INADMISSIBLE.format(mode="record"))
    rec = os.path.join(d, "ir.h5")
    p = sh([s, "run", record, "-o", rec])
    check(p.returncode == 0, f"inadmissible grid points, record: exit 0 ({p.stderr.strip()[:200]})")
    if p.returncode == 0:
        with h5py.File(rec, "r") as f:
            theta, xi, status = f["grid/theta"][:], f["xi"][:], f["samples/status"][:]
        below = theta < 3.14159265358979 / 3 * (1 - 1e-12)
        n_below = int(below.sum())
        check(n_below > 0 and (status[below] == 4).all() and (status[~below] != 4).all()
              and all(x != x for x in xi[below]) and all(x == x for x in xi[~below]),
              f"inadmissible points recorded: {n_below} with status 4 and NaN xi, the others computed")
        check(f"{n_below} inadmissible grid points" in p.stdout + p.stderr, f"summary says how many ({n_below})")

    failing = write(d, "failing.yaml", FAILING)
    p = sh([s, "run", failing, "-o", os.path.join(d, "failing.h5"), "-q"], OMP_NUM_THREADS="1")
    check(p.returncode == 3 and "failed (" in p.stderr, f"run with a failing task (abort): exit 3 (got {p.returncode})")

    # ---- info ----
    expect(sh([s, "info", out]), 0, "info complete")
    p = sh([s, "info", out, "--json"])
    j = json.loads(p.stdout) if p.returncode == 0 else {}
    check(j.get("status") == "complete" and j.get("tasks_done") == 17 and j.get("replicas") == 1
          and j["provenance"][0]["tasks_done"] == 17, f"info --json of a complete file ({str(j)[:200]})")
    expect(sh([s, "info", os.path.join(d, "missing.h5")]), 2, "info missing file", 1)
    write(d, "text.h5", "not hdf5\n")
    expect(sh([s, "info", os.path.join(d, "text.h5")]), 4, "info non-HDF5 file", None, ("not a simpact result",))
    other = os.path.join(d, "other.h5")
    with h5py.File(other, "w") as f:
        f["x"] = [1, 2, 3]
    expect(sh([s, "info", other]), 4, "info HDF5 file of another program", None, ("not a simpact result",))
    expect(sh([s, "info", other, "--json"]), 4, "info --json of another program's file", None, ('"not_simpact"',))

    # a killed sweep: progress from the journal
    big = write(d, "big.yaml", BIG)
    killed = os.path.join(d, "killed.h5")
    proc = subprocess.Popen([s, "run", big, "-o", killed, "-q"], env=env(OMP_NUM_THREADS="1"),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    journal = killed + ".journal"
    deadline = time.time() + 60
    while time.time() < deadline and proc.poll() is None:
        size = sum(os.path.getsize(os.path.join(journal, f)) for f in os.listdir(journal)
                   if f.startswith("rank-")) if os.path.isdir(journal) else 0
        if size > 3000:  # a few chunks: the journal holds partial statistics, ~0.9 kB per chunk
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    p = sh([s, "info", killed, "--json"])
    j = json.loads(p.stdout) if p.stdout.strip() else {}
    check(p.returncode == 3 and j.get("status") == "incomplete" and 0 < j.get("tasks_done", 0) < j.get("tasks", 0),
          f"info --json of a killed sweep: exit 3, progress from the journal "
          f"({j.get('tasks_done')}/{j.get('tasks')}, {j.get('progress_percent', 0):.1f}%)")
    p = sh([s, "info", killed])
    check(p.returncode == 3 and "from the journal" in p.stdout, "info of a killed sweep (text)")
    at_kill = j.get("tasks_done", 0)
    # the same journal, as if started by another build: not mixed in
    other_build = os.path.join(d, "other_build.h5")
    shutil.copytree(journal, other_build + ".journal")
    if os.path.exists(killed):
        shutil.copy(killed, other_build)
    manifest = os.path.join(other_build + ".journal", "manifest")
    with open(manifest) as f:
        text = f.read()
    check(re.search(r"\nbuild \S+ git \S+ flags ", text) is not None, f"journal manifest records the build ({text!r})")
    with open(manifest, "w") as f:
        f.write(re.sub(r"\nbuild [^\n]*", "\nbuild 0.0.1 git 000000000000 flags other", text))
    expect(sh([s, "run", big, "-o", other_build, "--resume", "-q"]), 2, "--resume of another build's journal", 1,
           ("another simpact build (0.0.1 git 000000000000 flags other;",))
    p = sh([s, "run", big, "-o", killed, "--resume", "-q"], OMP_NUM_THREADS="2")
    j = json.loads(sh([s, "info", killed, "--json"]).stdout or "{}")
    rows = j.get("provenance", [])
    check(p.returncode == 0 and len(rows) == 2 and rows[0]["end"] == "" and rows[0]["tasks_done"] == at_kill
          and rows[1]["tasks_done"] == j["tasks"] - at_kill,
          f"provenance of the killed run records the {at_kill} tasks it finished "
          f"({[(r['tasks_done'], r['end'] != '') for r in rows]})")

    # ---- merge ----
    shards = []
    for i in range(3):
        shard = os.path.join(d, f"shard{i}.h5")
        sh([s, "run", small, "-o", shard, "-q", "--shard", f"{i}/3"], OMP_NUM_THREADS="1")
        shards.append(shard)
    expect(sh([s, "merge", shards[1], "-o", os.path.join(d, "m.h5")]), 2, "merge with two shards missing", 1,
           ("missing shard(s) 0/3, 2/3",))
    expect(sh([s, "merge", os.path.join(d, "none.h5"), "-o", os.path.join(d, "m.h5")]), 2, "merge nonexistent shard", 1)
    expect(sh([s, "merge", os.path.join(d, "text.h5"), "-o", os.path.join(d, "m.h5")]), 2, "merge of a text file", 1,
           ("not a shard file",))
    expect(sh([s, "merge", other, "-o", os.path.join(d, "m.h5")]), 2, "merge of another program's HDF5 file", 1,
           ("not a shard file",))
    check(not os.path.exists(os.path.join(d, "m.h5")), "refused merges: no output file")
    expect(sh([s, "merge", *shards, "-o", os.path.join(d, "m.h5"), "-q"]), 0, "merge")

    # ---- analyze: flags checked before the file ----
    expect(sh([s, "analyze", out, "--confidence", "nan"]), 2, "analyze --confidence nan (was ignored)", 1,
           ("--confidence:",))
    expect(sh([s, "analyze", out, "--seed", str(2 ** 64)]), 2, "analyze --seed 2^64 (was stored as -1)", 1,
           ("--seed:",))

    # ---- threads per rank ----
    cores = len(os.sched_getaffinity(0))
    p = sh(["mpirun", "-n", "2", s, "run", small, "-o", os.path.join(d, "t2.h5"), "-q"])
    with h5py.File(os.path.join(d, "t2.h5"), "r") as f:
        threads = int(f["provenance"][0]["threads"])
    check(p.returncode == 0 and 1 <= threads and 2 * threads <= max(cores, 2),
          f"mpirun -n 2: {threads} thread(s) per rank on {cores} core(s)")
    p = sh([s, "run", small, "-o", os.path.join(d, "t3.h5"), "-q"], OMP_NUM_THREADS=str(cores + 1))
    with h5py.File(os.path.join(d, "t3.h5"), "r") as f:
        threads = int(f["provenance"][0]["threads"])
    check(threads == cores + 1 and (p.stdout + p.stderr).count("oversubscribed") == 1,
          f"OMP_NUM_THREADS={cores + 1} honoured ({threads}) with one warning ({(p.stdout + p.stderr).strip()[:120]!r})")

    if FAILED:
        sys.exit(f"{len(FAILED)} check(s) failed")


if __name__ == "__main__":
    main()
