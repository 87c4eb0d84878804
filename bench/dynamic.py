"""What dynamic sizes cost: one Transformer encoder layer compiled with a
dynamic batch and sequence length against the same layer compiled for each
size, on the same inputs.

    /usr/bin/python3 bench/dynamic.py [--compiler PATH] [--work DIR]
        [--sizes 1x128 8x128 1x384 1x100] [--rounds 5] [--threads 1 2]
        [--onnx] [--json FILE] [--markdown FILE]

The layer is BERT-base's (width 768, 12 heads, 3072 hidden units, post-norm,
valid_lens masking), written in tfm IR with its weights as inputs; with
--onnx it is PyTorch's nn.TransformerEncoderLayer of the same sizes,
exported with dynamic_axes (batch and seq) for the dynamic build and at
each size for the static ones, its weights in the ONNX files. For each
size and thread count the static and the dynamic executable run in turn,
ROUNDS times each, interleaved (a fresh process each, --bench with a fixed
number of runs); the table gives the median of the per-round medians and
the ratio dynamic / static. The outputs of the two builds are compared too.
"""

import argparse
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

D, H, F = 768, 12, 3072


def layer(b, s):
    """The encoder layer's graph; `b`, `s` are sizes or "?"."""
    x = f"tensor<{b}x{s}x{D}xf32>"
    lens = f"tensor<{b}xi32>"
    w, v = f"tensor<{D}x{D}xf32>", f"tensor<{D}xf32>"
    w1, b1 = f"tensor<{F}x{D}xf32>", f"tensor<{F}xf32>"
    w2 = f"tensor<{D}x{F}xf32>"
    return f"""
func.func @main(%x: {x}, %lens: {lens}, %wq: {w}, %bq: {v}, %wk: {w}, %bk: {v}, %wv: {w}, %bv: {v}, %wo: {w}, %bo: {v},
                %g1: {v}, %n1: {v}, %w1: {w1}, %c1: {b1}, %w2: {w2}, %c2: {v}, %g2: {v}, %n2: {v}) -> {x} {{
  %a = tfm.multi_head_attention %x, %x, %x weights(%wq, %wk, %wv, %wo) biases(%bq, %bk, %bv, %bo) valid_lens(%lens) {{num_heads = {H} : i64}} : ({x}, {x}, {x}, {w}, {w}, {w}, {w}, {v}, {v}, {v}, {v}, {lens}) -> {x}
  %y = tfm.add_norm %x, %a, %g1, %n1 : ({x}, {x}, {v}, {v}) -> {x}
  %f = tfm.ffn %y dense1(%w1, %c1) dense2(%w2, %c2) {{activation = #tfm.activation<gelu>}} : ({x}, {w1}, {b1}, {w2}, {v}) -> {x}
  %z = tfm.add_norm %y, %f, %g2, %n2 : ({x}, {x}, {v}, {v}) -> {x}
  return %z : {x}
}}
"""


def inputs(rng, b, s):
    def w(*shape):
        return (rng.standard_normal(shape) * shape[-1] ** -0.5).astype(
            np.float32)

    def v(n):
        return (rng.standard_normal(n) * 0.1).astype(np.float32)
    x = rng.standard_normal((b, s, D)).astype(np.float32)
    lens = rng.integers(s // 2, s + 1, size=(b,)).astype(np.int32)
    arrays = [x, lens]
    for _ in range(4):
        arrays += [w(D, D), v(D)]
    arrays += [1 + v(D), v(D), w(F, D), v(F), w(D, F), v(D), 1 + v(D), v(D)]
    return arrays


def export_layer(work, sizes):
    """Exports nn.TransformerEncoderLayer(768, 12, 3072) once with dynamic
    batch and sequence axes and once at each size; returns {size or
    "dynamic": path}."""
    import torch
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(D, H, F, batch_first=True).eval()
    os.makedirs(work, exist_ok=True)
    paths = {}
    for size in ["dynamic"] + list(sizes):
        b, s = (2, 16) if size == "dynamic" else (
            int(v) for v in size.split("x"))
        path = os.path.join(work, f"layer-{size}.onnx")
        paths[size] = path
        if os.path.exists(path):
            continue
        axes = ({"x": {0: "batch", 1: "seq"}, "y": {0: "batch", 1: "seq"}}
                if size == "dynamic" else None)
        # With gradients enabled: the exporter cannot export the fused fast
        # path that eval mode takes without them.
        torch.onnx.export(layer, (torch.randn(b, s, D),), path,
                          opset_version=17, input_names=["x"],
                          output_names=["y"], dynamic_axes=axes)
    return paths


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--compiler", default=common.DEFAULT_COMPILER)
    parser.add_argument("--work", default=os.path.join(
        common.ROOT, "build", "bench", "dynamic"))
    parser.add_argument("--sizes", nargs="+",
                        default=["1x128", "8x128", "1x384", "1x100"])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--onnx", action="store_true",
                        help="the same layer from PyTorch, as ONNX")
    parser.add_argument("--json")
    parser.add_argument("--markdown")
    args = parser.parse_args()

    start = time.time()
    if args.onnx:
        work = os.path.join(args.work, "onnx")
        models = export_layer(work, args.sizes)

        def build(size):
            return common.compile_file(
                args.compiler, models[size],
                os.path.join(work, f"onnx-{size}"))
    else:
        def build(size):
            if size == "dynamic":
                return common.compile_graph(args.compiler, layer("?", "?"),
                                            args.work, "dynamic")
            b, s = size.split("x")
            return common.compile_graph(args.compiler, layer(b, s),
                                        args.work, f"static-{size}")
    dynamic = build("dynamic")
    rows, results = [], []
    for size in args.sizes:
        b, s = (int(v) for v in size.split("x"))
        static = build(size)
        rng = np.random.default_rng(0)
        paths = []
        arrays = ([rng.standard_normal((b, s, D)).astype(np.float32)]
                  if args.onnx else inputs(rng, b, s))
        for i, array in enumerate(arrays):
            paths.append(os.path.join(args.work, f"{size}-in{i}.npy"))
            np.save(paths[-1], array)
        outs = {name: os.path.join(args.work, f"{size}-{name}.npy")
                for name in ("static", "dynamic")}
        for threads in args.threads:
            times = {"static": [], "dynamic": []}
            for _ in range(args.rounds):
                for name, exe in (("static", static), ("dynamic", dynamic)):
                    result = common.run_exe(exe, paths, outs[name],
                                            args.runs, threads)
                    times[name].append(result.median_ms)
            got, want = np.load(outs["dynamic"]), np.load(outs["static"])
            error = float(np.abs(got - want).max() /
                          max(np.abs(want).max(), 1e-30))
            st = statistics.median(times["static"])
            dy = statistics.median(times["dynamic"])
            results.append(dict(size=size, threads=threads, static_ms=st,
                                dynamic_ms=dy, ratio=dy / st,
                                max_relative_difference=error))
            rows.append([f"{b} x {s}", str(threads), common.fmt(st, 2),
                         common.fmt(dy, 2), f"{dy / st:.3f}",
                         f"{error:.1e}"])
    table = common.markdown_table(
        ["batch x seq", "threads", "static ms", "dynamic ms",
         "dynamic / static", "max rel. diff."], rows)
    source = ("nn.TransformerEncoderLayer from PyTorch (ONNX)" if args.onnx
              else "(tfm IR)")
    text = (f"{common.machine_description()}\n\nBERT-base encoder layer "
            f"{source}, medians of {args.rounds} interleaved rounds of "
            f"{args.runs} runs\n\n{table}\n")
    common.print_report(text, args.markdown)
    if args.json:
        common.save_results({"machine": common.machine_description(),
                             "rows": results,
                             "seconds": time.time() - start}, args.json)


if __name__ == "__main__":
    main()
