#!/usr/bin/env bash
# Installs everything rdpkit needs to build and test, from Debian's packages (Debian 12 bookworm).
#
#   bash scripts/setup.sh [EXTRA_PACKAGE...]
#
# Idempotent: when every package is already installed it changes nothing and needs no network.
# Runs apt-get directly as root, through sudo otherwise.
set -euo pipefail

packages=(
  cmake g++ ninja-build git python3     # toolchain; python3 for the example scripts
  libboost-dev                          # Boost.Math, Boost.Multiprecision (headers)
  libgmp-dev libmpfr-dev libmpfi-dev    # certified arithmetic
  nlohmann-json3-dev libcli11-dev       # JSON, command line
  libeigen3-dev                         # FFT of the PLD accountant (header-only, MPL-2.0)
  libgtest-dev libgmock-dev libbenchmark-dev  # tests and benchmarks
  clang-format                          # format check in scripts/test.sh
  libopenmpi-dev openmpi-bin            # distributed training (-DRDPKIT_WITH_MPI=ON, mpirun)
  ccache                                # scripts/test.sh: the MPI build reuses the Release objects
  clang libclang-rt-dev                 # fuzz harnesses: clang + compiler-rt's libFuzzer, ASan,
                                        # UBSan (libclang-rt-dev pulls libclang-rt-14-dev on 12)
  python3-dev pybind11-dev python3-pybind11   # the Python package (python/, pip install .)
  python3-pip python3-setuptools python3-wheel python3-venv
  python3-numpy python3-sklearn python3-pandas python3-matplotlib python3-pytest
)
packages+=("$@")

if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
  echo "setup.sh: this script needs a Debian-based system (apt-get, dpkg-query)." >&2
  echo "setup.sh: install these packages (or their equivalents) yourself: ${packages[*]}" >&2
  exit 1
fi

missing=()
for package in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$package")
done

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "setup.sh: all ${#packages[@]} packages already installed"
  exit 0
fi

sudo=()
if [[ $(id -u) -ne 0 ]]; then
  if ! command -v sudo >/dev/null 2>&1; then
    echo "setup.sh: not root and sudo is missing; as root run: apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
  sudo=(sudo)
fi

echo "setup.sh: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -q
"${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
echo "setup.sh: done"
