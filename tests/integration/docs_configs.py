#!/usr/bin/env python3
"""Every sweep config written out in the docs (```yaml blocks with a `model:` or `simulate:` key in README.md
and docs/*.md) is checked with `--dry-run` and then run for real; and the docs link nothing
outside the repository (`../` paths).

    docs_configs.py SIMPACT REPO_ROOT
Works in its own temporary directory.
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile


def main():
    simpact, root = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    tmp = tempfile.mkdtemp(prefix="simpact_docs_")
    # Configs are written as if they were in configs/: their mechanism paths (../examples/...) are
    # relative to it, as in the shipped configs.
    os.symlink(os.path.join(root, "examples"), os.path.join(tmp, "examples"))
    os.makedirs(os.path.join(tmp, "configs"))
    env = dict(os.environ, OMP_NUM_THREADS="2")
    failed, count = [], 0
    docs = [os.path.join(root, "README.md")] + sorted(glob.glob(os.path.join(root, "docs", "*.md")))
    for doc in docs:
        text = open(doc).read()
        name = os.path.relpath(doc, root)
        for m in re.finditer(r"\]\((\.\./[^)]*)\)|`(\.\./[^`]*)`", text):
            failed.append(f"{name}: link outside the repository: {m.group(1) or m.group(2)}")
        for i, m in enumerate(re.finditer(r"```yaml\n(.*?)```", text, re.S)):
            if not re.search(r"^(model|simulate):", m.group(1), re.M):
                continue
            count += 1
            config = os.path.join(tmp, "configs", f"{os.path.basename(doc)}_{i}.yaml")
            with open(config, "w") as f:
                f.write(m.group(1))
            for extra in (["--dry-run"], ["-o", config.replace(".yaml", ".h5"), "-q"]):
                p = subprocess.run([simpact, "run", config, *extra], capture_output=True, text=True, env=env,
                                   cwd=tmp, timeout=110)
                label = f"{name} yaml block {i} ({' '.join(extra[:1])})"
                print(("ok: " if p.returncode == 0 else "FAIL: ") + label)
                if p.returncode != 0:
                    print(p.stdout + p.stderr)
                    failed.append(label)
    if count == 0:
        failed.append("no config found in the docs")
    shutil.rmtree(tmp, ignore_errors=True)
    for f in failed:
        print("FAIL: " + f)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
