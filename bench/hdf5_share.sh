#!/usr/bin/env bash
# bench/hdf5_share.sh [SIMPACT [BASELINE_SIMPACT]] — the fixed cost of a small sweep's files:
# configs/billiards_theta.yaml (1 025 tasks) at 1 and 2 ranks, one thread per rank,
# SIMPACT_BENCH_RUNS (9) runs each, interleaved with the baseline binary when one is given so
# that both see the same machine load. Prints the medians of simpact's own end-of-run summary:
# HDF5 time, its share of the wall time from the start of the sweep (and that wall time), and
# the publishing of the files (their fsyncs, renames and directory syncs: file system, not HDF5).
# Then HDF5's own floor (bench/hdf5_floor, median of the same number of fresh processes): the
# least file holding only billiards_theta's 24 maps and their coordinate, beside the most HDF5
# time that a 25 % share allows with the sweep's other time unchanged ((wall - HDF5) / 3).
set -euo pipefail
cd "$(dirname "$0")/.."
binaries=("${1:-build/simpact}")
[ $# -ge 2 ] && binaries+=("$2")
runs="${SIMPACT_BENCH_RUNS:-9}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMP_NUM_THREADS=1
work="$(mktemp -d /tmp/simpact-hdf5share.XXXXXX)"
trap 'rm -rf "$work"' EXIT

# "done: ... HDF5 H s (P%)[, publish S s], ..." -> "H P S" (the share from unrounded times)
fields() {
  sed -n 's/.*done: .*, HDF5 \([0-9.]*\) s (\([0-9.]*\)%)\(, publish \([0-9.]*\) s\)\{0,1\}.*/\1 \2 \4/p'
}

for ranks in 1 2; do
  for ((run = 0; run < runs; ++run)); do
    for b in "${!binaries[@]}"; do
      mpirun -n "$ranks" "${binaries[$b]}" run configs/billiards_theta.yaml -o "$work/out$b.h5" --overwrite 2>&1 |
        fields >>"$work/r$ranks.b$b"
    done
  done
  for b in "${!binaries[@]}"; do
    awk -v name="${binaries[$b]}" -v ranks="$ranks" '
      { hdf5[NR] = $1; share[NR] = $2 / 100; wall[NR] = $1 / share[NR]; sync[NR] = ($3 == "" ? 0 : $3) }
      function median(a, n,   i, j, t) {
        for (i = 1; i <= n; ++i) for (j = i + 1; j <= n; ++j) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
        return a[int((n + 1) / 2)]
      }
      END {
        w = median(wall, NR); h = median(hdf5, NR)
        printf "billiards_theta, %d rank(s), %s: wall %.1f ms, HDF5 %.1f ms, HDF5 share %.0f%%, publish (file syncs, renames, directory syncs) %.1f ms (medians of %d); a 25 %% share allows %.1f ms of HDF5\n",
          ranks, name, 1e3 * w, 1e3 * h, 100 * median(share, NR), 1e3 * median(sync, NR), NR, 1e3 * (w - h) / 3
      }' "$work/r$ranks.b$b"
  done
done

floor="$(dirname "${binaries[0]}")/bench/hdf5_floor"
if [ -x "$floor" ]; then
  for ((run = 0; run < runs; ++run)); do "$floor" "$work"; done |
    sed -n 's/.*(first use: \([0-9.]*\) ms in all).*/\1/p' | sort -n |
    awk '{ v[NR] = $1 } END { printf "HDF5 floor (%s, fresh process: library start + one file of the 24 maps and their coordinate): %.1f ms (median of %d)\n", "'"$floor"'", v[int((NR + 1) / 2)], NR }'
fi
