#!/usr/bin/env bash
# scripts/run-main.sh — on a fresh Debian 12 machine: installs the dependencies, builds simpact
# and runs the default main job, the paper's Fig. 5 sweep (ξ of a billiards break versus θ):
#   results/billiards_theta.h5   (and results/fig5.png when matplotlib can draw it)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh build
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
mkdir -p results
mpirun -n 2 build/simpact run configs/billiards_theta.yaml -o results/billiards_theta.h5 --overwrite
if [ -f scripts/fig5.py ]; then /usr/bin/python3 scripts/fig5.py results/billiards_theta.h5 -o results/fig5.png; fi
