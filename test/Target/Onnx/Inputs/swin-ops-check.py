"""Checks swin-ops.test's outputs (PREFIX.*.npy) against NumPy, from the
definitions of the ONNX ops."""
import sys

import numpy as np

p = sys.argv[1]
x, ids, bias = (np.load(f"{p}.{n}.npy") for n in ("x", "ids", "bias"))
out = {n: np.load(f"{p}.{n}.npy")
       for n in ("mod", "fmod", "pad", "pool", "scatter", "sized")}

# Python's %: the remainder has the divisor's sign.
assert out["mod"].dtype == np.int64
assert np.array_equal(out["mod"], ids % -3), (out["mod"], ids % -3)
assert np.allclose(out["fmod"], np.fmod(x, np.float32(1.5)), atol=1e-6)
pad = np.full((2, 3, 7, 5), 0.5, dtype=np.float32)
pad[:, :, 1:5, 0:4] = x
assert np.array_equal(out["pad"], pad)
assert np.allclose(out["pool"], x.mean(axis=(2, 3), keepdims=True),
                   rtol=1e-6, atol=1e-6)
table = np.arange(12, dtype=np.float32).reshape(4, 3)
table[3] = [-1, -2, -3]
table[-3] = [-4, -5, -6]
assert np.array_equal(out["scatter"], table + bias)
assert np.array_equal(out["sized"], bias.reshape(2, 6))
print("swin ops match NumPy")
