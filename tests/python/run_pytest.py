#!/usr/bin/env python3
"""Runs the pytest suite in the given folder for CTest: pytest's exit 5 (no test collected) is a
failure here, not a pass — a suite that silently collects nothing tests nothing.

    run_pytest.py TESTS_DIR [pytest args...]
"""
import subprocess
import sys

rc = subprocess.call([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", sys.argv[1]]
                     + sys.argv[2:])
if rc == 5:
    print("run_pytest.py: error: pytest collected no tests", file=sys.stderr)
    sys.exit(1)
sys.exit(rc)
