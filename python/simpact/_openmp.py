"""OpenMP's waiting policy for the module's threads, chosen before the extension loads libgomp.

Idle OpenMP threads sleep instead of spinning (OMP_WAIT_POLICY=passive), as the `simpact`
program arranges for itself: on a loaded node libgomp's active waiting made `simpact.run` 4-8x
slower. libgomp reads the variable once, when it is loaded, so it is set here, before
`_simpact` (which loads libgomp) is imported, unless the user chose a policy. Where another
module loaded libgomp first, the policy can no longer change: say so once.
"""
import os
import warnings


def _libgomp_loaded():
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as maps:
            return any("libgomp" in line for line in maps)
    except OSError:
        return False


def prefer_passive_waiting():
    if "OMP_WAIT_POLICY" in os.environ:
        return
    if _libgomp_loaded():
        warnings.warn("simpact: OpenMP (libgomp) was loaded before simpact, so its idle threads spin; "
                      "set OMP_WAIT_POLICY=passive before starting Python to avoid slow runs on a "
                      "loaded node", RuntimeWarning, stacklevel=3)
        return
    os.environ["OMP_WAIT_POLICY"] = "passive"
