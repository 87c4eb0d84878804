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
  `attention.W_q.weight`); two files that give the same name
  (`a/b.npy` and `a.b.npy`) are refused, both named.

An input that cannot be read (a missing path, a corrupt `.npy`, `.npz` or
checkpoint, a checkpoint that is not a state_dict) ends with one line,
`error: ...`, and exit code 1.

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


def fail(message):
    """Ends the script with one line on stderr and exit code 1."""
    sys.exit(f"error: {message}")


def read_torch(path):
    try:
        import torch
    except ImportError:
        fail(f"{path}: reading a PyTorch checkpoint needs PyTorch (or give "
             f"a .npz or a directory of .npy files)")
    state = torch.load(path, map_location="cpu")
    if isinstance(state, torch.nn.Module):
        state = state.state_dict()
    if not isinstance(state, dict):
        fail(f"{path} holds a {type(state).__name__}, not a state_dict or "
             f"a module")
    tensors = {}
    for name, value in state.items():
        if not isinstance(value, torch.Tensor):
            continue  # e.g. a version number in the dict
        if not isinstance(name, str):
            fail(f"{path}: the state_dict has a tensor under the key "
                 f"{name!r}, which is not a name")
        if value.is_sparse or value.is_quantized or value.is_complex():
            fail(f"{path}: tensor '{name}' is {value.layout}, "
                 f"{value.dtype}; a weights file holds dense real tensors")
        if value.dtype == torch.bfloat16:
            value = value.float()
        tensors[name] = value.detach().cpu().numpy()
    return tensors


def read_npy_dir(path):
    tensors, sources = {}, {}
    for directory, subdirs, files in os.walk(path):
        subdirs.sort()
        for name in sorted(files):
            if not name.endswith(".npy"):
                continue
            file = os.path.join(directory, name)
            key = os.path.relpath(file, path)[:-len(".npy")]
            key = key.replace(os.sep, ".")
            if key in sources:
                fail(f"'{sources[key]}' and '{file}' both give the tensor "
                     f"name '{key}'; rename one of them")
            sources[key] = file
            tensors[key] = load_npy(file)
    return tensors


def load_npy(file):
    try:
        array = np.load(file, allow_pickle=False)
    except Exception as e:
        fail(f"cannot read '{file}': {type(e).__name__}: "
             f"{' '.join(str(e).split()) or 'malformed'}")
    if not isinstance(array, np.ndarray):
        fail(f"'{file}' is a .npz archive, not a .npy file")
    return array


def read(path):
    if not os.path.exists(path):
        fail(f"cannot read '{path}': no such file or directory")
    if os.path.isdir(path):
        return read_npy_dir(path)
    if path.endswith(".npz"):
        with np.load(path, allow_pickle=False) as archive:
            return {name: archive[name] for name in archive.files}
    if path.endswith(".npy"):
        return {os.path.basename(path)[:-len(".npy")]: load_npy(path)}
    return read_torch(path)


def read_or_fail(path):
    """read(PATH), with what a corrupt file raises as one line of error."""
    try:
        return read(path)
    except Exception as e:  # numpy's, zipfile's, pickle's and torch's errors
        fail(f"cannot read '{path}': {type(e).__name__}: "
             f"{' '.join(str(e).split()) or 'malformed'}")


def convert(array, name, dtype):
    if not array.dtype.isnative:  # a big-endian .npy
        array = array.astype(array.dtype.newbyteorder("="))
    if array.dtype == np.float64 or (dtype and array.dtype.kind == "f"):
        return array.astype(dtype or np.float32)
    if array.dtype in (np.float32, np.float16, np.int32, np.int64):
        return array
    if array.dtype.kind in "iub":
        return array.astype(np.int64)
    fail(f"tensor '{name}' has dtype {array.dtype}, which a weights file "
         f"cannot hold (f32, f16, i32, i64)")


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

    tensors = read_or_fail(args.input)
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
        try:
            safetensors.save(args.output, out)
        except OSError as e:
            fail(f"cannot write '{args.output}': {e.strerror or e}")
        print(f"wrote {args.output}: {len(out)} tensors, "
              f"{sum(a.nbytes for a in out.values())} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
