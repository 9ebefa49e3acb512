#!/usr/bin/env bash
# bench/journal_bytes.sh [CONFIG] [SIMPACT] — journal size of a whole sweep: runs it on one rank
# and, the moment the final write starts (its staging file appears in OUT.h5.journal/, every
# chunk's record is on disk by then), sums the record files. Prints bytes and bytes per task.
set -euo pipefail
cd "$(dirname "$0")/.."
config="${1:-configs/billiards_mc.yaml}"
simpact="${2:-build/simpact}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMP_NUM_THREADS=1
work="$(mktemp -d /tmp/simpact-journal.XXXXXX)"
trap 'rm -rf "$work"' EXIT
out="$work/out.h5"
"$simpact" run "$config" -o "$out" -q &
pid=$!
bytes=""
while kill -0 "$pid" 2>/dev/null; do
  if compgen -G "$out.journal/staging-final-*" >/dev/null; then
    bytes=$(find "$out.journal" -name '*.bin' -printf '%s\n' | awk '{s += $1} END {print s + 0}')
    break
  fi
  sleep 0.002
done
wait "$pid"
tasks=$("$simpact" info "$out" --json | sed -n 's/.*"tasks": *\([0-9]*\).*/\1/p' | head -1)
[ -n "$bytes" ] || { echo "journal_bytes: missed the final write (too fast to catch)" >&2; exit 1; }
awk -v b="$bytes" -v t="$tasks" -v c="$config" 'BEGIN {printf "%s: %d tasks, journal %d bytes, %.3f bytes/task\n", c, t, b, b / t}'
