"""Checks that a fusion of the graph optimizer keeps the numbers of a graph.

    check_fused_layers.py GRAPH --compiler PATH/tfm-compile --work DIR

For the graphs of tfm-fuse-gelu, tfm-fuse-layer-norm, tfm-fuse-linear and
tfm-fuse-multi-head-attention next to this script (fuse-*.mlir), whose @main
takes float32 tensors (and int32 valid lengths), the driver

1. compiles GRAPH twice with tfm-compile, with fusion and with --no-fusion,
   and checks at --stage=graph that the fused op (MARKERS below) appears
   exactly once in the first and not in the second, so that the comparison
   is between a fused and an unfused program;
2. runs both executables on the same random inputs (fixed seed; valid
   lengths in [0, keys], 0 and keys included);
3. compares each output with a float64 NumPy reference of GRAPH written
   below from the math, not from the graph's ops, and the two outputs with
   each other.

It prints the errors, E = max|out - ref| / max|ref|, and exits with 1 when
one exceeds TOLERANCE, with 2 when compiling or running fails.
"""

import argparse
import math
import os
import re
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fusion_driver import run, signature  # noqa: E402

# float32 against a float64 reference, and fused against unfused float32.
TOLERANCE = 1e-5

#===----------------------------------------------------------------------===#
# References, from the math
#===----------------------------------------------------------------------===#

erf = np.vectorize(math.erf)


def gelu(x):
    return 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))


def gelu_tanh(x):
    return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi)
                                    * (x + 0.044715 * x ** 3)))


def layer_norm(x, gamma=None, beta=None, eps=1e-5):
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    y = (x - mean) / np.sqrt(var + eps)
    if gamma is not None:
        y = y * gamma
    if beta is not None:
        y = y + beta
    return y


def softmax(x):
    x = x - x.max(axis=-1, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=-1, keepdims=True)


def multi_head_attention(q_in, k_in, v_in, wq, wk, wv, wo, heads,
                         biases=(0.0, 0.0, 0.0, 0.0), lens=None,
                         causal=False, scale=None):
    """d2l's MultiHeadAttention: nn.Linear projections, heads of
    D / heads features, scores masked with -1e6 at keys at or past the
    batch's valid length, softmax, heads concatenated, W_o."""
    bq, bk, bv, bo = biases

    def split(x):  # [B, S, H * Dh] -> [B, H, S, Dh]
        b, s, d = x.shape
        return x.reshape(b, s, heads, d // heads).transpose(0, 2, 1, 3)

    q = split(q_in @ wq.T + bq)
    k = split(k_in @ wk.T + bk)
    v = split(v_in @ wv.T + bv)
    if scale is None:
        scale = 1.0 / math.sqrt(q.shape[-1])
    scores = q @ k.transpose(0, 1, 3, 2) * scale
    sq, sk = scores.shape[-2:]
    if lens is not None:
        keys = np.arange(sk)[None, None, None, :]
        scores = np.where(keys >= lens[:, None, None, None], -1e6, scores)
    if causal:
        later = np.arange(sk)[None, :] > np.arange(sq)[:, None]
        scores = np.where(later, -np.inf, scores)
    out = softmax(scores) @ v                     # [B, H, Sq, Dh]
    b = out.shape[0]
    out = out.transpose(0, 2, 1, 3).reshape(b, sq, -1)
    return out @ wo.T + bo


REFERENCES = {
    "fuse-gelu-erf": gelu,
    "fuse-gelu-tanh": gelu_tanh,
    "fuse-layer-norm-affine": lambda x, g, b: layer_norm(x, g, b, eps=1e-5),
    "fuse-layer-norm-keepdims": lambda x: layer_norm(x, eps=1e-6),
    "fuse-linear-bias-relu": lambda x, w, b: np.maximum(x @ w.T + b, 0.0),
    "fuse-linear-matmul-gelu": lambda x, w, b: gelu(x @ w.T + b),
    "fuse-multi-head-attention-self":
        lambda x, wq, wk, wv, wo, lens: multi_head_attention(
            x, x, x, wq, wk, wv, wo, heads=4, lens=lens),
    "fuse-multi-head-attention-cross":
        lambda q, mem, wq, wk, wv, wo, bq, bo: multi_head_attention(
            q, mem, mem, wq, wk, wv, wo, heads=2, biases=(bq, 0.0, 0.0, bo),
            causal=True, scale=0.25),
}

# What the graph optimizer makes of each graph: a regex that must match once
# at --stage=graph with fusion, and never without.
MARKERS = {
    "fuse-gelu-erf": r"tfm\.gelu %\S+ :",
    "fuse-gelu-tanh": r"tfm\.gelu %\S+ \{approximate = "
                      r"#tfm\.gelu_approximation<tanh>\}",
    "fuse-layer-norm-affine": r"tfm\.layer_norm",
    "fuse-layer-norm-keepdims": r"tfm\.layer_norm",
    "fuse-linear-bias-relu": r"tfm\.linear %\S+, %\S+, %\S+ "
                             r"\{activation = #tfm\.activation<relu>\}",
    "fuse-linear-matmul-gelu": r"tfm\.linear %\S+, %\S+, %\S+ "
                               r"\{activation = #tfm\.activation<gelu>\}",
    "fuse-multi-head-attention-self": r"tfm\.multi_head_attention",
    "fuse-multi-head-attention-cross": r"tfm\.multi_head_attention",
}

#===----------------------------------------------------------------------===#
# Driver
#===----------------------------------------------------------------------===#


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("graph")
    parser.add_argument("--compiler", required=True)
    parser.add_argument("--work", required=True)
    args = parser.parse_args()
    name = os.path.splitext(os.path.basename(args.graph))[0]
    os.makedirs(args.work, exist_ok=True)

    # 1. Compile, fused and unfused, and check which is which.
    exes = {}
    for variant, flags in (("fused", []), ("unfused", ["--no-fusion"])):
        graph_ir = run([args.compiler, args.graph, "--emit=mlir",
                        "--stage=graph", "-o", "-"] + flags)
        count = len(re.findall(MARKERS[name], graph_ir))
        expected = 1 if variant == "fused" else 0
        if count != expected:
            print("{}: {} matches of '{}' in the {} graph, expected {}".format(
                name, count, MARKERS[name], variant, expected))
            sys.exit(1)
        exes[variant] = os.path.join(args.work, variant)
        run([args.compiler, args.graph, "-o", exes[variant]] + flags)

    # 2. Random inputs; valid lengths up to the sequence length of the first
    # argument.
    rng = np.random.default_rng(0)
    inputs, paths = [], []
    sig = signature(args.graph)
    keys = sig[0][0][-2] if len(sig[0][0]) >= 2 else 1
    for i, (shape, dtype) in enumerate(sig):
        if dtype == "i32":
            x = rng.integers(0, keys + 1, size=shape).astype(np.int32)
            x.flat[0], x.flat[-1] = 0, keys
        else:
            x = rng.standard_normal(shape).astype(np.float32)
        inputs.append(x)
        paths.append(os.path.join(args.work, "in{}.npy".format(i)))
        np.save(paths[-1], x)

    outputs = {}
    for variant, exe in exes.items():
        out = os.path.join(args.work, variant + ".npy")
        run([exe, "-o", out] + paths)
        outputs[variant] = np.load(out)

    # 3. Compare.
    reference = REFERENCES[name](*[x.astype(np.float64) if x.dtype.kind == "f"
                                   else x for x in inputs])
    failed = False
    for variant, out in outputs.items():
        if out.shape != reference.shape:
            print("{}: {} output of shape {}, expected {}".format(
                name, variant, out.shape, reference.shape))
            sys.exit(1)
    scale = max(np.abs(reference).max(), 1e-30)
    errors = {variant: np.abs(out - reference).max() / scale
              for variant, out in outputs.items()}
    errors["fused vs unfused"] = (
        np.abs(outputs["fused"] - outputs["unfused"]).max() / scale)
    for what, error in errors.items():
        print("{}: {}: max relative error {:.3g} (tolerance {:g})".format(
            name, what, error, TOLERANCE))
        failed |= not error <= TOLERANCE
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
