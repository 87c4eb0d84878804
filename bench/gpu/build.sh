#!/usr/bin/env bash
# Builds the GPU attention benchmark's executables, on any machine with tfm
# built (no GPU or CUDA driver needed; ptxas, where found, makes cubin):
#
#   bench/gpu/build.sh [OUT_DIR] [--quick]
#
# The example models (examples/*.mlir with make_weights.py's weights and
# inputs; run.py checks their numerics first), then one executable per case
# of fused scaled dot-product attention on
# [batch*heads = 16, S, d]: float32 and float16, S = 1024 ... 16384,
# d = 64 and 128, causal on and off, compiled with
# `tfm-compile --target=nvptx --gpu-arch=sm_90`. --quick builds only
# S = 1024 and 2048. OUT_DIR (default bench/gpu/out) also gets
# manifest.json and models.json, which bench/gpu/run.py reads on the GPU
# machine, and lib/ with the OpenMP runtime the executables link against.
#
# Then the networks run.py times against eager PyTorch: bench/ort.py's
# ViT-B/16 and BERT-base encoder layer (S = 384), exported to ONNX here
# (PyTorch needed), each on the threads' loops and as TF32 on tensor cores,
# into OUT_DIR/networks/ with networks.json.
#
# For testing the scripts without a GPU: TFM_BENCH_SIZES="64 128" and
# TFM_BENCH_HEADS=2 shrink the cases, TFM_BENCH_NETWORKS=quick the
# networks (none: no networks), TFM_GPU_EMULATE=1 builds executables
# that run the kernels on the CPU (tfm-compile --gpu-emulate).
#
# bench/gpu/build.py writes the graphs (bench/attention.py's fused graph, with
# tfm_tools.graph), compiles them and writes the manifest.
set -euo pipefail
exec /usr/bin/python3 "$(dirname "$0")/build.py" "$@"
