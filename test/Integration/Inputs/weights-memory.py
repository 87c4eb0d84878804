"""Checks where a library's weights live once it is loaded
(runtime/Weights.cpp moves them into anonymous memory).

    weights-memory.py WORK [--map]

writes 16 MiB of weights for weights-memory.mlir (next to this file) and
compiles it into WORK/libmodel.so with them bound (tfm.compile, the
compiler from $TFM_COMPILE); loads it in this process (with
TFM_MAP_WEIGHTS=1 under --map, which keeps the weights in the file's
pages) and reads /proc/self/smaps: how much of the library's address range
is anonymous memory, and how much is the file's pages, resident. Then runs
it and prints the output's error against NumPy.
"""

import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "python"))
import tfm  # noqa: E402
from tfm_tools import safetensors  # noqa: E402

N, K, ROWS = 4096, 1024, 8
WEIGHT_KB = N * K * 4 // 1024


def mappings():
    """(start, end, path, {field: kB}) of each mapping of this process."""
    result = []
    with open("/proc/self/smaps") as f:
        for line in f:
            fields = line.split()
            head = fields[0]
            if "-" in head and not head.endswith(":"):
                start, end = (int(a, 16) for a in head.split("-"))
                path = fields[5] if len(fields) > 5 else ""
                result.append((start, end, path, {}))
            elif head.endswith(":") and len(fields) >= 2 and result:
                if fields[1].isdigit():
                    result[-1][3][head[:-1]] = int(fields[1])
    return result


work, keep_mapped = sys.argv[1], "--map" in sys.argv[2:]
os.makedirs(work, exist_ok=True)
w = np.random.default_rng(0).standard_normal((N, K)).astype(np.float32)
safetensors.save(os.path.join(work, "w.safetensors"), {"w": w})
library = tfm.compile(os.path.join(HERE, "weights-memory.mlir"),
                      os.path.join(work, "libmodel.so"),
                      compiler=os.environ.get("TFM_COMPILE"),
                      weights=os.path.join(work, "w.safetensors"))
if keep_mapped:
    os.environ["TFM_MAP_WEIGHTS"] = "1"
model = tfm.Model(library)

# The library's range: from its first mapping to its last; anonymous
# mappings inside it are what the loader moved there.
real = os.path.realpath(library)
maps = mappings()
mine = [m for m in maps if m[2] == real]
low, high = min(m[0] for m in mine), max(m[1] for m in mine)
inside = [m for m in maps if low <= m[0] and m[1] <= high]
anonymous = sum(m[3].get("Anonymous", 0) for m in inside if not m[2])
file_rss = sum(m[3].get("Rss", 0) for m in inside if m[2] == real)
print(f"anonymous in the library's range: {anonymous >= WEIGHT_KB - 8}")
print(f"the file's pages resident under 1 MiB: {file_rss < 1024}")
huge = sum(m[3].get("AnonHugePages", 0) for m in inside)
print(f"huge pages: {huge} kB", file=sys.stderr)

x = np.random.default_rng(1).standard_normal((ROWS, K)).astype(np.float32)
y = model(x)
ref = x.astype(np.float64) @ w.astype(np.float64).T
err = np.abs(y - ref).max() / np.abs(ref).max()
print(f"max relative error {err:.1e} within 1e-4: {err <= 1e-4}")
