#!/usr/bin/env python3
"""End-to-end tests of `simpact resolve` and `simpact check`, running the real program.

    python3 tests/cli/cli_roundtrip.py build/simpact configs/examples

Checks the paper's reference results through the command line (Newton's cradle, the eq. (15)
reversal, the billiards break at theta = pi/2 and 2pi/3), stdin/file input, -o output, the check
report, every example in configs/examples, and that each class of bad input exits non-zero with
exactly one stderr line naming the field and writes no output file.
"""
import json
import math
import os
import shlex
import subprocess
import sys
import tempfile

SIMPACT = None
FAILURES = []

CRADLE = {
    "mass_matrix": [[1, 0, 0], [0, 1, 0], [0, 0, 1]],
    "normals": [[-1, 1, 0], [0, -1, 1]],
    "momentum": [1, 0, 0],
    "restitution": 1.0,
    "ordering": "all",
}


def check(condition, what):
    if not condition:
        FAILURES.append(what)
        print("FAIL:", what, file=sys.stderr)


def run(args, stdin=None):
    proc = subprocess.run([SIMPACT] + args, input=stdin, capture_output=True, text=True, timeout=60)
    return proc.returncode, proc.stdout, proc.stderr


def resolve(doc, *extra):
    rc, out, err = run(["resolve", "-"] + list(extra), json.dumps(doc))
    check(rc == 0, f"resolve exit 0 (got {rc}: {err.strip()})")
    return json.loads(out) if rc == 0 else {}


def close(a, b, tol=1e-12):
    return len(a) == len(b) and all(abs(x - y) <= tol for x, y in zip(a, b))


def with_(doc, **changes):
    out = dict(doc)
    for key, value in changes.items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = value
    return out


def test_cradle():
    out = resolve(CRADLE)
    outcomes = out.get("outcomes", [])
    check(len(outcomes) == 1, f"cradle: one outcome (got {len(outcomes)})")
    if outcomes:
        check(close(outcomes[0]["momentum"], [0, 0, 1]), f"cradle: p+ = [0,0,1] (got {outcomes[0]['momentum']})")
    check(out.get("unique") is True, "cradle: unique")
    check(out.get("dihedral_m") == 3, "cradle: dihedral_m = 3")
    check(abs(out["gram"][0][1] + 0.5) < 1e-12, "cradle: G_12 = -1/2")


def test_reversal():
    # Outer balls moving inwards violate both contacts: eq. (15), p+ = p- . antidiag, both orders.
    out = resolve(with_(CRADLE, momentum=None, velocity=[1, 0, -1]))
    outcomes = out.get("outcomes", [])
    check(len(outcomes) == 1, "reversal: one outcome")
    if outcomes:
        check(close(outcomes[0]["momentum"], [-1, 0, 1]), f"reversal: p+ = [-1,0,1] (got {outcomes[0]['momentum']})")
        check(sorted(outcomes[0]["sequences"]) == [[0, 1, 0], [1, 0, 1]], "reversal: both orders reach it")
    for policy in ("argmin", "argmax", "index", "reverse", "random"):
        single = resolve(with_(CRADLE, momentum=None, velocity=[1, 0, -1], ordering=policy, seed=7))
        check(len(single.get("outcomes", [])) == 1 and close(single["outcomes"][0]["momentum"], [-1, 0, 1]),
              f"reversal with ordering {policy}")
        check(single.get("xi", 0) is None, f"ordering {policy}: xi is null (NaN)")


def test_billiards():
    right = resolve({"model": "billiards", "params": {"theta": math.pi / 2}, "ordering": "all"})
    check(right.get("xi") is not None and right["xi"] <= 1e-12, f"billiards pi/2: xi <= 1e-12 (got {right.get('xi')})")
    wide = resolve({"model": "billiards", "params": {"theta": 2 * math.pi / 3}, "ordering": "all"})
    check(wide.get("xi") is not None and wide["xi"] > 1e-3, f"billiards 2pi/3: xi > 1e-3 (got {wide.get('xi')})")


def test_inputs_and_outputs(tmp):
    text = json.dumps(CRADLE)
    path = os.path.join(tmp, "cradle.json")
    with open(path, "w") as f:
        f.write(text)
    rc_file, out_file, _ = run(["resolve", path])
    rc_stdin, out_stdin, _ = run(["resolve"], text)
    rc_dash, out_dash, _ = run(["resolve", "-"], text)
    check(rc_file == rc_stdin == rc_dash == 0, "file, absent and '-' input all succeed")
    check(out_file == out_stdin == out_dash, "file and stdin input give the same output")
    target = os.path.join(tmp, "result.json")
    rc, out, _ = run(["resolve", path, "-o", target, "--pretty"])
    check(rc == 0 and out == "", "-o: exit 0, nothing on stdout")
    with open(target) as f:
        written = f.read()
    check(json.loads(written) == json.loads(out_file), "-o file holds the same document")
    check(written.count("\n") > 10, "--pretty indents")
    check(sorted(os.listdir(tmp)) == ["cradle.json", "result.json"], "no temporary files left beside -o")


def test_check(tmp):
    resolved = resolve(CRADLE)
    after = resolved["outcomes"][0]["momentum"]
    rc, out, err = run(["check", "-"], json.dumps(with_(CRADLE, momentum_after=after)))
    check(rc == 0, f"check exit 0 ({err.strip()})")
    report = json.loads(out)
    check(report["distance_to_nearest_outcome"] == 0, "check of the resolve outcome: distance 0")
    check(report["consistent_with_propagative_model"] is True, "check of the resolve outcome: consistent")
    check(report["feasibility_violations"] == [], "check of the resolve outcome: feasible")

    # Ball 2 leaving at speed 2 into ball 3: energy gained, contact 1 violated.
    rc, out, err = run(["check"], json.dumps(with_(CRADLE, momentum_after=[0, 2, 0])))
    check(rc == 5, f"check (bad state) exit 5 ({err.strip()})")
    report = json.loads(out)
    check(report["consistent_with_propagative_model"] is False, "bad state: not consistent")
    check(abs(report["relative_energy_error"] - 3.0) < 1e-12, "bad state: relative energy error 3")
    check([v["contact"] for v in report["feasibility_violations"]] == [1], "bad state: contact 1 violated")
    check(report["max_feasibility_violation"] > 1.0, "bad state: max violation reported")

    # velocity_after through a file and -o.
    path = os.path.join(tmp, "check.json")
    with open(path, "w") as f:
        json.dump(with_(CRADLE, velocity_after=[0, 0, 1]), f)
    target = os.path.join(tmp, "report.json")
    rc, _, err = run(["check", path, "-o", target])
    check(rc == 0 and json.load(open(target))["consistent_with_propagative_model"] is True, "check from a file to -o")


def test_examples(examples):
    """Every example runs with the command its _comment names, from the repository root."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(examples)))
    names = sorted(n for n in os.listdir(examples) if n.endswith(".json"))
    check(len(names) >= 3, "configs/examples holds the examples")
    for name in names:
        with open(os.path.join(examples, name)) as f:
            doc = json.load(f)
        command = shlex.split(doc.get("_comment", ""), comments=True)
        check(command[:1] == ["simpact"] and command[1] in ("resolve", "check", "simulate", "design"),
              f"{name}: _comment starts with the command that runs it")
        if command[:1] != ["simpact"]:
            continue
        proc = subprocess.run([SIMPACT] + command[1:], cwd=root, capture_output=True, text=True, timeout=60)
        code = 5 if "(exit 5)" in doc.get("_comment", "") else 0  # check of an inconsistent state
        check(proc.returncode == code, f"{name}: runs, exit {code} ({proc.returncode}: {proc.stderr.strip()})")
        if proc.returncode == code:
            json.loads(proc.stdout)


# (label, command, document or raw text, field the one-line error must name)
ERRORS = [
    ("missing field", "resolve", with_(CRADLE, mass_matrix=None), "mass_matrix"),
    ("missing momentum", "resolve", with_(CRADLE, momentum=None), "momentum"),
    ("wrong type", "resolve", with_(CRADLE, restitution="elastic"), "restitution"),
    ("ragged rows", "resolve", with_(CRADLE, mass_matrix=[[1, 0, 0], [0, 1], [0, 0, 1]]), "mass_matrix[1]"),
    ("d mismatch", "resolve", with_(CRADLE, normals=[[-1, 1, 0], [0, -1]]), "normals[1]"),
    ("momentum length", "resolve", with_(CRADLE, momentum=[1, 0]), "momentum"),
    ("non-SPD M", "resolve", with_(CRADLE, mass_matrix=[[1, 2, 0], [2, 1, 0], [0, 0, 1]]), "mass_matrix"),
    ("non-symmetric M", "resolve", with_(CRADLE, mass_matrix=[[1, 0.5, 0], [0, 1, 0], [0, 0, 1]]), "mass_matrix"),
    ("zero normal", "resolve", with_(CRADLE, normals=[[-1, 1, 0], [0, 0, 0]]), "normals[1]"),
    ("NaN as string", "resolve", with_(CRADLE, momentum=["NaN", 0, 0]), "momentum[0]"),
    ("Infinity as string", "resolve", with_(CRADLE, mass_matrix=[["Infinity", 0, 0], [0, 1, 0], [0, 0, 1]]),
     "mass_matrix[0][0]"),
    ("restitution 1.5", "resolve", with_(CRADLE, restitution=1.5), "restitution"),
    ("unknown ordering", "resolve", with_(CRADLE, ordering="argmn"), "ordering"),
    ("unknown model", "resolve", {"model": "biliards", "params": {"theta": 2}}, "model"),
    ("unknown parameter", "resolve", {"model": "billiards", "params": {"thet": 2}}, "params.thet"),
    ("parameter range", "resolve", {"model": "billiards", "params": {"theta": 4}}, "params.theta"),
    ("invalid JSON", "resolve", '{"mass_matrix": [[1]], "normals": [[1]],', "input"),
    ("NaN token", "resolve", '{"mass_matrix": [[1]], "normals": [[1]], "momentum": [NaN]}', "input"),
    ("empty input", "resolve", "", "input"),
    ("unknown key", "resolve", with_(CRADLE, normal=[[1, 0, 0]]), "normal"),
    ("duplicate key", "resolve", '{"mass_matrix": [[1]], "normals": [[1]], "momentum": [1], "momentum": [2]}',
     "momentum"),
    ("bad limit", "resolve", with_(CRADLE, limits={"max_depth": 0}), "limits.max_depth"),
    ("check key in resolve", "resolve", with_(CRADLE, momentum_after=[0, 0, 1]), "momentum_after"),
    ("check: missing after-state", "check", CRADLE, "momentum_after"),
    ("check: after-state length", "check", with_(CRADLE, velocity_after=[0, 1]), "velocity_after"),
    ("check: zero normal", "check", with_(CRADLE, normals=[[0, 0, 0], [0, -1, 1]], momentum_after=[0, 0, 1]),
     "normals[0]"),
]


def test_errors(tmp):
    for label, command, doc, field in ERRORS:
        text = doc if isinstance(doc, str) else json.dumps(doc)
        path = os.path.join(tmp, "bad.json")
        with open(path, "w") as f:
            f.write(text)
        target = os.path.join(tmp, "should_not_exist.json")
        for args, stdin in (([command, path, "-o", target], None), ([command, "-o", target], text)):
            rc, out, err = run(args, stdin)
            lines = err.splitlines()
            check(rc != 0, f"{label}: non-zero exit")
            check(len(lines) == 1, f"{label}: exactly one stderr line (got {lines})")
            check(bool(lines) and lines[0].startswith(f"simpact: error: {field}: "),
                  f"{label}: the line names '{field}' (got {lines})")
            check(out == "", f"{label}: nothing on stdout")
            check(not os.path.exists(target), f"{label}: no output file written")
    # An existing output file is left untouched by a failed run.
    target = os.path.join(tmp, "keep.json")
    with open(target, "w") as f:
        f.write("old")
    rc, _, _ = run(["resolve", "-o", target], json.dumps(with_(CRADLE, restitution=1.5)))
    check(rc != 0 and open(target).read() == "old", "a failed run leaves an existing -o file untouched")
    rc, _, err = run(["resolve", os.path.join(tmp, "no_such_file.json")])
    check(rc != 0 and len(err.splitlines()) == 1 and "no_such_file.json" in err, "unreadable input: one line naming the file")


def test_help():
    for command in ("resolve", "check"):
        rc, out, _ = run([command, "--help"])
        check(rc == 0, f"{command} --help exits 0")
        check("--output" in out and "--pretty" in out, f"{command} --help lists the options")


def main():
    global SIMPACT
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    SIMPACT = os.path.abspath(sys.argv[1])
    examples = os.path.abspath(sys.argv[2])
    test_cradle()
    test_reversal()
    test_billiards()
    test_help()
    test_examples(examples)
    for test in (test_inputs_and_outputs, test_check, test_errors):
        with tempfile.TemporaryDirectory(prefix="simpact_cli_") as tmp:
            test(tmp)
    if FAILURES:
        print(f"{len(FAILURES)} check(s) failed", file=sys.stderr)
        return 1
    print("all CLI checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
