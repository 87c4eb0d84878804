"""The maximum relative error of a result, and the tolerances it is held to.

Every check of tfm's numbers uses one metric,

    E = max|out - ref| / max(max|ref|, tiny)

in float64, and passes when E <= T. NaN is allowed only where the reference
is NaN too (d2l's 0/0 of an empty kernel support): NaN elsewhere, or a finite
value where the reference is NaN, makes E infinite.
"""

import math

import numpy as np

# T by element type, against a float64 reference: float32 rounds at 6e-8,
# float16 at 5e-4, and long reductions add up.
TOLERANCES = {"f32": 1e-4, "f16": 1e-2}
TOLERANCE = TOLERANCES["f32"]


def relative_error(out, ref, scale=None):
    """max|out - ref| / max(max|scale|, tiny), where SCALE defaults to REF
    (pass the reference as SCALE to compare two results with each other on
    the reference's scale). Returns a float; inf when NaNs disagree."""
    out = np.asarray(out, dtype=np.float64)
    ref = np.asarray(ref, dtype=np.float64)
    nan = np.isnan(ref)
    if not np.array_equal(nan, np.isnan(out)):
        return math.inf
    scale = ref if scale is None else np.asarray(scale, dtype=np.float64)
    diff = np.abs(out - ref)[~nan]
    size = max(np.abs(scale[~np.isnan(scale)]).max(initial=0.0),
               np.finfo(np.float64).tiny)
    return float(diff.max(initial=0.0) / size)


def check(out, ref, tolerance=TOLERANCE, label="", scale=None, dtype=None):
    """Compares OUT with REF and prints

        [LABEL: ]max relative error E (tolerance T)[; N NaN as in the reference]

    and, when E > T, the worst element. A shape (or, with DTYPE, an element
    type) other than the expected one is an error of its own. Returns
    whether OUT passes."""
    out, ref = np.asarray(out), np.asarray(ref)
    prefix = f"{label}: " if label else ""
    if out.shape != ref.shape or (dtype is not None and out.dtype != dtype):
        kind = f"{out.dtype} " if dtype is not None else ""
        want = f"{np.dtype(dtype)} " if dtype is not None else ""
        print(f"error: {prefix}result is {kind}{list(out.shape)}, expected "
              f"{want}{list(ref.shape)}")
        return False
    err = relative_error(out, ref, scale)
    nans = int(np.isnan(ref).sum()) if ref.dtype.kind == "f" else 0
    print(f"{prefix}max relative error {err:.3g} (tolerance {tolerance:g})"
          + (f"; {nans} NaN as in the reference" if nans else ""))
    if err <= tolerance:
        return True
    diff = np.abs(out.astype(np.float64) - ref)
    diff[np.isnan(diff)] = np.inf
    if diff.size:
        where = np.unravel_index(np.argmax(diff), diff.shape)
        print(f"error: {prefix}mismatch, worst at {list(where)}: got "
              f"{out[where]}, expected {ref[where]}")
    return False
