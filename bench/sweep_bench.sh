#!/usr/bin/env bash
# bench/sweep_bench.sh [SIMPACT] — whole-sweep throughput and memory, as reported in README:
#   * tasks/s and the share of wall time spent in HDF5 for billiards_theta and billiards_mc at
#     1 and 2 MPI ranks (one OpenMP thread per rank), from simpact's own end-of-run summary;
#   * peak resident memory per rank (GNU time, one per rank) for 1e5 vs 1e6 tasks: it must stay
#     flat, since nothing in a rank grows with the task count.
# Prints one line per measurement. Needs /usr/bin/time (package `time`).
set -euo pipefail
cd "$(dirname "$0")/.."
simpact="${1:-build/simpact}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMP_NUM_THREADS=1
work="$(mktemp -d /tmp/simpact-bench.XXXXXX)"
trap 'rm -rf "$work"' EXIT

summary() {  # "done: N tasks (...) in S s, R tasks/s, HDF5 H s (P%), ..." → "R tasks/s, HDF5 P%"
  sed -n 's/.*done: \([0-9]*\) tasks.* in \([0-9.]*\) s, \([0-9]*\) tasks\/s, HDF5 [0-9.]* s (\([0-9.]*\)%).*/\1 tasks in \2 s: \3 tasks\/s, HDF5 \4% of wall time/p'
}

for config in billiards_theta billiards_mc; do
  for ranks in 1 2; do
    line=$(mpirun -n "$ranks" "$simpact" run "configs/$config.yaml" -o "$work/$config.h5" --overwrite 2>&1 | summary)
    echo "$config, $ranks rank(s): $line"
  done
done

# The same Monte Carlo sweep at 1e5 and 1e6 tasks (64 angles × 1600 or 16000 replicas).
for replicas in 1600 16000; do
  sed "s/samples_per_point: 2048/samples_per_point: $replicas/" configs/billiards_mc.yaml > "$work/mc$replicas.yaml"
  # each rank under its own GNU time, writing time.<rank>
  mpirun -n 2 sh -c 'exec /usr/bin/time -f "peak RSS %M KiB" -o "$0.$OMPI_COMM_WORLD_RANK" "$@"' "$work/time" \
    "$simpact" run "$work/mc$replicas.yaml" -o "$work/mc$replicas.h5" --overwrite 2>&1 | summary |
    sed "s/^/billiards_mc with $replicas replicas, 2 ranks: /"
  for r in 0 1; do echo "  rank $r: $(cat "$work/time.$r")"; done
done
