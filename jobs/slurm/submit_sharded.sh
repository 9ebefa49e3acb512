#!/bin/bash
# jobs/slurm/submit_sharded.sh configs/billiards_mc.yaml results/billiards_mc.h5 8
#   → submits a job array of 8 shards (jobs/slurm/array.sbatch → results/billiards_mc.shards/
#     shard_<i>.h5) and a merge job (jobs/slurm/merge.sbatch → results/billiards_mc.h5) that runs
#     only after every shard succeeded (afterok; cancelled if one fails). Prints both job ids:
#       array job 41 (8 shards -> results/billiards_mc.shards)
#       merge job 42 (afterok:41 -> results/billiards_mc.h5)
#
# usage: submit_sharded.sh CONFIG.yaml OUT.h5 [N (default 4)] [sbatch option...]
#   The sbatch options go to both jobs, e.g. --partition=long or --time=04:00:00. Logs land in
#   the current directory; SIMPACT_BIN, SIMPACT_LAUNCHER and SIMPACT_SHARD_DIR (default
#   OUT without .h5, plus .shards) pass through to the jobs.
set -euo pipefail

if [ $# -lt 2 ]; then
  sed -n '9p' "$0" | sed 's/^# *//' >&2
  exit 2
fi
config="$1" out="$2" n="${3:-4}"
shift $(($# < 3 ? $# : 3))
[[ "$n" =~ ^[1-9][0-9]*$ ]] || { echo "submit_sharded: N must be a positive integer, not '$n'" >&2; exit 2; }
[ -f "$config" ] || { echo "submit_sharded: no config '$config'" >&2; exit 2; }
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
dir="${SIMPACT_SHARD_DIR:-${out%.h5}.shards}"

# --parsable prints "id" or "id;cluster".
array="$(sbatch --parsable --array="0-$((n - 1))" "$@" "$here/array.sbatch" "$config" "$dir")"
array="${array%%;*}"
merge="$(sbatch --parsable --dependency="afterok:$array" --kill-on-invalid-dep=yes "$@" \
         "$here/merge.sbatch" "$dir" "$out")"
merge="${merge%%;*}"
echo "array job $array ($n shards -> $dir)"
echo "merge job $merge (afterok:$array -> $out)"
