#!/usr/bin/python3
"""scripts/trex_fig8.py --h5 on a real configs/trex_fig8.yaml result: writes a PNG (signature
checked) and prints the optimized gait's ξ as exactly 0 over the 100 ms after touchdown; a missing file and
an HDF5 without ξ(t) exit 1 with one line. Works in a temporary folder.

usage: /usr/bin/python3 tests/scripts/trex_fig8_script.py build/simpact REPO_ROOT"""
import os
import subprocess
import sys
import tempfile

simpact, root = sys.argv[1], sys.argv[2]
script = os.path.join(root, "scripts", "trex_fig8.py")
d = tempfile.mkdtemp(prefix="simpact_trex_fig8_")
result = os.path.join(d, "fig8.h5")
subprocess.run([simpact, "run", os.path.join(root, "configs", "trex_fig8.yaml"), "-o", result],
               check=True, timeout=120, capture_output=True)
failed = []
png = os.path.join(d, "fig8.png")
p = subprocess.run([sys.executable, script, "--h5", result, "-o", png], capture_output=True, text=True,
                   timeout=120)
ok = (p.returncode == 0 and os.path.getsize(png) > 10000 and open(png, "rb").read(8) == b"\x89PNG\r\n\x1a\n"
      and "after touchdown (100.0 ms)" in p.stdout and "max xi_optimized 0.000e+00" in p.stdout)
print(("ok: " if ok else "FAIL: ") + "fig8.png", p.stdout.strip(), p.stderr.strip())
if not ok:
    failed.append("png")
other = os.path.join(d, "other.h5")
subprocess.run([simpact, "run", os.path.join(root, "configs", "cradle_timestep.yaml"), "-o", other],
               check=True, timeout=120, capture_output=True)
for bad in (os.path.join(d, "missing.h5"), other):
    p = subprocess.run([sys.executable, script, "--h5", bad, "-o", os.path.join(d, "x.png")],
                       capture_output=True, text=True)
    ok = p.returncode == 1 and p.stderr.startswith("trex_fig8.py: error:") and len(p.stderr.splitlines()) == 1
    print(("ok: " if ok else "FAIL: ") + f"{os.path.basename(bad)} -> exit 1, one line ({p.stderr.strip()})")
    if not ok:
        failed.append(bad)
sys.exit(1 if failed else 0)
