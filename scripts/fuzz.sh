#!/usr/bin/env bash
# Fuzzes the ONNX importer with libFuzzer and AddressSanitizer for a bounded
# time, starting from a seed corpus of small ONNX models.
#   scripts/fuzz.sh [seconds (default 60)] [extra libFuzzer arguments...]
# Builds in build-fuzz/ (TFM_FUZZ_BUILD_DIR); keeps the corpus it grows in
# build-fuzz/corpus and writes crashers to build-fuzz/crashes/. Exits
# non-zero when libFuzzer found a crash: add the crasher to
# test/Target/Onnx/fuzz-regressions/ once it is fixed.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TFM_FUZZ_BUILD_DIR:-$root/build-fuzz}
seconds=${1:-60}
shift || true

"$root/scripts/setup.sh"
if [[ ! -f $build/build.ninja ]]; then
  cmake -G Ninja -S "$root" -B "$build" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DLLVM_ENABLE_LLD=ON \
    -DCMAKE_C_FLAGS="-fsanitize=address,fuzzer-no-link -g" \
    -DCMAKE_CXX_FLAGS="-fsanitize=address,fuzzer-no-link -g" \
    -DTFM_ENABLE_FUZZER=ON >/dev/null
fi
ninja -C "$build" -j "${TFM_JOBS:-2}" tfm-onnx-fuzzer

# Seeds: the text-format test models, the regressions, and a PyTorch
# export when torch is there.
seeds=$build/seeds
mkdir -p "$seeds" "$build/corpus" "$build/crashes"
for text in "$root"/test/Target/Onnx/Inputs/*.textproto; do
  protoc --encode=onnx.ModelProto -I/usr/include/onnx \
    /usr/include/onnx/onnx.proto <"$text" >"$seeds/$(basename "$text" .textproto).onnx"
done
cp "$root"/test/Target/Onnx/fuzz-regressions/* "$seeds/" 2>/dev/null || true
if /usr/bin/python3 -c "import torch" 2>/dev/null; then
  for model in mha decoder vit; do
    [[ -f $seeds/$model.onnx ]] && continue
    /usr/bin/python3 "$root/test/lib/onnxcheck.py" "$model" --export-only \
      --opset 14 --work "$seeds/torch" >/dev/null 2>&1 &&
      cp "$seeds/torch/$model.onnx" "$seeds/"
  done
  rm -rf "$seeds/torch"
fi

# libFuzzer exits non-zero on the first crash, leak or timeout.
# allow_user_poisoning=0: LLVM's BumpPtrAllocator poisons its slabs when
# compiled with ASan, but libMLIR is not, and the instrumented and plain
# copies of its inline code disagree about what is poisoned (false
# use-after-poison reports inside MLIR's uniquer). Heap errors are still
# caught by ASan's own malloc.
ASAN_OPTIONS=allow_user_poisoning=0:detect_leaks=1 \
  "$build/bin/tfm-onnx-fuzzer" \
  -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 \
  -artifact_prefix="$build/crashes/" "$@" "$build/corpus" "$seeds"
