#!/usr/bin/env bash
# bench/claim_waits.sh [CONFIG] [SIMPACT] — chunk claims on rank 0's window, predicted vs measured
# (docs/scaling.md): runs CONFIG under `mpirun -n R` for each R, one thread per rank, reads the
# claim lines simpact logs at --log-level debug, and prints one table row per run.
#   RANKS    the rank counts (default "1 2 4 8 16"); more ranks than cores are oversubscribed
#   CORES    the cores the model assumes (default: nproc)
#   REPEATS  runs of each R (default 1)
#   MPIRUN   the launcher and its options (default "mpirun --bind-to none"; e.g. add "--mca osc
#            pt2pt" for claims served only when rank 0 enters MPI)
# The model (docs/scaling.md): claims = chunks + R (each rank's last claim finds nothing). A claim
# costs its service time s0 (the mean wait of the first row, one rank). Ranks that share cores run
# a share of the time only, and Open MPI's progress loop yields the core inside a claim
# (mpi_yield_when_idle, set when oversubscribed), so a rank's descheduled time lands in its
# claims: a share 1 − G/R of its loop, where G is the cores the R ranks get (a priori G = CORES;
# measured: their CPU time over the loop's wall time, which other work on the machine lowers),
# i.e. s0 + loop × (1 − G/R) × R / claims per claim when R > CORES (else s0: with a core each, the
# ranks never yield, and time taken by other work on the machine lands anywhere, not in claims).
set -euo pipefail
cd "$(dirname "$0")/.."
config="${1:-configs/billiards_mc.yaml}"
simpact="$(realpath "${2:-build/simpact}")"
cores="${CORES:-$(nproc)}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMP_NUM_THREADS=1
work="$(mktemp -d /tmp/simpact-claims.XXXXXX)"
trap 'rm -rf "$work"' EXIT
read -r -a mpirun <<<"${MPIRUN:-mpirun --bind-to none}"
echo "$config: $cores cores ($(lscpu | sed -n 's/^Model name: *//p')), load $(cut -d' ' -f1-3 /proc/loadavg)," \
  "${mpirun[*]}"
printf '| %3s | %6s | %11s | %6s | %5s | %14s | %14s | %14s | %12s | %12s | %12s | %7s |\n' R chunks \
  "claims (pred)" loop_s "cores" "wait pred (us)" "pred, G (us)" "measured (us)" "share pred" \
  "pred, G" "measured" tasks/s
printf '|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|\n' ----: -------: ------------: -------: ------: \
  ---------------: ---------------: ---------------: -------------: -------------: -------------: --------:
s0=""
for ((rep = 1; rep <= ${REPEATS:-1}; ++rep)); do
  for ranks in ${RANKS:-1 2 4 8 16}; do
    "${mpirun[@]}" -n "$ranks" "$simpact" run "$config" -o "$work/out.h5" --overwrite --log-level debug \
      >"$work/log" 2>&1 || { echo "FAILED at $ranks ranks"; tail -3 "$work/log"; exit 1; }
    # "claims: total R ranks, N claims of chunks of C tasks, wait W s (mean M us, max X us), P% of
    #  rank time, loop L s, Q claims/s, cpu U s" and "N tasks in K chunks of C; ..."
    line="$(grep -o 'claims: total.*' "$work/log")"
    chunks="$(sed -n 's/.* tasks in \([0-9]*\) chunks of.*/\1/p' "$work/log" | head -1)"
    rate="$(sed -n 's/.* s, \([0-9]*\) tasks\/s.*/\1/p' "$work/log" | head -1)"
    claims="$(sed -n 's/.* \([0-9]*\) claims of chunks.*/\1/p' <<<"$line")"
    mean="$(sed -n 's/.*(mean \([0-9.]*\) us.*/\1/p' <<<"$line")"
    share="$(sed -n 's/.*), \([0-9.]*\)% of rank time.*/\1/p' <<<"$line")"
    loop="$(sed -n 's/.*loop \([0-9.]*\) s.*/\1/p' <<<"$line")"
    cpu="$(sed -n 's/.*cpu \([0-9.]*\) s$/\1/p' <<<"$line")"
    [ -n "$s0" ] || s0="$mean"
    awk -v R="$ranks" -v P="$cores" -v K="$chunks" -v n="$claims" -v L="$loop" -v U="$cpu" -v m="$mean" \
      -v sh="$share" -v s0="$s0" -v rate="$rate" 'BEGIN {
        G = U / L
        a = R > P ? 1 - P / R : 0
        g = R > P ? 1 - G / R : 0
        printf "| %3d | %6d | %5d (%4d) | %6.3f | %5.2f | %14.1f | %14.1f | %14.1f | %11.1f%% | %11.1f%% | %11.1f%% | %6.0fk |\n",
          R, K, n, K + R, L, G, s0 + 1e6 * L * a * R / n, s0 + 1e6 * L * g * R / n, m, 100 * a, 100 * g, sh,
          rate / 1000 }'
  done
done
echo "wait per claim and its share of the ranks' loop time; pred: a priori (G = $cores cores), pred, G:" \
  "with the cores the ranks got (their CPU time / the loop's wall time); s0 = $s0 us"
