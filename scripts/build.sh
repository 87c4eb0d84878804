#!/usr/bin/env bash
# Configures (once) and builds tfm in build/ with clang-22, lld and Ninja.
#   scripts/build.sh [ninja targets...]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TFM_BUILD_DIR:-$root/build}
jobs=${TFM_JOBS:-2}

if [[ ! -f $build/build.ninja ]]; then
  cmake -G Ninja -S "$root" -B "$build" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DLLVM_ENABLE_LLD=ON \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit >/dev/null
fi
ninja -C "$build" -j "$jobs" "$@"
