"""Inputs of exp-accuracy.test, and the check of tfm's exp at them.

    exp_inputs.py X.npy                  writes the 65536 inputs
    exp_inputs.py X.npy --check Y.npy [--relative R] [--flush]
                                         checks Y = exp(X), prints what holds

R is the largest relative error allowed where exp(X) is a normal float32
(default 2e-7); with --flush, results below the smallest normal may be
flushed to zero (upstream's approximation, tfm's exp on AVX2, does).

The inputs: an even grid over [-110, 95], both ends of the normal results
(exp's overflow at 88.72, the smallest normal at -87.34), the denormal
results down to -103.97, and +-inf, NaN, 0, -0.
"""
import sys

import numpy as np

N = 65536


def inputs():
    special = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 88.72, 88.7228,
                        88.73, 88.75, 89.0, -87.3, -87.34, -87.4, -100.0,
                        -103.9, -103.97, -104.0, -104.5, -110.0, 1e-7, -1e-7],
                       np.float32)
    grid = np.linspace(-110, 95, N - special.size, dtype=np.float32)
    return np.concatenate([special, grid])


def check(x, y, tolerance, flush):
    exact = np.exp(x.astype(np.float64))
    with np.errstate(over="ignore", invalid="ignore"):
        normal = np.isfinite(exact) & (exact >= np.finfo(np.float32).tiny) & (
            exact <= np.finfo(np.float32).max * 0.999)
        relative = np.abs(y[normal] / exact[normal] - 1).max()
    print("normal results: largest relative error",
          "ok" if relative <= tolerance else relative)
    denormal = (exact < np.finfo(np.float32).tiny) & (exact > 2.0**-150)
    step = np.finfo(np.float32).tiny if flush else 2.0**-149
    worst = np.abs(y[denormal].astype(np.float64) - exact[denormal]).max()
    print("denormal results", "ok" if worst <= step else worst)
    zeros = exact <= 2.0**-151
    infinities = exact >= 3.4028236e38
    nans = np.isnan(x)
    good = (np.all(y[zeros] == 0) and np.all(np.isposinf(y[infinities]))
            and np.all(np.isnan(y[nans])) and not np.any(np.isnan(y[~nans])))
    print("zeros, infinities and NaNs", "ok" if good else "wrong")


def main():
    if len(sys.argv) == 2:
        np.save(sys.argv[1], inputs())
        return
    x, y = np.load(sys.argv[1]), np.load(sys.argv[3])
    tolerance = 2e-7
    if "--relative" in sys.argv:
        tolerance = float(sys.argv[sys.argv.index("--relative") + 1])
    check(x, y, tolerance, "--flush" in sys.argv)


if __name__ == "__main__":
    main()
