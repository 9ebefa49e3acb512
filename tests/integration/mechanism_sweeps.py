"""Mechanisms from MJCF files end to end (the real `simpact` program):
* the biped touchdown sweep (examples/mechanisms/biped.xml, a path relative to the config's own
  folder) is bit-identical at 1 and 2 ranks x 1 and 2 threads, and after a SIGKILL + --resume;
* `resolve` of the MJCF cradle reproduces the built-in cradle's answer;
* every bad input of the mechanisms issue gets exit 2, one line naming the field, no output file.

usage: mechanism_sweeps.py SIMPACT"""
import json
import os
import shutil
import signal
import subprocess
import sys
import time

import sweep_common as sc

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIPED = os.path.join(ROOT, "examples", "mechanisms", "biped.xml")
CRADLE = os.path.join(ROOT, "examples", "mechanisms", "cradle3.xml")

SWEEP = """model:
  file: robots/biped.xml
  contacts: [[floor, foot_l], [floor, foot_r]]
  place: [qpos.root_z, qpos.root_pitch]
params: {{qpos.root_z: -0.1, qpos.knee_l: -0.4, qpos.knee_r: -0.4, qvel.root_z: -1.0}}
grid:
  qpos.hip_l: {{start: -0.6, stop: 0.6, num: {num}}}
  qpos.hip_r: {{start: -0.55, stop: 0.65, num: {num}}}
monte_carlo:
  samples_per_point: {samples}
  seed: 7
  params:
    qvel.root_x: {{dist: uniform, low: 0.0, high: 1.0}}
    restitution: {{dist: uniform, low: 0.0, high: 1.0}}
orderings: [all, argmin, argmax]
on_task_error: record
output: {{samples: {rows}, chunk_size: 400}}
"""


def fail(message):
    sys.exit(f"FAIL: {message}")


def run_cli(simpact, args, stdin=None, cwd=None):
    return subprocess.run([simpact, *args], input=stdin, capture_output=True, text=True, timeout=120,
                          cwd=cwd, env=sc.env(1))


def determinism(simpact, d):
    config = sc.write_config(SWEEP.format(num=13, samples=6, rows="true"), d, "biped.yaml")
    ref = os.path.join(d, "ref.h5")
    sc.run(simpact, config, ref, ranks=0, threads=1)
    for ranks, threads in ((0, 2), (2, 1), (2, 2)):
        out = os.path.join(d, f"r{ranks}t{threads}.h5")
        sc.run(simpact, config, out, ranks=ranks, threads=threads)
        sc.assert_identical(ref, out, f"biped sweep at {max(ranks, 1)} rank(s) x {threads} thread(s)")


def kill_resume(simpact, d):
    config = sc.write_config(SWEEP.format(num=25, samples=150, rows="false"), d, "biped_long.yaml")
    ref = os.path.join(d, "long_ref.h5")
    start = time.time()
    sc.run(simpact, config, ref, threads=1)
    full = time.time() - start
    out = os.path.join(d, "long_killed.h5")
    p = subprocess.Popen(sc.command(simpact, config, out), env=sc.env(1), stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    time.sleep(max(0.3, 0.4 * full))
    p.send_signal(signal.SIGKILL)
    p.wait()
    if not os.path.isdir(out + ".journal"):
        fail(f"no journal after SIGKILL at {0.4 * full:.2f} s of {full:.2f} s")
    sc.run(simpact, config, out, threads=2, extra=("--resume",))
    sc.assert_identical(ref, out, "biped sweep killed with SIGKILL and resumed")


def cradle_resolve(simpact, d):
    request = {"mechanism": {"file": "cradle3.xml", "contacts": [["ball_a", "ball_b"], ["ball_b", "ball_c"]]},
               "qvel": [1, 0, 0], "params": {"mass.b": 3}, "restitution": 1.0}
    shutil.copy(CRADLE, d)
    path = os.path.join(d, "request.json")
    with open(path, "w") as f:
        json.dump(request, f)
    p = run_cli(simpact, ["resolve", path])  # the file is found beside the request, not in the cwd
    if p.returncode != 0:
        fail(f"resolve of the MJCF cradle: {p.stderr}")
    mjcf = json.loads(p.stdout)
    builtin = json.loads(run_cli(simpact, ["resolve"], json.dumps(
        {"model": "cradle", "params": {"n": 3, "m": [1, 3, 1], "speed": 1}})).stdout)
    if abs(mjcf["xi"] - builtin["xi"]) > 1e-12 or len(mjcf["outcomes"]) != len(builtin["outcomes"]):
        fail(f"MJCF cradle xi {mjcf['xi']} vs built-in {builtin['xi']}")
    for a, b in zip(mjcf["outcomes"], builtin["outcomes"]):
        if max(abs(x - y) for x, y in zip(a["momentum"], b["momentum"])) > 1e-12:
            fail(f"MJCF cradle outcome {a['momentum']} vs built-in {b['momentum']}")
    print(f"ok: MJCF cradle (masses 1, 3, 1) resolves as the built-in: xi = {mjcf['xi']:.6f}")


def examples(simpact):
    """Every examples/mechanisms/*.json runs as its first line (its "_comment") says."""
    folder = os.path.join(ROOT, "examples", "mechanisms")
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".json"):
            continue
        with open(os.path.join(folder, name)) as f:
            words = json.load(f)["_comment"].split()
        if words[0] != "build/simpact" or words[2] != f"examples/mechanisms/{name}":
            fail(f"{name}: its _comment does not start with its command: {' '.join(words[:3])}")
        p = subprocess.run([simpact, words[1], os.path.join(folder, name)], capture_output=True, text=True,
                           timeout=120, cwd="/", env=sc.env(1))  # paths relative to the file, not the cwd
        if p.returncode != 0:
            fail(f"simpact {words[1]} {name}: exit {p.returncode}: {p.stderr}")
        print(f"ok: simpact {words[1]} examples/mechanisms/{name}")


def design(simpact, d):
    """`simpact design` on mechanism files: the biped's orthogonal touchdown resolves with a unique
    outcome (Theorem 2), and the cradle's middle mass reaches the dihedral angles π/3 and π/4 at
    their closed forms m_b = 1 and √2 − 1."""
    example = os.path.join(ROOT, "examples", "mechanisms", "biped_design.json")
    p = run_cli(simpact, ["design", example])
    if p.returncode != 0:
        fail(f"biped design: exit {p.returncode}: {p.stderr}")
    report = json.loads(p.stdout)
    row = report["rows"][1]
    if report["status"] != "converged" or abs(row["normalized_product"]) > 1e-12 or \
            max(abs(g) for g in row["gaps"].values()) > 1e-12:
        fail(f"biped design: {report['status']}, G12 = {row['normalized_product']}, gaps {row['gaps']}")
    q = [row["configuration"][k] for k in ("qpos.root_x", "qpos.root_z", "qpos.root_pitch", "qpos.hip_l",
                                          "qpos.knee_l", "qpos.hip_r", "qpos.knee_r")]
    request = {"mechanism": {"file": BIPED, "contacts": [["floor", "foot_l"], ["floor", "foot_r"]]},
               "qpos": q, "qvel": [0.5, -1, 0, 0, 0, 0, 0], "gap_tolerance": 1e-11}
    resolved = json.loads(run_cli(simpact, ["resolve"], json.dumps(request)).stdout)
    if resolved["closed_contacts"] != [0, 1] or not resolved["unique"] or abs(resolved["xi"]) > 1e-9:
        fail(f"designed biped touchdown: closed {resolved['closed_contacts']}, unique {resolved['unique']}, "
             f"xi {resolved['xi']}")
    print(f"ok: designed biped touchdown (hip_r = {q[5]:.6f}): G12 = {row['normalized_product']:.1e}, unique, "
          f"xi = {resolved['xi']}")
    for m, expected in ((3, 1.0), (4, 2 ** 0.5 - 1)):
        request = {"mechanism": {"file": CRADLE, "contacts": [["ball_a", "ball_b"], ["ball_b", "ball_c"]]},
                   "params": {"mass.b": 3.0}, "free": {"mass.b": {"min": 0.1, "max": 10}}, "dihedral_m": m}
        out = run_cli(simpact, ["design"], json.dumps(request))
        got = json.loads(out.stdout)["rows"][1]["design"]["mass.b"] if out.returncode == 0 else None
        if got is None or abs(got - expected) > 1e-9:
            fail(f"cradle dihedral design m = {m}: mass.b = {got} (want {expected}); {out.stderr}")
        print(f"ok: cradle middle mass for G12 = -cos(pi/{m}): {got:.12f} (closed form {expected:.12f})")


FREE_BALL = """<mujoco><worldbody><geom name="floor" type="plane" size="5 5 .1"/>
<body name="ball" pos="0 0 1"><freejoint name="root"/><geom name="ball" type="sphere" size="1" mass="1"/></body>
</worldbody></mujoco>"""


def bad_inputs(simpact, d):
    shutil.copy(CRADLE, d)
    with open(os.path.join(d, "free.xml"), "w") as f:
        f.write(FREE_BALL)
    with open(os.path.join(d, "broken.xml"), "w") as f:
        f.write("<mujoco><worldbody><body name='a'></mujoco>")
    pair = [["ball_a", "ball_b"]]
    cases = [
        ({"mechanism": {"file": "broken.xml", "contacts": pair}, "qvel": [1, 0, 0]}, "mechanism.file"),
        ({"mechanism": {"file": "nowhere.xml", "contacts": pair}, "qvel": [1, 0, 0]}, "mechanism.file"),
        ({"mechanism": {"file": "cradle3.xml", "contacts": [["ball_a", "ball_z"]]}, "qvel": [1, 0, 0]},
         "mechanism.contacts[0][1]"),
        ({"mechanism": {"file": "cradle3.xml", "contacts": pair}, "qvel": [1, 0, 0], "params": {"mass.zz": 2}},
         "params.mass.zz"),
        ({"mechanism": {"file": "cradle3.xml", "contacts": pair}, "qvel": [1, 0, 0], "params": {"pos.a[3]": 2}},
         "params.pos.a[3]"),
        ({"mechanism": {"file": "cradle3.xml", "contacts": pair}, "qvel": [1, 0, 0], "params": {"mass.a": -1}},
         "params.mass.a"),
        ({"mechanism": {"file": "cradle3.xml", "contacts": [["ball_b", "ball_c"]], "place": ["qpos.x_a"]},
          "qpos": [0, 0, 0.3], "qvel": [1, 0, 0]}, "mechanism.contacts[0]"),
        ({"mechanism": {"file": "cradle3.xml", "contacts": pair}, "qpos": [0, 0], "qvel": [1, 0, 0]}, "qpos"),
        ({"mechanism": {"file": "cradle3.xml", "contacts": pair}, "qvel": [1, 0]}, "qvel"),
        ({"mechanism": {"file": "free.xml", "contacts": [["floor", "ball"]]},
          "qpos": [0, 0, 1, 0, 0, 0, 0], "qvel": [0, 0, -1, 0, 0, 0]}, "qpos[3:7]"),
    ]
    for request, field in cases:
        path = os.path.join(d, "bad.json")
        out = os.path.join(d, "bad_out.json")
        with open(path, "w") as f:
            json.dump(request, f)
        p = run_cli(simpact, ["resolve", path, "-o", out])
        lines = p.stderr.strip().splitlines()
        if p.returncode != 2 or len(lines) != 1 or f"{field}:" not in lines[0] or os.path.exists(out):
            fail(f"bad input {request}: exit {p.returncode}, stderr {p.stderr!r} (want exit 2, one line "
                 f"naming '{field}', no output)")
        print(f"ok: exit 2 naming {field}: {lines[0]}")
    # The same refusals in a sweep config: before any file is created.
    config = sc.write_config("model: {file: cradle3.xml, contacts: [[ball_a, ball_q]]}\n"
                             "grid: {qvel.x_a: {start: 0.5, stop: 1, num: 3}}\n", d, "bad.yaml")
    out = os.path.join(d, "bad.h5")
    p = sc.run(simpact, config, out, check=False)
    if p.returncode != 2 or "model.contacts[0][1]" not in p.stderr or os.path.exists(out):
        fail(f"bad mechanism config: exit {p.returncode}, {p.stderr!r}")
    config = sc.write_config("model: {file: cradle3.xml, contacts: [[ball_a, ball_b]]}\n"
                             "grid: {qvel.x_q: {start: 0.5, stop: 1, num: 3}}\n", d, "bad2.yaml")
    p = sc.run(simpact, config, out, check=False)
    if p.returncode != 2 or "qvel.x_q" not in p.stderr or os.path.exists(out):
        fail(f"unknown mechanism parameter in a config: exit {p.returncode}, {p.stderr!r}")
    print("ok: bad mechanism configs refused before any file")


def main():
    simpact = os.path.abspath(sys.argv[1])
    d = sc.tempdir()
    os.makedirs(os.path.join(d, "robots"))
    shutil.copy(BIPED, os.path.join(d, "robots", "biped.xml"))
    examples(simpact)
    cradle_resolve(simpact, d)
    bad_inputs(simpact, d)
    design(simpact, d)
    determinism(simpact, d)
    kill_resume(simpact, d)
    shutil.rmtree(d, ignore_errors=True)
    print("mechanism sweeps: all checks passed")


if __name__ == "__main__":
    main()
