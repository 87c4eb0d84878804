#!/usr/bin/env python3
"""Builds the GPU attention benchmark's executables: what bench/gpu/build.sh
runs (see its header for the options and the environment).

    bench/gpu/build.py [OUT_DIR] [--quick]

Each case is bench/attention.py's "tfm fused" graph, one tfm.attention on
[batch*heads, S, d] tensors of float32 or float16, written to
OUT_DIR/NAME.mlir and compiled to OUT_DIR/NAME with
`tfm-compile --target=nvptx --gpu-arch=ARCH`; OUT_DIR/manifest.json lists
the cases for bench/gpu/run.py.
"""

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from attention import fused_graph  # noqa: E402
from tfm_tools import runner  # noqa: E402

SIZES = "1024 2048 4096 8192 16384"
QUICK_SIZES = [1024, 2048]


def main(argv):
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("out", nargs="?",
                        default=os.path.join(HERE, "out"))
    parser.add_argument("--quick", action="store_true",
                        help="S = 1024 and 2048 only")
    args = parser.parse_args(argv)
    env = os.environ
    compiler = env.get("TFM_COMPILE",
                       os.path.join(ROOT, "build", "bin", "tfm-compile"))
    if not os.access(compiler, os.X_OK):
        sys.exit(f"error: {compiler} not found (run scripts/build.sh)")
    flags = ["--target=nvptx", "--gpu-arch=" + env.get("TFM_GPU_ARCH",
                                                       "sm_90")]
    if env.get("TFM_GPU_EMULATE", "0") == "1":
        flags.append("--gpu-emulate")
    sizes = QUICK_SIZES if args.quick else [
        int(s) for s in env.get("TFM_BENCH_SIZES", SIZES).split()]
    heads = int(env.get("TFM_BENCH_HEADS", "16"))

    cases = []
    for dtype in ("f32", "f16"):
        for s in sizes:
            for d in (64, 128):
                for causal in (False, True):
                    name = (f"attention_{dtype}_s{s}_d{d}_"
                            f"{'causal' if causal else 'full'}")
                    graph = runner.write_text(
                        os.path.join(args.out, name + ".mlir"),
                        fused_graph(heads, s, d, causal, dtype))
                    # The default tiles: 32 queries, 64 keys per step (with
                    # the staged query, key and value tiles, up to ~130 KiB
                    # of shared memory at d = 128, within sm_90's 227 KiB).
                    try:
                        runner.compile_graph(compiler, graph,
                                             os.path.join(args.out, name),
                                             flags)
                    except runner.ToolError as e:
                        sys.exit(f"error: {e}")
                    cases.append({"name": name, "dtype": dtype, "bh": heads,
                                  "s": s, "d": d, "causal": causal})
                    print(f"built {name}", flush=True)
    with open(os.path.join(args.out, "manifest.json"), "w") as f:
        json.dump(cases, f, indent=1)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
