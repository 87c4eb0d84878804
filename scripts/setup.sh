#!/usr/bin/env bash
# Installs what tfm needs to build and test, with apt-get, and nothing more.
#
#   scripts/setup.sh [--sanitizers]
# --sanitizers adds clang's sanitizer and libFuzzer runtimes, for
# scripts/sanitize.sh and scripts/fuzz.sh.
#
# Idempotent: when every package is present it only runs `dpkg-query` and
# exits. Needs root (or sudo) on a machine that lacks a package.
set -euo pipefail

packages=(
  # Toolchain and LLVM/MLIR 22.
  cmake ninja-build clang-22 lld-22 llvm-22-dev llvm-22-tools libmlir-22-dev
  mlir-22-tools libfmt-dev
  # OpenMP runtime for the parallel loops of compiled models.
  libomp-22-dev
  # The ONNX importer: the protobuf classes of libonnx-dev, and protoc to
  # encode the tests' text-format models.
  libonnx-dev libprotobuf-dev protobuf-compiler
  # Test references (Debian's python3, not a pyenv one); PyTorch exports the
  # ONNX tests' models, and calls OpenBLAS's threaded build for its
  # matmuls (without it, Debian's torch falls back to the reference BLAS,
  # many times slower: the main job's comparison would not be fair).
  python3 python3-numpy python3-torch python3-torchvision
  libopenblas0-pthread
  # ONNX's own backend node tests (onnx.backend.test.case.node), which
  # test/Target/Onnx/onnx-node-tests.test runs.
  python3-onnx
  # Attention heatmaps (scripts/heatmaps.py).
  python3-matplotlib
  # Tensor-parallel models (tfm-compile --tensor-parallel=N) run on Open MPI.
  openmpi-bin libopenmpi-dev
)
if [[ ${1:-} == --sanitizers ]]; then
  packages+=(libclang-rt-22-dev)
fi

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done

if ((${#missing[@]} == 0)); then
  exit 0
fi

echo "setup: installing ${missing[*]}"
sudo=""
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || {
    echo "setup: need root to install ${missing[*]}" >&2
    exit 1
  }
  sudo=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
