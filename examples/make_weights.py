#!/usr/bin/env python3
"""Writes deterministic weights and a sample input for each example model.

    make_weights.py [MODEL ...] [-o DIR]

For each MODEL (default: all of encoder_block, transformer_encoder,
decoder_block, gpt_decoder and vit) it writes

    DIR/MODEL.safetensors     every {tfm.weight = NAME} argument of
                              examples/MODEL.mlir, by its state_dict name
    DIR/MODEL.INPUT.npy       one sample for each runtime input, in the
                              order of @main's arguments (printed)

DIR defaults to examples/weights. The weights are random but fixed, drawn
for each model from a generator seeded with --seed (0 by default): nn.Linear
and conv weights are normal with standard deviation 1/sqrt(fan_in), biases
normal * 0.02, LayerNorm weights 1 + normal * 0.1 and biases normal * 0.1,
embeddings normal (nn.Embedding's init), except gpt_decoder's, named as
python/tfm_tools/gpt.py's state_dict, whose matrices and embeddings are
normal * 0.3 (as test/lib/gencheck.py draws them). The ViT's class token and position
embedding are normal * 0.5 rather than d2l's zeros and normal * 0.02, so
that they visibly move the logits. The weights are not trained: they
exercise the compiler, they do not translate or classify.

Then, for example:

    tfm-compile examples/encoder_block.mlir \\
        --weights examples/weights/encoder_block.safetensors -o encoder
    ./encoder -o y.npy examples/weights/encoder_block.X.npy \\
        examples/weights/encoder_block.valid_lens.npy
"""

import argparse
import os
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
from tfm_tools import safetensors  # noqa: E402


class Weights:
    """Draws named parameters, in state_dict order, from one generator."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.tensors = {}

    def _add(self, name, array):
        self.tensors[name] = np.asarray(array, dtype=np.float32)

    def normal(self, name, shape, std):
        self._add(name, self.rng.standard_normal(shape) * std)

    def linear(self, name, out_features, in_features, bias=True):
        self.normal(name + ".weight", (out_features, in_features),
                    1 / np.sqrt(in_features))
        if bias:
            self.normal(name + ".bias", (out_features,), 0.02)

    def layer_norm(self, name, dim):
        self._add(name + ".weight", 1 + self.rng.standard_normal(dim) * 0.1)
        self._add(name + ".bias", self.rng.standard_normal(dim) * 0.1)

    def attention(self, name, dim, bias=False):
        for proj in ("W_q", "W_k", "W_v", "W_o"):
            self.linear(f"{name}.{proj}", dim, dim, bias)

    def ffn(self, name, dim, hidden):
        self.linear(name + ".dense1", hidden, dim)
        self.linear(name + ".dense2", dim, hidden)


# d2l's hyperparameters of the examples (see the header of each .mlir).
NUM_HIDDENS, FFN_HIDDENS, VOCAB = 32, 64, 200
BATCH, STEPS, SRC_STEPS = 2, 10, 12


def encoder_block_weights(w, prefix=""):
    w.attention(prefix + "attention", NUM_HIDDENS)
    w.layer_norm(prefix + "addnorm1.ln", NUM_HIDDENS)
    w.ffn(prefix + "ffn", NUM_HIDDENS, FFN_HIDDENS)
    w.layer_norm(prefix + "addnorm2.ln", NUM_HIDDENS)


def encoder_block(w, rng):
    encoder_block_weights(w)
    return {"X": rng.standard_normal((BATCH, STEPS, NUM_HIDDENS)),
            "valid_lens": np.array([STEPS, 6], np.int64)}


def transformer_encoder(w, rng):
    w.normal("embedding.weight", (VOCAB, NUM_HIDDENS), 1.0)
    for i in range(2):
        encoder_block_weights(w, f"blks.block{i}.")
    return {"tokens": rng.integers(0, VOCAB, (BATCH, STEPS)).astype(np.int64),
            "valid_lens": np.array([7, STEPS], np.int64)}


def decoder_block(w, rng):
    w.attention("attention1", NUM_HIDDENS)
    w.layer_norm("addnorm1.ln", NUM_HIDDENS)
    w.attention("attention2", NUM_HIDDENS)
    w.layer_norm("addnorm2.ln", NUM_HIDDENS)
    w.ffn("ffn", NUM_HIDDENS, FFN_HIDDENS)
    w.layer_norm("addnorm3.ln", NUM_HIDDENS)
    return {"X": rng.standard_normal((BATCH, STEPS, NUM_HIDDENS)),
            "enc_outputs": rng.standard_normal((BATCH, SRC_STEPS,
                                                NUM_HIDDENS)),
            "enc_valid_lens": np.array([5, SRC_STEPS], np.int64)}


def sample_image(rng, channels=3, size=32):
    """A smooth colour pattern with a little noise, in [-1, 1]-ish."""
    y, x = np.mgrid[0:size, 0:size] / size
    image = np.stack([np.sin(2 * np.pi * (x + 0.3 * c)) * np.cos(np.pi * y)
                      for c in range(channels)])
    return image[None] + 0.1 * rng.standard_normal((1, channels, size, size))


def vit(w, rng):
    hidden, mlp, patch, channels, classes = 48, 96, 8, 3, 10
    tokens = (32 // patch) ** 2 + 1
    w.normal("cls_token", (1, 1, hidden), 0.5)
    w.normal("pos_embedding", (1, tokens, hidden), 0.5)
    w.normal("patch_embedding.conv.weight", (hidden, channels, patch, patch),
             1 / np.sqrt(channels * patch * patch))
    w.normal("patch_embedding.conv.bias", (hidden,), 0.02)
    for i in range(2):
        prefix = f"blks.block{i}."
        w.layer_norm(prefix + "ln1", hidden)
        w.attention(prefix + "attention", hidden, bias=True)
        w.layer_norm(prefix + "ln2", hidden)
        w.ffn(prefix + "mlp", hidden, mlp)
    w.layer_norm("head.0", hidden)
    w.linear("head.1", classes, hidden)
    return {"image": sample_image(rng, channels)}


def gpt_decoder(w, rng, layers=2, d_model=64, heads=4, vocab=97,
                max_positions=128, cache=64, prompt=4):
    """gpt_decoder.mlir's weights, under the state_dict names of
    python/tfm_tools/gpt.py's model (matrices and embeddings normal * 0.3,
    so that greedy tokens vary), and the inputs of its first call: a prompt
    of `prompt` tokens, a past of 0 and empty caches."""
    w.normal("wte.weight", (vocab, d_model), 0.3)
    w.normal("wpe.weight", (max_positions, d_model), 0.3)
    for i in range(layers):
        block = f"blocks.{i}."
        for norm in ("ln1", "ln2"):
            w.layer_norm(block + norm, d_model)
        for name, out_features, in_features in (
                ("qkv", 3 * d_model, d_model), ("proj", d_model, d_model),
                ("fc", 4 * d_model, d_model), ("out", d_model, 4 * d_model)):
            w.normal(block + name + ".weight", (out_features, in_features),
                     0.3)
            w.normal(block + name + ".bias", (out_features,), 0.02)
    w.layer_norm("ln_f", d_model)
    inputs = {"ids": rng.integers(0, vocab, (1, prompt)).astype(np.int64),
              "past": np.array(0, np.int64)}
    for i in range(layers):
        for kind in ("k", "v"):
            inputs[f"cache_{kind}_{i}"] = np.zeros(
                (heads, cache, d_model // heads), np.float32)
    return inputs


MODELS = {f.__name__: f for f in
          [encoder_block, transformer_encoder, decoder_block, gpt_decoder,
           vit]}


def write(model, out_dir, seed=0):
    """Writes the weights and inputs of `model`; returns the input paths."""
    weights = Weights(seed)
    inputs = MODELS[model](weights, np.random.default_rng(seed + 1))
    safetensors.save(os.path.join(out_dir, model + ".safetensors"),
                     weights.tensors)
    paths = []
    for name, array in inputs.items():
        if array.dtype == np.float64:
            array = array.astype(np.float32)
        paths.append(os.path.join(out_dir, f"{model}.{name}.npy"))
        np.save(paths[-1], array)
    return paths


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("models", nargs="*", metavar="MODEL",
                        help="any of " + ", ".join(MODELS) + " (default: all)")
    parser.add_argument("-o", "--output-dir",
                        default=os.path.join(ROOT, "examples", "weights"))
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    for model in args.models:
        if model not in MODELS:
            parser.error(f"unknown model '{model}'")
    os.makedirs(args.output_dir, exist_ok=True)
    for model in args.models or sorted(MODELS):
        paths = write(model, args.output_dir, args.seed)
        print(f"{model}: {model}.safetensors, inputs " +
              " ".join(os.path.basename(p) for p in paths))


if __name__ == "__main__":
    main()
