#!/usr/bin/env bash
# scripts/fuzz.sh [SECONDS [NAME...]] — fuzzes the config loader (config), the `resolve`/`check`
# JSON reader (json) and the `simulate` JSON request (simulate) (tests/fuzz) for SECONDS each
# (default 120), all at once; NAMEs pick some of them (e.g. `fuzz.sh 300 simulate`). Configures
# build-fuzz with clang, ASan + UBSan and libFuzzer coverage on the whole library
# (SIMPACT_FUZZ=ON), builds the fuzzers with -j2 and fuzzes a copy of the regression corpus
# (build-fuzz/fuzz-runs/NAME/corpus; the sources are never written). Prints executions,
# coverage, corpus size and any crash-*, timeout-*, oom-* or leak-* file; exits 1 when there is
# one. Extra CMake options via SIMPACT_CMAKE_ARGS. A crasher goes, minimized, into
# tests/fuzz/corpus/{config,json,simulate}/ (README).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-120}"
case "$seconds" in '' | *[!0-9]*) echo "fuzz.sh: SECONDS must be a number (got '$seconds')" >&2; exit 2 ;; esac
shift || true
names=("$@")
[ ${#names[@]} -gt 0 ] || names=(config json simulate)
declare -A fuzzer_of=([config]=config_fuzzer [json]=resolve_json_fuzzer [simulate]=simulate_json_fuzzer)
targets=()
for name in "${names[@]}"; do
  [ -n "${fuzzer_of[$name]:-}" ] || { echo "fuzz.sh: unknown harness '$name' (allowed: config, json, simulate)" >&2; exit 2; }
  targets+=("${fuzzer_of[$name]}")
done
build="build-fuzz"
flags="-O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined"
flags+=" -fsanitize=fuzzer-no-link"  # coverage feedback from the library, not only the harness
# shellcheck disable=SC2086
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ "-DCMAKE_CXX_FLAGS=$flags" \
  -DSIMPACT_FUZZ=ON -DSIMPACT_BUILD_BENCH=OFF ${SIMPACT_CMAKE_ARGS:-} >/dev/null
cmake --build "$build" -j2 --target "${targets[@]}"

export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
export OMP_NUM_THREADS=1
runs="$build/fuzz-runs"
declare -A pids
# A JSON request may ask for hours of work (limits.max_nodes up to 10^12): that fuzzer runs in
# fork mode and goes on past slow inputs, listing them (timeout-*) for triage in a Release build.
for name in "${names[@]}"; do
  fuzzer="${fuzzer_of[$name]}" mode=()
  [ "$name" != json ] || mode=(-fork=1 -ignore_timeouts=1)
  binary="$(find "$build" -type f -name "$fuzzer" -perm -u+x | head -n 1)"
  [ -n "$binary" ] || { echo "fuzz.sh: $fuzzer was not built" >&2; exit 1; }
  work="$runs/$name"
  rm -rf "$work" && mkdir -p "$work/corpus"
  cp tests/fuzz/corpus/"$name"/* "$work/corpus/"
  echo "fuzzing $fuzzer for $seconds s (log: $work/log)"
  "$binary" "$work/corpus" -dict="tests/fuzz/$name.dict" -max_total_time="$seconds" -timeout=5 \
    -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$work/" "${mode[@]}" >"$work/log" 2>&1 &
  pids[$name]=$!
done

found=0
for name in "${names[@]}"; do
  rc=0
  wait "${pids[$name]}" || rc=$?
  work="$runs/$name"
  # The last value of a libFuzzer stat ("stat::number_of_executed_units: N", "cov: N").
  last_stat() { { grep -o "$1 [0-9]*" "$work/log" || true; } | awk '{print $NF}' | tail -n 1; }
  execs="$(last_stat 'stat::number_of_executed_units:')"
  [ -n "$execs" ] || execs="$({ grep -o '^#[0-9]*' "$work/log" || true; } | tr -d '#' | tail -n 1)"  # fork mode
  cov="$(last_stat 'cov:')" ft="$(last_stat 'ft:')"
  inputs="$(find "$work/corpus" -type f | wc -l)"
  echo "== $name: exit $rc, ${execs:-?} executions in $seconds s, cov ${cov:-?}, ft ${ft:-?}," \
       "corpus $inputs inputs ($(du -sh "$work/corpus" | cut -f1))"
  artifacts="$(find "$work" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' \
               -o -name 'leak-*' -o -name 'slow-unit-*' \) | sort)"
  slow="" failures="$artifacts"
  if [ "$name" = json ]; then
    slow="$(grep -E '/(timeout|slow-unit)-' <<<"$artifacts" || true)"
    failures="$(grep -vE '/(timeout|slow-unit)-' <<<"$artifacts" || true)"
  fi
  if [ -n "$slow" ]; then
    echo "   slower than 5 s under the sanitizers (not failures; time them in a Release build):"
    for a in $slow; do echo "   $a"; done
  fi
  if [ -n "$failures" ] || [ "$rc" -ne 0 ]; then
    found=1
    echo "   found (see $work/log):"
    for a in $failures; do echo "   $a"; done
  fi
done
exit "$found"
