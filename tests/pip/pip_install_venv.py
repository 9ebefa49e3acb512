"""`pip install .` into a fresh venv, then `import simpact` there (issue 38; tests/pip/CMakeLists.txt).

    python3 tests/pip/pip_install_venv.py SOURCE_DIR BUILD_DIR SIMPACT_PROGRAM

Everything goes into one temp dir (the venv, pip's temp files; no pip cache, no index), removed
at the end. BUILD_DIR is handed to the backend as SIMPACT_BUILD_DIR.
"""
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

THETA = 2.0944  # the billiards break near 2π/3: ξ > 0, several outcomes


def smoke(program):
    """Run by the venv's python (-I, from the temp dir): the installed package, not the sources."""
    import simpact

    assert pathlib.Path(simpact.__file__).is_relative_to(sys.prefix), (simpact.__file__, sys.prefix)
    r = simpact.resolve_model("billiards", theta=THETA)
    request = {"model": "billiards", "params": {"theta": THETA}, "ordering": "all"}
    cli = json.loads(subprocess.run([program, "resolve"], input=json.dumps(request), capture_output=True,
                                    text=True, check=True).stdout)
    assert r.status_name() == cli["status"] == "ok", (r.status_name(), cli["status"])
    assert r.xi == cli["xi"] and r.xi > 0.1, (r.xi, cli["xi"])
    assert r.outcome_count == len(cli["outcomes"]) > 1, (r.outcome_count, len(cli["outcomes"]))
    # R = 1: every outcome keeps the energy before the impact
    for energy in r.outcome_energy:
        assert abs(energy - r.energy_before) <= 1e-12 * r.energy_before, (energy, r.energy_before)
    print(f"smoke: {simpact.__file__}: xi = {r.xi!r} (CLI {cli['xi']!r}), {r.outcome_count} outcomes")


def run(args, **kwargs):
    print("+", " ".join(str(a) for a in args), flush=True)
    return subprocess.run([str(a) for a in args], check=True, **kwargs)


def main(source, build, program):
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="simpact-pip-"))
    try:
        venv = tmp / "venv"
        (tmp / "tmp").mkdir()
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "PIP_"))}
        env.update(PIP_NO_CACHE_DIR="1", PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1",
                   PIP_CONFIG_FILE=os.devnull, PYTHONDONTWRITEBYTECODE="1", TMPDIR=str(tmp / "tmp"),
                   XDG_CACHE_HOME=str(tmp / "cache"), SIMPACT_BUILD_DIR=str(build))
        if subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", venv]).returncode:
            sys.exit("python3 -m venv failed: Debian needs the python3-venv package")
        python = venv / "bin" / "python"
        start = time.monotonic()
        run([python, "-m", "pip", "install", "--no-build-isolation", source], env=env, cwd=tmp)
        print(f"pip install: {time.monotonic() - start:.1f} s", flush=True)
        run([python, "-I", pathlib.Path(__file__).resolve(), "--smoke", program], env=env, cwd=tmp)
        # The extension finds its libraries without the build: no RPATH/RUNPATH into it.
        installed = list((venv / "lib").glob("python3*/site-packages/simpact/_simpact*.so"))
        assert len(installed) == 1, installed
        dynamic = run(["readelf", "-d", installed[0]], capture_output=True, text=True).stdout
        assert str(build) not in dynamic, [line for line in dynamic.splitlines() if "PATH" in line]
        # RECORD lists every file: uninstalling leaves no package behind
        run([python, "-m", "pip", "uninstall", "-y", "simpact"], env=env, cwd=tmp)
        assert not list((venv / "lib").glob("python3*/site-packages/simpact*")), "pip uninstall left files"
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    if sys.argv[1] == "--smoke":
        smoke(sys.argv[2])
    else:
        main(*sys.argv[1:4])
