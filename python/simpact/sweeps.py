"""Sweeps from Python: simpact.run(config) runs the `simpact run` of the same build (one rank in
process's own child, or `mpirun -n ranks` for ranks > 1) and returns the result as a Dataset."""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile

from .impacts import input_error


def simpact_program():
    """The `simpact` program built beside this package (build/simpact), else the one on PATH."""
    here = os.path.dirname(os.path.abspath(__file__))
    candidate = os.path.normpath(os.path.join(here, "..", "..", "simpact"))
    if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
        return candidate
    found = shutil.which("simpact")
    if not found:
        raise RuntimeError("the simpact program was not found beside the module nor on PATH")
    return found


def run(config, out, ranks=1, resume=False, threads=None, quiet=False, open_result=True):
    """Runs a sweep: config is a YAML file path or a dict (written as YAML); out the HDF5 file.
    ranks > 1 runs under `mpirun -n ranks`. Progress lines of `simpact run` go to stderr (quiet:
    none). Ctrl-C stops the run and leaves its journal: run(..., resume=True) finishes it.
    Bad input raises simpact.InputError with the program's one-line message (exit 2); other
    failures RuntimeError. Returns open_result(out) (or out's path with open_result=False)."""
    if not isinstance(ranks, int) or ranks < 1:
        raise input_error("ranks", f"must be an integer >= 1 (got {ranks!r})")
    tmp = None
    if isinstance(config, dict):
        # JSON is YAML: the dict goes to a file in the working directory, so that relative paths
        # in it (model: {file: ...}) read from there, as they would from a config file there.
        fd, tmp = tempfile.mkstemp(prefix=".simpact-config-", suffix=".yaml", dir=os.getcwd())
        with os.fdopen(fd, "w") as f:
            json.dump(config, f, allow_nan=False)
        config_path = tmp
    elif isinstance(config, (str, os.PathLike)):
        config_path = os.fspath(config)
    else:
        raise input_error("config", f"must be a YAML file path or a dict (got {type(config).__name__})")
    args = [simpact_program(), "run", config_path, "-o", os.fspath(out)]
    if resume:
        args.append("--resume")
    if ranks > 1:
        args = ["mpirun", "-n", str(ranks)] + args
    env = dict(os.environ)
    if threads is not None:
        env["OMP_NUM_THREADS"] = str(int(threads))
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        stdout, stderr = proc.communicate()
    except KeyboardInterrupt:
        proc.send_signal(signal.SIGINT)
        proc.wait()
        raise
    finally:
        if tmp:
            os.unlink(tmp)
    if not quiet and stderr:
        sys.stderr.write("".join(l + "\n" for l in stderr.splitlines() if not l.startswith("simpact: error: ")))
    errors = [l[len("simpact: error: "):] for l in stderr.splitlines() if l.startswith("simpact: error: ")]
    if proc.returncode == 2:
        line = errors[0] if errors else stderr.strip()
        field = line.split(": ", 1)[0] if ": " in line else "config"
        err = input_error(field, line.split(": ", 1)[1] if ": " in line else line)
        err.lines = errors
        raise err
    if proc.returncode != 0:
        raise RuntimeError(f"simpact run exited {proc.returncode}: " + "; ".join(errors or [stderr.strip()]))
    if not open_result:
        return os.fspath(out)
    from .results import open_result as open_
    return open_(out)
