#!/usr/bin/env bash
# Fuzzes tfm's input doors with libFuzzer, AddressSanitizer and
# UndefinedBehaviorSanitizer, each for a bounded time:
#   onnx         ONNX bytes to an imported, verified module
#   npy          .npy bytes to a compiled executable's input array
#   safetensors  --weights bytes to weights bound to an entry
#   mlir         MLIR text through the CPU pipeline to LLVM IR
#   scripts/fuzz.sh [seconds per door (default 60)] [door...] [-- libFuzzer args]
# With no door, fuzzes them all in turn. The random-graph differential fuzzer,
# which needs no sanitizer build, is scripts/difffuzz.py.
#
# Builds in build-asan/ (TFM_SANITIZER_BUILD_DIR), the build scripts/sanitize.sh
# runs the suite on; keeps the corpus each door grows in
# build-asan/fuzz/DOOR/corpus and writes crashers to build-asan/fuzz/DOOR/crashes.
# Exits non-zero when a fuzzer found a crash: once it is fixed, add the input
# to fuzz/regressions/DOOR/, which the test suite replays.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TFM_SANITIZER_BUILD_DIR:-$root/build-asan}
seconds=60
if [[ ${1:-} =~ ^[0-9]+$ ]]; then seconds=$1; shift; fi
doors=()
while [[ $# -gt 0 && $1 != -- ]]; do doors+=("$1"); shift; done
[[ ${1:-} == -- ]] && shift
[[ ${#doors[@]} -eq 0 ]] && doors=(onnx npy safetensors mlir)
for door in "${doors[@]}"; do
  case $door in onnx|npy|safetensors|mlir) ;;
    *) echo "fuzz.sh: unknown door '$door' (onnx, npy, safetensors, mlir)" >&2
       exit 2 ;;
  esac
done

"$root/scripts/sanitize.sh" --build-only

# Seeds: the suite's inputs of each door, and its regressions.
seed() {
  local door=$1 seeds=$2
  mkdir -p "$seeds"
  if [[ $door == onnx ]]; then
    # (Some are other messages on purpose: those do not encode as models.)
    for text in "$root"/test/Target/Onnx/Inputs/*.textproto; do
      out=$seeds/$(basename "$text" .textproto).onnx
      protoc --encode=onnx.ModelProto -I/usr/include/onnx \
        /usr/include/onnx/onnx.proto <"$text" >"$out" 2>/dev/null ||
        rm -f "$out"
    done
    if /usr/bin/python3 -c "import torch" 2>/dev/null; then
      for model in mha decoder vit; do
        [[ -f $seeds/$model.onnx ]] && continue
        /usr/bin/python3 "$root/test/lib/onnxcheck.py" "$model" --export-only \
          --opset 14 --work "$seeds/torch" >/dev/null 2>&1 &&
          cp "$seeds/torch/$model.onnx" "$seeds/"
      done
      rm -rf "$seeds/torch"
    fi
  else
    /usr/bin/python3 "$root/scripts/fuzz_seeds.py" "$door" "$seeds"
  fi
  cp "$root"/fuzz/regressions/"$door"/* "$seeds/" 2>/dev/null || true
}

# allow_user_poisoning=0: LLVM's BumpPtrAllocator poisons its slabs when
# compiled with ASan, but libMLIR is not, and the instrumented and plain
# copies of its inline code disagree about what is poisoned (false
# use-after-poison reports inside MLIR's uniquer). detect_container_overflow=0
# for the same reason with std::vector. Heap errors are still caught by
# ASan's own malloc.
export ASAN_OPTIONS=allow_user_poisoning=0:detect_container_overflow=0:detect_leaks=1
export LSAN_OPTIONS=suppressions=$root/scripts/sanitizer-suppressions/lsan.txt
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:suppressions=$root/scripts/sanitizer-suppressions/ubsan.txt
status=0
for door in "${doors[@]}"; do
  work=$build/fuzz/$door
  mkdir -p "$work/corpus" "$work/crashes"
  seed "$door" "$work/seeds"
  echo "== $door: ${seconds}s"
  # libFuzzer exits non-zero on the first crash, leak or timeout.
  fuzzer_status=0
  "$build/bin/tfm-$door-fuzzer" \
    -max_total_time="$seconds" -timeout=30 -rss_limit_mb=4096 \
    -print_final_stats=1 -artifact_prefix="$work/crashes/" "$@" \
    "$work/corpus" "$work/seeds" >"$work/last.log" 2>&1 || fuzzer_status=$?
  grep -E '^(#[0-9]+ +(INITED|DONE)|==[0-9]+==ERROR|SUMMARY|stat::number_of_executed_units|Done )' \
    "$work/last.log" || true
  if [[ $fuzzer_status -ne 0 ]]; then
    echo "== $door: a crash; the input is in $work/crashes, the log in $work/last.log"
    status=1
  fi
done
exit $status
