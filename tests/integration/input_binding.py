"""Every input that shapes a result is bound to it (issue 39), with the real `simpact` program:
* a mechanism sweep killed mid-way, then a file it reads changed (the MJCF's mass, a file it
  <include>s, the MJCF swapped for a symbolic link to another robot, a design file): --resume exits
  2 naming the file, its recorded and current digests, and leaves the journal byte-identical;
  with the file restored the resume ends bit-identical to an uninterrupted run;
* shards computed from two versions of the MJCF: merge exits 2 naming the file, leaves nothing;
* `simpact info` lists the inputs with their SHA-256;
* a FIFO named by an <include> or a mesh: `run --dry-run`, `run` and `models` exit 2 at once
  naming it, instead of blocking forever in MuJoCo.

usage: input_binding.py SIMPACT"""
import hashlib
import json
import os
import signal
import subprocess
import sys
import time

import sweep_common as sc

MAIN = """<mujoco model="cradle3">
  <option gravity="0 0 0"/>
  <include file="balls.xml"/>
</mujoco>
"""
BALLS = """<mujoco>
  <worldbody>
    <body name="a" pos="0 0 0"><joint name="x_a" type="slide" axis="1 0 0"/>
      <geom name="ball_a" type="sphere" size="1" mass="{mass}"/></body>
    <body name="b" pos="2 0 0"><joint name="x_b" type="slide" axis="1 0 0"/>
      <geom name="ball_b" type="sphere" size="1" mass="1"/></body>
    <body name="c" pos="4 0 0"><joint name="x_c" type="slide" axis="1 0 0"/>
      <geom name="ball_c" type="sphere" size="1" mass="1"/></body>
  </worldbody>
</mujoco>
"""
SWEEP = """model:
  file: {file}
  contacts: [[ball_a, ball_b], [ball_b, ball_c]]
params: {{qvel.x_a: 1.0}}
grid:
  restitution: {{start: 0, stop: 1, num: 40}}
monte_carlo:
  samples_per_point: 3000
  seed: 5
  params:
    qvel.x_b: {{dist: uniform, low: -0.2, high: 0.2}}
orderings: [all, argmin, argmax]
output: {{samples: true, chunk_size: 500}}
"""


def fail(message):
    sys.exit(f"FAIL: {message}")


def cli(simpact, args, timeout=60):
    return subprocess.run([simpact, *args], capture_output=True, text=True, timeout=timeout, env=sc.env(1))


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def journal_bytes(out):
    d = out + ".journal"
    return {name: open(os.path.join(d, name), "rb").read() for name in sorted(os.listdir(d)) if name != "lock"}


def killed_run(simpact, config, out):
    """A run killed with SIGKILL once its journal holds a finished chunk."""
    p = subprocess.Popen([simpact, "run", config, "-o", out, "-q"], env=sc.env(1))
    deadline = time.time() + 60
    while time.time() < deadline:
        d = out + ".journal"
        if os.path.isdir(d) and any(n.endswith(".bin") and os.path.getsize(os.path.join(d, n)) > 0
                                    for n in os.listdir(d)):
            break
        if p.poll() is not None:
            fail(f"the run of {config} ended before it could be killed")
        time.sleep(0.01)
    p.send_signal(signal.SIGKILL)
    p.wait()
    if not os.path.isdir(out + ".journal") or p.returncode != -signal.SIGKILL:
        fail(f"the run of {config} finished before SIGKILL (rc {p.returncode}): make it longer")


def refused_resume(simpact, config, out, needles, what):
    before = journal_bytes(out)
    p = cli(simpact, ["run", config, "-o", out, "--resume"])
    lines = p.stderr.strip().splitlines()
    if p.returncode != 2 or len(lines) != 1 or not all(n in lines[0] for n in needles):
        fail(f"{what}: rc={p.returncode} stderr={p.stderr!r} (wanted {needles})")
    if journal_bytes(out) != before:
        fail(f"{what}: the refused resume changed the journal")
    print(f"ok: {what}: {lines[0]}")


def sha(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def resume_refusals(simpact, d):
    main, balls = os.path.join(d, "robot.xml"), os.path.join(d, "balls.xml")
    write(main, MAIN)
    write(balls, BALLS.format(mass=1))
    config = sc.write_config(SWEEP.format(file="robot.xml"), d, "sweep.yaml")
    ref = os.path.join(d, "ref.h5")
    sc.run(simpact, config, ref, threads=1)
    info = cli(simpact, ["info", ref, "--json"])
    inputs = json.loads(info.stdout)["inputs"]
    roles = [(i["role"], os.path.basename(i["path"]), i["sha256"]) for i in inputs]
    want = [("config", "sweep.yaml", sha(config)), ("mechanism_file", "robot.xml", sha(main)),
            ("include", "balls.xml", sha(balls))]
    if roles != want:
        fail(f"info --json inputs {roles}, expected {want}")
    text = cli(simpact, ["info", ref]).stdout
    if f"input: include {balls} sha256 {sha(balls)}" not in text:
        fail(f"simpact info does not list the include: {text}")
    print(f"ok: info lists {len(inputs)} inputs with their sha256")

    out = os.path.join(d, "out.h5")
    killed_run(simpact, config, out)
    original = open(balls).read()
    write(balls, BALLS.format(mass=2))  # a mass doubled in an included file
    refused_resume(simpact, config, out, ["balls.xml", "(include)", sha(balls)[:12], "--overwrite"],
                   "an <include>d file changed")
    write(balls, original)
    write(main, MAIN.replace('gravity="0 0 0"', 'gravity="0 0 -1"'))  # the MJCF itself edited
    refused_resume(simpact, config, out, ["robot.xml", "(mechanism_file)"], "the MJCF changed")
    other = os.path.join(d, "other.xml")
    write(other, MAIN + "<!-- another robot -->\n")
    os.remove(main)
    os.symlink(other, main)  # swapped for a link to another file
    refused_resume(simpact, config, out, ["robot.xml", "(mechanism_file)"], "the MJCF replaced by a link")
    os.remove(main)
    write(main, MAIN)
    p = cli(simpact, ["run", config, "-o", out, "--resume", "-q"])
    if p.returncode != 0:
        fail(f"resume with the inputs restored: rc={p.returncode} {p.stderr}")
    sc.assert_identical(ref, out, "killed, inputs changed and restored, resumed")


def design_file_refusal(simpact, d):
    table = os.path.join(d, "design.csv")
    write(table, "restitution\n" + "\n".join(f"{i / 99999:.6f}" for i in range(100000)) + "\n")
    config = sc.write_config("model: cradle\nparams: {n: 3, speed: 1}\ndesign: {file: design.csv}\n"
                             "orderings: [all, argmin, argmax]\noutput: {chunk_size: 16, samples: true}\n", d,
                             "design.yaml")
    out = os.path.join(d, "design.h5")
    killed_run(simpact, config, out)
    write(table, "restitution\n" + "\n".join(f"{i / 100000:.6f}" for i in range(100000)) + "\n")
    refused_resume(simpact, config, out, ["design.csv", "(design_file)"], "a design file changed")


def merge_refusal(simpact, d):
    main, balls = os.path.join(d, "m_robot.xml"), os.path.join(d, "balls.xml")
    write(main, MAIN)
    write(balls, BALLS.format(mass=1))
    config = sc.write_config(SWEEP.format(file="m_robot.xml"), d, "m.yaml")
    shards = [os.path.join(d, f"m{i}.h5") for i in range(2)]
    sc.run(simpact, config, shards[0], threads=1, extra=("--shard", "0/2"))
    write(balls, BALLS.format(mass=2))
    sc.run(simpact, config, shards[1], threads=1, extra=("--shard", "1/2"))
    merged = os.path.join(d, "m.h5")
    p = cli(simpact, ["merge", *shards, "-o", merged])
    lines = p.stderr.strip().splitlines()
    if p.returncode != 2 or len(lines) != 1 or "balls.xml" not in lines[0] or "m0.h5" not in lines[0]:
        fail(f"merge of shards of two robot versions: rc={p.returncode} {p.stderr!r}")
    if os.path.lexists(merged) or os.path.lexists(merged + ".journal"):
        fail("the refused merge left files behind")
    print(f"ok: merge refuses shards of two robot versions: {lines[0]}")


def fifo_refusals(simpact, d):
    for what, balls_text in (("include", None), ("mesh", "mesh")):
        sub = os.path.join(d, f"fifo_{what}")
        os.mkdir(sub)
        fifo = os.path.join(sub, "balls.xml" if what == "include" else "part.stl")
        os.mkfifo(fifo)
        if what == "include":
            write(os.path.join(sub, "robot.xml"), MAIN)
        else:
            write(os.path.join(sub, "robot.xml"), MAIN.replace('<include file="balls.xml"/>',
                                                               '<asset><mesh name="m" file="part.stl"/></asset>\n'
                                                               + BALLS.format(mass=1).split("<mujoco>")[1]
                                                               .split("</mujoco>")[0]))
        config = sc.write_config(SWEEP.format(file="robot.xml"), sub, "sweep.yaml")
        for args in (["run", config, "--dry-run"], ["run", config, "-o", os.path.join(sub, "o.h5")],
                     ["models", os.path.join(sub, "robot.xml")]):
            p = cli(simpact, args, timeout=30)
            lines = p.stderr.strip().splitlines()
            if p.returncode != 2 or not lines or "FIFO" not in lines[-1] or os.path.basename(fifo) not in lines[-1]:
                fail(f"a FIFO as {what}: simpact {' '.join(args)}: rc={p.returncode} {p.stderr!r}")
        print(f"ok: a FIFO as the {what}: refused at once: {lines[-1]}")


def main():
    simpact = sys.argv[1]
    d = sc.tempdir()
    resume_refusals(simpact, d)
    design_file_refusal(simpact, d)
    merge_refusal(simpact, d)
    fifo_refusals(simpact, d)


if __name__ == "__main__":
    main()
