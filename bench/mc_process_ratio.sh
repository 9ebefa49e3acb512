#!/usr/bin/env bash
# bench/mc_process_ratio.sh [SIMPACT [CORE_BENCH]] — issue 26's whole-process figure: a
# billiards_mc process of 1 024 000 tasks (configs/billiards_mc.yaml with 16 000 replicas per
# point), 1 rank, 1 thread, CPU time (user + system) from start-up to the published file,
# against BM_BilliardsBuildAndResolve's rate. SIMPACT_BENCH_ROUNDS (7) rounds, each one process
# run and one reference run back to back so that both see the same machine; prints every
# round's ratio and the medians.
set -euo pipefail
cd "$(dirname "$0")/.."
simpact="${1:-build/simpact}"
core_bench="${2:-build/bench/core_bench}"
rounds="${SIMPACT_BENCH_ROUNDS:-7}"
export OMP_NUM_THREADS=1
work="$(mktemp -d /tmp/simpact-mcratio.XXXXXX)"
trap 'rm -rf "$work"' EXIT
sed 's/samples_per_point: 2048/samples_per_point: 16000/' configs/billiards_mc.yaml >"$work/mc1m.yaml"
grep -q 'samples_per_point: 16000' "$work/mc1m.yaml"
tasks=1024000  # 64 angles x 16 000 replicas

for ((r = 1; r <= rounds; ++r)); do
  /usr/bin/time -f "%U %S" -o "$work/time" "$simpact" run "$work/mc1m.yaml" -o "$work/out.h5" --overwrite -q
  cpu=$(awk '{ print $1 + $2 }' "$work/time")
  ref=$("$core_bench" --benchmark_filter='BM_BilliardsBuildAndResolve$' --benchmark_format=csv 2>/dev/null |
    awk -F, '/BM_BilliardsBuildAndResolve/ { print $4 }')  # cpu_time, ns per iteration
  awk -v r="$r" -v cpu="$cpu" -v ref="$ref" -v n="$tasks" 'BEGIN {
    rate = n / cpu; refrate = 1e9 / ref
    printf "round %d: process %.3f CPU s = %.3f M tasks/s; reference %.1f ns = %.3f M/s; ratio %.3f\n",
      r, cpu, rate / 1e6, ref, refrate / 1e6, rate / refrate }' | tee -a "$work/rounds"
done
awk '{ cpu[NR] = $4; ref[NR] = $(NF - 6); ratio[NR] = $NF }
  function median(a, n,   i, j, t) {
    for (i = 1; i <= n; ++i) for (j = i + 1; j <= n; ++j) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return a[int((n + 1) / 2)]
  }
  END { m = median(ratio, NR); low = ratio[1]  # (sorted by median())
        printf "medians of %d rounds: process %.3f CPU s, reference %.1f ns, ratio %.3f (lowest %.3f)\n",
          NR, median(cpu, NR), median(ref, NR), m, low }' "$work/rounds"
