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
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
