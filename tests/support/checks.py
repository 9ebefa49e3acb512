"""Named checks for the end-to-end test scripts: each prints ok/FAIL, and finish() exits 1
listing how many failed (so one run reports every broken promise, not just the first)."""
import sys

FAILED = []


def check(cond, what):
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        FAILED.append(what)
    return cond


def finish(label="checks"):
    if FAILED:
        print(f"{len(FAILED)} check(s) failed")
        sys.exit(1)
    print(f"all {label} passed")
