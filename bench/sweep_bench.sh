#!/usr/bin/env bash
# bench/sweep_bench.sh [SIMPACT] — whole-sweep throughput and memory, as reported in README:
#   * tasks/s and the share of wall time spent in HDF5 for billiards_theta and billiards_mc at
#     1 and 2 MPI ranks (one OpenMP thread per rank), from simpact's own end-of-run summary;
#   * peak resident memory per rank (GNU time, one per rank) for 1e5 vs 1e6 tasks: it must stay
#     flat, since nothing in a rank grows with the task count;
#   * where billiards_mc's time goes on 1 rank, 1 thread (issue 8: ≥ 0.25 of
#     BM_BilliardsBuildAndResolve's rate, measured here in the same run), see phases() below.
# Prints one line per measurement. Needs /usr/bin/time (package `time`); perf (optional) splits
# the journal from the rest. SWEEP_BENCH_PHASES_ONLY=1 runs only the breakdown.
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

# The per-phase breakdown of configs/billiards_mc.yaml on 1 rank, 1 thread, in CPU time (user +
# system, bash's `times`) so that a shared machine does not skew it; like the core benchmark's
# items/s, which Google Benchmark computes from CPU time. SWEEP_BENCH_ROUNDS (5) rounds of full
# run, small run and BM_BilliardsBuildAndResolve back to back; the round with the median ratio
# is reported, with every round's ratio:
#   startup   the small run's CPU time: the same grid with 2 replicas per point (128 tasks), so
#             the same output file (the same maps, written in one round) — process start, MPI
#             init, config, the file's structure, exit. (A 1-replica run writes one map per
#             column instead of five: its smaller file made ~30 ms of fixed HDF5 work look like
#             ~240 ns per task.)
#   run       the full run's CPU time minus startup, over the tasks it adds: tasks/s and the ratio;
#   sample, build, resolve, columns: the compute loop in process (bench/sweep_phases_bench);
#   HDF5      rank 0's wall time in HDF5 calls (simpact's summary), full run minus small run;
#   journal   the share of perf's samples in *Journal* symbols (append, read-back);
#   rest      run − loop − HDF5 − journal: per-θ statistics (reduce), scheduling, file I/O.
#   instructions/task  the run's user-space instructions (full − small run) per added task, beside
#             BM_BilliardsBuildAndResolve's per iteration (sweep_phases_bench --reference N):
#             a count a shared machine does not skew. From `perf stat -e instructions:u` where
#             the CPU exposes the counter, else valgrind's cachegrind (~2 min), else not shown.
#             SWEEP_BENCH_INSTRUCTIONS=0 skips it.

# instructions CMD... → the user-space instructions CMD executes (empty when nothing can count).
instructions() {
  local n=""
  if command -v perf >/dev/null 2>&1; then
    n=$(perf stat -x, -e instructions:u -o "$work/perfstat" "$@" >/dev/null 2>&1 &&
      awk -F, '/instructions/ && $1 ~ /^[0-9]+$/ { print $1 }' "$work/perfstat") || n=""
  fi
  if [ -z "$n" ] && command -v valgrind >/dev/null 2>&1; then
    n=$(valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
      sed -n 's/.*I *refs: *\([0-9,]*\).*/\1/p' | tr -d ,) || n=""
  fi
  echo "$n"
}

phases() {
  local bench_dir config=configs/billiards_mc.yaml
  bench_dir="$(dirname "$simpact")/bench"
  sed "s/samples_per_point: 2048/samples_per_point: 2/" "$config" >"$work/small.yaml"
  sed "s/samples_per_point: 2048/samples_per_point: 1024/" "$config" >"$work/half.yaml"
  # cpu_of CONFIG → the CPU seconds (user + system, in milliseconds from bash's `times`; GNU time
  # prints only hundredths) of one run; its log in $work/log.
  cpu_of() {
    (
      "$simpact" run "$1" -o "$work/phases.h5" --overwrite >"$work/log" 2>&1
      times
    ) | tail -1 | sed 's/m/ /g; s/s//g' | awk '{ print 60 * $1 + $2 + 60 * $3 + $4 }'
  }
  reference_rate() {
    "$bench_dir/core_bench" --benchmark_filter='BM_BilliardsBuildAndResolve$' --benchmark_min_time=0.5 2>/dev/null |
      sed -n 's/.*items_per_second=\([0-9.]*\)\([kM]\)\/s.*/\1 \2/p' | awk '{ print $1 * ($2 == "M" ? 1e6 : 1e3) }'
  }
  # Rounds of (full run, small run, reference, half run) back to back, so that each round's ratio
  # compares the sweep and the core at the same machine speed (a shared VM drifts by tens of per
  # cent within minutes); the median round is reported, with the spread. The half run (1024
  # replicas) gives a second estimate with no startup in it at all: (full − half) / 65536 tasks.
  local rounds="${SWEEP_BENCH_ROUNDS:-5}" round_lines="" f t r h line="" small_line=""
  for ((i = 0; i < rounds; ++i)); do
    f=$(cpu_of "$config")
    line=$(grep 'done:' "$work/log")
    t=$(cpu_of "$work/small.yaml")
    small_line=$(grep 'done:' "$work/log")
    r=$(reference_rate)
    h=$(cpu_of "$work/half.yaml")
    round_lines+="$f $t $r $h"$'\n'
  done
  local tasks  # the tasks the full run adds to the small one
  tasks=$(($(grep -o 'done: [0-9]*' <<<"$line" | cut -d' ' -f2) - $(grep -o 'done: [0-9]*' <<<"$small_line" | cut -d' ' -f2)))
  # the round with the median ratio: "full small reference ratio", and the spread of the ratios
  local median spread
  median=$(awk -v n="$tasks" 'NF == 4 { print $1, $2, $3, (n / ($1 - $2)) / $3 }' <<<"$round_lines" | sort -g -k4 |
    awk '{ a[NR] = $0 } END { print a[int((NR + 1) / 2)] }')
  spread=$(awk -v n="$tasks" 'NF == 4 { printf "%.3f ", (n / ($1 - $2)) / $3 }' <<<"$round_lines")
  local half_ratios  # (full − half run) per task against the reference: sorted, one per round
  half_ratios=$(awk 'NF == 4 { printf "%.3f\n", (65536 / ($1 - $4)) / $3 }' <<<"$round_lines" | sort -g | tr '\n' ' ')
  local full small
  full="$(cut -d' ' -f1 <<<"$median") $line"
  small="$(cut -d' ' -f2 <<<"$median") $small_line"
  local loop="" reference journal_share=""
  [ -x "$bench_dir/sweep_phases_bench" ] && loop=$("$bench_dir/sweep_phases_bench" "$config")
  reference=$(cut -d' ' -f3 <<<"$median")
  if command -v perf >/dev/null 2>&1; then
    perf record -q -F 2000 -o "$work/perf.data" "$simpact" run "$config" -o "$work/phases.h5" --overwrite \
      >/dev/null 2>&1 || true
    journal_share=$(perf report -i "$work/perf.data" --comm simpact --no-children --stdio 2>/dev/null |
      awk '/^ +[0-9.]+%/ && /Journal/ { sub("%", "", $1); s += $1 } END { printf "%.1f", s }')
  fi
  local per_task="" per_reference=""
  if [ "${SWEEP_BENCH_INSTRUCTIONS:-1}" = 1 ]; then
    local i_full i_small r_small r_large
    i_full=$(instructions "$simpact" run "$config" -o "$work/phases.h5" --overwrite)
    i_small=$(instructions "$simpact" run "$work/small.yaml" -o "$work/phases.h5" --overwrite)
    if [ -n "$i_full" ] && [ -n "$i_small" ]; then
      per_task=$(awk -v a="$i_full" -v b="$i_small" -v t="$tasks" \
        'BEGIN { printf "%.0f", (a - b) / t }')
    fi
    if [ -x "$bench_dir/sweep_phases_bench" ]; then
      r_small=$(instructions "$bench_dir/sweep_phases_bench" --reference 1000)
      r_large=$(instructions "$bench_dir/sweep_phases_bench" --reference 101000)
      [ -n "$r_small" ] && [ -n "$r_large" ] &&
        per_reference=$(awk -v a="$r_large" -v b="$r_small" 'BEGIN { printf "%.0f", (a - b) / 100000 }')
    fi
  fi
  awk -v full="$full" -v small="$small" -v tasks="$tasks" -v ref="$reference" -v journal="$journal_share" \
    -v rounds="$rounds" -v spread="$spread" -v half_ratios="$half_ratios" \
    -v per_task="$per_task" -v per_reference="$per_reference" '
    /^  (sample|build|resolve|columns) / { ns[$1] = $2; order[++n] = $1; line[$1] = $0 }
    END {
      split(full, f, " "); split(small, t, " ")
      match(full, /HDF5 [0-9.]+ s/); hdf5_full = substr(full, RSTART + 5, RLENGTH - 7) + 0
      match(small, /HDF5 [0-9.]+ s/); hdf5 = hdf5_full - substr(small, RSTART + 5, RLENGTH - 7)
      match(full, /[0-9]+ tasks\/s/); wall_rate = substr(full, RSTART, RLENGTH - 8) + 0
      run = f[1] - t[1]; rate = tasks / run; per = 1e9 / tasks
      loop = 0; for (i = 1; i <= n; ++i) loop += ns[order[i]]
      printf "billiards_mc phases, 1 rank, 1 thread: %d tasks (beyond the small run) in %.3f CPU s = %.0f tasks/s (summary, wall: %d tasks/s)\n",
        tasks, run, rate, wall_rate
      for (i = 1; i <= n; ++i) print line[order[i]]
      printf "  HDF5     %7.0f ns/task  (final write, wall, from the summaries: %.3f s full, %.3f s small)\n",
        hdf5 * per, hdf5_full, hdf5_full - hdf5
      j = journal == "" ? 0 : journal / 100 * f[1] * per
      if (journal != "") printf "  journal  %7.0f ns/task  (%s %% of the perf samples: symbols *Journal*)\n", j, journal
      if (n > 0) printf "  rest     %7.0f ns/task  (run - loop - HDF5 - journal: reduce, scheduling, I/O)\n", run * per - hdf5 * per - loop - j
      printf "  startup  %.3f CPU s once  (the small run: process start, MPI init, config, the file, exit)\n", t[1]
      printf "  BM_BilliardsBuildAndResolve %.0f /s: the sweep runs at %.3f of it (issue 8: >= 0.25; median of %d rounds: %s)\n",
        ref, rate / ref, rounds, spread
      n_half = split(half_ratios, hr, " ")
      printf "  cross-check: (full - 1024-replica run) / 65536 tasks runs at %.3f of it (median; sorted: %s)\n",
        hr[int((n_half + 1) / 2)], half_ratios
      if (per_task != "")
        printf "  instructions %s /task (run - startup), BM_BilliardsBuildAndResolve %s /iteration: %.3f\n",
          per_task, per_reference == "" ? "?" : per_reference, per_reference == "" ? 0 : per_reference / per_task
    }' <<<"$loop"
}

phases
[ "${SWEEP_BENCH_PHASES_ONLY:-0}" = 1 ] && exit 0

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
