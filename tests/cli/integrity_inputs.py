#!/usr/bin/env python3
"""Issue 39, the CLI's inputs end to end on the real program:

* every parameter of every model has a finite range (`models --json`, `models --simulate --json`),
  and a value beyond it is refused in one line naming it, exit 2 (resolve, simulate, run); the
  time-stepped speed that had lost its range (1e200 ran to energy inf/NaN with exit 0);
* MuJoCo's warnings go to stderr (resolve's stdout stays JSON) and no MUJOCO_LOG.TXT is written;
  a non-finite mass, size or position in an MJCF (or a file it includes) is refused naming it;
* `models --json` is valid UTF-8 whatever the MJCF's names hold;
* `-o name.json/` is refused before any folder is created; `simulate` refuses steps 0, t_end 0
  and record.steps out of order or repeated; a mechanism `design` without `place` whose contacts
  do not touch is refused naming `place`;
* a running `simpact run` keeps its name (it re-executes itself: it was "exe" to pgrep and top).

    integrity_inputs.py SIMPACT
Works in its own temporary directory only; exits 1 listing the failed checks.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

FAILED = []
ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
       "OMPI_MCA_rmaps_base_oversubscribe": "1", "OMP_NUM_THREADS": "1"}


def check(cond, what):
    if not cond:
        print("FAIL: " + what)
        FAILED.append(what)
    return cond


def run(args, stdin=None, cwd=None, env=None, timeout=60):
    e = dict(os.environ, **ENV) if env is None else env
    return subprocess.run(args, input=stdin, capture_output=True, cwd=cwd, timeout=timeout, env=e)


def refused(p, label, needles=()):
    """Exit 2, one error line, nothing on stdout, each needle in the line."""
    err = [line for line in p.stderr.decode(errors="replace").splitlines() if line.strip()]
    ok = (p.returncode == 2 and len(err) == 1 and err[0].startswith("simpact: error: ") and not p.stdout
          and all(n in err[0] for n in needles))
    return check(ok, f"{label}: want exit 2, one line with {list(needles)} (got {p.returncode}, {err[:3]}, "
                     f"stdout {p.stdout[:80]!r})")


def strict_json(raw, label):
    try:
        return json.loads(raw.decode("utf-8", errors="strict"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        check(False, f"{label}: not strict UTF-8 JSON: {e}")
        return None


def beyond(p):
    """A value above the parameter's range."""
    return 10.0 * p["max"] if p["max"] > 0 else p["max"] + 1.0


def ranges(s):
    """Every parameter's range finite; a value beyond it refused naming the parameter."""
    impact = strict_json(run([s, "models", "--json"]).stdout, "models --json")
    stepping = strict_json(run([s, "models", "--simulate", "--json"]).stdout, "models --simulate --json")
    if impact is None or stepping is None:
        return
    count = 0
    for doc in (impact, stepping):
        for model, entry in doc.items():
            for p in entry["parameters"]:
                for key in ("min", "max", "time_stepping_min", "time_stepping_max"):
                    if key in p:
                        count += 1
                        check(isinstance(p[key], (int, float)) and abs(p[key]) < 1e300,
                              f"{model}.{p['name']}: {key} = {p[key]!r} is not a finite number")
    check(count > 600, f"ranges walked: {count}")
    cradle_speed = next(p for p in impact["cradle"]["parameters"] if p["name"] == "speed")
    check(cradle_speed.get("time_stepping_max") == 1e6, f"cradle speed's time-stepping range: {cradle_speed}")
    text = run([s, "models", "cradle"]).stdout.decode()
    check("inf" not in text and "time stepping takes speed in [0, 1e+06]" in text, "models cradle: no inf range")

    # Every impact parameter of every impact model, one past its range: resolve says which (the
    # cradle's balls 4..63 are alike: the gtest models.ScenarioRegistry.* checks each in process).
    def sampled(p):
        digits = p["name"][1:]
        return not (digits.isdigit() and 4 <= int(digits) <= 63)

    for model in ("billiards", "cradle", "trex"):
        params = [p for p in impact[model]["parameters"] if p["impact"] and sampled(p)]
        base = {p["name"]: p["max"] for p in params if p["required"] or p["name"] == "n"}  # n: every ball
        for p in params:
            request = {"model": model, "params": dict(base, **{p["name"]: beyond(p)})}
            refused(run([s, "resolve"], json.dumps(request).encode()), f"resolve {model} {p['name']} beyond",
                    (p["name"], "outside the allowed range"))
    # Every time-stepping parameter: simulate says which.
    for model, entry in stepping.items():
        params = entry["parameters"]
        base = {p["name"]: p["max"] for p in params if p["required"]}
        for p in params:
            request = {"model": model, "params": dict(base, **{p["name"]: beyond(p)}), "dt": 1e-3, "steps": 1}
            refused(run([s, "simulate"], json.dumps(request).encode()), f"simulate {model} {p['name']} beyond",
                    (f"params.{p['name']}", "outside the allowed range"))


def speed_regression(s, d):
    """The time-stepped speed: 1e200 in simulate, a time-stepped sweep and Monte Carlo up to 1e300."""
    request = {"model": "cradle", "params": {"speed": 1e200}, "dt": 1e-3, "steps": 10}
    refused(run([s, "simulate"], json.dumps(request).encode()), "simulate cradle speed 1e200", ("params.speed",))
    sweep = ("simulate: {model: cradle, t_end: 0.01, dt: 0.001}\nparams: {n: 3, gap: 0.001}\n"
             "grid:\n  speed: {values: [1.0, 1e200]}\norderings: [argmin]\n")
    mc = ("simulate: {model: billiards, t_end: 0.01, dt: 0.001}\nparams: {theta: 2.0}\n"
          "grid:\n  distance: {values: [0.001]}\norderings: [argmin]\n"
          "monte_carlo:\n  samples_per_point: 4\n  seed: 1\n  params:\n    speed: {dist: uniform, low: 0, high: 1e300}\n")
    for name, text, needle in (("grid", sweep, "speed"), ("monte carlo", mc, "monte_carlo.params.speed")):
        config = os.path.join(d, f"ts_{name.replace(' ', '_')}.yaml")
        with open(config, "w") as f:
            f.write(text)
        out = os.path.join(d, f"ts_{name.replace(' ', '_')}.h5")
        refused(run([s, "run", config, "-o", out, "-q"], cwd=d), f"time-stepped sweep, {name}, speed beyond",
                (needle, "outside the allowed range"))
        check(not os.path.exists(out) and not os.path.exists(out + ".journal"), f"{name}: nothing written")


MJCF = ('<mujoco><worldbody><geom name="floor" type="plane" size="1 1 .1"/>'
        '<body name="b" pos="0 0 1"><joint name="z" type="slide" axis="0 0 1"/>'
        '<geom name="ball" type="sphere" size="0.1" mass="1" {extra}/></body></worldbody></mujoco>')


def mujoco(s, d):
    # A NaN MuJoCo only warns about (a colour): resolve's stdout stays JSON, the warning on stderr.
    with open(os.path.join(d, "warn.xml"), "w") as f:
        f.write(MJCF.format(extra='rgba="nan 1 1 1"'))
    request = {"mechanism": {"file": "warn.xml", "contacts": [["floor", "ball"]]}, "qvel": [-1]}
    p = run([s, "resolve"], json.dumps(request).encode(), cwd=d)
    doc = strict_json(p.stdout, "resolve with a MuJoCo warning")
    check(p.returncode == 0 and doc is not None and doc.get("model") == "warn.xml",
          f"resolve with a MuJoCo warning: exit {p.returncode}, stdout {p.stdout[:120]!r}")
    check(b"simpact: warning: MuJoCo: " in p.stderr, f"MuJoCo's warning on stderr: {p.stderr[:200]!r}")
    check(not os.path.exists(os.path.join(d, "MUJOCO_LOG.TXT")), "no MUJOCO_LOG.TXT in the working directory")

    # Non-finite masses, sizes and positions: refused naming the element, before MuJoCo replaces them.
    cases = [
        ("mass_nan.xml", MJCF.replace('mass="1"', 'mass="nan"').format(extra=""), ("geom 'ball'", 'mass="nan"')),
        ("size_inf.xml", MJCF.replace('size="0.1"', 'size="inf"').format(extra=""), ("geom 'ball'", "size")),
        ("pos_big.xml", MJCF.replace('pos="0 0 1"', 'pos="0 0 1e999"').format(extra=""), ("body 'b'", "pos")),
        ("inertial.xml", MJCF.format(extra="").replace("</body>", '<inertial pos="0 0 0" mass="NaN"/></body>'),
         ("inertial of body 'b'", "mass")),
    ]
    with open(os.path.join(d, "part.xml"), "w") as f:
        f.write('<mujoco><worldbody><body name="inc" pos="0 0 2"><joint name="w" type="slide" axis="0 0 1"/>'
                '<geom name="other" type="sphere" size="0.1" mass="-nan"/></body></worldbody></mujoco>')
    cases.append(("includes.xml", MJCF.format(extra="").replace("</worldbody></mujoco>", "</worldbody>"
                                                                '<include file="part.xml"/></mujoco>'),
                  ("part.xml", "geom 'other'", "mass")))
    for name, text, needles in cases:
        with open(os.path.join(d, name), "w") as f:
            f.write(text)
        request = {"mechanism": {"file": name, "contacts": [["floor", "ball"]]}, "qvel": [-1]}
        refused(run([s, "resolve"], json.dumps(request).encode(), cwd=d), f"resolve {name}",
                ("mechanism.file", "not finite") + needles)
        refused(run([s, "models", name], cwd=d), f"models {name}", ("model.file",) + needles)

    # models --json: names that are not UTF-8 (a Latin-1 file) still make valid UTF-8 JSON.
    with open(os.path.join(d, "latin1.xml"), "wb") as f:
        f.write(MJCF.format(extra="").replace('name="b"', 'name="K\xf6rper\x01"').encode("latin-1"))
    p = run([s, "models", "latin1.xml", "--json"], cwd=d)
    doc = strict_json(p.stdout, "models latin1.xml --json")
    check(p.returncode == 0 and doc is not None and any("K\ufffdrper\x01" == e["name"]
                                                        for e in doc["latin1.xml"]["elements"]),
          f"models latin1.xml --json: exit {p.returncode}, {p.stdout[:200]!r}")


def outputs(s, d):
    examples = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "configs", "examples")
    config = os.path.join(d, "small.yaml")
    with open(config, "w") as f:
        f.write("model: billiards\ngrid:\n  theta: {start: 1.2, stop: pi, num: 3}\n")
    for args in (["resolve", os.path.join(examples, "cradle3.json")],
                 ["check", os.path.join(examples, "check_cradle.json")],
                 ["simulate", os.path.join(examples, "simulate_cradle.json")],
                 ["design", os.path.join(examples, "design_trex.json")],
                 ["run", config], ["merge", config]):
        for target in ("new/name.json/", "new/name.h5/.", "new/.."):
            p = run([s] + args + ["-o", os.path.join(d, target)], cwd=d)
            refused(p, f"{args[0]} -o {target}", ("--output", "must name a file"))
            check(not os.path.exists(os.path.join(d, "new")), f"{args[0]} -o {target}: no folder created")

    bad = [({"model": "chain", "dt": 0.001, "steps": 0}, "steps"),
           ({"model": "chain", "dt": 0.001, "t_end": 0}, "t_end"),
           ({"model": "chain", "dt": 0.001, "steps": 10, "record": {"steps": [5, 3]}}, "record.steps[1]"),
           ({"model": "chain", "dt": 0.001, "steps": 10, "record": {"steps": [2, 2]}}, "record.steps[1]")]
    for request, field in bad:
        refused(run([s, "simulate"], json.dumps(request).encode()), f"simulate {request}", (f"{field}:",))
    ok = run([s, "simulate"], json.dumps({"model": "chain", "dt": 0.001, "steps": 10,
                                          "record": {"steps": [0, 3, 10]}}).encode())
    check(ok.returncode == 0 and [r["step"] for r in json.loads(ok.stdout)["records"]] == [0, 3, 10],
          f"simulate with increasing record.steps: exit {ok.returncode}")

    # design: a mechanism whose contacts do not touch needs `place` (its initial row claimed them closed).
    biped = os.path.join(examples, "..", "..", "examples", "mechanisms", "biped.xml")
    request = {"mechanism": {"file": os.path.abspath(biped), "contacts": [["floor", "foot_l"], ["floor", "foot_r"]]},
               "params": {"qpos.root_z": -0.1, "qpos.knee_l": -0.4, "qpos.knee_r": -0.4, "qpos.hip_l": 0.3,
                          "qpos.hip_r": -0.1},
               "free": {"qpos.root_z": {}, "qpos.root_pitch": {}, "qpos.hip_r": {"min": -1.2, "max": 1.2}}}
    refused(run([s, "design"], json.dumps(request).encode(), timeout=120), "design without place",
            ("place:", "do not touch"))


def process_name(s, d):
    """A running `simpact run` is found by `pgrep -x simpact`, its /proc/PID/comm is simpact."""
    config = os.path.join(d, "long.yaml")
    with open(config, "w") as f:
        f.write("model: billiards\ngrid:\n  theta: {start: 1.2, stop: pi, num: 400000}\n"
                "  psi: {values: [0.0, 0.1]}\n")
    env = dict(os.environ, **ENV)
    env.pop("OMP_WAIT_POLICY", None)  # simpact re-executes itself to set it
    proc = subprocess.Popen([s, "run", config, "-o", os.path.join(d, "long.h5"), "-q"], cwd=d, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline, comm, exec_done = time.monotonic() + 10, "", False
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                exec_done = exec_done or b"OMP_WAIT_POLICY=passive" in open(f"/proc/{proc.pid}/environ", "rb").read()
                comm = open(f"/proc/{proc.pid}/comm").read().strip()
            except OSError:
                pass
            if exec_done and comm == "simpact":
                break
            time.sleep(0.02)
        check(exec_done and comm == "simpact", f"/proc/PID/comm of a running simpact run: {comm!r} "
                                               f"(re-executed: {exec_done}, exit {proc.poll()})")
        if shutil.which("pgrep"):
            found = subprocess.run(["pgrep", "-x", "simpact"], capture_output=True, text=True).stdout.split()
            check(str(proc.pid) in found, f"pgrep -x simpact finds the run: {found} (pid {proc.pid})")
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def main():
    s = os.path.abspath(sys.argv[1])
    d = tempfile.mkdtemp(prefix="simpact-integrity-")
    try:
        for part in (ranges, lambda s: speed_regression(s, d), lambda s: mujoco(s, d), lambda s: outputs(s, d),
                     lambda s: process_name(s, d)):
            part(s)
    finally:
        shutil.rmtree(d, ignore_errors=True)
    print(f"integrity_inputs: {len(FAILED)} failure(s)")
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
