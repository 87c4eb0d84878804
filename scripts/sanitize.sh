#!/usr/bin/env bash
# Runs the test suite on a build of the tools, the runtime and the binaries
# tfm-compile links, all instrumented with AddressSanitizer and
# UndefinedBehaviorSanitizer (and libFuzzer's coverage, so that
# scripts/fuzz.sh shares the build):
#   scripts/sanitize.sh [lit arguments...]     e.g. scripts/sanitize.sh --filter Onnx
#   scripts/sanitize.sh --build-only
# Builds in build-asan/ (TFM_SANITIZER_BUILD_DIR). Any sanitizer report fails
# the test it happens in.
#
# Debian's libLLVM, libMLIR and libomp are not instrumented. That costs three
# things, each set in test/lit.cfg.py for a sanitizer build:
#   - allow_user_poisoning=0 and detect_container_overflow=0: instrumented and
#     uninstrumented copies of LLVM's inline code (BumpPtrAllocator, vector)
#     disagree about poisoned memory and report false overflows;
#   - leaks inside those libraries are theirs (scripts/sanitizer-suppressions);
#   - errors inside them are not seen, only those in tfm's code.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TFM_SANITIZER_BUILD_DIR:-$root/build-asan}

"$root/scripts/setup.sh" --sanitizers
if [[ ! -f $build/build.ninja ]]; then
  cmake -G Ninja -S "$root" -B "$build" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DLLVM_ENABLE_LLD=ON \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
    -DTFM_SANITIZERS="address;undefined" -DTFM_ENABLE_FUZZER=ON >/dev/null
fi
ninja -C "$build" -j "${TFM_JOBS:-2}"
[[ ${1:-} == --build-only ]] && exit 0
/usr/lib/llvm-22/bin/lit -sv "$build/test" "$@"
