"""Compiles one tfm op, runs it, and compares it with the NumPy reference.

    opcheck.py OP [KEY=VALUE ...] --compiler PATH/tfm-compile [--work DIR]

For OP and the KEY=VALUE parameters it accepts (sizes such as `sq=7`, shapes
such as `batch=2x3`, flags such as `causal`), see the op's function below
and `opcheck.py --list`. The driver writes a graph whose @main takes the
op's operands as arguments (named with `tfm.name`; `--print` prints it and
stops), random inputs from a fixed seed, compiles the graph with
tfm-compile, runs the executable on the inputs and prints

    max relative error E (tolerance T)

where E = max|out - ref| / max(max|ref|, tiny), with ref the float64 answer
of tfm_tools.reference on the same float32 inputs. It exits with 1 when E >
T or the output's shape differs, and with 2 when compiling or running
fails.
"""

import argparse
import math
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "python"))
from tfm_tools import reference as ref  # noqa: E402

# The tolerance of float32 results against the float64 reference.
TOLERANCE = 1e-4


class Params:
    """The KEY=VALUE parameters of a case; each op reads the ones it knows."""

    def __init__(self, pairs):
        self._values, self._read = {}, set()
        for pair in pairs:
            key, sep, value = pair.partition("=")
            self._values[key] = value if sep else "1"

    def _get(self, key, default):
        self._read.add(key)
        return self._values.get(key, default)

    def int(self, key, default):
        return int(self._get(key, default))

    def float(self, key, default=None):
        value = self._get(key, default)
        return None if value is None else float(value)

    def flag(self, key):
        return self._get(key, "0") not in ("0", "false")

    def shape(self, key, default):
        """`2x3` -> (2, 3); `-` -> ()."""
        value = str(self._get(key, default))
        return () if value in ("-", "") else tuple(
            int(d) for d in value.split("x"))

    def choice(self, key, default, choices):
        value = self._get(key, default)
        if value not in choices:
            raise SystemExit(f"error: {key}={value}: expected one of "
                             f"{', '.join(choices)}")
        return value

    def has(self, key):
        self._read.add(key)
        return key in self._values

    def check_all_read(self):
        unknown = sorted(set(self._values) - self._read)
        if unknown:
            raise SystemExit("error: unknown parameter(s) "
                             + ", ".join(unknown))


class Case:
    """A graph of one op: its arguments, its text and its expected result.

    `op` is the op as written in its documented assembly format, without the
    trailing types; `same_type` says the format ends in `: type($input)`
    instead of a functional type.
    """

    def __init__(self):
        self.args = []       # (name, array), in the order of @main's args
        self.operand_types = []
        self.op = ""
        self.same_type = False
        self.expected = None

    def arg(self, name, array):
        """Adds an argument to @main and returns it as the op's next operand."""
        self.args.append((name, array))
        return self.use(name)

    def use(self, name):
        """Returns argument `name` as the op's next operand."""
        array = dict(self.args)[name]
        self.operand_types.append(tensor_type(array.shape, array.dtype))
        return "%" + name


def tensor_type(shape, dtype):
    element = {np.dtype(np.float32): "f32", np.dtype(np.int32): "i32",
               np.dtype(np.int64): "i64"}[np.dtype(dtype)]
    return "tensor<" + "".join(f"{d}x" for d in shape) + element + ">"


def attr_dict(attrs):
    return " {" + ", ".join(attrs) + "}" if attrs else ""


def f64_attr(name, value):
    text = repr(float(value))     # MLIR float literals need a '.'
    if "." not in text:
        text = text.replace("e", ".0e") if "e" in text else text + ".0"
    return f"{name} = {text} : f64"


def graph_text(case):
    """The func.func @main of `case`."""
    params = ",\n    ".join(
        f"%{name}: {tensor_type(a.shape, a.dtype)} {{tfm.name = \"{name}\"}}"
        for name, a in case.args)
    result = tensor_type(case.expected.shape, np.float32)
    if case.same_type:
        types = result
    else:
        types = f"({', '.join(case.operand_types)}) -> {result}"
    return (f"func.func @main(\n    {params})\n"
            f"    -> ({result} {{tfm.name = \"result\"}}) {{\n"
            f"  %result = {case.op}\n      : {types}\n"
            f"  return %result : {result}\n}}\n")


#===----------------------------------------------------------------------===#
# Inputs
#===----------------------------------------------------------------------===#


def randn(rng, *shape, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def valid_lens(rng, shape, high, dtype):
    """Random lengths in [0, high] that include both 0 and high when there
    are at least two of them."""
    lens = rng.integers(0, high + 1, size=shape)
    flat = lens.reshape(-1)
    if flat.size >= 2:
        flat[rng.choice(flat.size, 2, replace=False)] = [0, high]
    return lens.astype(dtype)


def lens_shape(p, batch, sq):
    """The shape of valid_lens per `valid_lens=none|batch|query`, or None."""
    kind = p.choice("valid_lens", "none", ("none", "batch", "query"))
    return {"none": None, "batch": batch, "query": batch + (sq,)}[kind]


def int_dtype(p):
    return {"i32": np.int32, "i64": np.int64}[
        p.choice("lens_type", "i32", ("i32", "i64"))]


#===----------------------------------------------------------------------===#
# One function per op: reads its parameters, returns a Case.
#===----------------------------------------------------------------------===#


def batch_matmul(p, rng):
    """batch=2 m=7 k=9 n=5 transpose_rhs"""
    batch, m, k, n = p.shape("batch", "2"), p.int("m", 7), p.int("k", 9), \
        p.int("n", 5)
    transpose = p.flag("transpose_rhs")
    c = Case()
    lhs = randn(rng, *batch, m, k)
    rhs = randn(rng, *batch, *((n, k) if transpose else (k, n)))
    c.op = (f"tfm.batch_matmul {c.arg('lhs', lhs)}, {c.arg('rhs', rhs)}"
            + attr_dict(["transpose_rhs"] if transpose else []))
    c.expected = ref.batch_matmul(lhs, rhs, transpose)
    return c


def masked_softmax(p, rng):
    """batch=2 q=7 k=9 valid_lens=none|batch|query lens_type=i32|i64
    scale=3 (the scores' standard deviation)"""
    batch, q, k = p.shape("batch", "2"), p.int("q", 7), p.int("k", 9)
    shape = lens_shape(p, batch, q)
    dtype = int_dtype(p)
    c = Case()
    x = randn(rng, *batch, q, k, scale=p.float("scale", 3.0))
    c.op = f"tfm.masked_softmax {c.arg('input', x)}"
    lens = None
    if shape is not None:
        lens = valid_lens(rng, shape, k, dtype)
        c.op += f" valid_lens({c.arg('valid_lens', lens)})"
    c.expected = ref.masked_softmax(x, lens)
    return c


def attention(p, rng):
    """batch=2 sq=7 sk=9 d=16 dv=d valid_lens=none|batch|query lens_type
    mask=SHAPE (broadcastable to batch x sq x sk) causal scale=S"""
    batch, sq, sk = p.shape("batch", "2"), p.int("sq", 7), p.int("sk", 9)
    d = p.int("d", 16)
    dv = p.int("dv", d)
    shape = lens_shape(p, batch, sq)
    dtype = int_dtype(p)
    mask_shape = p.shape("mask", "-") if p.has("mask") else None
    causal, scale = p.flag("causal"), p.float("scale")
    c = Case()
    q, k, v = randn(rng, *batch, sq, d), randn(rng, *batch, sk, d), \
        randn(rng, *batch, sk, dv)
    c.op = (f"tfm.attention {c.arg('query', q)}, {c.arg('key', k)}, "
            f"{c.arg('value', v)}")
    lens = mask = None
    if shape is not None:
        lens = valid_lens(rng, shape, sk, dtype)
        c.op += f" valid_lens({c.arg('valid_lens', lens)})"
    if mask_shape is not None:
        mask = randn(rng, *mask_shape)
        c.op += f" mask({c.arg('mask', mask)})"
    attrs = (["causal"] if causal else []) + \
        ([f64_attr("scale", scale)] if scale is not None else [])
    c.op += attr_dict(attrs)
    c.expected = ref.attention(q, k, v, lens, mask, scale, causal)
    return c


def additive_attention(p, rng):
    """batch=2 sq=3 sk=9 dq=20 dk=6 dv=4 h=8 valid_lens lens_type"""
    batch, sq, sk = p.shape("batch", "2"), p.int("sq", 3), p.int("sk", 9)
    dq, dk, dv, h = p.int("dq", 20), p.int("dk", 6), p.int("dv", 4), \
        p.int("h", 8)
    shape = lens_shape(p, batch, sq)
    dtype = int_dtype(p)
    c = Case()
    q, k, v = randn(rng, *batch, sq, dq), randn(rng, *batch, sk, dk), \
        randn(rng, *batch, sk, dv)
    w_q, w_k = randn(rng, h, dq, scale=0.3), randn(rng, h, dk, scale=0.3)
    w_v = randn(rng, 1, h)
    c.op = (f"tfm.additive_attention {c.arg('query', q)}, {c.arg('key', k)}, "
            f"{c.arg('value', v)} weights({c.arg('w_q', w_q)}, "
            f"{c.arg('w_k', w_k)}, {c.arg('w_v', w_v)})")
    lens = None
    if shape is not None:
        lens = valid_lens(rng, shape, sk, dtype)
        c.op += f" valid_lens({c.arg('valid_lens', lens)})"
    c.expected = ref.additive_attention(q, k, v, w_q, w_k, w_v, lens)
    return c


def kernel_pooling(p, rng):
    """batch=- q=40 k=50 dv=- (vector values of this size)
    kernel=gaussian|boxcar|constant|epanechikov bandwidth=B (keys uniform
    in [0, 5), queries in [0.5, 4.5): a narrow compact kernel leaves some
    queries without keys, whose results are NaN as in d2l)"""
    batch, nq, nk = p.shape("batch", "-"), p.int("q", 40), p.int("k", 50)
    dv = p.shape("dv", "-")
    kernel = p.choice("kernel", "gaussian",
                      ("gaussian", "boxcar", "constant", "epanechikov"))
    bandwidth = p.float("bandwidth")
    c = Case()
    keys = (rng.random((*batch, nk)) * 5).astype(np.float32)
    queries = (0.5 + rng.random((*batch, nq)) * 4).astype(np.float32)
    values = randn(rng, *batch, nk, *dv)
    c.op = (f"tfm.kernel_pooling {c.arg('queries', queries)}, "
            f"{c.arg('keys', keys)}, {c.arg('values', values)}"
            + attr_dict([f"kernel = #tfm.kernel<{kernel}>"] +
                        ([f64_attr("bandwidth", bandwidth)]
                         if bandwidth is not None else [])))
    c.expected = ref.kernel_pooling(queries, keys, values, kernel,
                                    1.0 if bandwidth is None else bandwidth)
    return c


def split_heads(p, rng):
    """b=2 s=7 heads=5 dh=3"""
    b, s, h, dh = p.int("b", 2), p.int("s", 7), p.int("heads", 5), \
        p.int("dh", 3)
    c = Case()
    x = randn(rng, b, s, h * dh)
    c.op = (f"tfm.split_heads {c.arg('input', x)}"
            + attr_dict([f"num_heads = {h} : i64"]))
    c.expected = ref.split_heads(x, h)
    return c


def merge_heads(p, rng):
    """b=2 s=7 heads=5 dh=3"""
    b, s, h, dh = p.int("b", 2), p.int("s", 7), p.int("heads", 5), \
        p.int("dh", 3)
    c = Case()
    x = randn(rng, b * h, s, dh)
    c.op = (f"tfm.merge_heads {c.arg('input', x)}"
            + attr_dict([f"num_heads = {h} : i64"]))
    c.expected = ref.merge_heads(x, h)
    return c


def multi_head_attention(p, rng):
    """b=2 sq=7 sk=sq heads=4 d=32 dq=d dk=dq dv=dk do=d biases
    valid_lens=none|batch|query lens_type mask=SHAPE causal scale=S
    self (query, key and value are one argument)"""
    b, sq, heads, d = p.int("b", 2), p.int("sq", 7), p.int("heads", 4), \
        p.int("d", 32)
    sk = p.int("sk", sq)
    dq = p.int("dq", d)
    dk = p.int("dk", dq)
    dv, do = p.int("dv", dk), p.int("do", d)
    self_attention = p.flag("self")
    with_biases = p.flag("biases")
    shape = lens_shape(p, (b,), sq)
    dtype = int_dtype(p)
    mask_shape = p.shape("mask", "-") if p.has("mask") else None
    causal, scale = p.flag("causal"), p.float("scale")
    c = Case()
    query = randn(rng, b, sq, dq)
    if self_attention:
        key = value = query
        c.op = (f"tfm.multi_head_attention {c.arg('x', query)}, {c.use('x')}, "
                f"{c.use('x')}")
    else:
        key, value = randn(rng, b, sk, dk), randn(rng, b, sk, dv)
        c.op = (f"tfm.multi_head_attention {c.arg('query', query)}, "
                f"{c.arg('key', key)}, {c.arg('value', value)}")
    init = 1 / math.sqrt(max(dq, dk, dv, d))
    weights = [randn(rng, d, dq, scale=init), randn(rng, d, dk, scale=init),
               randn(rng, d, dv, scale=init), randn(rng, do, d, scale=init)]
    c.op += " weights({})".format(", ".join(
        c.arg(f"w_{n}", w) for n, w in zip("qkvo", weights)))
    biases = None
    if with_biases:
        biases = [randn(rng, d), randn(rng, d), randn(rng, d), randn(rng, do)]
        c.op += " biases({})".format(", ".join(
            c.arg(f"b_{n}", w) for n, w in zip("qkvo", biases)))
    lens = mask = None
    if shape is not None:
        lens = valid_lens(rng, shape, sk, dtype)
        c.op += f" valid_lens({c.arg('valid_lens', lens)})"
    if mask_shape is not None:
        mask = randn(rng, *mask_shape)
        c.op += f" mask({c.arg('mask', mask)})"
    attrs = (["causal"] if causal else []) + [f"num_heads = {heads} : i64"] \
        + ([f64_attr("scale", scale)] if scale is not None else [])
    c.op += attr_dict(attrs)
    c.expected = ref.multi_head_attention(query, key, value, *weights, heads,
                                          biases, lens, mask, scale, causal)
    return c


ACTIVATIONS = ("none", "relu", "gelu", "gelu_tanh")


def linear(p, rng):
    """batch=2x3 k=7 n=9 bias activation=none|relu|gelu|gelu_tanh"""
    batch, k, n = p.shape("batch", "2x3"), p.int("k", 7), p.int("n", 9)
    with_bias = p.flag("bias")
    activation = p.choice("activation", "none", ACTIVATIONS)
    c = Case()
    x, w = randn(rng, *batch, k), randn(rng, n, k, scale=1 / math.sqrt(k))
    b = randn(rng, n) if with_bias else None
    c.op = f"tfm.linear {c.arg('input', x)}, {c.arg('weight', w)}"
    if with_bias:
        c.op += f", {c.arg('bias', b)}"
    if p.has("activation"):
        c.op += attr_dict([f"activation = #tfm.activation<{activation}>"])
    c.expected = ref.linear(x, w, b, activation)
    return c


def ffn(p, rng):
    """batch=2x3 d=7 f=9 do=d biases=both|b1|b2|none activation"""
    batch, d, f = p.shape("batch", "2x3"), p.int("d", 7), p.int("f", 9)
    do = p.int("do", d)
    biases = p.choice("biases", "both", ("both", "b1", "b2", "none"))
    activation = p.choice("activation", "relu", ACTIVATIONS[1:])
    c = Case()
    x = randn(rng, *batch, d)
    w1, w2 = randn(rng, f, d, scale=1 / math.sqrt(d)), \
        randn(rng, do, f, scale=1 / math.sqrt(f))
    b1 = randn(rng, f) if biases in ("both", "b1") else None
    b2 = randn(rng, do) if biases in ("both", "b2") else None
    c.op = f"tfm.ffn {c.arg('input', x)} dense1({c.arg('w1', w1)}"
    c.op += (f", {c.arg('b1', b1)})" if b1 is not None else ")")
    c.op += f" dense2({c.arg('w2', w2)}"
    c.op += (f", {c.arg('b2', b2)})" if b2 is not None else ")")
    c.op += attr_dict([f"activation = #tfm.activation<{activation}>"]
                      if p.has("activation") else [])
    c.expected = ref.ffn(x, w1, b1, w2, b2, activation)
    return c


def layer_norm(p, rng):
    """batch=2x3 d=7 epsilon=E offset=O (added to the input: a large
    mean tests the variance's cancellation)"""
    batch, d, eps = p.shape("batch", "2x3"), p.int("d", 7), p.float("epsilon")
    c = Case()
    x = randn(rng, *batch, d) + np.float32(p.float("offset", 0.0))
    gamma, beta = 1 + randn(rng, d, scale=0.5), randn(rng, d)
    c.op = (f"tfm.layer_norm {c.arg('input', x)}, {c.arg('gamma', gamma)}, "
            f"{c.arg('beta', beta)}"
            + attr_dict([f64_attr("epsilon", eps)] if eps is not None else []))
    c.expected = ref.layer_norm(x, gamma, beta, 1e-5 if eps is None else eps)
    return c


def add_norm(p, rng):
    """batch=2x3 d=7 epsilon=E dropout=R"""
    batch, d, eps = p.shape("batch", "2x3"), p.int("d", 7), p.float("epsilon")
    rate = p.float("dropout")
    c = Case()
    x, y = randn(rng, *batch, d), randn(rng, *batch, d)
    gamma, beta = 1 + randn(rng, d, scale=0.5), randn(rng, d)
    attrs = ([f64_attr("epsilon", eps)] if eps is not None else []) + \
        ([f64_attr("dropout", rate)] if rate is not None else [])
    c.op = (f"tfm.add_norm {c.arg('residual', x)}, {c.arg('sublayer', y)}, "
            f"{c.arg('gamma', gamma)}, {c.arg('beta', beta)}"
            + attr_dict(attrs))
    c.expected = ref.add_norm(x, y, gamma, beta, 1e-5 if eps is None else eps)
    return c


def gelu(p, rng):
    """shape=2x7x9 approximate=none|tanh range=R (inputs uniform in
    [-R, R])"""
    shape = p.shape("shape", "2x7x9")
    approximate = p.choice("approximate", "none", ("none", "tanh"))
    r = p.float("range", 6.0)
    c = Case()
    x = rng.uniform(-r, r, shape).astype(np.float32)
    c.op = f"tfm.gelu {c.arg('input', x)}"
    if p.has("approximate"):
        c.op += attr_dict([
            f"approximate = #tfm.gelu_approximation<{approximate}>"])
    c.same_type = True
    c.expected = ref.gelu(x, approximate)
    return c


def dropout(p, rng):
    """shape=2x7x9 rate=0.1"""
    shape, rate = p.shape("shape", "2x7x9"), p.float("rate", 0.1)
    c = Case()
    x = randn(rng, *shape)
    c.op = (f"tfm.dropout {c.arg('input', x)}"
            + attr_dict([f64_attr("rate", rate)]))
    c.same_type = True
    c.expected = ref.dropout(x, rate)
    return c


def embedding(p, rng):
    """ids=2x7 vocab=50 d=9 ids_type=i32|i64 scale_by_sqrt_dim"""
    ids_shape, vocab, d = p.shape("ids", "2x7"), p.int("vocab", 50), \
        p.int("d", 9)
    dtype = {"i32": np.int32, "i64": np.int64}[
        p.choice("ids_type", "i64", ("i32", "i64"))]
    scaled = p.flag("scale_by_sqrt_dim")
    c = Case()
    ids = rng.integers(0, vocab, size=ids_shape)
    flat = ids.reshape(-1)
    if flat.size >= 2:                  # the first and the last row
        flat[:2] = [0, vocab - 1]
    ids = ids.astype(dtype)
    table = randn(rng, vocab, d)
    c.op = (f"tfm.embedding {c.arg('indices', ids)}, {c.arg('table', table)}"
            + attr_dict(["scale_by_sqrt_dim"] if scaled else []))
    c.expected = ref.embedding(ids, table, scaled)
    return c


def positional_encoding(p, rng):
    """shape=2x7x16 (the last two dimensions are S and D)"""
    shape = p.shape("shape", "2x7x16")
    c = Case()
    x = randn(rng, *shape)
    c.op = f"tfm.positional_encoding {c.arg('input', x)}"
    c.same_type = True
    c.expected = ref.positional_encoding(x)
    return c


def patch_embed(p, rng):
    """b=2 c=3 h=12 w=20 ph=4 pw=5 d=7 bias"""
    b, ch, h, w = p.int("b", 2), p.int("c", 3), p.int("h", 12), p.int("w", 20)
    ph, pw, d = p.int("ph", 4), p.int("pw", 5), p.int("d", 7)
    with_bias = p.flag("bias")
    c = Case()
    image = randn(rng, b, ch, h, w)
    weight = randn(rng, d, ch, ph, pw, scale=1 / math.sqrt(ch * ph * pw))
    bias = randn(rng, d) if with_bias else None
    c.op = f"tfm.patch_embed {c.arg('image', image)}, {c.arg('weight', weight)}"
    if with_bias:
        c.op += f", {c.arg('bias', bias)}"
    c.expected = ref.patch_embed(image, weight, bias)
    return c


def prepend_class_token(p, rng):
    """b=2 n=7 d=9"""
    b, n, d = p.int("b", 2), p.int("n", 7), p.int("d", 9)
    c = Case()
    x, cls = randn(rng, b, n, d), randn(rng, 1, 1, d)
    c.op = (f"tfm.prepend_class_token {c.arg('input', x)}, "
            f"{c.arg('class_token', cls)}")
    c.expected = ref.prepend_class_token(x, cls)
    return c


OPS = {f.__name__: f for f in [
    batch_matmul, masked_softmax, attention, additive_attention,
    kernel_pooling, split_heads, merge_heads, multi_head_attention, linear,
    ffn, layer_norm, add_norm, gelu, dropout, embedding, positional_encoding,
    patch_embed, prepend_class_token]}


#===----------------------------------------------------------------------===#
# Compile, run, compare
#===----------------------------------------------------------------------===#


def relative_error(out, expected):
    """max|out - ref| / max(max|ref|, tiny); NaN where ref is NaN must be
    NaN in out too (d2l's 0/0 of an empty kernel support)."""
    out = out.astype(np.float64)
    nan = np.isnan(expected)
    if not np.array_equal(nan, np.isnan(out)):
        return math.inf
    diff = np.abs(out - expected)[~nan]
    scale = max(np.abs(expected[~nan]).max(initial=0.0),
                np.finfo(np.float64).tiny)
    return diff.max(initial=0.0) / scale


def run(command):
    proc = subprocess.run(command, capture_output=True, text=True)
    if proc.returncode != 0:
        print("error: " + " ".join(command) + f" exited with "
              f"{proc.returncode}\n{proc.stdout}{proc.stderr}",
              file=sys.stderr)
        sys.exit(2)


def check(case, compiler, work, tolerance, flags=()):
    os.makedirs(work, exist_ok=True)
    graph = os.path.join(work, "graph.mlir")
    with open(graph, "w") as f:
        f.write(graph_text(case))
    exe, out = os.path.join(work, "graph"), os.path.join(work, "result.npy")
    inputs = []
    for name, array in case.args:
        inputs.append(os.path.join(work, name + ".npy"))
        np.save(inputs[-1], array)
    run([compiler, graph, "-o", exe] + list(flags))
    run([exe, "-o", out] + inputs)
    result = np.load(out)
    if result.shape != case.expected.shape or result.dtype != np.float32:
        print(f"error: result is {result.dtype} {list(result.shape)}, "
              f"expected float32 {list(case.expected.shape)}")
        return False
    err = relative_error(result, case.expected)
    nans = int(np.isnan(case.expected).sum())
    print(f"max relative error {err:.3g} (tolerance {tolerance:g})"
          + (f"; {nans} NaN as in the reference" if nans else ""))
    if err > tolerance:
        where = np.unravel_index(
            np.nanargmax(np.abs(result - case.expected)), result.shape)
        print(f"error: mismatch, worst at {list(where)}: got {result[where]}, "
              f"expected {case.expected[where]}; graph in {graph}")
        return False
    return True


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("op", nargs="?", choices=sorted(OPS))
    parser.add_argument("params", nargs="*", metavar="KEY=VALUE")
    parser.add_argument("--compiler", default="tfm-compile",
                        help="the tfm-compile to use")
    parser.add_argument("--work", help="where to write the graph, inputs, "
                        "executable and result (default: a temporary dir)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--flag", action="append", default=[],
                        help="an extra tfm-compile option (repeatable)")
    parser.add_argument("--tolerance", type=float, default=TOLERANCE)
    parser.add_argument("--print", action="store_true",
                        help="print the graph and stop")
    parser.add_argument("--list", action="store_true",
                        help="list the ops and their parameters")
    args = parser.parse_intermixed_args()
    if args.list or args.op is None:
        for name, f in OPS.items():
            print(f"{name}: {' '.join(f.__doc__.split())}")
        return 0
    params = Params(args.params)
    case = OPS[args.op](params, np.random.default_rng(args.seed))
    params.check_all_read()
    if args.print:
        print(graph_text(case), end="")
        return 0
    if args.work:
        return 0 if check(case, args.compiler, args.work, args.tolerance,
                          args.flag) else 1
    with tempfile.TemporaryDirectory() as work:
        return 0 if check(case, args.compiler, work, args.tolerance,
                          args.flag) else 1


if __name__ == "__main__":
    sys.exit(main())
