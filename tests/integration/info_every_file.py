"""Issue 23 §3: `simpact info` works on every file simpact writes. Time-stepped sweep files have no
minimality attribute; info used to exit 1 on each of them. Checks a complete and a
killed (incomplete) time-stepped sweep, text and --json: exit 0 / 3, the task counts right, and
minimality null in JSON.

usage: info_every_file.py SIMPACT"""
import glob
import json
import os
import signal
import subprocess
import sys
import time

import sweep_common as sc

SIMPACT = sys.argv[1]
CONFIG = """simulate:
  model: cradle
  t_end: 0.05
  record: 1
params: {n: 3, radius: 0.05, mass: 1.0, speed: 1.0, gap: 0.01}
grid:
  dt: {values: [1/600, 1/6000]}
  restitution: {values: [0.7, 1.0]}
orderings: [argmin, argmax]
output: {chunk_size: 1}
"""

def fail(msg):
    sys.exit(f"FAIL: {msg}")


def info(path, *extra):
    return subprocess.run([SIMPACT, "info", path, *extra], capture_output=True, text=True, timeout=60)


d = sc.tempdir()
config = sc.write_config(CONFIG, d, "ts.yaml")
out = os.path.join(d, "ts.h5")
sc.run(SIMPACT, config, out, threads=1)
p = info(out)
if p.returncode != 0 or "status: complete" not in p.stdout or "minimality" in p.stdout:
    fail(f"info on a complete time-stepped sweep: exit {p.returncode}\n{p.stdout}{p.stderr}")
j = json.loads(info(out, "--json").stdout)
if j["status"] != "complete" or j["tasks"] != 4 or j["tasks_done"] != 4 or j["minimality"] is not None:
    fail(f"info --json on a complete time-stepped sweep: {j}")
print("ok: info on a complete time-stepped sweep:", p.stdout.splitlines()[2])

# A killed run: the incomplete file and its journal.
slow = sc.write_config(CONFIG.replace("t_end: 0.05", "t_end: 50.0"), d, "slow.yaml")
killed = os.path.join(d, "killed.h5")
proc = subprocess.Popen(sc.command(SIMPACT, slow, killed), env=sc.env(1), stdout=subprocess.PIPE,
                        stderr=subprocess.PIPE)
t0 = time.time()
while not glob.glob(f"{killed}.journal/*.bin") and time.time() - t0 < 60:
    time.sleep(0.01)
time.sleep(0.2)
proc.send_signal(signal.SIGKILL)
proc.communicate()
p = info(killed)
if p.returncode != 3 or "INCOMPLETE" not in p.stdout:
    fail(f"info on a killed time-stepped sweep: exit {p.returncode} (expected 3)\n{p.stdout}{p.stderr}")
j = json.loads(info(killed, "--json").stdout)
if j["status"] != "incomplete" or j["tasks"] != 4 or j["minimality"] is not None:
    fail(f"info --json on a killed time-stepped sweep: {j}")
print("ok: info on a killed time-stepped sweep: exit 3,", p.stdout.splitlines()[1])
