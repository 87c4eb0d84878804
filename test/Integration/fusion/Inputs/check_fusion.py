"""Checks that a fusion of the graph optimizer keeps the numbers of a graph.

    check_fusion.py GRAPH --compiler PATH/tfm-compile --work DIR

GRAPH is one of the graphs next to this script (GRAPHS below): attention
written op by op for tfm-fuse-attention, and the fuse-*.mlir graphs of
tfm-fuse-gelu, tfm-fuse-layer-norm, tfm-fuse-linear and
tfm-fuse-multi-head-attention; @main takes float32 tensors (and int32 valid
lengths). The driver

1. compiles GRAPH twice with tfm-compile, with fusion and with --no-fusion,
   and checks at --stage=graph that the fused op (its marker below) appears
   exactly once in the first and not in the second, so that the comparison
   is between a fused and an unfused program;
2. runs both executables on the same random inputs (fixed seed; valid
   lengths in [0, keys], 0 and keys included);
3. compares each output with the float64 NumPy reference of GRAPH, written
   below with tfm_tools.reference from the math, not from the graph's ops,
   and the two outputs with each other.

It prints the errors, E = max|out - ref| / max|ref| (tfm_tools.compare; for
fused against unfused, on the reference's scale), and exits with 1 when one
exceeds TOLERANCE, with 2 when compiling or running fails.
"""

import argparse
import os
import re
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "..", "python"))
from tfm_tools import compare, graph, runner  # noqa: E402
from tfm_tools import reference as ref  # noqa: E402

# float32 against a float64 reference, and fused against unfused float32.
TOLERANCE = 1e-5


def causal_fill(sq, sk, value):
    """`value` where key j > query i, else 0."""
    return np.where(np.arange(sk)[None, :] > np.arange(sq)[:, None], value,
                    0.0)


def attention_causal_linalg(q, k, v):
    # A causal mask of -1e9 added to the scores, scale 0.25.
    mask = causal_fill(q.shape[1], k.shape[1], -1e9)
    return ref.attention(q, k, v, mask=mask, scale=0.25)


def attention_mask_4d(q, k, v, m):
    # Heads split as d2l's transpose_qkv does, [batch * heads] = [2, 2]: the
    # padding mask of batch b applies to its two heads.
    mask = np.repeat(m, 2, axis=0)[:, None, :]
    return ref.attention(q, k, v, mask=mask, scale=0.35355339)


class Graph:
    """MARKER: a regex that must match once at --stage=graph with fusion
    and never without; KEYS: the argument whose second to last dimension
    bounds the valid lengths."""

    def __init__(self, marker, reference, keys=0):
        self.marker, self.reference, self.keys = marker, reference, keys


ATTENTION = r"tfm\.attention"
MHA = r"tfm\.multi_head_attention"
GRAPHS = {
    # d2l: scores / sqrt(d), keys at or past the valid length set to -1e6.
    "attention-d2l": Graph(ATTENTION, lambda q, k, v, lens: ref.attention(
        q, k, v, valid_lens=lens), keys=1),
    "attention-causal-linalg": Graph(ATTENTION, attention_causal_linalg),
    "attention-mask-4d": Graph(ATTENTION, attention_mask_4d),
    "attention-rank2": Graph(ATTENTION, lambda q, k, v: ref.attention(
        q, k, v, scale=1 / 3.0)),
    "fuse-gelu-erf": Graph(r"tfm\.gelu %\S+ :", ref.gelu),
    "fuse-gelu-tanh": Graph(
        r"tfm\.gelu %\S+ \{approximate = #tfm\.gelu_approximation<tanh>\}",
        lambda x: ref.gelu(x, "tanh")),
    "fuse-layer-norm-affine": Graph(
        r"tfm\.layer_norm", lambda x, g, b: ref.layer_norm(x, g, b, 1e-5)),
    "fuse-layer-norm-keepdims": Graph(
        r"tfm\.layer_norm", lambda x: ref.layer_norm(x, 1.0, 0.0, 1e-6)),
    "fuse-linear-bias-relu": Graph(
        r"tfm\.linear %\S+, %\S+, %\S+ \{activation = #tfm\.activation<relu>\}",
        lambda x, w, b: ref.linear(x, w, b, "relu")),
    "fuse-linear-matmul-gelu": Graph(
        r"tfm\.linear %\S+, %\S+, %\S+ \{activation = #tfm\.activation<gelu>\}",
        lambda x, w, b: ref.linear(x, w, b, "gelu")),
    # d2l's MultiHeadAttention, valid lengths per batch.
    "fuse-multi-head-attention-self": Graph(
        MHA, lambda x, wq, wk, wv, wo, lens: ref.multi_head_attention(
            x, x, x, wq, wk, wv, wo, 4, valid_lens=lens)),
    "fuse-multi-head-attention-cross": Graph(
        MHA, lambda q, mem, wq, wk, wv, wo, bq, bo: ref.multi_head_attention(
            q, mem, mem, wq, wk, wv, wo, 2, biases=(bq, 0.0, 0.0, bo),
            causal=True, scale=0.25)),
}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("graph")
    parser.add_argument("--compiler", required=True)
    parser.add_argument("--work", required=True)
    args = parser.parse_args()
    name = os.path.splitext(os.path.basename(args.graph))[0]
    spec = GRAPHS[name]
    os.makedirs(args.work, exist_ok=True)

    # 1. Compile, fused and unfused, and check which is which.
    exes = {}
    with runner.exit_on_failure():
        for variant, flags in (("fused", []), ("unfused", ["--no-fusion"])):
            graph_ir = runner.emit(args.compiler, args.graph,
                                   ["--emit=mlir", "--stage=graph"] + flags)
            count = len(re.findall(spec.marker, graph_ir))
            expected = 1 if variant == "fused" else 0
            if count != expected:
                print(f"{name}: {count} matches of '{spec.marker}' in the "
                      f"{variant} graph, expected {expected}")
                return 1
            exes[variant] = runner.compile_graph(
                args.compiler, args.graph,
                os.path.join(args.work, variant), flags)

    # 2. Random inputs.
    rng = np.random.default_rng(0)
    types = graph.signature(open(args.graph).read())
    inputs = []
    for t in types:
        if t.element == "i32":
            keys = types[spec.keys].shape[-2]
            x = rng.integers(0, keys + 1, size=t.shape).astype(np.int32)
            x.flat[0], x.flat[-1] = 0, keys
        else:
            x = rng.standard_normal(t.shape).astype(np.float32)
        inputs.append(x)
    paths = runner.save_arrays(
        args.work, [(f"in{i}", x) for i, x in enumerate(inputs)])
    outputs = {}
    with runner.exit_on_failure():
        for variant, exe in exes.items():
            out = os.path.join(args.work, variant + ".npy")
            runner.run_model(exe, paths, [out])
            outputs[variant] = np.load(out)

    # 3. Compare.
    reference = spec.reference(*inputs)
    ok = [compare.check(out, reference, TOLERANCE, f"{name}: {variant}")
          for variant, out in outputs.items()]
    ok.append(compare.check(outputs["fused"], outputs["unfused"], TOLERANCE,
                            f"{name}: fused vs unfused", scale=reference))
    return 0 if all(ok) else 1


if __name__ == "__main__":
    sys.exit(main())
