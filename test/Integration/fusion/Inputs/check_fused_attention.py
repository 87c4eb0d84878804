"""Checks that tfm-fuse-attention keeps the numbers of an attention graph.

    check_fused_attention.py GRAPH --compiler PATH/tfm-compile --work DIR

GRAPH is one of the graphs next to this script; its @main takes float32
tensors (and int32 valid lengths). The driver

1. compiles GRAPH twice with tfm-compile, with fusion and with --no-fusion,
   and checks (at --stage=graph) that the first holds exactly one
   tfm.attention and the second none, so that the comparison below is
   between a fused and an unfused program;
2. runs both executables on the same random inputs (fixed seed; valid
   lengths in [0, keys], 0 and keys included);
3. compares each output with a float64 NumPy reference of GRAPH written
   below from the math, not from the graph's ops, and the two outputs with
   each other.

It prints the errors, E = max|out - ref| / max|ref|, and exits with 1 when
one exceeds TOLERANCE, with 2 when compiling or running fails.
"""

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fusion_driver import run, signature  # noqa: E402

# float32 against a float64 reference, and fused against unfused float32.
TOLERANCE = 1e-5


def softmax(x):
    x = x - x.max(axis=-1, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=-1, keepdims=True)


def causal_fill(sq, sk, value):
    """`value` where key j > query i, else 0."""
    return np.where(np.arange(sk)[None, :] > np.arange(sq)[:, None], value, 0.0)


def ref_d2l(q, k, v, lens):
    # d2l: scores / sqrt(d), keys at or past the valid length set to -1e6.
    scores = q @ k.transpose(0, 2, 1) / np.sqrt(q.shape[-1])
    keys = np.arange(k.shape[1])[None, None, :]
    scores = np.where(keys >= lens[:, None, None], -1e6, scores)
    return softmax(scores) @ v


def ref_causal_linalg(q, k, v):
    scores = q @ k.transpose(0, 2, 1) * 0.25
    scores = scores + causal_fill(q.shape[1], k.shape[1], -1e9)
    return softmax(scores) @ v


def ref_mask_4d(q, k, v, m):
    # Heads split as d2l's transpose_qkv does: [batch * heads] = [2, 2].
    scores = (q * 0.35355339) @ k.transpose(0, 2, 1)
    scores = scores.reshape(2, 2, *scores.shape[1:]) + m[:, None, None, :]
    return softmax(scores.reshape(4, *scores.shape[2:])) @ v


def ref_rank2(q, k, v):
    return softmax(q @ k.T / 3.0) @ v


REFERENCES = {
    "attention-d2l": ref_d2l,
    "attention-causal-linalg": ref_causal_linalg,
    "attention-mask-4d": ref_mask_4d,
    "attention-rank2": ref_rank2,
}


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
        count = graph_ir.count("tfm.attention")
        expected = 1 if variant == "fused" else 0
        if count != expected:
            print("{}: {} tfm.attention in the {} graph, expected {}".format(
                name, count, variant, expected))
            sys.exit(1)
        exes[variant] = os.path.join(args.work, variant)
        run([args.compiler, args.graph, "-o", exes[variant]] + flags)

    # 2. Random inputs.
    rng = np.random.default_rng(0)
    inputs, paths = [], []
    sig = signature(args.graph)
    keys = sig[1][0][-2]
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
    reference = REFERENCES[name](*[x.astype(np.float64) for x in inputs])
    scale = max(np.abs(reference).max(), 1e-30)
    errors = {variant: np.abs(out - reference).max() / scale
              for variant, out in outputs.items()}
    errors["fused vs unfused"] = (
        np.abs(outputs["fused"] - outputs["unfused"]).max() / scale)
    failed = False
    for what, error in errors.items():
        print("{}: {}: max relative error {:.3g} (tolerance {:g})".format(
            name, what, error, TOLERANCE))
        failed |= not error <= TOLERANCE
    for variant, out in outputs.items():
        if out.shape != reference.shape:
            print("{}: {} output of shape {}, expected {}".format(
                name, variant, out.shape, reference.shape))
            failed = True
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
