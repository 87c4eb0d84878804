#!/usr/bin/env python3
"""Fits the rational approximation of erf that tfm-approximate-math emits.

    /usr/bin/python3 scripts/fit_erf.py

erf(x) ~= x * P(x^2) / Q(x^2) on [0, C], P and Q of degree 5 in x^2 with
Q(0) = 1, C = 3.9375 (from there on erf(x) rounds to 1 in float32, and the
compiled code clamps x to [-C, C]). The fit is linearized least squares on
the error of erf itself, x * (P - f * Q) / Q_previous with f = erf(x) / x,
reweighted towards the largest errors (Lawson's iteration) so that it
approaches the minimax fit. The script prints the coefficients rounded to
float32, as lib/Codegen/Common/ApproximateMath.cpp holds them, and the
largest error of that code's evaluation in float32 (Horner's rule with fused
multiply-adds, one division) over [-10, 10] against math.erf in float64.
"""
import math

import numpy as np

CLAMP = 3.9375
DEGREE = 5


def fit(clamp=CLAMP, degree=DEGREE, iterations=60):
    x = np.linspace(1e-4, clamp, 8000)
    t = x * x
    f = np.array([math.erf(v) for v in x]) / x
    weights = np.ones_like(x)
    q_previous = np.ones_like(x)
    for _ in range(iterations):
        columns = [t**i for i in range(degree + 1)]
        columns += [-f * t**i for i in range(1, degree + 1)]
        scale = x / q_previous * np.sqrt(weights)
        a = np.stack(columns, 1) * scale[:, None]
        coefficients, *_ = np.linalg.lstsq(a, f * scale, rcond=None)
        p = coefficients[:degree + 1]
        q = np.concatenate([[1.0], coefficients[degree + 1:]])
        q_previous = np.polyval(q[::-1], t)
        error = np.abs(x * np.polyval(p[::-1], t) / q_previous - f * x)
        weights = weights * np.sqrt(error / error.max()) + 1e-12
        weights /= weights.max()
    return p.astype(np.float32), q.astype(np.float32)


def evaluate_f32(p, q, x):
    """The compiled code's arithmetic: clamp, x^2, Horner with FMAs, divide."""
    x = np.clip(x.astype(np.float32), np.float32(-CLAMP), np.float32(CLAMP))
    t = x * x

    def horner(c):
        r = np.full_like(t, c[-1])
        for v in c[-2::-1]:
            # A fused multiply-add rounds once: float64 holds the exact product.
            r = (r.astype(np.float64) * t + np.float64(v)).astype(np.float32)
        return r

    return (x * horner(p)) / horner(q)


def main():
    p, q = fit()
    print("P (x^0 .. x^10):", ", ".join(f"{v:.9g}" for v in p))
    print("Q (x^0 .. x^10):", ", ".join(f"{v:.9g}" for v in q))
    x = np.linspace(-10, 10, 2_000_001)
    y = evaluate_f32(p, q, x)
    reference = np.array([math.erf(v) for v in x])
    error = np.abs(y - reference)
    print(f"largest error in float32 on [-10, 10]: {error.max():.2e} "
          f"at x = {x[error.argmax()]:.4f}")


if __name__ == "__main__":
    main()
