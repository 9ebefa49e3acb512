"""Sweeps from Python: simpact.run(config) runs a sweep through the study library in this process
(ranks = 1), or the `simpact run` of the same build under `mpirun -n ranks`, and returns the
result as a Dataset."""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from .impacts import check_nesting, input_error, run_threads


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


def _progress_printer(quiet):
    """The progress callback: a tqdm bar when tqdm is installed, else one line per update."""
    if quiet:
        return None, lambda: None
    try:
        from tqdm import tqdm
    except ImportError:
        last = [0.0]

        def line(done, total):  # at most one line a second, and the last
            now = time.monotonic()
            if now - last[0] >= 1.0 or done >= total:
                last[0] = now
                sys.stderr.write(f"simpact: {done}/{total} tasks ({100.0 * done / max(total, 1):.0f}%)\n")
                sys.stderr.flush()
        return line, lambda: None
    bar = {}

    def update(done, total):
        if "bar" not in bar:
            bar["bar"] = tqdm(total=total, unit="task", desc="simpact run")
        bar["bar"].update(done - bar["bar"].n)

    return update, lambda: bar["bar"].close() if "bar" in bar else None


def _config_file(config):
    """(path, temporary file or None) of a config given as a YAML path or a dict."""
    if isinstance(config, dict):
        check_nesting(config, "config")
        # JSON is YAML: the dict goes to a file in the working directory, so that relative paths
        # in it (model: {file: ...}) read from there, as they would from a config file there.
        fd, tmp = tempfile.mkstemp(prefix=".simpact-config-", suffix=".yaml", dir=os.getcwd())
        with os.fdopen(fd, "w") as f:
            try:
                json.dump(config, f, allow_nan=False)
            except (TypeError, ValueError) as e:
                f.close()
                os.unlink(tmp)
                raise input_error("config", f"must be JSON-like (numbers, strings, lists, dicts): {e}") from None
        return tmp, tmp
    if isinstance(config, (str, os.PathLike)):
        return os.fspath(config), None
    raise input_error("config", f"must be a YAML file path or a dict (got {type(config).__name__})")


def estimate(config, ranks=1, threads=None):
    """What `simpact run CONFIG --dry-run` estimates, without running: a dict of tasks, grid_points,
    replicas, inadmissible (grid points), file_bytes and journal_bytes (upper bounds before
    compression), seconds_per_task (one thread, from a ~0.2 s calibration), thread_speedup (measured
    on `threads` threads, default OpenMP's), total_seconds on ranks × threads (start-up and file
    writing not counted): the study library's estimate_compute_time, the command's own. Bad input
    raises simpact.InputError with the program's one-line message."""
    from . import _simpact

    if not isinstance(ranks, int) or ranks < 1:
        raise input_error("ranks", f"must be an integer >= 1 (got {ranks!r})")
    threads = run_threads(threads)
    config_path, tmp = _config_file(config)
    try:
        return _simpact.estimate_config(config_path, ranks, threads)
    finally:
        if tmp:
            os.unlink(tmp)


def run(config, out, ranks=1, resume=False, threads=None, quiet=False, open_result=True, overwrite=False,
        progress=None, shard=None):
    """Runs a sweep: config is a YAML file path or a dict (written as YAML); out the HDF5 file.
    ranks = 1 runs in this process through the study library (`simpact run`'s own code):
    progress goes to `progress(done, total)` if given, else a tqdm bar if tqdm is installed, else
    a line per chunk on stderr (quiet: none). Ctrl-C (SIGINT) finishes the chunk in hand, keeps the
    journal and raises KeyboardInterrupt: run(..., resume=True) finishes it. ranks > 1 runs
    `simpact run` under `mpirun -n ranks`. shard="i/N" computes shard i of N of a job array into a
    shard file (`simpact run --shard i/N`; merge() joins them; returns its path). Bad input raises
    simpact.InputError with the program's one-line message (.lines: all of them); other failures
    RuntimeError. Returns open_result(out) (or out's path with open_result=False)."""
    if not isinstance(ranks, int) or ranks < 1:
        raise input_error("ranks", f"must be an integer >= 1 (got {ranks!r})")
    threads = run_threads(threads) or None
    if progress is not None and not callable(progress):
        raise input_error("progress", "must be a callable progress(done, total)")
    if shard is not None and not isinstance(shard, str):
        raise input_error("shard", f"expected i/N with 0 <= i < N <= 9223372036854775807 (got {shard!r})")
    config_path, tmp = _config_file(config)
    try:
        if ranks == 1:
            _run_in_process(config_path, os.fspath(out), resume, overwrite, threads, quiet, progress, shard)
        else:
            _run_mpirun(config_path, os.fspath(out), ranks, resume, overwrite, threads, quiet, shard)
    finally:
        if tmp:
            os.unlink(tmp)
    if not open_result or shard is not None:
        return os.fspath(out)
    from .results import open_result as open_
    return open_(out)


def _run_in_process(config_path, out, resume, overwrite, threads, quiet, progress, shard):
    from . import _simpact

    close = lambda: None  # noqa: E731
    if progress is None:
        progress, close = _progress_printer(quiet)
    command = (f"simpact.run({config_path!r}, out={out!r}" + (", resume=True" if resume else "")
               + (f", shard={shard!r}" if shard else "") + ")")
    try:
        s = _simpact.run_config(config_path, out, resume, overwrite, int(threads or 0), progress, 5.0, command,
                                shard or "")
    finally:
        close()
    for warning in s["warnings"]:
        sys.stderr.write(f"simpact: warning: {warning}\n")
    if s["interrupted_by"]:
        if s["output_complete"]:
            raise KeyboardInterrupt(f"interrupted after {out} was complete")
        raise KeyboardInterrupt(f"interrupted: {s['tasks_saved']} of {s['tasks']} tasks are saved in the journal of "
                                f"{out}; resume with simpact.run(..., resume=True)")
    if not quiet:
        for line in s["analysis"]:
            sys.stderr.write(f"simpact: {line}\n")
    return s


def _run_mpirun(config_path, out, ranks, resume, overwrite, threads, quiet, shard):
    args = ["mpirun", "-n", str(ranks), simpact_program(), "run", config_path, "-o", out]
    if shard:
        args += ["--shard", shard]
    if resume:
        args.append("--resume")
    if overwrite:
        args.append("--overwrite")
    if quiet:
        args.append("--quiet")
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


def merge(shards, out, *, overwrite=False, open_result=True):
    """The shard files of a job array (`simpact run --shard i/N`, or run(..., shard="i/N")), all N
    of them in any order, into one result file `out`, identical (datasets bit for bit) to a single
    run of the same config: `simpact merge SHARDS -o out` (the same library call, in this process).
    Bad input (no shards, a file that is not a shard, an existing out without overwrite, shards of
    another config) raises simpact.InputError with the program's one-line message; other failures
    RuntimeError. Returns open_result(out) (or out's path with open_result=False)."""
    from . import _simpact

    if isinstance(shards, (str, os.PathLike)) or not hasattr(shards, "__iter__"):
        raise input_error("shards", f"must be a list of shard files (got {type(shards).__name__})")
    paths = [os.fspath(s) for s in shards]
    if not paths:
        raise input_error("shards", "at least one shard file is required")
    for path in paths:
        if not os.path.isfile(path):
            raise input_error("shards", f"File does not exist: {path}")
    command = "simpact.merge([" + ", ".join(repr(p) for p in paths) + f"], out={os.fspath(out)!r})"
    _simpact.merge_shards(paths, os.fspath(out), bool(overwrite), command)
    if not open_result:
        return os.fspath(out)
    from .results import open_result as open_
    return open_(out)
