"""Runs the attention of attention-nan.mlir (compiled to EXE) on inputs with
a NaN in one key of batch 0 and in one query row of batch 1, and checks the
output against NumPy written from the math: NaN exactly where NumPy's is
(every row of batch 0, row 7 of batch 1), the rest within 1e-4 relative."""

import os
import subprocess
import sys

import numpy as np

exe, work = sys.argv[1], sys.argv[2]
rng = np.random.default_rng(0)
q = rng.standard_normal((2, 40, 64)).astype(np.float32)
k = rng.standard_normal((2, 64, 64)).astype(np.float32)
v = rng.standard_normal((2, 64, 64)).astype(np.float32)
k[0, 37, 5] = np.nan
q[1, 7, 60] = np.nan

names = []
for name, x in (("q", q), ("k", k), ("v", v)):
    path = os.path.join(work, name + ".npy")
    np.save(path, x)
    names.append(path)
out = os.path.join(work, "out.npy")
subprocess.run([exe, "-o", out] + names, check=True)
y = np.load(out)

s = q.astype(np.float64) @ k.astype(np.float64).transpose(0, 2, 1) / 8.0
with np.errstate(invalid="ignore"):
    e = np.exp(s - s.max(-1, keepdims=True))
    ref = (e / e.sum(-1, keepdims=True)) @ v.astype(np.float64)

nan = np.isnan(ref)
assert nan[0].all() and nan[1, 7].all() and nan.sum() == 40 * 64 + 64
same = np.array_equal(np.isnan(y), nan)
finite = ~nan
err = np.abs(y[finite] - ref[finite]).max() / np.abs(ref[finite]).max()
print(f"NaN where NumPy's: {same}; max relative error elsewhere {err:.1e} "
      f"(tolerance 0.0001)")
sys.exit(0 if same and err <= 1e-4 else 1)
