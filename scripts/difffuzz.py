#!/usr/bin/python3
"""Differential fuzzer: random tfm graphs, built three ways, against NumPy.

    scripts/difffuzz.py [--seconds S] [--seed N] [--compiler PATH]
                        [--work DIR] [--keep]

Each case is a random, well-typed graph: a chain of 2 to 5 blocks drawn from
the dialect's ops (linear, ffn, layer_norm, add_norm, gelu, attention with
valid_lens, a causal flag or an additive mask, multi_head_attention,
split/merge heads, masked_softmax) and from the unfused patterns that the
graph optimizer fuses (d2l's scaled dot-product attention as batch_matmul,
a scale, masked_softmax and batch_matmul; GELU spelled with math.erf). Sizes
are drawn from 1, small primes and powers of two; valid lengths from -2 to
the full length, 0 and the full length always among them. Half the cases
have dynamic sizes: the batch (6 or 9) and the sequence length (10 or 11)
are `?` in every type, heads folded into the batch (`6 * h`) too, and the
one executable runs at the sizes drawn (the blocks that need a constant of
the whole shape, the unfused attention and GELU patterns, are left out of
those). Every case is compiled

    fused      tfm-compile (the default pipeline)
    unfused    tfm-compile --no-fusion
    gpu        tfm-compile --target=nvptx --gpu-emulate (every third case)

and each result is compared with the float64 NumPy reference of
tfm_tools.reference at a tolerance of 1e-3 (a chain of f32 ops against f64).
A case that fails to compile or run, or that differs, is written to
WORK/failures/CASE/ (graph.mlir, the inputs, what went wrong) and makes the
script exit with 1 at the end. It prints the cases it ran and what it found.
"""

import argparse
import math
import os
import re
import shutil
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
from tfm_tools import compare, graph, runner  # noqa: E402
from tfm_tools import reference as ref  # noqa: E402

SIZES = (1, 2, 3, 4, 5, 7, 8, 13, 16, 17)
TOLERANCE = 1e-3


class Case:
    """A graph being built, with its inputs and its reference value."""

    def __init__(self, rng):
        self.rng = rng
        self.f = graph.Function("main")
        self.inputs = []     # (name, array)
        self.blocks = []     # what the chain is made of, for the report

    def input(self, array):
        name = f"in{len(self.inputs)}"
        self.inputs.append((name, array))
        return self.f.input(name, graph.type_of(array))

    def randn(self, *shape, scale=1.0):
        return (self.rng.standard_normal(shape) * scale).astype(np.float32)

    def lens(self, batch, high):
        """Valid lengths from -2 to HIGH: 0 or below masks every key (d2l's
        uniform weights)."""
        lens = self.rng.integers(-2, high + 1, size=batch)
        if batch >= 3:
            lens[self.rng.choice(batch, 3, replace=False)] = [0, high, -1]
        elif batch == 2:
            lens[self.rng.choice(batch, 2, replace=False)] = [0, high]
        return lens.astype(np.int32)


# Each block takes the chain's value (x: Value, r: its float64 reference,
# of shape [b, s, d]) and returns the next one. Blocks that need a shape
# property (heads that divide d) return None when it does not hold.


def linear(c, x, r):
    b, s, d = r.shape
    n = int(c.rng.choice(SIZES))
    activation = str(c.rng.choice(["none", "relu", "gelu", "gelu_tanh"]))
    w = c.randn(n, d, scale=1 / math.sqrt(d))
    bias = c.randn(n) if c.rng.random() < 0.5 else None
    operands = [x, c.input(w)] + ([c.input(bias)] if bias is not None else [])
    y = c.f.op("tfm.linear", operands, graph.tensor((b, s, n)),
               attrs={"activation": graph.enum("tfm.activation", activation)})
    return y, ref.linear(r, w, bias, activation)


def ffn(c, x, r):
    b, s, d = r.shape
    f = int(c.rng.choice(SIZES))
    activation = str(c.rng.choice(["relu", "gelu", "gelu_tanh"]))
    w1, b1 = c.randn(f, d, scale=1 / math.sqrt(d)), c.randn(f)
    w2, b2 = c.randn(d, f, scale=1 / math.sqrt(f)), c.randn(d)
    y = c.f.op("tfm.ffn", [x],
               graph.tensor((b, s, d)),
               groups={"dense1": [c.input(w1), c.input(b1)],
                       "dense2": [c.input(w2), c.input(b2)]},
               attrs={"activation": graph.enum("tfm.activation", activation)})
    return y, ref.ffn(r, w1, b1, w2, b2, activation)


def layer_norm(c, x, r):
    d = r.shape[-1]
    gamma, beta = 1 + c.randn(d, scale=0.5), c.randn(d)
    y = c.f.op("tfm.layer_norm", [x, c.input(gamma), c.input(beta)],
               graph.tensor(r.shape))
    return y, ref.layer_norm(r, gamma, beta)


def add_norm(c, x, r):
    d = r.shape[-1]
    other = c.randn(*r.shape)
    gamma, beta = 1 + c.randn(d, scale=0.5), c.randn(d)
    y = c.f.op("tfm.add_norm",
               [x, c.input(other), c.input(gamma), c.input(beta)],
               graph.tensor(r.shape))
    return y, ref.add_norm(r, other, gamma, beta)


def gelu(c, x, r):
    approximate = str(c.rng.choice(["none", "tanh"]))
    attrs = {"approximate": graph.enum("tfm.gelu_approximation", approximate)} \
        if approximate == "tanh" else None
    y = c.f.op("tfm.gelu", [x], attrs=attrs, same_type=True)
    return y, ref.gelu(r, approximate)


def gelu_pattern(c, x, r):
    """0.5 * x * (1 + erf(x / sqrt 2)), as ONNX exports write it."""
    t = graph.tensor(r.shape)
    half = c.f.constant(0.5, t)
    one = c.f.constant(1.0, t)
    rsqrt2 = c.f.constant(1 / math.sqrt(2.0), t)
    scaled = c.f.op("arith.mulf", [x, rsqrt2], same_type=True)
    erf = c.f.op("math.erf", [scaled], same_type=True)
    plus = c.f.op("arith.addf", [erf, one], same_type=True)
    times = c.f.op("arith.mulf", [x, plus], same_type=True)
    y = c.f.op("arith.mulf", [times, half], same_type=True)
    return y, ref.gelu(r)


def attention(c, x, r):
    b, s, d = r.shape
    sk = int(c.rng.choice(SIZES))
    k, v = c.randn(b, sk, d), c.randn(b, sk, d)
    kind = str(c.rng.choice(["plain", "valid_lens", "causal", "mask"]))
    lens = c.lens(b, sk) if kind == "valid_lens" else None
    mask = c.randn(b, s, sk) if kind == "mask" else None
    causal = kind == "causal"
    groups = {"valid_lens": c.input(lens) if lens is not None else None,
              "mask": c.input(mask) if mask is not None else None}
    y = c.f.op("tfm.attention", [x, c.input(k), c.input(v)],
               graph.tensor((b, s, d)), groups=groups,
               attrs={"causal": causal})
    return y, ref.attention(r, k, v, lens, mask, None, causal)


def attention_pattern(c, x, r):
    """d2l's DotProductAttention in ops: the fusion's main pattern."""
    b, s, d = r.shape
    k, v = c.randn(b, s, d), c.randn(b, s, d)
    kx, vx = c.input(k), c.input(v)
    scores_t = graph.tensor((b, s, s))
    scores = c.f.op("tfm.batch_matmul", [x, kx], scores_t,
                    attrs={"transpose_rhs": True})
    scale = c.f.constant(1 / math.sqrt(d), scores_t)
    scaled = c.f.op("arith.mulf", [scores, scale], same_type=True)
    lens = c.lens(b, s) if c.rng.random() < 0.6 else None
    p = c.f.op("tfm.masked_softmax", [scaled], scores_t,
               groups={"valid_lens": c.input(lens) if lens is not None
                       else None})
    y = c.f.op("tfm.batch_matmul", [p, vx], graph.tensor((b, s, d)))
    return y, ref.attention(r, k, v, lens)


def multi_head(c, x, r):
    b, s, d = r.shape
    heads = [h for h in (1, 2, 4, 8) if d % h == 0 and h <= d]
    h = int(c.rng.choice(heads))
    init = 1 / math.sqrt(d)
    ws = [c.randn(d, d, scale=init) for _ in range(4)]
    lens = c.lens(b, s) if c.rng.random() < 0.5 else None
    causal = lens is None and c.rng.random() < 0.5
    y = c.f.op("tfm.multi_head_attention", [x, x, x], graph.tensor(r.shape),
               groups={"weights": [c.input(w) for w in ws],
                       "valid_lens": c.input(lens) if lens is not None
                       else None},
               attrs={"num_heads": h, "causal": causal})
    return y, ref.multi_head_attention(r, r, r, *ws, h, None, lens, None,
                                       None, causal)


def split_attend_merge(c, x, r):
    """split_heads, attention per head, merge_heads."""
    b, s, d = r.shape
    heads = [h for h in (2, 3, 4) if d % h == 0]
    if not heads:
        return None
    h = int(c.rng.choice(heads))
    split_t = graph.tensor((b * h, s, d // h))
    xs = c.f.op("tfm.split_heads", [x], split_t, attrs={"num_heads": h})
    o = c.f.op("tfm.attention", [xs, xs, xs], split_t)
    y = c.f.op("tfm.merge_heads", [o], graph.tensor(r.shape),
               attrs={"num_heads": h})
    rs = ref.split_heads(r, h)
    return y, ref.merge_heads(ref.attention(rs, rs, rs), h)


def masked_softmax(c, x, r):
    b, s, d = r.shape
    lens = c.lens(b, d) if c.rng.random() < 0.7 else None
    y = c.f.op("tfm.masked_softmax", [x], graph.tensor(r.shape),
               groups={"valid_lens": c.input(lens) if lens is not None
                       else None})
    return y, ref.masked_softmax(r, lens)


def residual(c, x, r):
    other = c.randn(*r.shape)
    add = c.rng.random() < 0.5
    y = c.f.op("arith.addf" if add else "arith.mulf", [x, c.input(other)],
               same_type=True)
    return y, (r + other if add else r * other)


BLOCKS = [linear, ffn, layer_norm, add_norm, gelu, gelu_pattern, attention,
          attention_pattern, multi_head, split_attend_merge, masked_softmax,
          residual]


# Dynamic cases: batch and sequence sizes that no static size equals, nor
# a product of the batch and a head count (split_heads folds heads into the
# batch), so that every size that is theirs, and only those, becomes `?`.
DYNAMIC_BATCH, DYNAMIC_SEQ = (6, 9), (10, 11)
STATIC_ONLY = {"attention_pattern", "gelu_pattern"}


def dynamic_sizes(batch, seq):
    return {seq} | {batch * h for h in (1, 2, 3, 4)}


def make_dynamic(text, sizes):
    """TEXT with every dimension in SIZES of every tensor type made `?`."""
    def rewrite(match):
        dims = [d for d in match.group(1).split("x") if d]
        return "tensor<" + "".join(
            ("?" if int(d) in sizes else d) + "x" for d in dims) \
            + match.group(2) + ">"
    return re.sub(r"tensor<((?:\d+x)*)(\w+)>", rewrite, text)


def make_case(rng):
    c = Case(rng)
    c.dynamic = rng.random() < 0.5
    if c.dynamic:
        shape = (int(rng.choice(DYNAMIC_BATCH)), int(rng.choice(DYNAMIC_SEQ)),
                 int(rng.choice(SIZES)))
        blocks = [b for b in BLOCKS if b.__name__ not in STATIC_ONLY]
    else:
        shape = tuple(int(rng.choice(SIZES)) for _ in range(3))
        blocks = BLOCKS
    c.sizes = dynamic_sizes(*shape[:2]) if c.dynamic else set()
    first = c.randn(*shape)
    x, r = c.input(first), first.astype(np.float64)
    for _ in range(int(rng.integers(2, 6))):
        block = blocks[int(rng.integers(len(blocks)))]
        out = block(c, x, r)
        if out is None:
            continue
        x, r = out
        c.blocks.append(block.__name__)
        # Keep values in a range where f32 chains stay within tolerance.
        if np.abs(r).max(initial=0) > 1e3:
            break
    c.f.ret(x, names="out")
    return c, r


def run_case(index, c, expected, compiler, work, gpu):
    case_dir = os.path.join(work, f"case{index}")
    os.makedirs(case_dir, exist_ok=True)
    text = make_dynamic(c.f.text(), c.sizes) if c.dynamic else c.f.text()
    path = os.path.join(case_dir, "graph.mlir")
    runner.write_text(path, text)
    inputs = runner.save_arrays(case_dir, c.inputs)
    builds = {"fused": [], "unfused": ["--no-fusion"]}
    if gpu:
        builds["gpu"] = ["--target=nvptx", "--gpu-emulate"]
    problems = []
    for build, flags in builds.items():
        exe = os.path.join(case_dir, build)
        out = os.path.join(case_dir, f"{build}.out.npy")
        try:
            runner.compile_graph(compiler, path, exe, flags)
            runner.run_model(exe, inputs, [out], timeout=120)
        except runner.ToolError as e:
            problems.append(f"{build}: {e}")
            continue
        got = np.load(out)
        if got.shape != expected.shape:
            problems.append(f"{build}: shape {got.shape}, expected "
                            f"{expected.shape}")
            continue
        err = compare.relative_error(got, expected)
        if not err <= TOLERANCE:
            problems.append(f"{build}: max relative error {err:.3g} "
                            f"(tolerance {TOLERANCE})")
    return case_dir, problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--seed", type=int, default=None,
                        help="first case's seed (default: from the clock)")
    parser.add_argument("--compiler",
                        default=os.path.join(ROOT, "build", "bin",
                                             "tfm-compile"))
    parser.add_argument("--work",
                        default=os.path.join(ROOT, "build", "difffuzz"))
    parser.add_argument("--keep", action="store_true",
                        help="keep the cases that passed too")
    args = parser.parse_args()
    if not os.access(args.compiler, os.X_OK):
        sys.exit(f"error: no tfm-compile at {args.compiler} (build first, "
                 "or pass --compiler)")
    seed = args.seed if args.seed is not None else int(time.time())
    failures_dir = os.path.join(args.work, "failures")
    os.makedirs(failures_dir, exist_ok=True)
    start, cases, failures, blocks = time.time(), 0, 0, {}
    dynamic = 0
    while time.time() - start < args.seconds:
        case_seed = seed + cases
        c, expected = make_case(np.random.default_rng(case_seed))
        for name in c.blocks:
            blocks[name] = blocks.get(name, 0) + 1
        case_dir, problems = run_case(case_seed, c, expected, args.compiler,
                                      args.work, gpu=cases % 3 == 0)
        cases += 1
        dynamic += c.dynamic
        if problems:
            failures += 1
            kept = os.path.join(failures_dir, os.path.basename(case_dir))
            shutil.rmtree(kept, ignore_errors=True)
            shutil.move(case_dir, kept)
            runner.write_text(os.path.join(kept, "problems.txt"),
                              f"seed {case_seed}; blocks {c.blocks}; "
                              f"dynamic {c.dynamic}\n"
                              + "\n".join(problems) + "\n")
            print(f"seed {case_seed} ({' '.join(c.blocks)}): "
                  + "; ".join(p.splitlines()[0] for p in problems),
                  flush=True)
        elif not args.keep:
            shutil.rmtree(case_dir, ignore_errors=True)
    elapsed = time.time() - start
    print(f"{cases} cases ({dynamic} with dynamic sizes) in {elapsed:.0f} s "
          f"from seed {seed}, {failures} failed")
    print("blocks: " + ", ".join(f"{k} {v}" for k, v in sorted(
        blocks.items())))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
