"""simpact from Python: simultaneous rigid-body impacts under the propagative model.

    import simpact
    r = simpact.resolve(M, normals, momentum)            # (B, d, d), (B, k, d), (B, d) or one problem
    c = simpact.check(M, normals, momentum, momentum_after=p_after)
    mech = simpact.Mechanism.from_file("robot.xml", contacts=[("foot", "floor")])
    ds = simpact.open_result("out.h5")                    # an xarray.Dataset

Every function is a thin layer over the C++ study library that the `simpact` program uses, and
gives the same numbers bit for bit as `simpact resolve` / `simpact check` on the same inputs.
Bad input raises simpact.InputError (a ValueError) whose message is the command line's one line,
with .field (the request field, e.g. "mass_matrix", "normals[1]") and .item (the batch item or
None). docs/python.md has the tour.
"""
from . import _openmp

_openmp.prefer_passive_waiting()  # before _simpact loads libgomp

from ._simpact import InputError, __version__, git_revision  # noqa: F401
from .impacts import Check, Resolution, check, resolve, resolve_model  # noqa: F401
from .mechanism import Design, Mechanism, Simulation  # noqa: F401
from .results import info, open_result  # noqa: F401
from .sweeps import estimate, merge, run  # noqa: F401

__all__ = ["InputError", "Resolution", "Check", "resolve", "check", "resolve_model", "Mechanism", "Simulation", "Design",
           "open_result", "info", "run", "merge", "estimate", "__version__"]
