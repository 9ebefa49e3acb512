#!/usr/bin/env bash
# bench/scaling.sh [SIMPACT] [REPLICAS] — MPI × OpenMP scaling of configs/billiards_mc.yaml on one
# node, REPLICAS per grid point (default 128000: 8 192 000 tasks), and a check that every run's
# results are bit-identical to the 1 × 1 run's.
#   CASES    "ranks,threads ..." (default: 1,1 2,1 4,1 8,1 16,1 1,2 1,4 1,8 1,16 2,8 4,4 8,2)
#   REPEATS  runs of each case (default 1)
#   LAUNCH   a command put before SIMPACT under mpirun (e.g. a dynamic loader when the build is
#            carried to a machine without its libraries); MPIRUN the launcher (default mpirun; words
#            split like LAUNCH's)
#   REF      the file to compare with (default: the 1 × 1 run of this invocation)
#   PYTHON   a python3 with h5py (default /usr/bin/python3, Debian's python3-h5py)
# Ranks are not bound to cores (--bind-to none), so one rank's threads can spread over the node.
# Prints one line per run (wall time around mpirun, simpact's own summary) and the comparison.
set -euo pipefail
cd "$(dirname "$0")/.."
simpact="$(realpath "${1:-build/simpact}")"
replicas="${2:-128000}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
work="$(mktemp -d /tmp/simpact-scaling.XXXXXX)"
trap 'rm -rf "$work"' EXIT
echo "$(nproc) cores: $(lscpu | sed -n 's/^Model name: *//p')"
sed "s/samples_per_point: 2048/samples_per_point: $replicas/" configs/billiards_mc.yaml >"$work/config.yaml"
read -r -a launch <<<"${LAUNCH:-}"
read -r -a mpirun <<<"${MPIRUN:-mpirun}"
for ((rep = 1; rep <= ${REPEATS:-1}; ++rep)); do
  for c in ${CASES:-1,1 2,1 4,1 8,1 16,1 1,2 1,4 1,8 1,16 2,8 4,4 8,2}; do
    IFS=, read -r ranks threads <<<"$c"
    out="$work/r${ranks}t${threads}_$rep.h5"
    start=$(date +%s.%N)
    OMP_NUM_THREADS=$threads "${mpirun[@]}" --bind-to none -n "$ranks" "${launch[@]}" "$simpact" run \
      "$work/config.yaml" -o "$out" --overwrite >"$work/log" 2>&1 || { echo "FAILED: $ranks x $threads"; tail -3 "$work/log"; exit 1; }
    end=$(date +%s.%N)
    echo "$ranks ranks x $threads threads: wall $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }') s;" \
      "$(grep -o 'done:.*' "$work/log")"
  done
done
# Every result dataset (xi, xi_maps, energy, outcomes) byte for byte against the reference.
"${PYTHON:-/usr/bin/python3}" - "${REF:-$work/r1t1_1.h5}" "$work"/*.h5 <<'EOF'
import sys
import h5py
import numpy as np


def datasets(path):
    out = {}
    with h5py.File(path, "r") as f:
        def visit(name, obj):
            if isinstance(obj, h5py.Dataset) and name.split("/")[0] in ("xi", "xi_maps", "energy", "outcomes"):
                out[name] = np.ascontiguousarray(obj[()]).tobytes()
        f.visititems(visit)
    return out


ref = datasets(sys.argv[1])
same = [datasets(p) == ref for p in sys.argv[2:]]
for path, ok in zip(sys.argv[2:], same):
    if not ok:
        print(f"DIFFERENT: {path}")
print(f"{sum(same)} of {len(same)} runs bit-identical to the 1 x 1 run ({len(ref)} datasets each)")
sys.exit(0 if all(same) else 1)
EOF
