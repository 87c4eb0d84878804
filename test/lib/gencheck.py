"""Generates text with a GPT-style model exported from PyTorch "with past",
compiled by tfm-compile --kv-cache, and compares it with PyTorch's own
greedy loop.

    gencheck.py --compiler PATH/tfm-compile --work DIR [--model gpt|llama]
                [--batch B] [--prompt-len S] [--steps N] [--cache M]
                [--heads H] [--axes seq|t|hf|unnamed] [--graph GRAPH.mlir]

builds python/tfm_tools/gpt.py's model (2 layers, d_model 64, 4 heads or
--heads, a vocabulary of 97, random weights from a fixed seed) or, with
--model llama,
python/tfm_tools/llama.py's (2 layers, d_model 64, 8 query and 2 key/value
heads, the same vocabulary; the files are then named llama.*), exports it
to DIR/gpt.onnx with torch.onnx.export, its dynamic axes named as
gpt.AXIS_NAMES[axes] says (batch/seq/past by default; t for seq; Hugging
Face's batch_size/sequence_length/past_sequence_length; or left to
torch.onnx.export to name), compiles it into DIR/gpt with
`tfm-compile --kv-cache=M` (caches of M positions), writes random prompts
DIR/prompt.npy ([B, S] int64), runs

    DIR/gpt --generate N --prompt DIR/prompt.npy -o DIR/tokens.npy
            --logits DIR/logits.npy

and PyTorch's loop (the prompt in one call, then one token a call against
the returned past), and prints

    tokens: K of B x N equal to PyTorch's
    logits: max relative error E (tolerance 0.0001)

It exits with 1 when a token differs or E is above the tolerance, and with 2
when exporting, compiling or running fails.

With --graph, the model compiled is GRAPH (examples/gpt_decoder.mlir or
examples/llama_decoder.mlir, the same architecture written in tfm IR with
its caches), with the PyTorch model's weights written to
DIR/gpt.safetensors (DIR/llama.safetensors) under their state_dict names,
and for llama the rotary tables of the cache's positions as `rope.cos` and
`rope.sin`, instead of the ONNX export.
"""

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "python"))
from tfm_tools import compare, gpt, llama, runner, safetensors  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--compiler", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--batch", type=int, default=2)
    parser.add_argument("--prompt-len", type=int, default=5)
    parser.add_argument("--steps", type=int, default=32)
    parser.add_argument("--cache", "--max-seq", dest="cache", type=int,
                        default=64)
    parser.add_argument("--axes", choices=sorted(gpt.AXIS_NAMES),
                        default="seq")
    parser.add_argument("--heads", type=int,
                        help="the heads of the gpt model (default: 4)")
    parser.add_argument("--graph")
    parser.add_argument("--model", choices=("gpt", "llama"), default="gpt")
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)

    # A std of 0.3 makes the small random model's greedy tokens vary; with
    # GPT-2's 0.02 it repeats one token, which would hide a wrong step.
    builder = {"gpt": gpt, "llama": llama}[args.model]
    sizes = {}
    if args.heads:
        if args.model != "gpt":
            parser.error("--heads is an option of the gpt model")
        sizes["heads"] = args.heads
    model = builder.build(std=0.3, seed=0, **sizes)
    name = args.model
    exe = os.path.join(args.work, name)
    if args.graph:
        weights = os.path.join(args.work, f"{name}.safetensors")
        tensors = {name: p.detach().numpy() for name, p in
                   model.state_dict().items()}
        if args.model == "llama":
            tensors["rope.cos"], tensors["rope.sin"] = llama.rope_tables(
                model, args.cache)
        safetensors.save(weights, tensors)
        graph, flags = args.graph, ["--weights", weights]
    else:
        graph = os.path.join(args.work, f"{name}.onnx")
        gpt.export(model, graph, axes=args.axes)
        flags = [f"--kv-cache={args.cache}"]
    rng = np.random.default_rng(0)
    vocab = model.vocab
    prompt = rng.integers(0, vocab, size=(args.batch, args.prompt_len),
                          dtype=np.int64)
    prompt_path = os.path.join(args.work, "prompt.npy")
    np.save(prompt_path, prompt)
    tokens_path = os.path.join(args.work, "tokens.npy")
    logits_path = os.path.join(args.work, "logits.npy")
    with runner.exit_on_failure():
        runner.compile_graph(args.compiler, graph, exe, flags)
        out, _ = runner.run([exe, "--generate", args.steps, "--prompt",
                             prompt_path, "-o", tokens_path, "--logits",
                             logits_path])
    print(out, end="")

    ref_tokens, ref_logits = gpt.generate(model, prompt, args.steps)
    tokens = np.load(tokens_path)
    logits = np.load(logits_path)
    if tokens.shape != ref_tokens.shape or logits.shape != ref_logits.shape:
        print(f"error: tokens {tokens.shape} and logits {logits.shape}, "
              f"expected {ref_tokens.shape} and {ref_logits.shape}")
        return 1
    equal = int((tokens == ref_tokens).sum())
    print(f"tokens: {equal} of {args.batch} x {args.steps} equal to "
          "PyTorch's")
    distinct = len(np.unique(ref_tokens))
    print(f"PyTorch's tokens: {distinct} distinct")
    ok = compare.check(logits, ref_logits, label="logits")
    if equal != tokens.size:
        first = np.argwhere(tokens != ref_tokens)[0]
        print(f"first difference at [batch {first[0]}, step {first[1]}]: "
              f"{tokens[tuple(first)]} instead of {ref_tokens[tuple(first)]}")
        ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
