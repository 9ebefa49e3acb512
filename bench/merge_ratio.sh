#!/usr/bin/env bash
# bench/merge_ratio.sh [SIMPACT] — issue 38's merge figure: a billiards_mc study of 1 024 000 tasks
# (configs/billiards_mc.yaml with 16 000 replicas per point) run once whole (1 rank, OMP_NUM_THREADS
# threads, default 1) and as 4 shards, then `simpact merge` of the 4 shards. SIMPACT_BENCH_ROUNDS
# (5) rounds, each a whole run and a merge back to back so both see the same machine; prints
# every round's wall seconds and merge/run ratio, and the medians. Target: ratio <= 0.5.
set -euo pipefail
cd "$(dirname "$0")/.."
simpact="${1:-build/simpact}"
rounds="${SIMPACT_BENCH_ROUNDS:-5}"
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}"
work="$(mktemp -d /tmp/simpact-mergeratio.XXXXXX)"
trap 'rm -rf "$work"' EXIT
sed 's/samples_per_point: 2048/samples_per_point: 16000/' configs/billiards_mc.yaml >"$work/mc1m.yaml"
grep -q 'samples_per_point: 16000' "$work/mc1m.yaml"
for i in 0 1 2 3; do "$simpact" run "$work/mc1m.yaml" -o "$work/shard_$i.h5" --shard "$i/4" -q; done

wall() {  # wall seconds of one command
  /usr/bin/time -f "%e" -o "$work/time" "$@" >/dev/null
  cat "$work/time"
}
for ((r = 1; r <= rounds; ++r)); do
  run=$(wall "$simpact" run "$work/mc1m.yaml" -o "$work/whole.h5" --overwrite -q)
  merge=$(wall "$simpact" merge "$work"/shard_{0,1,2,3}.h5 -o "$work/merged.h5" --overwrite -q)
  awk -v r="$r" -v run="$run" -v merge="$merge" \
    'BEGIN { printf "round %d: run %.2f s, merge of 4 shards %.2f s, ratio %.3f\n", r, run, merge, merge / run }' |
    tee -a "$work/rounds"
done
awk '{ run[NR] = $4; merge[NR] = $10; ratio[NR] = $NF }
  function median(a, n,   i, j, t) {
    for (i = 1; i <= n; ++i) for (j = i + 1; j <= n; ++j) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return a[int((n + 1) / 2)]
  }
  END { printf "medians of %d rounds: run %.2f s, merge %.2f s, ratio %.3f\n", NR, median(run, NR),
          median(merge, NR), median(ratio, NR) }' "$work/rounds"
