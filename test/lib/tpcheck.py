"""Compiles a model for one process and split over N ranks
(tfm-compile --tensor-parallel=N), runs both on the same inputs and
compares their outputs.

    tpcheck.py GRAPH --compiler PATH/tfm-compile --work DIR \\
        --mpirun "mpirun --oversubscribe -np" [--ranks 2] \\
        [--weights W.safetensors] [--flag=--no-fusion ...] INPUT.npy ...

GRAPH is a .mlir or .onnx file. The split executable runs as
`MPIRUN N DIR/split ...`; for each output the driver prints

    output I: max relative error E (tolerance T)

with E measured on the one-process output's scale (default T 1e-5: the
ranks add their partial sums in another order than one process does), and
exits with 1 when some E > T, with 2 when a command fails.

    tpcheck.py GPT.onnx ... --greedy P IDS.npy

for a causal language model of one input, token ids [B, S], and one
output, logits [B, S, V]: both executables also generate greedily, each
on its own, from the first P tokens of every row of IDS (the full S
positions every call, the rows' later tokens chosen one call at a time
from the logits at the position before), and the driver prints

    greedy: K of N generated tokens equal

exiting with 1 unless they all are.
"""

import argparse
import os
import shlex
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "python"))
from tfm_tools import compare, runner  # noqa: E402


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("graph")
    parser.add_argument("inputs", nargs="+")
    parser.add_argument("--compiler", default="tfm-compile")
    parser.add_argument("--work", required=True)
    parser.add_argument("--mpirun", required=True,
                        help="the launcher, up to its process-count option")
    parser.add_argument("--ranks", type=int, default=2)
    parser.add_argument("--weights")
    parser.add_argument("--outputs", type=int, default=1)
    parser.add_argument("--flag", action="append", default=[],
                        help="an extra tfm-compile option (repeatable)")
    parser.add_argument("--tolerance", type=float, default=1e-5)
    parser.add_argument("--greedy", type=int, metavar="P",
                        help="also generate greedily after P prompt tokens")
    args = parser.parse_args()

    os.makedirs(args.work, exist_ok=True)
    one = os.path.join(args.work, "one")
    split = os.path.join(args.work, "split")
    one_outs = [os.path.join(args.work, f"one.out{i}.npy")
                for i in range(args.outputs)]
    split_outs = [os.path.join(args.work, f"split.out{i}.npy")
                  for i in range(args.outputs)]
    with runner.exit_on_failure():
        runner.compile_graph(args.compiler, args.graph, one, args.flag,
                             weights=args.weights)
        runner.compile_graph(
            args.compiler, args.graph, split,
            args.flag + [f"--tensor-parallel={args.ranks}"],
            weights=args.weights)
        runner.run_model(one, args.inputs, one_outs)
        command = shlex.split(args.mpirun) + [str(args.ranks), split]
        for path in split_outs:
            command += ["-o", path]
        runner.run(command + args.inputs)
    results = [compare.check(np.load(s), np.load(o), args.tolerance,
                             label=f"output {i}")
               for i, (s, o) in enumerate(zip(split_outs, one_outs))]
    if args.greedy is not None:
        with runner.exit_on_failure():
            tokens = [greedy(args, [one], args.greedy, "one"),
                      greedy(args, shlex.split(args.mpirun) +
                             [str(args.ranks), split], args.greedy, "split")]
        equal = int((tokens[0] == tokens[1]).sum())
        print(f"greedy: {equal} of {tokens[0].size} generated tokens equal")
        results.append(equal == tokens[0].size)
    return 0 if all(results) else 1


def greedy(args, command, prompt, name):
    """The tokens that COMMAND (an executable, with its launcher) chooses
    after the first PROMPT positions of the ids in args.inputs[0]."""
    ids = np.load(args.inputs[0]).copy()
    ids[:, prompt:] = 0
    path = os.path.join(args.work, f"{name}.ids.npy")
    out = os.path.join(args.work, f"{name}.logits.npy")
    for position in range(prompt, ids.shape[1]):
        np.save(path, ids)
        runner.run(command + ["-o", out, path])
        ids[:, position] = np.load(out)[:, position - 1].argmax(-1)
    return ids[:, prompt:]


if __name__ == "__main__":
    sys.exit(main())
