"""bench/generate.py's report on made-up measurements: the limit, the
fraction of it tfm reaches against the bandwidth measured around each of
its runs (the median of the per-run ratios) and against the run's best
bandwidth, computed here from their definitions."""

import importlib.util
import os
import re
import sys

root = sys.argv[1]
spec = importlib.util.spec_from_file_location(
    "generate", os.path.join(root, "bench", "generate.py"))
generate = importlib.util.module_from_spec(spec)
spec.loader.exec_module(generate)

config = dict(layers=2, d_model=128, heads=4, vocab=1000)
step_bytes = 4_000_000
# Two rounds at threads 1 and 2: (prefill ms, step ms), and the bandwidth
# (GB/s) around each tfm run. tfm is best at 2 threads (median step 5.0).
case = {
    "batch": 2, "length": 16, "tokens_agree": True,
    "tfm": {"1": [(10.0, 9.0), (10.0, 9.5)], "2": [(8.0, 4.0), (8.0, 6.0)]},
    "ort": {"1": [(20.0, 12.0), (20.0, 12.0)],
            "2": [(18.0, 11.0), (18.0, 13.0)]},
    "torch": {"1": [(30.0, 20.0), (30.0, 20.0)],
              "2": [(30.0, 25.0), (30.0, 25.0)]},
    "bandwidth": {"1": [1.0, 1.0], "2": [0.5, 2.0]},
}
results = {
    "machine": "test", "model": "gpt", "config": config,
    "weight_bytes": step_bytes, "step_weight_bytes": step_bytes,
    "steps": 5, "rounds": 2, "threads": [1, 2],
    "bandwidth": {"1": 0.8, "2": 3.0},
    "ort_version": "x", "cases": {"b2_l16": case},
}
text = generate.report(results)
row = [line for line in text.splitlines() if line.startswith("| 2 ")][0]
cells = [c.strip() for c in row.strip("|").split("|")]
header = [line for line in text.splitlines()
          if line.startswith("| batch")][0]
names = [c.strip() for c in header.strip("|").split("|")]
got = dict(zip(names, cells))

# From the definitions: bytes = weights + 2 layers x batch x heads x length
# x head_dim x 4 bytes x 2 (keys and values).
total = step_bytes + 2 * 2 * 4 * 16 * 32 * 4 * 2


def limit_ms(gb_per_s):
    return total / (gb_per_s * 1e9) * 1e3


paired = sorted([limit_ms(0.5) / 4.0, limit_ms(2.0) / 6.0])
expected = {
    "tfm tok/s": "400.0 (2)",  # 2 tokens / 5 ms
    "vs ORT": "2.40x",  # ORT best: 12 ms at 1 thread
    "limit tok/s": f"{2 * 1e3 / limit_ms(1.25):.1f}",  # median of 0.5, 2.0
    "tfm of limit": f"{100 * (paired[0] + paired[1]) / 2:.0f}%",
    "at best bw": f"{100 * limit_ms(3.0) / 5.0:.0f}%",  # start/end 3.0 GB/s
}
for name, value in expected.items():
    print(f"{name}: {got[name]} expected {value}",
          "ok" if got[name] == value else "WRONG")
print("around tfm's runs:",
      re.search(r"around tfm's runs: ([0-9.-]+) GB/s", text).group(1))
