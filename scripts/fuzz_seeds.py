"""Writes the seed corpus of one of scripts/fuzz.sh's fuzzers.

    fuzz_seeds.py DOOR OUT_DIR

DOOR is npy (arrays of every dtype and format version the reader takes),
safetensors (files for tfm-safetensors-fuzzer's entry, valid and not) or
mlir (the suite's tfm IR: examples and test inputs, split at `// -----`).
The ONNX seeds come from protoc and PyTorch in fuzz.sh itself.
"""
import json
import os
import struct
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def npy_seeds(out):
    rng = np.random.default_rng(0)
    arrays = {
        "f32": rng.standard_normal((2, 3)).astype(np.float32),
        "f16": rng.standard_normal((4,)).astype(np.float16),
        "i32": np.arange(6, dtype=np.int32).reshape(3, 2),
        "i64": np.arange(5, dtype=np.int64),
        "b1": np.array([[True, False], [False, True]]),
        "scalar": np.array(1.5, dtype=np.float32),
        "empty": np.zeros((0, 3), dtype=np.float32),
        "rank4": np.ones((1, 2, 1, 3), dtype=np.float32),
    }
    for name, array in arrays.items():
        np.save(os.path.join(out, name + ".npy"), array)
    # Format versions 2 and 3 (4-byte header length; 3 is UTF-8).
    for version in (2, 3):
        header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }"
        header += " " * (-(len(header) + 13) % 64) + "\n"
        data = (b"\x93NUMPY" + bytes([version, 0]) +
                struct.pack("<I", len(header)) + header.encode() +
                np.ones(2, np.float32).tobytes())
        with open(os.path.join(out, f"v{version}.npy"), "wb") as f:
            f.write(data)


def safetensors_file(tensors):
    header, blobs, offset = {"__metadata__": {"format": "pt"}}, [], 0
    for name, (dtype, array) in tensors.items():
        data = array.tobytes()
        header[name] = {"dtype": dtype, "shape": list(array.shape),
                        "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header).encode()
    return struct.pack("<Q", len(text)) + text + b"".join(blobs)


def safetensors_seeds(out):
    # The weights of tfm-safetensors-fuzzer's entry, all present and right...
    full = {
        "w": ("F32", np.arange(6, dtype=np.float32).reshape(2, 3)),
        "h": ("F16", np.ones(4, np.float16)),
        "g": ("BF16", np.ones(4, np.uint16)),
        "i": ("I32", np.arange(2, dtype=np.int32).reshape(1, 2, 1)),
        "l": ("I64", np.arange(3, dtype=np.int64)),
        "s": ("F32", np.array(2.0, np.float32)),
    }
    seeds = {"full": full,
             # ... one missing, one of the wrong shape, one of the wrong type.
             "missing": {k: v for k, v in full.items() if k != "l"},
             "shape": dict(full, w=("F32", np.zeros((3, 2), np.float32))),
             "dtype": dict(full, l=("I32", np.zeros(3, np.int32)))}
    for name, tensors in seeds.items():
        with open(os.path.join(out, name + ".safetensors"), "wb") as f:
            f.write(safetensors_file(tensors))


def mlir_seeds(out):
    sources = []
    for top in ("examples", "test"):
        for dirpath, _, files in os.walk(os.path.join(ROOT, top)):
            sources += [os.path.join(dirpath, f) for f in files
                        if f.endswith(".mlir")]
    count = 0
    for path in sorted(sources):
        with open(path) as f:
            text = f.read()
        # Only tfm IR, the door users come through.
        for i, piece in enumerate(text.split("// -----")):
            if "tfm." not in piece or len(piece) > 16384:
                continue
            name = os.path.relpath(path, ROOT).replace("/", "_")
            with open(os.path.join(out, f"{name}.{i}.mlir"), "w") as f:
                f.write(piece)
            count += 1
    if not count:
        sys.exit("no tfm IR found under examples/ and test/")


def main():
    door, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    {"npy": npy_seeds, "safetensors": safetensors_seeds,
     "mlir": mlir_seeds}[door](out)


if __name__ == "__main__":
    main()
