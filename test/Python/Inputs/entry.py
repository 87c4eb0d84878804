"""Compiles graphs with the Python entry (python/tfm) and calls them on
NumPy arrays: results against NumPy, and the errors of bad calls. Prints
one line a check; exits 1 at the first that fails."""
import os
import sys

import numpy as np

import tfm

work = sys.argv[1]
os.makedirs(work, exist_ok=True)


def write(name, text):
    path = os.path.join(work, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def expect_error(kind, call, *words):
    try:
        call()
    except kind as e:
        message = str(e)
        missing = [w for w in words if w not in message]
        if missing:
            sys.exit(f"FAIL: {kind.__name__} without {missing}: {message}")
        print(f"{kind.__name__}: {message.splitlines()[0]}")
        return
    sys.exit(f"FAIL: no {kind.__name__}")


# Attention with dynamic batch and sequence, named sizes, a bound on seq.
attention = write("attention.mlir", """
func.func @main(%q: tensor<?x?x16xf32> {tfm.name = "q", tfm.dims = ["batch", "seq", ""]},
                %k: tensor<?x?x16xf32> {tfm.name = "k", tfm.dims = ["batch", "keys", ""]},
                %v: tensor<?x?x16xf32> {tfm.name = "v", tfm.dims = ["batch", "keys", ""]})
    -> (tensor<?x?x16xf32> {tfm.name = "out"}) {
  %0 = tfm.attention %q, %k, %v : (tensor<?x?x16xf32>, tensor<?x?x16xf32>, tensor<?x?x16xf32>) -> tensor<?x?x16xf32>
  return %0 : tensor<?x?x16xf32>
}
""")
model = tfm.load(tfm.compile(attention, max_size="seq=40"))
print(repr(model.signature).replace("\n", " | "))
rng = np.random.default_rng(0)
for b, s, n in ((1, 1, 1), (3, 37, 5)):
    q, k, v = (rng.standard_normal((b, m, 16)).astype(np.float32)
               for m in (s, n, n))
    scores = q.astype(np.float64) @ k.transpose(0, 2, 1) / 4.0
    p = np.exp(scores - scores.max(-1, keepdims=True))
    ref = (p / p.sum(-1, keepdims=True)) @ v
    out = model(q, k, v)
    err = np.abs(out - ref).max() / np.abs(ref).max()
    if out.shape != ref.shape or err > 1e-4:
        sys.exit(f"FAIL: b={b} s={s}: shape {out.shape}, error {err}")
    print(f"b={b} s={s} keys={n}: max relative error {err:.1e} "
          f"(tolerance 1e-4)")

q = np.zeros((2, 4, 16), np.float32)
kv = np.zeros((3, 5, 16), np.float32)
expect_error(ValueError, lambda: model(q.astype(np.float64), kv, kv),
             "input 0 (q)", "float32 [batch, seq, 16]", "float64")
expect_error(ValueError, lambda: model(q, kv, kv), "batch is 3 here",
             "which the model requires to be equal")
expect_error(ValueError, lambda: model(np.zeros((2, 41, 16), np.float32),
                                       kv[:2], kv[:2]),
             "seq (dimension 1) is 41, above the bound of 40")
expect_error(TypeError, lambda: model(q, kv), "takes 3 input(s)")

# Two results, an int64 input, a symbol prefix.
two = write("two.mlir", """
func.func @main(%x: tensor<2x3xf32> {tfm.name = "x"}, %ids: tensor<4xi64> {tfm.name = "ids"})
    -> (tensor<2x3xf32> {tfm.name = "double"}, tensor<4xf32> {tfm.name = "idsf"}) {
  %0 = arith.addf %x, %x : tensor<2x3xf32>
  %1 = arith.sitofp %ids : tensor<4xi64> to tensor<4xf32>
  return %0, %1 : tensor<2x3xf32>, tensor<4xf32>
}
""")
lib = tfm.compile(two, os.path.join(work, "libtwo.so"), symbol_prefix="two")
x = rng.standard_normal((2, 3)).astype(np.float32)
ids = np.array([-2, 0, 7, 1 << 40], dtype=np.int64)
double, idsf = tfm.load(lib, prefix="two")(x, ids)
assert np.array_equal(double, 2 * x) and np.array_equal(idsf, ids.astype(
    np.float32)), (double, idsf)
print("two results: match NumPy")

# bfloat16 crosses as uint16 arrays of its bits: x + x is exact.
bf16 = write("bf16.mlir", """
func.func @main(%x: tensor<5xbf16> {tfm.name = "x"}) -> (tensor<5xbf16> {tfm.name = "y"}) {
  %0 = arith.addf %x, %x : tensor<5xbf16>
  return %0 : tensor<5xbf16>
}
""")
halve = tfm.load(tfm.compile(bf16, os.path.join(work, "libbf16.so")))
values = np.array([1.5, -2.0, 0.0078125, 3.0e38, -0.5], np.float32)
bits = (values.view(np.uint32) >> 16).astype(np.uint16)
doubled = halve(bits)
assert doubled.dtype == np.uint16, doubled.dtype
assert np.array_equal((doubled.astype(np.uint32) << 16).view(np.float32),
                      np.float32(2) * values), doubled
print("bf16 as uint16: match NumPy")
expect_error(ValueError, lambda: halve(values), "input 0 (x)",
             "bfloat16 (as uint16) [5]", "float32")

expect_error(tfm.CompileError, lambda: tfm.compile(two, max_seq=4),
             "has no dynamic size named 'seq'")
print("ok")
