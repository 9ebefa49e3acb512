"""The PEP 517 build backend of `pip install .` (pyproject.toml names it): CMake builds the
`_simpact` extension, this file zips it with python/simpact/*.py into a wheel.

No build requirements: it needs only the standard library, CMake and the Debian packages of
scripts/install-deps.sh (pybind11, Eigen, MPI, HDF5, MuJoCo, ...), so it runs without network
under `pip install --no-build-isolation .`.

Build directory: $SIMPACT_BUILD_DIR when set (relative paths are taken from the source tree),
e.g. `build`, the one scripts/build.sh made: an up-to-date build is only checked, not rebuilt.
Otherwise `build-pip/` in the source tree, configured on first use (Release, Ninja when
installed, no tests or benchmarks, $SIMPACT_CMAKE_ARGS added). Only the targets `simpact_python`
and `simpact_python_sources` are built. The wheel holds copies of the Python files and the
extension, which links the simpact libraries statically and the Debian packages' shared ones
(MPI, HDF5, MuJoCo, ...) from system paths: an install keeps working when the build directory
is removed, on a machine with those packages (the platform tag is linux_x86_64, not manylinux).
"""
import base64
import hashlib
import importlib.machinery
import io
import os
import pathlib
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import zipfile

SOURCE_DIR = pathlib.Path(__file__).resolve().parents[2]
PACKAGE = "simpact"
# One timestamp for every archive member, so that the same inputs give the same archive bytes.
ZIP_TIME = (1980, 1, 1, 0, 0, 0)


# ---- PEP 517 hooks -----------------------------------------------------------------------------

def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    dist_info = pathlib.Path(metadata_directory) / _dist_info()
    dist_info.mkdir(parents=True, exist_ok=True)
    for name, text in _dist_info_files().items():
        (dist_info / name).write_text(text, encoding="utf-8")
    return dist_info.name


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    build_dir = _build_dir()
    _cmake_build(build_dir)
    extension = _extension(build_dir)
    files = {f"{PACKAGE}/{py.name}": py.read_bytes() for py in _python_sources()}
    files[f"{PACKAGE}/{extension.name}"] = extension.read_bytes()
    for name, text in _dist_info_files().items():
        files[f"{_dist_info()}/{name}"] = text.encode("utf-8")
    wheel_name = f"{PACKAGE}-{_version()}-{_wheel_tag()}.whl"
    _write_wheel(pathlib.Path(wheel_directory) / wheel_name, files)
    return wheel_name


def build_sdist(sdist_directory, config_settings=None):
    """The source tree's tracked and untracked-but-not-ignored files (git), else every file but
    build directories, under simpact-<version>/ with PKG-INFO."""
    base = f"{PACKAGE}-{_version()}"
    name = f"{base}.tar.gz"
    with tarfile.open(pathlib.Path(sdist_directory) / name, "w:gz", format=tarfile.PAX_FORMAT) as tar:
        for rel in _source_files():
            info = tar.gettarinfo(str(SOURCE_DIR / rel), arcname=f"{base}/{rel}")
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            info.mtime = 0
            with open(SOURCE_DIR / rel, "rb") as f:
                tar.addfile(info, f)
        pkg_info = _metadata().encode("utf-8")
        info = tarfile.TarInfo(f"{base}/PKG-INFO")
        info.size = len(pkg_info)
        info.mode = 0o644
        tar.addfile(info, io.BytesIO(pkg_info))
    return name


# ---- building ------------------------------------------------------------------------------------

def _build_dir():
    chosen = os.environ.get("SIMPACT_BUILD_DIR")
    return (SOURCE_DIR / chosen).resolve() if chosen else SOURCE_DIR / "build-pip"


def _python_executable():
    """The interpreter whose headers the extension is compiled against: in a venv its base
    interpreter (the same ABI, and a path that outlives the venv in the build's CMake cache)."""
    base = getattr(sys, "_base_executable", None)
    return base if base and os.path.exists(base) else sys.executable


def _cmake_build(build_dir):
    cmake = shutil.which("cmake")
    if not cmake:
        raise RuntimeError("simpact's build needs cmake (Debian: bash scripts/install-deps.sh)")
    if build_dir.exists() and not os.access(build_dir, os.W_OK):
        # ninja writes its log even when there is nothing to do
        raise RuntimeError(f"{build_dir} is not writable by this user: set SIMPACT_BUILD_DIR to a "
                           "build directory of your own")
    if not (build_dir / "CMakeCache.txt").exists():
        args = [cmake, "-S", str(SOURCE_DIR), "-B", str(build_dir), "-DCMAKE_BUILD_TYPE=Release",
                "-DSIMPACT_BUILD_TESTS=OFF", "-DSIMPACT_BUILD_BENCH=OFF", "-DSIMPACT_BUILD_PYTHON=ON",
                f"-DPython3_EXECUTABLE:FILEPATH={_python_executable()}"]
        if shutil.which("ninja"):
            args += ["-G", "Ninja"]
        args += shlex.split(os.environ.get("SIMPACT_CMAKE_ARGS", ""))
        _run(args)
    args = [cmake, "--build", str(build_dir), "--target", "simpact_python", "simpact_python_sources"]
    if "CMAKE_BUILD_PARALLEL_LEVEL" not in os.environ:
        args += ["-j", str(os.cpu_count() or 1)]
    _run(args)


def _run(args):
    print("simpact build backend:", shlex.join(args), file=sys.stderr, flush=True)
    subprocess.run(args, check=True, stdout=sys.stderr)


def _extension(build_dir):
    """The built _simpact module this interpreter can import (its ABI suffix)."""
    package_dir = build_dir / "python" / PACKAGE
    built = sorted(package_dir.glob("_simpact*.so"))
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        if (package_dir / f"_simpact{suffix}") in built:
            return package_dir / f"_simpact{suffix}"
    cache = (build_dir / "CMakeCache.txt").read_text(errors="replace")
    configured = re.search(r"^Python3_EXECUTABLE:[A-Z]+=(.*)$", cache, re.M)
    raise RuntimeError(
        f"{build_dir} holds {[p.name for p in built]}, built for "
        f"{configured.group(1) if configured else 'another Python'}, which {sys.executable} cannot "
        f"import (it needs one of {importlib.machinery.EXTENSION_SUFFIXES}): set SIMPACT_BUILD_DIR "
        "to a build directory of its own (a new one is configured for this interpreter)")


def _python_sources():
    # The files CMake copies into build/python/simpact/, taken at their source: a file removed
    # from python/simpact/ is not shipped from a stale copy.
    return sorted((SOURCE_DIR / "python" / PACKAGE).glob("*.py"))


# ---- metadata and archives ---------------------------------------------------------------------

def _version():
    """The version of CMakeLists.txt's project(), the one source of it."""
    text = (SOURCE_DIR / "CMakeLists.txt").read_text()
    match = re.search(r"project\(\s*simpact\s+VERSION\s+([0-9][0-9.]*)", text)
    if not match:
        raise RuntimeError("CMakeLists.txt: no `project(simpact VERSION x.y.z)`")
    return match.group(1)


def _project():
    try:
        import tomllib
    except ImportError:
        raise RuntimeError("simpact needs Python 3.11 or newer (pyproject.toml)") from None

    with open(SOURCE_DIR / "pyproject.toml", "rb") as f:
        return tomllib.load(f)["project"]


def _metadata():
    project = _project()
    lines = ["Metadata-Version: 2.1", f"Name: {project['name']}", f"Version: {_version()}",
             f"Summary: {project['description']}"]
    if "requires-python" in project:
        lines.append(f"Requires-Python: {project['requires-python']}")
    lines += [f"Requires-Dist: {req}" for req in project.get("dependencies", [])]
    for extra, reqs in project.get("optional-dependencies", {}).items():
        lines.append(f"Provides-Extra: {extra}")
        for req in reqs:
            name, _, marker = req.partition(";")
            condition = f'({marker.strip()}) and extra == "{extra}"' if marker else f'extra == "{extra}"'
            lines.append(f"Requires-Dist: {name.strip()}; {condition}")
    return "\n".join(lines) + "\n"


def _wheel_tag():
    """cpXY-cpXY-<platform>: the extension is built for this interpreter and machine. The
    platform is sysconfig's (linux_x86_64), not manylinux: it links the system's libraries."""
    interpreter = f"cp{sys.version_info.major}{sys.version_info.minor}"
    abi = interpreter + ("d" if hasattr(sys, "gettotalrefcount") else "")
    platform = re.sub(r"[-.]", "_", sysconfig.get_platform())
    return f"{interpreter}-{abi}-{platform}"


def _dist_info():
    return f"{PACKAGE}-{_version()}.dist-info"


def _dist_info_files():
    wheel = ("Wheel-Version: 1.0\nGenerator: simpact_backend (python/build_backend)\n"
             f"Root-Is-Purelib: false\nTag: {_wheel_tag()}\n")
    return {"METADATA": _metadata(), "WHEEL": wheel}


def _write_wheel(path, files):
    """A wheel: the files, then RECORD (path, sha256 in urlsafe base64 without padding, size)."""
    record = []
    tmp = path.with_name(path.name + ".part")
    with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as whl:
        for name, data in files.items():
            _add(whl, name, data, 0o755 if name.endswith(".so") else 0o644)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            record.append(f"{name},sha256={digest},{len(data)}")
        record_name = f"{_dist_info()}/RECORD"
        record.append(f"{record_name},,")
        _add(whl, record_name, ("\n".join(record) + "\n").encode(), 0o644)
    os.replace(tmp, path)


def _add(whl, name, data, mode):
    info = zipfile.ZipInfo(name, date_time=ZIP_TIME)
    info.external_attr = (0o100000 | mode) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    whl.writestr(info, data)


def _source_files():
    if (SOURCE_DIR / ".git").exists() and shutil.which("git"):
        listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                                cwd=SOURCE_DIR, check=True, capture_output=True).stdout.decode()
        names = sorted(set(n for n in listed.split("\0") if n))
    else:  # an unpacked sdist: everything but build output
        names = sorted(str(p.relative_to(SOURCE_DIR)) for p in SOURCE_DIR.rglob("*")
                       if p.is_file() and not re.match(r"(build[^/]*|dist|\.git)(/|$)",
                                                       str(p.relative_to(SOURCE_DIR)))
                       and "__pycache__" not in p.parts and p.name != "PKG-INFO")
    return [n for n in names if (SOURCE_DIR / n).is_file()]
