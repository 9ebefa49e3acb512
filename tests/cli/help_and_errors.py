#!/usr/bin/env python3
"""Help texts and error lines of the CLI (issue 23 §4): check's tolerance default, simulate's
--pretty and model list, the program name in the usage, exit codes in the help of resolve,
check, simulate and design, analyze --variable (--output a deprecated alias that warns),
resolve -o creating missing folders, a single `input:` prefix, no start banner before a
refusal, "did you mean" for model names and analyze variables, every error of a JSON request.
Usage: help_and_errors.py SIMPACT"""
import json
import os
import subprocess
import sys
import tempfile

SIMPACT = sys.argv[1]
HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.normpath(os.path.join(HERE, "..", "..", "configs", "examples"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from checks import check, finish  # noqa: E402


def run(*args, stdin=None, cwd=None):
    return subprocess.run([SIMPACT, *args], input=stdin, capture_output=True, text=True, timeout=120, cwd=cwd)


def lines(text):
    return [l for l in text.splitlines() if l.strip()]


top = run("--help").stdout
check("Usage: simpact" in top, "the top-level usage names the program")
h = run("check", "--help").stdout
check("default 1e-9, or the rounding" in h, "check --help: the tolerance default as the code applies it")
h = run("simulate", "--help").stdout
pretty = next((l for l in h.splitlines() if "--pretty" in l), "")
check("indent the JSON result" in pretty and ".h5" not in pretty, f"simulate --help: --pretty has its own text ({pretty.strip()!r})")
check("trex" in h, "simulate --help lists trex")
for cmd in ("resolve", "check", "simulate", "design"):
    h = run(cmd, "--help").stdout
    check("Exit codes: 0 ok; 1 runtime failure" in h and "2 input error" in h, f"{cmd} --help gives the exit codes")
h = run("analyze", "--help").stdout
check("--variable" in h and "--output" not in h, "analyze --help: --variable (no --output)")

with tempfile.TemporaryDirectory() as d:
    out = os.path.join(d, "new", "sub", "out.json")
    p = run("resolve", os.path.join(EXAMPLES, "cradle3.json"), "-o", out)
    check(p.returncode == 0 and os.path.isfile(out), f"resolve -o creates missing folders ({p.stderr.strip()!r})")
    p = run("simulate", os.path.join(EXAMPLES, "simulate_cradle.json"), "-o", os.path.join(d, "a", "b.h5"))
    check(p.returncode == 0 and os.path.isfile(os.path.join(d, "a", "b.h5")), "simulate -o x.h5 creates missing folders")
    p = run("resolve", "-", "-o", os.path.join(d, "bad", "out.json"), stdin="{")
    check(p.returncode == 2 and not os.path.exists(os.path.join(d, "bad")), "bad input: no folder, no file")
    p = run("resolve", os.path.join(d, "nonexist.json"))
    check(p.returncode == 2 and p.stderr.count("input:") == 1, f"one input: prefix ({p.stderr.strip()!r})")

    cfg = os.path.join(d, "s.yaml")
    with open(cfg, "w") as fh:
        fh.write("model: ishigami\ndesign:\n  method: saltelli\n  base_samples: 16\n  params:\n"
                 "    x1: {dist: uniform, low: -3, high: 3}\n    x2: {dist: uniform, low: -3, high: 3}\n"
                 "params: {x3: 0}\nsensitivity: {bootstrap: 10}\n")
    res = os.path.join(d, "s.h5")
    p = run("run", cfg, "-o", res, "-q")
    check(p.returncode == 0, f"a small Saltelli sweep runs ({p.stderr.strip()!r})")
    p = run("run", cfg, "-o", res)
    check(p.returncode == 2 and len(lines(p.stderr)) == 1 and "[simpact" not in p.stdout + p.stderr,
          f"refused run (output exists): one line, no start banner ({p.stdout + p.stderr!r})")
    p = run("analyze", res, "--variable", "y", "-q")
    check(p.returncode == 0 and p.stderr == "", f"analyze --variable y ({p.stderr.strip()!r})")
    p = run("analyze", res, "--output", "y", "-q")
    check(p.returncode == 0 and "--output is deprecated: use --variable" in p.stderr, "analyze --output warns, still works")
    p = run("analyze", res, "--variable", "yy")
    check(p.returncode == 2 and "did you mean 'y'?" in p.stderr and "--variable[0]" in p.stderr,
          f"analyze --variable yy: did you mean ({p.stderr.strip()!r})")

p = run("simulate", "-", stdin=json.dumps({"model": "cradel", "dt": 0.001, "steps": 5}))
check(p.returncode == 2 and "did you mean 'cradle'?" in p.stderr, f"simulate: model did you mean ({p.stderr.strip()!r})")
p = run("models", "billiard")
check(p.returncode == 2 and "did you mean 'billiards'?" in p.stderr, f"models NAME: did you mean ({p.stderr.strip()!r})")
p = run("simulate", "-", stdin=json.dumps({"model": "chain", "dt": -1, "steps": -5, "q0": 3}))
got = lines(p.stderr)
check(p.returncode == 2 and len(got) == 3 and all(f in p.stderr for f in ("q0:", "dt:", "steps:")),
      f"simulate: every error of the request, one line each ({got})")
finish()
