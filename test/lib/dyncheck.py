"""Compiles a graph with dynamic batch and sequence sizes once and runs the
one executable at several sizes against NumPy.

    dyncheck.py CASE --compiler PATH/tfm-compile --work DIR --sizes BxS ...
                [--flag=--cpu=avx2 ...]

CASE is one of the graphs below (`dyncheck.py --list`), written in tfm IR
with `?` batch and sequence dimensions. For each BxS the driver makes random
inputs of that batch and sequence length from a fixed seed, runs the
executable, and compares each output with tfm_tools.reference (float64 on
the same float32 inputs), printing

    b=B s=S: max relative error E (tolerance T)

It exits with 1 when an error exceeds the tolerance or an output's shape
differs from the reference's, and with 2 when compiling or running fails.
"""

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "python"))
from tfm_tools import compare, runner  # noqa: E402
from tfm_tools import reference as ref  # noqa: E402

D, H, F = 32, 4, 48  # model width, heads, FFN hidden units


def randn(rng, *shape):
    return rng.standard_normal(shape).astype(np.float32)


def weights(rng, *shapes):
    return [randn(rng, *s) * np.float32(s[-1] ** -0.5) for s in shapes]


def lens(rng, b, s):
    """Lengths from -1 to s: a length of 0 or less masks every key, which d2l
    answers with uniform weights. With two or more rows, one is 0 and one
    negative."""
    lens = rng.integers(-1, s + 1, size=(b,))
    if b >= 2:
        lens[rng.choice(b, 2, replace=False)] = [0, -3]
    return lens.astype(np.int32)


# Each case: (graph, inputs(rng, b, s) -> list of arrays, reference(*inputs)
# -> list of outputs).
CASES = {}


def case(name, graph):
    def register(fn):
        CASES[name] = (graph, fn)
        return fn
    return register


@case("linear", f"""
func.func @main(%x: tensor<?x?x{D}xf32>, %w: tensor<{F}x{D}xf32>, %b: tensor<{F}xf32>) -> tensor<?x?x{F}xf32> {{
  %r = tfm.linear %x, %w, %b {{activation = #tfm.activation<gelu>}} : (tensor<?x?x{D}xf32>, tensor<{F}x{D}xf32>, tensor<{F}xf32>) -> tensor<?x?x{F}xf32>
  return %r : tensor<?x?x{F}xf32>
}}""")
def linear(rng, b, s):
    x, (w,), bias = randn(rng, b, s, D), weights(rng, (F, D)), randn(rng, F)
    return [x, w, bias], lambda: [ref.linear(x, w, bias, "gelu")]


# A product with a row-major right operand (the micro-kernel's) and a
# reduction longer than its cache blocks (1.5 x 512 steps) that 512 does not
# divide, its rows split by register tile height, plus a residual.
LONG = 1100


@case("matmul_long", f"""
func.func @main(%x: tensor<?x?x{LONG}xf32>, %w: tensor<{LONG}x{F}xf32>, %r: tensor<?x?x{F}xf32>) -> tensor<?x?x{F}xf32> {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %b = tensor.dim %x, %c0 : tensor<?x?x{LONG}xf32>
  %s = tensor.dim %x, %c1 : tensor<?x?x{LONG}xf32>
  %rows = tensor.collapse_shape %x [[0, 1], [2]] : tensor<?x?x{LONG}xf32> into tensor<?x{LONG}xf32>
  %res = tensor.collapse_shape %r [[0, 1], [2]] : tensor<?x?x{F}xf32> into tensor<?x{F}xf32>
  %y = linalg.matmul ins(%rows, %w : tensor<?x{LONG}xf32>, tensor<{LONG}x{F}xf32>) outs(%res : tensor<?x{F}xf32>) -> tensor<?x{F}xf32>
  %out = tensor.expand_shape %y [[0, 1], [2]] output_shape [%b, %s, {F}] : tensor<?x{F}xf32> into tensor<?x?x{F}xf32>
  return %out : tensor<?x?x{F}xf32>
}}""")
def matmul_long(rng, b, s):
    x, (w,) = randn(rng, b, s, LONG), weights(rng, (LONG, F))
    residual = randn(rng, b, s, F)
    return [x, w, residual], lambda: [
        x.astype(np.float64) @ w.astype(np.float64) + residual]


def dense(array):
    """`array` as the literal of an arith.constant."""
    return "dense<" + np.array2string(
        array, separator=", ", threshold=array.size + 1,
        floatmode="unique", max_line_width=1 << 30) + ">"


# A GPT-2 MLP on constant weights, which are packed into panels (two or
# more of Nr columns, AVX-512's 32 and AVX2's 16): the first product starts
# from its bias and applies the GELU in its register tiles, the second
# starts from its bias and adds the residual in them (their epilogues, split
# with the product's dynamic rows into parts of one tile height each).
MLP_D, MLP_F = 64, 128
MLP_W1, MLP_W2 = weights(np.random.default_rng(7), (MLP_F, MLP_D),
                         (MLP_D, MLP_F))
MLP_B1, MLP_B2 = (randn(np.random.default_rng(8), n) for n in (MLP_F, MLP_D))


@case("mlp_constant", f"""
func.func @main(%x: tensor<?x?x{MLP_D}xf32>) -> tensor<?x?x{MLP_D}xf32> {{
  %w1 = arith.constant {dense(MLP_W1)} : tensor<{MLP_F}x{MLP_D}xf32>
  %b1 = arith.constant {dense(MLP_B1)} : tensor<{MLP_F}xf32>
  %w2 = arith.constant {dense(MLP_W2)} : tensor<{MLP_D}x{MLP_F}xf32>
  %b2 = arith.constant {dense(MLP_B2)} : tensor<{MLP_D}xf32>
  %h = tfm.linear %x, %w1, %b1 {{activation = #tfm.activation<gelu>}} : (tensor<?x?x{MLP_D}xf32>, tensor<{MLP_F}x{MLP_D}xf32>, tensor<{MLP_F}xf32>) -> tensor<?x?x{MLP_F}xf32>
  %y = tfm.linear %h, %w2, %b2 : (tensor<?x?x{MLP_F}xf32>, tensor<{MLP_D}x{MLP_F}xf32>, tensor<{MLP_D}xf32>) -> tensor<?x?x{MLP_D}xf32>
  %r = arith.addf %y, %x : tensor<?x?x{MLP_D}xf32>
  return %r : tensor<?x?x{MLP_D}xf32>
}}""")
def mlp_constant(rng, b, s):
    x = randn(rng, b, s, MLP_D)
    return [x], lambda: [
        ref.linear(ref.linear(x, MLP_W1, MLP_B1, "gelu"), MLP_W2, MLP_B2) + x]


@case("attention", f"""
func.func @main(%q: tensor<?x?x{D}xf32>, %k: tensor<?x?x{D}xf32>, %v: tensor<?x?x{D}xf32>, %lens: tensor<?xi32>) -> tensor<?x?x{D}xf32> {{
  %r = tfm.attention %q, %k, %v valid_lens(%lens) : (tensor<?x?x{D}xf32>, tensor<?x?x{D}xf32>, tensor<?x?x{D}xf32>, tensor<?xi32>) -> tensor<?x?x{D}xf32>
  return %r : tensor<?x?x{D}xf32>
}}""")
def attention(rng, b, s):
    q, k, v = (randn(rng, b, s, D) for _ in range(3))
    valid = lens(rng, b, s)
    return [q, k, v, valid], lambda: [ref.attention(q, k, v, valid)]


@case("causal", f"""
func.func @main(%q: tensor<?x{H}x?x16xf32>, %k: tensor<?x{H}x?x16xf32>, %v: tensor<?x{H}x?x16xf32>) -> tensor<?x{H}x?x16xf32> {{
  %r = tfm.attention %q, %k, %v {{causal}} : (tensor<?x{H}x?x16xf32>, tensor<?x{H}x?x16xf32>, tensor<?x{H}x?x16xf32>) -> tensor<?x{H}x?x16xf32>
  return %r : tensor<?x{H}x?x16xf32>
}}""")
def causal(rng, b, s):
    q, k, v = (randn(rng, b, H, s, 16) for _ in range(3))
    return [q, k, v], lambda: [ref.attention(q, k, v, causal=True)]


@case("masked_softmax", """
func.func @main(%x: tensor<?x?x?xf32>, %lens: tensor<?xi32>) -> tensor<?x?x?xf32> {
  %r = tfm.masked_softmax %x valid_lens(%lens) : (tensor<?x?x?xf32>, tensor<?xi32>) -> tensor<?x?x?xf32>
  return %r : tensor<?x?x?xf32>
}""")
def masked_softmax(rng, b, s):
    x, valid = randn(rng, b, s, s + 3), lens(rng, b, s + 3)
    return [x, valid], lambda: [ref.masked_softmax(x, valid)]


@case("encoder_block", f"""
func.func @main(%x: tensor<?x?x{D}xf32>, %lens: tensor<?xi32>,
                %wq: tensor<{D}x{D}xf32>, %wk: tensor<{D}x{D}xf32>, %wv: tensor<{D}x{D}xf32>, %wo: tensor<{D}x{D}xf32>,
                %g1: tensor<{D}xf32>, %b1: tensor<{D}xf32>,
                %w1: tensor<{F}x{D}xf32>, %c1: tensor<{F}xf32>, %w2: tensor<{D}x{F}xf32>, %c2: tensor<{D}xf32>,
                %g2: tensor<{D}xf32>, %b2: tensor<{D}xf32>) -> tensor<?x?x{D}xf32> {{
  %a = tfm.multi_head_attention %x, %x, %x weights(%wq, %wk, %wv, %wo) valid_lens(%lens) {{num_heads = {H} : i64}} : (tensor<?x?x{D}xf32>, tensor<?x?x{D}xf32>, tensor<?x?x{D}xf32>, tensor<{D}x{D}xf32>, tensor<{D}x{D}xf32>, tensor<{D}x{D}xf32>, tensor<{D}x{D}xf32>, tensor<?xi32>) -> tensor<?x?x{D}xf32>
  %y = tfm.add_norm %x, %a, %g1, %b1 : (tensor<?x?x{D}xf32>, tensor<?x?x{D}xf32>, tensor<{D}xf32>, tensor<{D}xf32>) -> tensor<?x?x{D}xf32>
  %f = tfm.ffn %y dense1(%w1, %c1) dense2(%w2, %c2) : (tensor<?x?x{D}xf32>, tensor<{F}x{D}xf32>, tensor<{F}xf32>, tensor<{D}x{F}xf32>, tensor<{D}xf32>) -> tensor<?x?x{D}xf32>
  %z = tfm.add_norm %y, %f, %g2, %b2 : (tensor<?x?x{D}xf32>, tensor<?x?x{D}xf32>, tensor<{D}xf32>, tensor<{D}xf32>) -> tensor<?x?x{D}xf32>
  return %z : tensor<?x?x{D}xf32>
}}""")
def encoder_block(rng, b, s):
    x, valid = randn(rng, b, s, D), lens(rng, b, s)
    wq, wk, wv, wo = weights(rng, *[(D, D)] * 4)
    w1, w2 = weights(rng, (F, D), (D, F))
    c1, c2 = randn(rng, F), randn(rng, D)
    g1, b1, g2, b2 = (randn(rng, D) for _ in range(4))

    def reference():
        a = ref.multi_head_attention(x, x, x, wq, wk, wv, wo, H,
                                     valid_lens=valid)
        y = ref.add_norm(x, a, g1, b1)
        return [ref.add_norm(y, ref.ffn(y, w1, c1, w2, c2), g2, b2)]
    return [x, valid, wq, wk, wv, wo, g1, b1, w1, c1, w2, c2, g2, b2], \
        reference


@case("embedding", f"""
func.func @main(%ids: tensor<?x?xi64>, %table: tensor<50x{D}xf32>) -> tensor<?x?x{D}xf32> {{
  %e = tfm.embedding %ids, %table {{scale_by_sqrt_dim}} : (tensor<?x?xi64>, tensor<50x{D}xf32>) -> tensor<?x?x{D}xf32>
  %p = tfm.positional_encoding %e : tensor<?x?x{D}xf32>
  return %p : tensor<?x?x{D}xf32>
}}""")
def embedding(rng, b, s):
    ids = rng.integers(0, 50, size=(b, s)).astype(np.int64)
    table = randn(rng, 50, D)
    return [ids, table], lambda: [
        ref.positional_encoding(ref.embedding(ids, table, True))]


@case("vit_stem", f"""
func.func @main(%img: tensor<?x3x16x16xf32>, %w: tensor<{D}x3x4x4xf32>, %b: tensor<{D}xf32>, %cls: tensor<1x1x{D}xf32>) -> tensor<?x17x{D}xf32> {{
  %p = tfm.patch_embed %img, %w, %b : (tensor<?x3x16x16xf32>, tensor<{D}x3x4x4xf32>, tensor<{D}xf32>) -> tensor<?x16x{D}xf32>
  %r = tfm.prepend_class_token %p, %cls : (tensor<?x16x{D}xf32>, tensor<1x1x{D}xf32>) -> tensor<?x17x{D}xf32>
  return %r : tensor<?x17x{D}xf32>
}}""")
def vit_stem(rng, b, s):
    # A ViT's sequence is fixed by its image size: only the batch varies.
    img, w, bias, cls = (randn(rng, b, 3, 16, 16), randn(rng, D, 3, 4, 4),
                         randn(rng, D), randn(rng, 1, 1, D))
    return [img, w, bias, cls], lambda: [
        ref.prepend_class_token(ref.patch_embed(img, w, bias), cls)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("case", nargs="?")
    parser.add_argument("--compiler")
    parser.add_argument("--work")
    parser.add_argument("--sizes", nargs="+", default=[])
    parser.add_argument("--tolerance", type=float, default=1e-4)
    parser.add_argument("--flag", action="append", default=[],
                        help="a tfm-compile flag (repeatable)")
    parser.add_argument("--list", action="store_true")
    args = parser.parse_args()
    if args.list or not args.case:
        print("\n".join(CASES))
        return 0
    if args.case not in CASES or not args.compiler or not args.work:
        parser.error("expected a CASE (see --list), --compiler and --work")
    graph, make = CASES[args.case]
    os.makedirs(args.work, exist_ok=True)
    source = os.path.join(args.work, args.case + ".mlir")
    runner.write_text(source, graph.strip() + "\n")
    exe = os.path.join(args.work, args.case)
    failed = False
    with runner.exit_on_failure():
        runner.compile_graph(args.compiler, source, exe, args.flag)
        for i, text in enumerate(args.sizes):
            b, s = (int(v) for v in text.split("x"))
            rng = np.random.default_rng(1000 + i)
            inputs, reference = make(rng, b, s)
            paths = runner.save_arrays(
                args.work, [(str(j), a) for j, a in enumerate(inputs)],
                prefix=f"{text}-in")
            outs = [os.path.join(args.work, f"{text}-out{j}.npy")
                    for j in range(len(reference()))]
            runner.run_model(exe, paths, outs)
            for out, want in zip(outs, reference()):
                got = np.load(out)
                if got.shape != want.shape:
                    print(f"b={b} s={s}: shape {got.shape}, expected "
                          f"{want.shape}")
                    failed = True
                    continue
                error = compare.relative_error(got, want)
                print(f"b={b} s={s}: max relative error {error:.3g} "
                      f"(tolerance {args.tolerance:g})")
                failed |= not error <= args.tolerance
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
