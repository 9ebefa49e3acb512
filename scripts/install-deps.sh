#!/usr/bin/env bash
# scripts/install-deps.sh [--with-slurm] — installs every build, run and test dependency of
# simpact from Debian 12 packages: non-interactive, idempotent (a no-op in ~0.1 s when all is
# installed). Needs root (or sudo). --with-slurm adds a one-node Slurm (scripts/slurm-local.sh).
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  libeigen3-dev libopenmpi-dev openmpi-bin libhdf5-openmpi-dev hdf5-tools
  libspdlog-dev libfmt-dev libgtest-dev libgmock-dev libbenchmark-dev
  libcli11-dev libyaml-cpp-dev nlohmann-json3-dev librandom123-dev libboost-dev
  python3 python3-h5py python3-numpy python3-matplotlib python3-xarray python3-h5netcdf
  python3-netcdf4 netcdf-bin python3-pandas python3-mpmath python3-scipy procps
  clang libclang-rt-14-dev
  libmujoco-dev libqhull-dev libbullet-dev libode-dev pkg-config
  python3-dev python3-pybind11 pybind11-dev python3-pytest python3-venv python3-pip
)
for arg in "$@"; do
  case "$arg" in
    --with-slurm) packages+=(slurm-wlm slurmctld slurmd slurm-client munge) ;;
    -h|--help) sed -n '2,4p' "$0"; exit 0 ;;
    *) echo "install-deps: unknown argument '$arg' (allowed: --with-slurm)" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages already installed"
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: run as root (or install sudo)" >&2; exit 1; }
  sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
echo "install-deps: installing ${missing[*]}"
$sudo apt-get update -q -o DPkg::Lock::Timeout=300 >/dev/null
$sudo apt-get install -y -q --no-install-recommends -o DPkg::Lock::Timeout=300 \
  -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold "${missing[@]}" >/dev/null
echo "install-deps: done"
