#!/usr/bin/env bash
# Builds the GPU attention benchmark's executables, on any machine with tfm
# built (no GPU or CUDA driver needed; ptxas, where found, makes cubin):
#
#   bench/gpu/build.sh [OUT_DIR] [--quick]
#
# One executable per case of fused scaled dot-product attention on
# [batch*heads = 16, S, d]: float32 and float16, S = 1024 ... 16384,
# d = 64 and 128, causal on and off, compiled with
# `tfm-compile --target=nvptx --gpu-arch=sm_90`. --quick builds only
# S = 1024 and 2048. OUT_DIR (default bench/gpu/out) also gets
# manifest.json, which bench/gpu/run.py reads on the GPU machine.
#
# For testing the scripts without a GPU: TFM_BENCH_SIZES="64 128" and
# TFM_BENCH_HEADS=2 shrink the cases, TFM_GPU_EMULATE=1 builds executables
# that run the kernels on the CPU (tfm-compile --gpu-emulate).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$root/bench/gpu/out
quick=
for arg in "$@"; do
  case $arg in
    --quick) quick=--quick ;;
    -*) echo "error: unknown option $arg" >&2; exit 1 ;;
    *) out=$arg ;;
  esac
done
compiler=${TFM_COMPILE:-$root/build/bin/tfm-compile}
arch=${TFM_GPU_ARCH:-sm_90}
[[ -x $compiler ]] || { echo "error: $compiler not found (run scripts/build.sh)" >&2; exit 1; }

sizes=${TFM_BENCH_SIZES:-1024 2048 4096 8192 16384}
[[ $quick == --quick ]] && sizes="1024 2048"
heads=${TFM_BENCH_HEADS:-16}
emulate=()
[[ ${TFM_GPU_EMULATE:-0} == 1 ]] && emulate=(--gpu-emulate)
mkdir -p "$out"
manifest="$out/manifest.json"
echo "[" > "$manifest"
first=1
for dtype in f32 f16; do
  for s in $sizes; do
    for d in 64 128; do
      for causal in 0 1; do
        name="attention_${dtype}_s${s}_d${d}_$([[ $causal == 1 ]] && echo causal || echo full)"
        type="tensor<${heads}x${s}x${d}x${dtype}>"
        attr=""; [[ $causal == 1 ]] && attr=" {causal}"
        cat > "$out/$name.mlir" <<MLIR
func.func @main(%q: $type {tfm.name = "query"}, %k: $type {tfm.name = "key"},
                %v: $type {tfm.name = "value"}) -> ($type {tfm.name = "result"}) {
  %0 = tfm.attention %q, %k, %v$attr : ($type, $type, $type) -> $type
  return %0 : $type
}
MLIR
        # The default tiles: 32 queries, 64 keys per step (with the staged
        # query, key and value tiles, up to ~130 KiB of shared memory at
        # d = 128, within sm_90's 227 KiB).
        "$compiler" "$out/$name.mlir" --target=nvptx --gpu-arch="$arch" \
          "${emulate[@]}" -o "$out/$name"
        [[ $first == 1 ]] || echo "," >> "$manifest"
        first=0
        printf '  {"name": "%s", "dtype": "%s", "bh": %d, "s": %d, "d": %d, "causal": %s}' \
          "$name" "$dtype" $heads $s $d "$([[ $causal == 1 ]] && echo true || echo false)" >> "$manifest"
        echo "built $name"
      done
    done
  done
done
printf '\n]\n' >> "$manifest"
