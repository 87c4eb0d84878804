"""Compares two builds of tfm-compile on the same graphs: is a change slower?

    bench/ab.py OLD/tfm-compile NEW/tfm-compile [--threads 2] [--rounds 5]
                [--cases attention,examples] [--work DIR]

Both compilers compile the same graph files; the executables then run on the
same inputs, alternating OLD, NEW, OLD, NEW, ... for --rounds rounds of
`--bench N` each (N sized so that a round takes about a second), and the
table shows the median over the rounds of each side, NEW / OLD (below 1:
NEW is faster) and the largest difference between the two outputs. The
machine should be otherwise idle; interleaving spreads what noise is left
over both sides alike.

Cases:
  attention  one tfm.attention on [12, S, d] for (S, d, causal) in
             (197, 64, off/on), (1024, 64, off/on), (2048, 64, on),
             (1024, 128, off): the rows of bench/attention.py that
             matter most;
  examples   the example models of examples/ with the weights of
             examples/make_weights.py (encoder block, Transformer encoder,
             decoder block, ViT).
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
from tfm_tools import runner  # noqa: E402
from tfm_tools.graph import Function, tensor  # noqa: E402

ATTENTION = [(197, 64, False), (197, 64, True), (1024, 64, False),
             (1024, 64, True), (2048, 64, True), (1024, 128, False)]
EXAMPLES = ["encoder_block", "transformer_encoder", "decoder_block", "vit"]


def attention_case(work, seq, dim, causal):
    """Writes the graph and inputs of one attention; returns
    (name, graph, weights, inputs)."""
    name = f"attention_s{seq}_d{dim}" + ("_causal" if causal else "")
    t = tensor((12, seq, dim))
    f = Function("main")
    q, k, v = (f.input(n, t) for n in ("q", "k", "v"))
    o = f.op("tfm.attention", [q, k, v], t, attrs={"causal": causal or None},
             name="o")
    f.ret(o, names="o")
    graph = runner.write_text(os.path.join(work, name + ".mlir"), f.text())
    rng = np.random.default_rng(0)
    inputs = runner.save_arrays(
        work, [(n, rng.standard_normal((12, seq, dim)).astype(np.float32))
               for n in ("q", "k", "v")], prefix=name + ".")
    return name, graph, None, inputs


def example_cases(work):
    """The examples with make_weights.py's weights and sample inputs, in
    the order of @main's arguments (as make_weights.py prints them)."""
    weights_dir = os.path.join(work, "weights")
    out, _ = runner.run([sys.executable,
                         os.path.join(ROOT, "examples", "make_weights.py"),
                         "-o", weights_dir] + EXAMPLES)
    cases = []
    for line in out.splitlines():
        # MODEL: MODEL.safetensors, inputs MODEL.A.npy MODEL.B.npy ...
        name, _, rest = line.partition(": ")
        if name not in EXAMPLES:
            continue
        inputs = rest.split(", inputs ")[1].split()
        cases.append((name, os.path.join(ROOT, "examples", name + ".mlir"),
                      os.path.join(weights_dir, name + ".safetensors"),
                      [os.path.join(weights_dir, f) for f in inputs]))
    return cases


def median_latency(exe, inputs, runs, threads, output):
    """The median latency in ms that EXE reports for --bench RUNS."""
    out, err = runner.run([exe, "--bench", str(runs), "--threads",
                           str(threads), "-o", output] + list(inputs))
    for line in (out + err).splitlines():
        if line.startswith("latency over"):
            parts = line.replace(",", "").split()
            return float(parts[parts.index("median") + 1])
    raise RuntimeError(f"no latency line from {exe}:\n{out}{err}")


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--cases", default="attention,examples")
    parser.add_argument("--work", default=os.path.join(
        tempfile.gettempdir(), "tfm-ab"))
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)

    kinds = args.cases.split(",")
    cases = []
    if "attention" in kinds:
        cases += [attention_case(args.work, *c) for c in ATTENTION]
    if "examples" in kinds:
        cases += example_cases(args.work)

    print(f"| case | old ms | new ms | new / old | max abs diff |")
    print(f"|---|---|---|---|---|")
    for name, graph, weights, inputs in cases:
        exes = {}
        for side, compiler in (("old", args.old), ("new", args.new)):
            exes[side] = runner.compile_graph(
                compiler, graph, os.path.join(args.work, f"{name}.{side}"),
                weights=weights)
        outputs = {side: os.path.join(args.work, f"{name}.{side}.out.npy")
                   for side in exes}
        # Size --bench so that a round takes about a second.
        once = median_latency(exes["old"], inputs, 1, args.threads,
                              outputs["old"])
        runs = max(1, min(1000, int(1000 / max(once, 1e-3))))
        times = {"old": [], "new": []}
        for _ in range(args.rounds):
            for side in ("old", "new"):
                times[side].append(median_latency(
                    exes[side], inputs, runs, args.threads, outputs[side]))
        diff = float(np.abs(np.load(outputs["old"]).astype(np.float64)
                            - np.load(outputs["new"])).max())
        old, new = (statistics.median(times[s]) for s in ("old", "new"))
        print(f"| {name} | {old:.3f} | {new:.3f} | {new / old:.3f} | "
              f"{diff:.1e} |", flush=True)


if __name__ == "__main__":
    main()
