"""Compares the output of a compiled example model with its NumPy reference.

    modelcheck.py [--tolerance T] MODEL WEIGHTS.safetensors OUTPUT.npy INPUT.npy ...

MODEL is one of the example models of tfm_tools.reference (encoder_block,
transformer_encoder, decoder_block, vit); the inputs are the .npy files the
executable ran on, in the order of @main's runtime arguments, and WEIGHTS
the file its weights were bound from. Prints

    max relative error E (tolerance T)

with E = max|out - ref| / max|ref| against the float64 reference
(tfm_tools.compare), and exits with 1 when E > T (by default 1e-4, float32's)
or the output's shape differs.
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "python"))
from tfm_tools import compare, reference, safetensors  # noqa: E402

MODELS = {
    "encoder_block": reference.encoder_block,
    "transformer_encoder": reference.transformer_encoder,
    "decoder_block": reference.decoder_block,
    "vit": reference.vit,
}


def main(argv):
    tolerance = compare.TOLERANCE
    if argv and argv[0] == "--tolerance" and len(argv) > 1:
        tolerance, argv = float(argv[1]), argv[2:]
    if len(argv) < 4 or argv[0] not in MODELS:
        sys.exit(__doc__)
    model, weights, output, inputs = argv[0], argv[1], argv[2], argv[3:]
    params = {name: a.astype(np.float64)
              for name, a in safetensors.load(weights).items()}
    expected = MODELS[model](params, *[np.load(path) for path in inputs])
    return 0 if compare.check(np.load(output), expected, tolerance) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
