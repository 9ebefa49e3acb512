#!/usr/bin/env bash
# scripts/build.sh [BUILD_DIR] — configures (Release, Ninja, parallel HDF5) and builds simpact
# with both cores. Extra CMake options via SIMPACT_CMAKE_ARGS (e.g. -DSIMPACT_NATIVE=ON).
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
# shellcheck disable=SC2086
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSIMPACT_WERROR=ON ${SIMPACT_CMAKE_ARGS:-} >/dev/null
cmake --build "$build" -j "$(nproc)"
