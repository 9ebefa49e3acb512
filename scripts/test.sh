#!/usr/bin/env bash
# scripts/test.sh — on a fresh Debian 12 machine: installs the dependencies, builds simpact
# and runs the whole test suite (unit, MPI, end-to-end, Python layout checks). CI runs this.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh --with-slurm
bash scripts/build.sh build
# Open MPI refuses root and more ranks than cores unless told (tests also set these per test).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
cd build && ctest --output-on-failure -j 2 --timeout 900
