#!/usr/bin/env python3
"""Fits the polynomial of the exp that tfm-approximate-math emits for
AVX-512 targets.

    /usr/bin/python3 scripts/fit_exp.py

exp(x) = 2^k * exp(r) with k = roundeven(x * log2(e)) and r = x - k * ln 2
(ln 2 split in two for an exact first product), so r lies in
[-ln(2)/2, ln(2)/2]; exp(r) ~= 1 + r * P(r), P of degree 5. The fit is
least squares on the relative error, reweighted towards the largest errors
(Lawson's iteration) so that it approaches the minimax fit. The script
prints the coefficients rounded to float32, as
lib/Codegen/Common/ApproximateMath.cpp holds them, and the largest relative
error of that code's evaluation in float32 (clamp, the reduction and
Horner's rule with fused multiply-adds, the scaling by 2^k) over [-87, 88]
against math.exp in float64.
"""
import math

import numpy as np

DEGREE = 5
LN2_HI = np.float32(0.693359375)  # 9 significant bits: k * LN2_HI is exact
LN2_LO = np.float32(math.log(2) - 0.693359375)
LOG2E = np.float32(1 / math.log(2))
LOW, HIGH = np.float32(-104.0), np.float32(88.75)


def fit(degree=DEGREE, iterations=60):
    half = math.log(2) / 2
    r = np.linspace(-half, half, 8001)
    r = r[r != 0]
    f = (np.exp(r) - 1) / r  # exp(r) = 1 + r * f(r)
    weights = np.ones_like(r)
    for _ in range(iterations):
        scale = np.abs(r) / np.exp(r) * np.sqrt(weights)
        a = np.stack([r**i for i in range(degree + 1)], 1) * scale[:, None]
        p, *_ = np.linalg.lstsq(a, f * scale, rcond=None)
        error = np.abs((1 + r * np.polyval(p[::-1], r)) / np.exp(r) - 1)
        weights = weights * np.sqrt(error / error.max()) + 1e-12
        weights /= weights.max()
    return p.astype(np.float32)


def fma(a, b, c):
    """A fused multiply-add rounds once: float64 holds the exact product."""
    return (a.astype(np.float64) * b + np.float64(c)).astype(np.float32)


def evaluate_f32(p, x):
    x = np.clip(x.astype(np.float32), LOW, HIGH)
    k = np.round(x * LOG2E).astype(np.float32)  # numpy rounds half to even
    r = fma(k, -LN2_HI, x)
    r = fma(k, -LN2_LO, r)
    q = np.full_like(r, p[-1])
    for c in p[-2::-1]:
        q = fma(q, r, c)
    e = fma(r, q, np.float32(1))
    return np.ldexp(e.astype(np.float64), k.astype(np.int64))


def main():
    p = fit()
    print("P (r^0 .. r^%d):" % DEGREE, ", ".join("%.9g" % v for v in p))
    x = np.linspace(-87, 88, 2000001).astype(np.float32)
    exact = np.exp(x.astype(np.float64))
    error = np.abs(evaluate_f32(p, x) / exact - 1)
    print("largest relative error on [-87, 88] in float32: %.3g" % error.max())


if __name__ == "__main__":
    main()
