"""Runs a GPT-style model exported from PyTorch "with past", compiled by
tfm-compile without --kv-cache, as the ordinary model it is (the caches are
inputs and outputs, `present` is `past + seq` long, as ONNX Runtime runs
it), and compares each call's logits and presents with PyTorch's.

    pastcheck.py --compiler PATH/tfm-compile --work DIR
                 [--axes seq|t|hf|unnamed] [--batch B] [--past P]
                 [--seq S] [--calls N]

exports python/tfm_tools/gpt.py's model (as test/lib/gencheck.py does, its
dynamic axes named as gpt.AXIS_NAMES[axes] says) to DIR/gpt.onnx, compiles
it into DIR/gpt, and makes N calls of DIR/gpt on .npy files: the first with
a random past of P positions and S random tokens, each next one with the
presents that the previous call returned and S more tokens. Each call's
inputs also go through PyTorch's model, and it prints

    call I: past Q, seq S: logits: max relative error E (tolerance 0.0001)
    call I: present_key_0: max relative error E (tolerance 0.0001)
    ...

It exits with 1 when an output's shape differs or its error is above the
tolerance, and with 2 when exporting, compiling or running fails.
"""

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "python"))
from tfm_tools import compare, gpt, runner  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--compiler", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--axes", choices=sorted(gpt.AXIS_NAMES),
                        default="seq")
    parser.add_argument("--batch", type=int, default=2)
    parser.add_argument("--past", type=int, default=3)
    parser.add_argument("--seq", type=int, default=4)
    parser.add_argument("--calls", type=int, default=3)
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)

    model = gpt.build(std=0.3, seed=0)
    graph = os.path.join(args.work, "gpt.onnx")
    exe = os.path.join(args.work, "gpt")
    gpt.export(model, graph, axes=args.axes)
    with runner.exit_on_failure():
        runner.compile_graph(args.compiler, graph, exe)

    rng = np.random.default_rng(0)
    vocab = model.wte.weight.shape[0]
    heads = model.heads
    head_dim = model.wte.weight.shape[1] // heads
    past = [rng.standard_normal((args.batch, heads, args.past, head_dim))
            .astype(np.float32) for _ in range(2 * model.layers)]
    names = gpt.output_names(model)
    ok = True
    for call in range(args.calls):
        ids = rng.integers(0, vocab, size=(args.batch, args.seq),
                           dtype=np.int64)
        inputs = runner.save_arrays(args.work, [("ids", ids)] + [
            (f"past{i}", p) for i, p in enumerate(past)], f"call{call}-")
        outputs = [os.path.join(args.work, f"call{call}-{name}.npy")
                   for name in names]
        with runner.exit_on_failure():
            runner.run_model(exe, inputs, outputs)
        ref_logits, ref_present = gpt.step(model, ids, past)
        print(f"call {call}: past {past[0].shape[2]}, seq {args.seq}: ",
              end="")
        ok &= compare.check(np.load(outputs[0]), ref_logits, label="logits")
        present = [np.load(path) for path in outputs[1:]]
        for name, out, ref in zip(names[1:], present, ref_present):
            print(f"call {call}: ", end="")
            ok &= compare.check(out, ref, label=name)
        # The next call continues from the executable's presents, as ONNX
        # Runtime's users feed them back.
        past = present
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
