#!/usr/bin/python3
"""scripts/trex_design.py on a real `simpact design` result: writes a PNG (signature checked) and
a PDF; a missing file and a JSON without rows exit 1 with one line. Works in a temporary folder.

usage: /usr/bin/python3 tests/scripts/trex_design_script.py build/simpact REPO_ROOT"""
import os
import subprocess
import sys
import tempfile

simpact, root = sys.argv[1], sys.argv[2]
script = os.path.join(root, "scripts", "trex_design.py")
d = tempfile.mkdtemp(prefix="simpact_trex_design_")
result = os.path.join(d, "design.json")
subprocess.run([simpact, "design", os.path.join(root, "configs", "examples", "design_trex.json"), "-o", result],
               check=True, timeout=60)
failed = []
for out, signature in (("robot.png", b"\x89PNG\r\n\x1a\n"), ("robot.pdf", b"%PDF")):
    path = os.path.join(d, out)
    p = subprocess.run([sys.executable, script, result, "-o", path], capture_output=True, text=True, timeout=120)
    ok = p.returncode == 0 and os.path.getsize(path) > 10000 and open(path, "rb").read(len(signature)) == signature
    print(("ok: " if ok else "FAIL: ") + out, p.stderr.strip())
    if not ok:
        failed.append(out)
empty = os.path.join(d, "empty.json")
open(empty, "w").write("{}")
for bad in (os.path.join(d, "missing.json"), empty):
    p = subprocess.run([sys.executable, script, bad, "-o", os.path.join(d, "x.png")], capture_output=True, text=True)
    ok = p.returncode == 1 and p.stderr.startswith("trex_design.py: error:") and len(p.stderr.splitlines()) == 1
    print(("ok: " if ok else "FAIL: ") + f"{os.path.basename(bad)} -> exit 1, one line ({p.stderr.strip()})")
    if not ok:
        failed.append(bad)
sys.exit(1 if failed else 0)
