#!/usr/bin/env python3
"""Tensor parallelism (tfm-compile --tensor-parallel=N): the scaling model
of docs/distributed.md, and what this machine measures.

    /usr/bin/python3 bench/tensor_parallel.py [--compiler PATH]
        [--work DIR] [--runs N] [--rounds K] [--model-only]

1. The scaling model: for a BERT-base layer, a ViT-B/16 layer and a
   7B-parameter Llama-style layer (prefill and one decoding step), each
   rank's compute time against its two all-reduces of B*S*D values per
   layer, on a CPU cluster and on NVLink GPUs, at N = 1, 2, 4, 8.
2. On this machine (two ranks on two cores: a sanity check of the
   mechanism, not a scaling claim), for nn.TransformerEncoderLayer at
   BERT-base's size (S = 128) and torchvision's ViT-B/16, each exported to
   one .onnx file and compiled for 1 and for 2 ranks:
   - bytes all-reduced per layer, counted from the compiled graph
     (`--stage=graph`: every `shard.all_reduce` and its tensor), against
     the model's 2 * B * S * D * 4;
   - latency: 1 rank x 2 threads, 1 rank x 1 thread, 2 ranks x 1 thread
     (mpirun), medians of --runs timed runs per process, K interleaved
     rounds, the median of the rounds;
   - peak RSS per rank (GNU time's %M of each rank's process) against one
     process's: each rank maps the whole binary but touches only its slices
     of the split weights.
3. Generation (--generate under mpirun): python/tfm_tools/gpt.py's model
   at GPT-2-small size (bench/generate.py's), exported with past and
   compiled with --kv-cache=1024 for 1 and 2 ranks; a prompt of 1008
   tokens (batch 1) and 16 generated ones, which fill the caches: the
   prefill's time, a step's median time, the same three configurations
   interleaved, and each rank's peak RSS (its slices of the layers'
   weights and its heads' part of the caches; the tied embedding and LM
   head are every rank's). --no-generate skips it.
"""

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import common  # noqa: E402

# The scaling model's machines: each rank's sustained rate on a layer's
# products, its memory bandwidth (a decoding step streams the weights) and
# the all-reduce's bus bandwidth and per-step latency.
MACHINES = {
    "CPU sockets, 100 Gb/s InfiniBand (f32)": dict(
        flops=1.5e12, mem=200e9, link=12.5e9, latency=2e-6, bytes=4),
    "H100 SXM, NVLink 4 + NCCL (bf16)": dict(
        flops=600e12, mem=3.35e12, link=360e9, latency=8e-6, bytes=2),
}

# Layers: model dimension, FFN hidden units, heads, key/value heads, tokens
# per call (B * S), attention's key length, gated FFN.
LAYERS = {
    "BERT-base, S=384": dict(d=768, f=3072, h=12, kv=12, tokens=384,
                             keys=384, gated=False),
    "ViT-B/16, 197 tokens": dict(d=768, f=3072, h=12, kv=12, tokens=197,
                                 keys=197, gated=False),
    "Llama-7B, prefill 2048": dict(d=4096, f=11008, h=32, kv=32,
                                   tokens=2048, keys=2048, gated=True),
    "Llama-7B, decode 1 token (2048 cached)": dict(
        d=4096, f=11008, h=32, kv=32, tokens=1, keys=2048, gated=True),
}


def layer_time(layer, machine, ranks):
    """(compute seconds, communication seconds) of one layer on each of
    RANKS ranks: products and attention divided by RANKS, against the
    larger of the FLOP time and the time to stream the rank's weights; two
    ring all-reduces of tokens * d values."""
    d, f, tokens = layer["d"], layer["f"], layer["tokens"]
    kv_d = d * layer["kv"] // layer["h"]
    weights = d * d * 2 + d * kv_d * 2 + d * f * (3 if layer["gated"] else 2)
    flops = 2 * tokens * weights + 4 * tokens * layer["keys"] * d
    weight_bytes = weights * machine["bytes"]
    compute = max(flops / machine["flops"],
                  weight_bytes / machine["mem"]) / ranks
    if ranks == 1:
        return compute, 0.0
    payload = tokens * d * machine["bytes"]
    ring = 2 * (ranks - 1) / ranks * payload / machine["link"]
    steps = 2 * (ranks - 1) * machine["latency"]
    return compute, 2 * (ring + steps)


def scaling_table():
    out = []
    for mname, machine in MACHINES.items():
        rows = []
        for lname, layer in LAYERS.items():
            base = sum(layer_time(layer, machine, 1))
            cells = [lname, f"{base * 1e6:.0f}"]
            for ranks in (2, 4, 8):
                compute, comm = layer_time(layer, machine, ranks)
                cells.append(f"{base / (compute + comm):.2f}x "
                             f"({comm / (compute + comm) * 100:.0f}%)")
            rows.append(cells)
        out.append(f"**{mname}**: {machine['flops'] / 1e12:g} TFLOP/s and "
                   f"{machine['mem'] / 1e9:g} GB/s per rank, all-reduce "
                   f"bus {machine['link'] / 1e9:g} GB/s, "
                   f"{machine['latency'] * 1e6:g} us a step\n")
        out.append(common.markdown_table(
            ["layer", "N=1 (us)", "N=2 speed-up (comm)", "N=4", "N=8"],
            rows))
        out.append("")
    return "\n".join(out)


def export_models(work):
    import torch
    from torchvision.models import VisionTransformer
    torch.manual_seed(0)
    models = {}
    encoder = torch.nn.TransformerEncoderLayer(
        768, 12, 3072, dropout=0.0, batch_first=True).eval()
    models["BERT-base encoder layer, S=128"] = (
        encoder, (torch.randn(1, 128, 768),), 1, 128 * 768)
    vit = VisionTransformer(image_size=224, patch_size=16, num_layers=12,
                            num_heads=12, hidden_dim=768, mlp_dim=3072).eval()
    models["ViT-B/16 (12 layers)"] = (
        vit, (torch.randn(1, 3, 224, 224),), 12, 197 * 768)
    paths = {}
    for name, (module, inputs, layers, tokens_d) in models.items():
        stem = re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")
        onnx = os.path.join(work, stem + ".onnx")
        npy = os.path.join(work, stem + ".in.npy")
        if not os.path.exists(onnx):
            torch.onnx.export(module, inputs, onnx, opset_version=17)
        import numpy as np
        np.save(npy, inputs[0].numpy())
        paths[name] = (stem, onnx, npy, layers, tokens_d)
    return paths


def allreduce_bytes(compiler, onnx):
    """Bytes that one rank's all-reduces carry per call, from the split
    graph (rank 0's function; every rank's has the same)."""
    ir = subprocess.run([compiler, onnx, "--tensor-parallel=2", "--emit=mlir",
                         "--stage=graph", "-o", "-"], capture_output=True,
                        text=True, check=True).stdout
    rank0 = ir[re.search(r"func\.func private @\S*_rank0\(", ir).start():
               re.search(r"func\.func private @\S*_rank1\(", ir).start()]
    total = 0
    for shape in re.findall(r"shard\.all_reduce .*: tensor<([0-9x]+)xf32>",
                            rank0):
        count = 1
        for size in shape.split("x"):
            count *= int(size)
        total += count * 4
    return total


def median_latency(command):
    out = subprocess.run(command, capture_output=True, text=True, check=True)
    return common.parse_latency(out.stdout + out.stderr, command)[1]


def peak_rss_per_rank(mpirun, exe, arguments):
    """Each rank's peak RSS (bytes) under mpirun, from GNU time, running
    EXE ARGUMENTS..."""
    with tempfile.TemporaryDirectory() as tmp:
        # Each rank writes its own file, named by Open MPI's rank variable.
        wrapper = os.path.join(tmp, "rss.sh")
        with open(wrapper, "w") as f:
            f.write(f'#!/bin/sh\nexec {common.TIME} -f %M -o '
                    f'{tmp}/rss.$OMPI_COMM_WORLD_RANK "$@"\n')
        os.chmod(wrapper, 0o755)
        command = mpirun + ["2", wrapper, exe, "--threads", "1"] + arguments
        subprocess.run(command, capture_output=True, text=True, check=True)
        return [int(open(os.path.join(tmp, f"rss.{r}")).read().split()[-1])
                * 1024 for r in range(2)]


def measure(args):
    mpirun = [shutil.which("mpirun") or "mpirun", "--oversubscribe",
              "--allow-run-as-root", "--bind-to", "none", "-np"]
    work = args.work
    os.makedirs(work, exist_ok=True)
    rows = []
    for name, (stem, onnx, npy, layers, tokens_d) in export_models(
            work).items():
        one = common.compile_file(args.compiler, onnx,
                                  os.path.join(work, stem + ".one"))
        split = common.compile_file(args.compiler, onnx,
                                    os.path.join(work, stem + ".tp2"),
                                    ["--tensor-parallel=2"])
        out = os.path.join(work, stem + ".out.npy")
        bench = ["--bench", str(args.runs)]
        times = {"1x2": [], "1x1": [], "2x1": []}
        for _ in range(args.rounds):
            times["1x2"].append(median_latency(
                [one] + bench + ["--threads", "2", "-o", out, npy]))
            times["1x1"].append(median_latency(
                [one] + bench + ["--threads", "1", "-o", out, npy]))
            times["2x1"].append(median_latency(
                mpirun + ["2", split] + bench +
                ["--threads", "1", "-o", out, npy]))
        _, _, one_rss = common.run_measured(
            [one, "--threads", "1", "-o", out, npy])
        ranks_rss = peak_rss_per_rank(mpirun, split, ["-o", out, npy])
        measured = allreduce_bytes(args.compiler, onnx) / layers
        rows.append([
            name, f"{measured / 1024:.0f} KiB",
            f"{2 * tokens_d * 4 / 1024:.0f} KiB",
            *(common.fmt(statistics.median(times[k]), 2)
              for k in ("1x2", "1x1", "2x1")),
            f"{common.mib(one_rss):.0f}",
            " / ".join(f"{common.mib(r):.0f}" for r in ranks_rss),
        ])
    return common.markdown_table(
        ["model", "all-reduced per layer", "model: 2·B·S·D·4",
         "1 rank x 2 threads (ms)", "1 rank x 1 thread (ms)",
         "2 ranks x 1 thread (ms)", "peak RSS, 1 process (MiB)",
         "peak RSS per rank (MiB)"], rows)


def generation_times(command):
    """(prefill ms, a step's median ms) that --generate prints."""
    out = subprocess.run(command, capture_output=True, text=True,
                         check=True).stdout
    prefill = float(re.search(r"prefill: .* in ([0-9.]+) ms", out).group(1))
    step = float(re.search(r"median ([0-9.]+) ms a step", out).group(1))
    return prefill, step


def measure_generation(args, mpirun):
    sys.path.insert(0, os.path.join(ROOT, "python"))
    import numpy as np
    from tfm_tools import gpt
    work = args.work
    onnx = os.path.join(work, "gpt2_small.onnx")
    if not os.path.exists(onnx):
        model = gpt.build(layers=12, d_model=768, heads=12, vocab=50257,
                          max_positions=2048, seed=0)
        gpt.export(model, onnx)
    prompt = os.path.join(work, "gpt2_prompt.npy")
    np.save(prompt, np.random.default_rng(0).integers(
        0, 50257, (1, 1008), dtype=np.int64))
    flags = ["--kv-cache=1024"]
    one = common.compile_file(args.compiler, onnx,
                              os.path.join(work, "gpt2.one"), flags)
    split = common.compile_file(args.compiler, onnx,
                                os.path.join(work, "gpt2.tp2"),
                                flags + ["--tensor-parallel=2"])
    tokens = os.path.join(work, "gpt2_tokens.npy")
    generate = ["--generate", "16", "--prompt", prompt, "-o", tokens]
    times = {"1x2": [], "1x1": [], "2x1": []}
    same = True
    for _ in range(args.rounds):
        times["1x2"].append(generation_times(
            [one] + generate + ["--threads", "2"]))
        reference = np.load(tokens)
        times["1x1"].append(generation_times(
            [one] + generate + ["--threads", "1"]))
        times["2x1"].append(generation_times(
            mpirun + ["2", split] + generate + ["--threads", "1"]))
        same &= bool((np.load(tokens) == reference).all())
    _, _, one_rss = common.run_measured([one] + generate + ["--threads", "1"])
    ranks_rss = peak_rss_per_rank(mpirun, split, generate)
    cells = []
    for key in ("1x2", "1x1", "2x1"):
        prefill = statistics.median(t[0] for t in times[key])
        step = statistics.median(t[1] for t in times[key])
        cells.append(f"{prefill:.0f} / {step:.1f}")
    row = ["GPT-2-small size, prompt 1008 + 16 steps, cache 1024", *cells,
           f"{common.mib(one_rss):.0f}",
           " / ".join(f"{common.mib(r):.0f}" for r in ranks_rss),
           "yes" if same else "NO"]
    return common.markdown_table(
        ["model", "1 rank x 2 threads: prefill / step (ms)",
         "1 rank x 1 thread", "2 ranks x 1 thread",
         "peak RSS, 1 process (MiB)", "peak RSS per rank (MiB)",
         "same tokens"], [row])


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--compiler", default=common.DEFAULT_COMPILER)
    parser.add_argument("--work", default=os.path.join(ROOT, "build",
                                                       "bench-tp"))
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--model-only", action="store_true")
    parser.add_argument("--no-generate", action="store_true")
    args = parser.parse_args()
    print("## Scaling model (docs/distributed.md)\n")
    print(scaling_table())
    if args.model_only:
        return 0
    print(f"## This machine: {common.machine_description()}\n")
    print(measure(args))
    if not args.no_generate:
        mpirun = [shutil.which("mpirun") or "mpirun", "--oversubscribe",
                  "--allow-run-as-root", "--bind-to", "none", "-np"]
        print("\n### Generation\n")
        print(measure_generation(args, mpirun))
    return 0


if __name__ == "__main__":
    sys.exit(main())
