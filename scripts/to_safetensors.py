#!/usr/bin/python3
"""Writes the weights file that `tfm-compile --weights` reads (safetensors)
from what a PyTorch user has: a saved `state_dict`, a `.npz`, or a directory
of `.npy` files.

    scripts/to_safetensors.py model.pt -o weights.safetensors
    scripts/to_safetensors.py weights.npz -o weights.safetensors
    scripts/to_safetensors.py weights_dir/ -o weights.safetensors
        [--rename OLD=NEW ...] [--strip-prefix module.] [--dtype f32]
        [--list]

- a `.pt`/`.pth`/`.bin` file is read with `torch.load` (a `state_dict`, or a
  module whose `state_dict()` is taken; PyTorch is needed for this input
  only); the names are the state_dict's (`encoder.layers.0.linear1.weight`);
- a `.npz` keeps its array names;
- in a directory, each `.npy` file is one tensor named by its path without
  `.npy`, with `/` as `.` (`attention/W_q.weight.npy` is
  `attention.W_q.weight`).

`--strip-prefix` drops a prefix from every name (DataParallel's `module.`),
`--rename OLD=NEW` renames one tensor, `--dtype f32` (or f16) converts the
floating-point tensors; integer tensors are kept as int32 or int64. The
file is what docs/tfm-compile.md#weights describes: a graph argument
`{tfm.weight = "NAME"}` is bound to the tensor NAME, which must have the
argument's dtype and shape. `--list` prints the names, dtypes and shapes.
"""

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "python"))
from tfm_tools import safetensors  # noqa: E402

FLOAT_DTYPES = {"f32": np.float32, "f16": np.float16}


def read_torch(path):
    import torch
    state = torch.load(path, map_location="cpu")
    if isinstance(state, torch.nn.Module):
        state = state.state_dict()
    if not isinstance(state, dict):
        sys.exit(f"error: {path} holds a {type(state).__name__}, not a "
                 f"state_dict or a module")
    tensors = {}
    for name, value in state.items():
        if not isinstance(value, torch.Tensor):
            continue  # e.g. a version number in the dict
        if value.dtype == torch.bfloat16:
            value = value.float()
        tensors[name] = value.detach().cpu().numpy()
    return tensors


def read_npy_dir(path):
    tensors = {}
    for directory, _, files in sorted(os.walk(path)):
        for name in sorted(files):
            if not name.endswith(".npy"):
                continue
            file = os.path.join(directory, name)
            key = os.path.relpath(file, path)[:-len(".npy")]
            tensors[key.replace(os.sep, ".")] = np.load(file)
    return tensors


def read(path):
    if os.path.isdir(path):
        return read_npy_dir(path)
    if path.endswith(".npz"):
        with np.load(path) as archive:
            return {name: archive[name] for name in archive.files}
    if path.endswith(".npy"):
        return {os.path.basename(path)[:-len(".npy")]: np.load(path)}
    return read_torch(path)


def convert(array, name, dtype):
    if array.dtype == np.float64 or (dtype and array.dtype.kind == "f"):
        return array.astype(dtype or np.float32)
    if array.dtype in (np.float32, np.float16, np.int32, np.int64):
        return array
    if array.dtype.kind in "iub":
        return array.astype(np.int64)
    sys.exit(f"error: tensor '{name}' has dtype {array.dtype}, which a "
             f"weights file cannot hold (f32, f16, i32, i64)")


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("input")
    parser.add_argument("-o", "--output")
    parser.add_argument("--rename", action="append", default=[],
                        metavar="OLD=NEW")
    parser.add_argument("--strip-prefix", default="")
    parser.add_argument("--dtype", choices=sorted(FLOAT_DTYPES))
    parser.add_argument("--list", action="store_true")
    args = parser.parse_args()
    if not args.output and not args.list:
        parser.error("give -o FILE.safetensors (or --list)")

    tensors = read(args.input)
    if not tensors:
        sys.exit(f"error: no tensors in {args.input}")
    renames = {}
    for item in args.rename:
        old, sep, new = item.partition("=")
        if not sep or not old or not new:
            sys.exit(f"error: --rename expects OLD=NEW, found '{item}'")
        renames[old] = new
    dtype = FLOAT_DTYPES.get(args.dtype)
    out = {}
    for name, array in tensors.items():
        if args.strip_prefix and name.startswith(args.strip_prefix):
            name = name[len(args.strip_prefix):]
        name = renames.pop(name, name)
        if name in out:
            sys.exit(f"error: two tensors are named '{name}'")
        out[name] = convert(np.asarray(array), name, dtype)
    if renames:
        sys.exit(f"error: --rename of tensors that are not there: "
                 f"{', '.join(sorted(renames))}")
    if args.list:
        for name, array in out.items():
            print(f"{name}: {array.dtype} {list(array.shape)}")
    if args.output:
        safetensors.save(args.output, out)
        print(f"wrote {args.output}: {len(out)} tensors, "
              f"{sum(a.nbytes for a in out.values())} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
