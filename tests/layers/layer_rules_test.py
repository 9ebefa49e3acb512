"""The layer rules fail the build on a wrong include (issue: io <-> sweep, io running physics).

Copies src/ and include/ into a temp dir, checks the real tree passes, then plants one wrong
include at a time (core including sweep, models including io, io including a model, physics
including <mpi.h> or <hdf5.h>) and requires cmake/check_layers.py to fail naming that file.
Usage: layer_rules_test.py SOURCE_DIR
"""
import pathlib
import shutil
import subprocess
import sys
import tempfile

root = pathlib.Path(sys.argv[1])
checker = root / "cmake" / "check_layers.py"
work = pathlib.Path(tempfile.mkdtemp(prefix="simpact-layers-"))
for d in ("src", "include"):
    shutil.copytree(root / d, work / d)


def check():
    return subprocess.run([sys.executable, str(checker), str(work)], capture_output=True, text=True)


p = check()
if p.returncode != 0:
    sys.exit(f"FAIL: the real tree violates the layer rules:\n{p.stderr}")
print("ok: the tree follows the layer rules")

cases = [
    ("src/core/kinetic_metric.cpp", '#include "simpact/sweep/task_kernel.hpp"'),
    ("src/core/plastic_impact.cpp", '#include "simpact/io/sweep_file.hpp"'),
    ("src/models/cradle_scenario.cpp", '#include "simpact/sweep/parameter_space.hpp"'),
    ("src/models/billiards_scenario.cpp", '#include "simpact/io/impact_json.hpp"'),
    ("src/io/impact_json_request.cpp", '#include "simpact/models/model_catalog.hpp"'),
    ("src/io/sweep_file.cpp", '#include "simpact/analysis/impact_task_kernel.hpp"'),
    ("src/sweep/parameter_space.cpp", '#include "simpact/io/sweep_config_yaml.hpp"'),
    ("src/core/propagation.cpp", "#include <mpi.h>"),
    ("src/models/cradle_scenario.cpp", "#include <hdf5.h>"),
    ("include/simpact/core/impact_problem.hpp", '#include "simpact/study/sweep_runner.hpp"'),
    # the sweep engine (issue 26): OpenMP and MPI, but no file format, model or orchestration
    ("src/sweep/compute_chunk.cpp", '#include "simpact/io/chunk_journal.hpp"'),
    ("src/sweep/chunk_reduction.cpp", '#include "simpact/study/sweep_runner.hpp"'),
    ("include/simpact/sweep/task_kernel.hpp", '#include "simpact/models/mechanism_family.hpp"'),
    ("src/sweep/task_kernel.cpp", '#include "simpact/analysis/impact_task_kernel.hpp"'),
    ("src/sweep/chunk_scheduler.cpp", "#include <hdf5.h>"),
    ("src/sweep/compute_chunk.cpp", '#include "../study/sweep_layout.hpp"'),
    ("src/core/reset_map.cpp", "#include <omp.h>"),
]
# What the sweep engine may use: a tree with these includes added still passes.
allowed = [
    ("src/sweep/chunk_results.cpp", "#include <omp.h>"),
    ("src/sweep/chunk_results.cpp", "#include <mpi.h>"),
    ("src/sweep/chunk_results.cpp", '#include "simpact/core/counter_rng.hpp"'),
]
failures = 0
for path, line in allowed:
    f = work / path
    original = f.read_text()
    f.write_text(line + "\n" + original)
    p = check()
    f.write_text(original)
    ok = p.returncode == 0
    print(f"{'ok' if ok else 'FAIL'}: {path} may include {line}: rc={p.returncode} {p.stderr.strip()[:160]}")
    failures += not ok
for path, line in cases:
    f = work / path
    original = f.read_text()
    f.write_text(line + "\n" + original)
    p = check()
    f.write_text(original)
    ok = p.returncode != 0 and path in p.stderr
    print(f"{'ok' if ok else 'FAIL'}: {path} with {line}: rc={p.returncode} {p.stderr.strip()[:160]}")
    failures += not ok
sys.exit(1 if failures else 0)
