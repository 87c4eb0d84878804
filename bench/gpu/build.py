#!/usr/bin/env python3
"""Builds the GPU attention benchmark's executables: what bench/gpu/build.sh
runs (see its header for the options and the environment).

    bench/gpu/build.py [OUT_DIR] [--quick]

Each case is bench/attention.py's "tfm fused" graph, one tfm.attention on
[batch*heads, S, d] tensors of float32 or float16, written to
OUT_DIR/NAME.mlir and compiled to OUT_DIR/NAME with
`tfm-compile --target=nvptx --gpu-arch=ARCH`; the float16 cases a second
time with `--gpu-tensor-cores` (path "mma": both products on mma.sync),
the others being path "threads". OUT_DIR/manifest.json lists the cases
for bench/gpu/run.py.

Before them, the example models (examples/*.mlir: encoder_block,
decoder_block, transformer_encoder, vit) are compiled the same way into
OUT_DIR/models/, with the weights and sample inputs of
examples/make_weights.py; OUT_DIR/models.json lists them, so that run.py
checks a whole model's numerics on the GPU against its NumPy reference
(test/lib/modelcheck.py) before it times anything.

After the models, the networks users compare with eager PyTorch on the GPU
(bench/ort.py's ViT-B/16 and BERT-base encoder layer at S = 384, exported
to ONNX here with PyTorch's float32 output as their reference and a
TorchScript trace as the peer) are built into OUT_DIR/networks/, each on
the threads' loops and on tensor cores as TF32; OUT_DIR/networks.json lists
them. TFM_BENCH_NETWORKS=quick builds bench/ort.py's --quick sizes, none
skips them.
"""

import argparse
import json
import os
import shutil
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from attention import fused_graph  # noqa: E402
from tfm_tools import runner  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, "examples"))
import make_weights  # noqa: E402

SIZES = "1024 2048 4096 8192 16384"
# The example models whose NumPy references test/lib/modelcheck.py knows.
MODELS = ("encoder_block", "decoder_block", "transformer_encoder", "vit")
# The networks timed against eager PyTorch (bench/ort.py's keys): ViT-B/16
# and a BERT-base encoder layer at S = 384.
NETWORKS = ("vit_b_16", "encoder_s384_b1")
QUICK_SIZES = [1024, 2048]


def main(argv):
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("out", nargs="?",
                        default=os.path.join(HERE, "out"))
    parser.add_argument("--quick", action="store_true",
                        help="S = 1024 and 2048 only")
    args = parser.parse_args(argv)
    env = os.environ
    compiler = env.get("TFM_COMPILE",
                       os.path.join(ROOT, "build", "bin", "tfm-compile"))
    if not os.access(compiler, os.X_OK):
        sys.exit(f"error: {compiler} not found (run scripts/build.sh)")
    flags = ["--target=nvptx", "--gpu-arch=" + env.get("TFM_GPU_ARCH",
                                                       "sm_90")]
    if env.get("TFM_GPU_EMULATE", "0") == "1":
        flags.append("--gpu-emulate")
    sizes = QUICK_SIZES if args.quick else [
        int(s) for s in env.get("TFM_BENCH_SIZES", SIZES).split()]
    heads = int(env.get("TFM_BENCH_HEADS", "16"))

    build_models(compiler, flags, os.path.join(args.out, "models"))
    build_networks(compiler, flags, os.path.join(args.out, "networks"),
                   env.get("TFM_BENCH_NETWORKS", "full"))
    cases = []
    # (dtype, path, extra flags): the float16 cases also on tensor cores.
    variants = [("f32", "threads", []), ("f16", "threads", []),
                ("f16", "mma", ["--gpu-tensor-cores"])]
    for dtype, path, extra in variants:
        for s in sizes:
            for d in (64, 128):
                for causal in (False, True):
                    name = (f"attention_{dtype}"
                            f"{'_mma' if path == 'mma' else ''}_s{s}_d{d}_"
                            f"{'causal' if causal else 'full'}")
                    graph = runner.write_text(
                        os.path.join(args.out, name + ".mlir"),
                        fused_graph(heads, s, d, causal, dtype))
                    # The default tiles: 32 queries, 64 keys per step (with
                    # the staged query, key and value tiles, up to ~130 KiB
                    # of shared memory at d = 128, within sm_90's 227 KiB).
                    try:
                        runner.compile_graph(compiler, graph,
                                             os.path.join(args.out, name),
                                             flags + extra)
                    except runner.ToolError as e:
                        sys.exit(f"error: {e}")
                    cases.append({"name": name, "dtype": dtype, "path": path,
                                  "bh": heads, "s": s, "d": d,
                                  "causal": causal})
                    print(f"built {name}", flush=True)
    with open(os.path.join(args.out, "manifest.json"), "w") as f:
        json.dump(cases, f, indent=1)
        f.write("\n")
    return 0


def bundle_runtime_libraries(exe, lib_dir):
    """Copies the OpenMP runtime EXE links against into LIB_DIR, which
    run.py puts on LD_LIBRARY_PATH: the GPU machine's image need not have
    LLVM's libomp (glibc and libstdc++ it has, no older than this one's)."""
    os.makedirs(lib_dir, exist_ok=True)
    for line in runner.run(["ldd", exe])[0].splitlines():
        parts = line.split()
        if parts and parts[0].startswith("libomp") and len(parts) > 2:
            shutil.copy(os.path.realpath(parts[2]),
                        os.path.join(lib_dir, parts[0]))


def build_models(compiler, flags, out):
    """Compiles the example models into OUT and writes OUT/../models.json:
    for each, its executable, weights and inputs relative to OUT's parent."""
    os.makedirs(out, exist_ok=True)
    models = []
    for model in MODELS:
        inputs = make_weights.write(model, out)
        weights = os.path.join(out, model + ".safetensors")
        exe = os.path.join(out, model)
        try:
            runner.compile_graph(compiler, os.path.join(ROOT, "examples",
                                                        model + ".mlir"),
                                 exe, flags, weights=weights)
        except runner.ToolError as e:
            sys.exit(f"error: {e}")
        parent = os.path.dirname(out)
        models.append({"model": model,
                       "exe": os.path.relpath(exe, parent),
                       "weights": os.path.relpath(weights, parent),
                       "inputs": [os.path.relpath(p, parent)
                                  for p in inputs]})
        print(f"built {model}", flush=True)
    bundle_runtime_libraries(exe, os.path.join(os.path.dirname(out), "lib"))
    with open(os.path.join(os.path.dirname(out), "models.json"), "w") as f:
        json.dump(models, f, indent=1)
        f.write("\n")


def build_networks(compiler, flags, out, size):
    """Exports NETWORKS (bench/ort.py's modules: its seeded weights, its
    inputs; SIZE "quick" takes its --quick sizes, "none" builds nothing)
    to ONNX in OUT and compiles each twice, on the threads' loops and on
    tensor cores as TF32; beside them PyTorch's float32 output on this
    machine (the reference) and the module traced by TorchScript (the
    peer run.py times on the GPU). OUT/../networks.json lists them."""
    if size == "none":
        return
    try:
        import torch
    except ImportError:
        print("note: no PyTorch here: the networks are not built")
        return
    import ort
    os.makedirs(out, exist_ok=True)
    parent = os.path.dirname(out)
    entries = []
    for key in NETWORKS:
        module, inputs, onnx, files, flops, title = ort.export(
            torch, ort.MODELS[key], size == "quick", out)
        with torch.no_grad():
            expected = module.eval()(*inputs)
        reference = os.path.join(out, key + ".expected.npy")
        np.save(reference, expected.numpy())
        traced = os.path.join(out, key + ".pt")
        with torch.no_grad():
            torch.jit.trace(module, inputs).save(traced)
        for path, extra in (("threads", []),
                            ("tf32", ["--gpu-tensor-cores", "--gpu-tf32"])):
            exe = os.path.join(out, f"{key}_{path}")
            try:
                runner.compile_graph(compiler, onnx, exe, flags + extra)
            except runner.ToolError as e:
                sys.exit(f"error: {e}")
            entries.append({"network": key, "title": title, "path": path,
                            "flops": flops,
                            "exe": os.path.relpath(exe, parent),
                            "inputs": [os.path.relpath(p, parent)
                                       for p in files],
                            "expected": os.path.relpath(reference, parent),
                            "torchscript": os.path.relpath(traced, parent)})
            print(f"built {key} ({path})", flush=True)
    with open(os.path.join(parent, "networks.json"), "w") as f:
        json.dump(entries, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
