"""Checks the weights attention-weights.test dumped against NumPy, written
from tfm.attention's definition: softmax over the keys of Q Kᵀ / sqrt(D)
plus the mask, keys at or past valid_lens at -1e6, keys after the query at
-inf; for the multi-head attention, of its projections split into heads."""
import sys

import numpy as np

d = sys.argv[1]
q, k, v, mask, x, w = (np.load(f"{d}/{n}.npy").astype(np.float64)
                       for n in ("q", "k", "v", "mask", "x", "w"))
lens, xlens = np.load(f"{d}/lens.npy"), np.load(f"{d}/xlens.npy")


def softmax(s):
    p = np.exp(s - s.max(-1, keepdims=True))
    return p / p.sum(-1, keepdims=True)


s = q @ k.swapaxes(-1, -2) / np.sqrt(8) + mask
keys = np.arange(7)
s = np.where(keys >= lens[..., None, None], -1e6, s)
s = np.where(keys[None, :] > np.arange(6)[:, None], -np.inf, s)
ref = softmax(s)
got = np.load(f"{d}/weights/attention_0.npy")
assert got.shape == ref.shape, got.shape
e0 = np.abs(got - ref).max()

# d2l's MultiHeadAttention: [batch * heads, seq, head_dim] after the split.
def split(t):
    return t.reshape(2, 5, 2, 4).transpose(0, 2, 1, 3).reshape(4, 5, 4)


qh, kh = split(x @ w.T), split(x @ w.T)
s = qh @ kh.swapaxes(-1, -2) / 2.0
s = np.where(np.arange(5) >= np.repeat(xlens, 2)[:, None, None], -1e6, s)
ref1 = softmax(s)
got1 = np.load(f"{d}/weights/attention_1.npy")
assert got1.shape == ref1.shape, got1.shape
e1 = np.abs(got1 - ref1).max()
print(f"attention_0 {list(got.shape)}: max error {e0:.1e}; attention_1 "
      f"{list(got1.shape)}: max error {e1:.1e} (tolerance 1e-5)")
sys.exit(0 if max(e0, e1) <= 1e-5 else 1)
