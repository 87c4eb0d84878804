"""tfm from Python: compile a graph or an ONNX model into a shared library,
and call it on NumPy arrays. Needs NumPy and the standard library only (no
PyTorch), and tfm-compile.

    import tfm
    lib = tfm.compile("model.onnx", "libmodel.so")   # or a .mlir graph
    model = tfm.load(lib)
    y = model(x)                 # NumPy in, NumPy out
    print(model.signature)       # names, dtypes and shapes, sizes by name

`compile` runs tfm-compile with `--emit=lib`; keyword options become its
flags (`max_seq=4096` is `--max-seq=4096`, `no_fusion=True` is
`--no-fusion`; docs/tfm-compile.md lists them). `load` reads the library's
signature (the `tfm_signature` text, runtime/Signature.h) and calls its
packed entry point `tfm_run_dims` through ctypes: inputs are checked
against the signature (dtype, rank, sizes, and the dynamic sizes the model
ties together), outputs are allocated at the sizes the inputs give. A
library compiled with `symbol_prefix` is loaded with the same `prefix`.

A decoder compiled with `kv_cache=N` (caches of N positions) generates:

    model = tfm.load(tfm.compile("gpt.onnx", kv_cache=256))
    tokens = model.generate(prompt, 32)       # greedy, [batch, 32]
    state = model.start(batch=1)              # or step by step
    logits = state.prefill(prompt)            # [1, length, vocab]
    logits = state.step(next_ids)             # [1, vocab]

Import it with the repository's python/ directory on the path:

    PYTHONPATH=$PWD/python /usr/bin/python3 -c "import tfm"
"""

import ctypes
import os
import shutil
import subprocess
import tempfile
import types

import numpy as np

__all__ = ["CompileError", "KvState", "Model", "Signature", "TensorSpec",
           "compile", "load"]

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))

# The signature's dtypes as NumPy's; bfloat16 crosses as uint16 arrays of
# its bits (NumPy has no bfloat16).
_DTYPES = {"f32": np.float32, "f16": np.float16, "f64": np.float64,
           "i32": np.int32, "i64": np.int64, "b1": np.bool_,
           "bf16": np.uint16}


class CompileError(RuntimeError):
    """tfm-compile failed; the message holds its diagnostics."""


def _find_compiler():
    for path in (os.environ.get("TFM_COMPILE"),
                 os.path.join(_ROOT, "build", "bin", "tfm-compile")):
        if path and os.access(path, os.X_OK):
            return path
    return "tfm-compile"  # on PATH


def compile(model, output=None, *, compiler=None, **options):
    """Compiles MODEL (a .mlir graph or an .onnx file) into the shared
    library OUTPUT (default: MODEL's name with `lib` before it and `.so`
    after, next to it) and returns OUTPUT. Each keyword option is a
    tfm-compile flag: `name=value` is `--name=value` (underscores become
    dashes), `name=True` is `--name`, a list repeats the flag. Raises
    CompileError with tfm-compile's message when it fails."""
    if output is None:
        directory, name = os.path.split(os.path.abspath(model))
        output = os.path.join(directory,
                              "lib" + os.path.splitext(name)[0] + ".so")
    command = [compiler or _find_compiler(), os.fspath(model), "--emit=lib",
               "-o", os.fspath(output)]
    for key, value in options.items():
        flag = "--" + key.replace("_", "-")
        for item in value if isinstance(value, (list, tuple)) else [value]:
            if item is True:
                command.append(flag)
            elif item is not False and item is not None:
                command.append(f"{flag}={item}")
    proc = subprocess.run(command, capture_output=True, text=True)
    if proc.returncode != 0:
        raise CompileError(f"{' '.join(command)} exited with "
                           f"{proc.returncode}:\n{proc.stderr.strip()}")
    return output


# Per real path, the file (device, inode) this process loaded there last
# and its ctypes handle.
_LOADED = {}


def _dlopen(library):
    """ctypes.CDLL(LIBRARY), of the file at LIBRARY now. dlopen returns the
    library it loaded before under the same name, even after tfm-compile
    replaced the file with another model: a replaced file is loaded under a
    name of its own (a symbolic link in a new directory)."""
    real = os.path.realpath(library)
    status = os.stat(real)
    key = (status.st_dev, status.st_ino)
    if real in _LOADED and _LOADED[real][0] == key:
        return _LOADED[real][1]
    if real not in _LOADED:
        handle = ctypes.CDLL(library)
    else:
        directory = tempfile.mkdtemp(prefix="tfm-load-")
        try:
            alias = os.path.join(directory, os.path.basename(real))
            os.symlink(real, alias)
            handle = ctypes.CDLL(alias)
        finally:
            shutil.rmtree(directory, ignore_errors=True)
    _LOADED[real] = (key, handle)
    return handle


class TensorSpec:
    """An input or output: its name, NumPy dtype and shape, each dimension
    an int or the name of a dynamic size; `element` is the model's element
    type ("bf16" for bfloat16, which crosses as uint16)."""

    def __init__(self, name, dtype, shape, element=None):
        self.name, self.dtype, self.shape = name, dtype, shape
        self.element = element

    def shape_text(self):
        return "[" + ", ".join(str(d) for d in self.shape) + "]"

    def dtype_text(self):
        """The element type as the executables name it."""
        if self.element == "bf16":
            return "bfloat16 (as uint16)"
        return np.dtype(self.dtype).name

    def __repr__(self):
        return f"{self.name}: {self.dtype_text()} {self.shape_text()}"


class Signature:
    """What a compiled model takes and returns (runtime/Signature.h)."""

    def __init__(self, text):
        lines = [line for line in text.splitlines() if line]
        if not lines or lines[0] not in ("tfm-signature-v1",
                                         "tfm-signature-v2"):
            raise ValueError(f"not a tfm signature: {text[:40]!r}")
        v2 = lines[0].endswith("v2")
        separator = "," if v2 else "x"
        self.dims, self.bounds, self.sums = [], {}, {}
        self.inputs, self.outputs = [], []
        for line in lines[1:]:
            malformed = ValueError(f"the model's signature has a malformed "
                                   f"line: {line}")
            fields = line.split()
            if v2 and fields[0] in ("dim", "sum") and not self.inputs:
                # "scalar" is the shape of rank 0: a size of that name
                # would make `in x f32 scalar` mean two things (tfm-compile
                # renames it `scalar_`).
                if (len(fields) < 2 or fields[1] == "scalar" or
                        fields[1] in self.dims):
                    raise malformed
                if fields[0] == "sum":
                    # `sum n_plus_m n m`: an output's size, the sum of
                    # sizes before it and of numbers.
                    terms = [int(t) if t.isdigit() else t
                             for t in fields[2:]]
                    if len(terms) < 2 or any(
                            isinstance(t, str) and t not in self.dims
                            for t in terms):
                        raise malformed
                    self.sums[fields[1]] = terms
                elif len(fields) > 2:
                    if len(fields) > 3 or not fields[2].isdigit():
                        raise malformed
                    self.bounds[fields[1]] = int(fields[2])
                self.dims.append(fields[1])
                continue
            if (len(fields) < 4 or fields[0] not in ("in", "out", "attn") or
                    fields[2] not in _DTYPES):
                raise malformed
            kind, name, dtype, dims = fields[:4]
            shape = [] if dims == "scalar" else [
                int(d) if d.isdigit() else d for d in dims.split(separator)]
            if any(isinstance(d, str) and d not in self.dims for d in shape):
                raise malformed
            spec = TensorSpec(name, _DTYPES[dtype], shape, dtype)
            # `kv_cache` / `kv_position` after an input of a model compiled
            # with --kv-cache; an attention's location after `attn`.
            spec.role = fields[4] if kind == "in" and len(fields) > 4 else None
            (self.inputs if kind == "in" else self.outputs).append(spec)

    @property
    def has_kv_cache(self):
        """Whether the model was compiled with --kv-cache (Model.start)."""
        return any(s.role == "kv_cache" for s in self.inputs)

    def __repr__(self):
        text = "inputs:\n" + "".join(f"  {s}\n" for s in self.inputs)
        text += "outputs:\n" + "".join(f"  {s}\n" for s in self.outputs)
        if self.dims:
            text += "dynamic sizes: " + ", ".join(
                d + (f" (at most {self.bounds[d]})" if d in self.bounds
                     else f" (= {' + '.join(map(str, self.sums[d]))})"
                     if d in self.sums else "") for d in self.dims) + "\n"
        return text


class Model:
    """A loaded library: call it with one NumPy array per input, in order;
    it returns the output (or a tuple of them)."""

    def __init__(self, library, prefix="tfm"):
        self.library = os.path.abspath(library)
        self._lib = _dlopen(self.library)
        # `const char tfm_signature[]`: the text is at the symbol.
        text = ctypes.c_char.in_dll(self._lib, f"{prefix}_signature")
        self._signature_text = text
        self.signature = Signature(
            ctypes.string_at(ctypes.addressof(text)).decode())
        self._run = getattr(self._lib, f"{prefix}_run_dims")
        self._prefix = prefix
        self._run.argtypes = [ctypes.POINTER(ctypes.c_int64),
                              ctypes.POINTER(ctypes.c_void_p)]
        self._run.restype = ctypes.c_int32

    def _bind(self, arrays):
        """Checks ARRAYS against the inputs; returns the dynamic sizes."""
        sig = self.signature
        if len(arrays) != len(sig.inputs):
            raise TypeError(f"the model takes {len(sig.inputs)} input(s) "
                            f"({', '.join(s.name for s in sig.inputs)}), "
                            f"got {len(arrays)}")
        sizes = {}
        for i, (spec, array) in enumerate(zip(sig.inputs, arrays)):
            what = f"input {i} ({spec.name})"
            expected = f"{spec.dtype_text()} {spec.shape_text()}"
            if array.dtype != spec.dtype or array.ndim != len(spec.shape):
                raise ValueError(f"{what}: expected {expected}, found "
                                 f"{array.dtype} {list(array.shape)}")
            for d, (dim, size) in enumerate(zip(spec.shape, array.shape)):
                if isinstance(dim, int):
                    if size != dim:
                        raise ValueError(
                            f"{what}: expected {expected}, found "
                            f"{array.dtype} {list(array.shape)}: dimension "
                            f"{d} is {size}, not {dim}")
                    continue
                if size < 1:
                    raise ValueError(f"{what}: {dim} (dimension {d}) is "
                                     f"{size}; dynamic sizes must be at "
                                     f"least 1")
                bound = sig.bounds.get(dim)
                if bound and size > bound:
                    raise ValueError(f"{what}: {dim} (dimension {d}) is "
                                     f"{size}, above the bound of {bound} "
                                     f"the model was compiled with")
                if sizes.setdefault(dim, (size, what, d))[0] != size:
                    first = sizes[dim]
                    raise ValueError(
                        f"{what}: {dim} is {size} here (dimension {d}) but "
                        f"{first[0]} in {first[1]} dimension {first[2]}, "
                        f"which the model requires to be equal")
        # The sizes that are sums of others (an output of a concatenation)
        # follow from those the inputs gave.
        values = {}
        for dim in sig.dims:
            if dim not in sig.sums:
                values[dim] = sizes[dim][0]
                continue
            values[dim] = sum(values[t] if isinstance(t, str) else t
                              for t in sig.sums[dim])
            if values[dim] > 2**63 - 1:
                raise ValueError(f"{dim} = {' + '.join(map(str, sig.sums[dim]))} "
                                 f"is {values[dim]}, more than an output can "
                                 f"hold")
        return [values[dim] for dim in sig.dims]

    def __call__(self, *inputs):
        # np.asarray keeps a 0-d array 0-d (np.ascontiguousarray makes it
        # 1-d); order="C" copies an array that is not contiguous.
        arrays = [np.asarray(a, order="C") for a in inputs]
        dims = self._bind(arrays)
        values = dict(zip(self.signature.dims, dims))
        outputs = [np.zeros([d if isinstance(d, int) else values[d]
                             for d in spec.shape], dtype=spec.dtype)
                   for spec in self.signature.outputs]
        buffers = (ctypes.c_void_p * (len(arrays) + len(outputs)))(
            *[a.ctypes.data for a in arrays + outputs])
        sizes = (ctypes.c_int64 * max(len(dims), 1))(*dims)
        status = self._run(sizes, buffers)
        if status != 0:
            raise RuntimeError(f"{self.library} returned {status}")
        return outputs[0] if len(outputs) == 1 else tuple(outputs)

    def __repr__(self):
        return f"tfm.Model({self.library!r})\n{self.signature}"

    def start(self, batch=1):
        """For a model compiled with --kv-cache: empty key/value caches for
        BATCH sequences, which prefill and step append to in place
        (docs/generation.md)."""
        return KvState(self, batch)

    def generate(self, prompt, steps):
        """Greedy generation: PROMPT ([batch, length] int64 token ids) in
        one call, then STEPS - 1 calls of one token per sequence. Returns
        the STEPS tokens of each sequence, [batch, steps] int64. STEPS must
        be at least 1, as the executables' --generate."""
        if (isinstance(steps, (bool, np.bool_)) or
                not isinstance(steps, (int, np.integer)) or steps < 1):
            raise ValueError(f"generate: steps must be an integer of at "
                             f"least 1, found {steps!r}")
        prompt = _token_ids(prompt, "prompt")
        if prompt.ndim != 2 or prompt.shape[0] < 1 or prompt.shape[1] < 1:
            raise ValueError(f"generate: expected a prompt of token ids "
                             f"[batch, length] with batch and length at "
                             f"least 1, found {list(prompt.shape)}")
        with self.start(prompt.shape[0]) as state:
            tokens = [state.prefill(prompt)[:, -1, :].argmax(-1)]
            for _ in range(steps - 1):
                tokens.append(state.step(tokens[-1]).argmax(-1))
        return np.stack(tokens, axis=1).astype(np.int64)


def _token_ids(ids, what):
    """IDS as a C-ordered int64 array; refuses what is not integers (a
    float id would be truncated)."""
    array = np.asarray(ids)
    if array.dtype.kind not in "iu":
        raise ValueError(f"{what}: token ids must be integers, found "
                         f"{array.dtype}")
    if array.dtype.kind == "u" and array.size and array.max() > 2**63 - 1:
        raise ValueError(f"{what}: token id {array.max()} does not fit in "
                         f"int64")
    return np.ascontiguousarray(array, dtype=np.int64)


class KvState:
    """The key/value caches of a batch of sequences (runtime/Generate.h's
    tfm_kv_state): `prefill(ids)` runs [batch, seq] token ids after the
    positions held and returns their logits [batch, seq, vocab]; `step(ids)`
    runs one token per sequence ([batch]) and returns [batch, vocab]. Both
    append to the caches; `length`, `capacity` and `reset()` see to them.
    `close()` frees the caches (so does leaving a `with` block, or the
    state's garbage collection); a closed state raises ValueError."""

    _state = None

    def __init__(self, model, batch):
        if not model.signature.has_kv_cache:
            raise TypeError(f"{model.library} has no key/value caches: "
                            "compile it with kv_cache=N")
        if (isinstance(batch, (bool, np.bool_)) or
                not isinstance(batch, (int, np.integer))):
            raise TypeError(f"the batch must be an integer, found "
                            f"{batch!r}")
        # runtime/Generate.h's functions, which the library exports under
        # its prefix (gpt_kv_state_run for tfm_kv_state_run).
        lib = types.SimpleNamespace(**{
            name: getattr(model._lib, f"{model._prefix}_kv_state_{name}")
            for name in ("create_for", "destroy", "reset", "length",
                         "capacity", "vocab", "run", "error")})
        self._lib = lib
        self.batch = int(batch)
        lib.create_for.restype = ctypes.c_void_p
        lib.create_for.argtypes = [
            ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64, ctypes.c_char_p,
            ctypes.c_size_t]
        for name, restype in (("length", ctypes.c_int64),
                              ("capacity", ctypes.c_int64),
                              ("vocab", ctypes.c_int64),
                              ("error", ctypes.c_char_p)):
            function = getattr(lib, name)
            function.restype = restype
            function.argtypes = [ctypes.c_void_p]
        lib.run.restype = ctypes.c_int
        lib.run.argtypes = [ctypes.c_void_p, ctypes.c_void_p,
                                         ctypes.c_int64, ctypes.c_void_p]
        lib.destroy.argtypes = [ctypes.c_void_p]
        lib.reset.argtypes = [ctypes.c_void_p]
        error = ctypes.create_string_buffer(512)
        signature = ctypes.addressof(model._signature_text)
        self._state = lib.create_for(
            signature, ctypes.cast(model._run, ctypes.c_void_p), self.batch,
            error, len(error))
        if not self._state:
            raise ValueError(error.value.decode())
        self.vocab = lib.vocab(self._state)

    def _handle(self):
        """The C state; raises once it is freed (a null pointer must never
        reach the library)."""
        if not self._state:
            raise ValueError("this generation state is closed: start "
                             "another with Model.start")
        return self._state

    @property
    def closed(self):
        return not self._state

    @property
    def length(self):
        return self._lib.length(self._handle())

    @property
    def capacity(self):
        return self._lib.capacity(self._handle())

    def reset(self):
        self._lib.reset(self._handle())

    def _run(self, ids, what):
        state = self._handle()
        ids = _token_ids(ids, what)
        if ids.ndim != 2 or ids.shape[0] != self.batch:
            raise ValueError(f"{what}: expected token ids [{self.batch}, "
                             f"seq], found {list(ids.shape)}")
        # Checked here: an id outside the vocabulary would index the
        # embedding table out of bounds.
        bad = np.flatnonzero((ids < 0) | (ids >= self.vocab))
        if bad.size:
            where = np.unravel_index(bad[0], ids.shape)
            raise ValueError(f"{what}: token id {ids.flat[bad[0]]} (at "
                             f"{list(map(int, where))}) is outside the "
                             f"vocabulary of {self.vocab}")
        logits = np.zeros((self.batch, ids.shape[1], self.vocab), np.float32)
        if self._lib.run(state, ids.ctypes.data, ids.shape[1],
                                      logits.ctypes.data):
            raise ValueError(self._lib.error(state).decode())
        return logits

    def prefill(self, ids):
        return self._run(ids, "prefill")

    def step(self, ids):
        self._handle()
        ids = _token_ids(ids, "step")
        if ids.size != self.batch:
            raise ValueError(f"step: expected one token id per sequence "
                             f"([{self.batch}]), found {list(ids.shape)}")
        return self._run(ids.reshape(self.batch, 1), "step")[:, 0, :]

    def close(self):
        """Frees the caches; the state cannot be used after."""
        if self._state:
            self._lib.destroy(self._state)
            self._state = None

    def __enter__(self):
        self._handle()
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        self.close()


def load(library, prefix="tfm"):
    """Loads a library that `compile` (or tfm-compile --emit=lib) made."""
    return Model(library, prefix)
