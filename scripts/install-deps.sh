#!/usr/bin/env bash
# Installs every build and run dependency of fsgen from Debian packages.
# Idempotent: exits quickly when everything is already present. With `fuzz`, also what
# `make fuzz` needs; with `mpi`, OpenMPI's mpirun.
set -euo pipefail
PACKAGES=(
  build-essential cmake pkg-config
  libsystemc-dev verilator yosys opensta zlib1g-dev
  libeigen3-dev libspdlog-dev libfmt-dev libyaml-cpp-dev nlohmann-json3-dev libcli11-dev
  libgtest-dev libxgboost-dev libsqlite3-dev gnuplot-nox ccache
)
# `install-deps.sh fuzz` (make fuzz): clang and its libFuzzer runtime as well;
# `install-deps.sh mpi`: OpenMPI's launcher, for `mpirun -n K fsgen explore` (docs/EXPLORE.md).
if [ "${1:-}" = fuzz ]; then PACKAGES+=(clang libclang-rt-14-dev); fi
if [ "${1:-}" = mpi ]; then PACKAGES+=(openmpi-bin); fi
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
