"""Compiles one tfm op, runs it, and compares it with the NumPy reference.

    opcheck.py OP [KEY=VALUE ...] --compiler PATH/tfm-compile [--work DIR]

For OP and the KEY=VALUE parameters it accepts (sizes such as `sq=7`, shapes
such as `batch=2x3`, flags such as `causal`), see the op's function below
and `opcheck.py --list`. The driver writes a graph whose @main takes the
op's operands as arguments (named with `tfm.name`; `--print` prints it and
stops), random inputs from a fixed seed, compiles the graph with
tfm-compile, runs the executable on the inputs and prints

    max relative error E (tolerance T)

where E = max|out - ref| / max(max|ref|, tiny) (tfm_tools.compare), with
ref the float64 answer of tfm_tools.reference on the same float32 inputs. It
exits with 1 when E > T or the output's shape differs, and with 2 when
compiling or running fails.

`--dtype float16` (or `bfloat16`) makes the graph's floating-point inputs
and its result float16 (bfloat16, which crosses as uint16 arrays of its
bits): the random inputs are rounded to that type first, so the reference
sees exactly the values the graph does.
"""

import argparse
import math
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "python"))
from tfm_tools import compare, graph, runner, safetensors  # noqa: E402
from tfm_tools import reference as ref  # noqa: E402


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


# The floating-point element type of the graphs' inputs and results
# (--dtype): "float32", "float16" or "bfloat16".
FLOAT = "float32"


def bfloat16_bits(x):
    """The bfloat16 nearest to each element of float32 X (ties to even), as
    the uint16 of its bits."""
    bits = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    return ((bits + 0x7fff + ((bits >> 16) & 1)) >> 16).astype(np.uint16)


def from_bfloat16_bits(bits):
    return (np.asarray(bits).astype(np.uint32) << 16).view(np.float32)


def to_float_type(x):
    """Float32 X as the graphs exchange FLOAT: float16, the bits of bfloat16
    as uint16, or float32."""
    if FLOAT == "bfloat16":
        return bfloat16_bits(x)
    return np.asarray(x).astype(FLOAT)


def from_float_type(x):
    """What the graph returned, as float32 values."""
    return from_bfloat16_bits(x) if FLOAT == "bfloat16" else x


def float_element():
    return {"float32": "f32", "float16": "f16", "bfloat16": "bf16"}[FLOAT]


class Case:
    """A graph of one op: its arguments, the op and its expected result.

    The op is written with tfm_tools.graph in its documented assembly
    format; its result, `%result`, has the type of `expected`.
    """

    # Names of arguments bound at compile time (--bind): weights, which the
    # graph declares with `tfm.weight` and tfm-compile reads from a
    # safetensors file, so that they are constants (which the CPU packs).
    bound = frozenset()

    def __init__(self):
        self.args = []       # (name, array), in the order of @main's args
        self.weights = {}    # name -> array, of the bound arguments
        self.main = graph.Function("main")
        self.expected = None
        self._op = None
        self._text = None

    def arg(self, name, array):
        """Adds ARRAY as argument NAME of @main and returns its Value; None
        for no array (an optional operand left out)."""
        if array is None:
            return None
        element = None
        if np.asarray(array).dtype == np.float32:
            array, element = to_float_type(array), float_element()
        if name in self.bound:
            if element == "bf16":
                raise SystemExit("error: --bind with --dtype bfloat16")
            self.weights[name] = array
            return self.main.weight(name, graph.type_of(array))
        self.args.append((name, array))
        return self.main.input(name, graph.tensor(np.shape(array), element)
                               if element else graph.type_of(array))

    def args_of(self, *pairs):
        """arg() of each (name, array) that has an array, as a list."""
        return [self.arg(name, a) for name, a in pairs if a is not None]

    def op(self, name, operands, groups=None, attrs=None, same_type=False):
        """The op under test (see graph.Function.op)."""
        self._op = dict(op=name, operands=operands, groups=groups,
                        attrs=attrs, same_type=same_type)

    def text(self):
        """The func.func @main of the case."""
        if self._text is None:
            result = self.main.op(
                result=graph.tensor(self.expected.shape,
                                    float_element()),
                name="result", **self._op)
            self.main.ret(result, names="result")
            self._text = self.main.text()
        return self._text


#===----------------------------------------------------------------------===#
# Inputs
#===----------------------------------------------------------------------===#


def randn(rng, *shape, scale=1.0):
    """Normal samples as float32, each a FLOAT value."""
    x = (rng.standard_normal(shape) * scale).astype(np.float32)
    return np.asarray(from_float_type(to_float_type(x)), np.float32)


def valid_lens(rng, shape, high, dtype):
    """Random lengths in [-1, high] that include 0 and high when there are
    at least two of them, and a negative one when there are three: a length
    of 0 or less masks every key (uniform weights, as d2l gives)."""
    lens = rng.integers(-1, high + 1, size=shape)
    flat = lens.reshape(-1)
    fixed = [0, high, -2][:min(flat.size, 3)] if flat.size >= 2 else []
    if fixed:
        flat[rng.choice(flat.size, len(fixed), replace=False)] = fixed
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
    c.op("tfm.batch_matmul", c.args_of(("lhs", lhs), ("rhs", rhs)),
         attrs={"transpose_rhs": transpose})
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
    lens = None if shape is None else valid_lens(rng, shape, k, dtype)
    c.op("tfm.masked_softmax", [c.arg("input", x)],
         groups={"valid_lens": c.arg("valid_lens", lens)})
    c.expected = ref.masked_softmax(x, lens)
    return c


def attention(p, rng):
    """batch=2 sq=7 sk=9 d=16 dv=d valid_lens=none|batch|query lens_type
    mask=SHAPE (broadcastable to batch x sq x sk) causal scale=S
    kv_heads=H (grouped-query: key and value with H heads, the last batch
    dimension) query_offset=N (with causal)"""
    batch, sq, sk = p.shape("batch", "2"), p.int("sq", 7), p.int("sk", 9)
    d = p.int("d", 16)
    dv = p.int("dv", d)
    shape = lens_shape(p, batch, sq)
    dtype = int_dtype(p)
    mask_shape = p.shape("mask", "-") if p.has("mask") else None
    causal, scale = p.flag("causal"), p.float("scale")
    kv_batch = batch[:-1] + (p.int("kv_heads", batch[-1]),) if batch \
        else batch
    offset = p.int("query_offset", 0)
    c = Case()
    q, k, v = randn(rng, *batch, sq, d), randn(rng, *kv_batch, sk, d), \
        randn(rng, *kv_batch, sk, dv)
    lens = None if shape is None else valid_lens(rng, shape, sk, dtype)
    mask = None if mask_shape is None else randn(rng, *mask_shape)
    operands = c.args_of(("query", q), ("key", k), ("value", v))
    c.op("tfm.attention", operands,
         groups={"valid_lens": c.arg("valid_lens", lens),
                 "mask": c.arg("mask", mask),
                 "query_offset": c.main.index(offset) if offset else None},
         attrs={"causal": causal, "scale": scale})
    c.expected = ref.attention(q, k, v, lens, mask, scale, causal, offset)
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
    lens = None if shape is None else valid_lens(rng, shape, sk, dtype)
    c.op("tfm.additive_attention",
         c.args_of(("query", q), ("key", k), ("value", v)),
         groups={"weights": c.args_of(("w_q", w_q), ("w_k", w_k),
                                      ("w_v", w_v)),
                 "valid_lens": c.arg("valid_lens", lens)})
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
    c.op("tfm.kernel_pooling",
         c.args_of(("queries", queries), ("keys", keys), ("values", values)),
         attrs={"kernel": graph.enum("tfm.kernel", kernel),
                "bandwidth": bandwidth})
    c.expected = ref.kernel_pooling(queries, keys, values, kernel,
                                    1.0 if bandwidth is None else bandwidth)
    return c


def split_heads(p, rng):
    """b=2 s=7 heads=5 dh=3"""
    b, s, h, dh = p.int("b", 2), p.int("s", 7), p.int("heads", 5), \
        p.int("dh", 3)
    c = Case()
    x = randn(rng, b, s, h * dh)
    c.op("tfm.split_heads", [c.arg("input", x)], attrs={"num_heads": h})
    c.expected = ref.split_heads(x, h)
    return c


def merge_heads(p, rng):
    """b=2 s=7 heads=5 dh=3"""
    b, s, h, dh = p.int("b", 2), p.int("s", 7), p.int("heads", 5), \
        p.int("dh", 3)
    c = Case()
    x = randn(rng, b * h, s, dh)
    c.op("tfm.merge_heads", [c.arg("input", x)], attrs={"num_heads": h})
    c.expected = ref.merge_heads(x, h)
    return c


def multi_head_attention(p, rng):
    """b=2 sq=7 sk=sq heads=4 d=32 dq=d dk=dq dv=dk do=d biases
    valid_lens=none|batch|query lens_type mask=SHAPE causal scale=S
    self (query, key and value are one argument) kv_heads=H
    (grouped-query: w_k and w_v project to H heads)"""
    b, sq, heads, d = p.int("b", 2), p.int("sq", 7), p.int("heads", 4), \
        p.int("d", 32)
    kv_heads = p.int("kv_heads", heads)
    d_kv = d // heads * kv_heads
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
        x = c.arg("x", query)
        operands = [x, x, x]
    else:
        key, value = randn(rng, b, sk, dk), randn(rng, b, sk, dv)
        operands = c.args_of(("query", query), ("key", key),
                             ("value", value))
    init = 1 / math.sqrt(max(dq, dk, dv, d))
    weights = [randn(rng, d, dq, scale=init),
               randn(rng, d_kv, dk, scale=init),
               randn(rng, d_kv, dv, scale=init), randn(rng, do, d, scale=init)]
    weight_args = c.args_of(*((f"w_{n}", w) for n, w in zip("qkvo", weights)))
    biases = bias_args = None
    if with_biases:
        biases = [randn(rng, d), randn(rng, d_kv), randn(rng, d_kv),
                  randn(rng, do)]
        bias_args = c.args_of(*((f"b_{n}", b) for n, b in zip("qkvo", biases)))
    lens = None if shape is None else valid_lens(rng, shape, sk, dtype)
    mask = None if mask_shape is None else randn(rng, *mask_shape)
    c.op("tfm.multi_head_attention", operands,
         groups={"weights": weight_args, "biases": bias_args,
                 "valid_lens": c.arg("valid_lens", lens),
                 "mask": c.arg("mask", mask)},
         attrs={"causal": causal, "num_heads": heads,
                "num_kv_heads": kv_heads if p.has("kv_heads") else None,
                "scale": scale})
    c.expected = ref.multi_head_attention(query, key, value, *weights, heads,
                                          biases, lens, mask, scale, causal,
                                          kv_heads)
    return c


ACTIVATIONS = ("none", "relu", "gelu", "gelu_tanh", "silu")


def linear(p, rng):
    """batch=2x3 k=7 n=9 bias activation=none|relu|gelu|gelu_tanh|silu
    scale=S (of the input: the activations' tails)"""
    batch, k, n = p.shape("batch", "2x3"), p.int("k", 7), p.int("n", 9)
    with_bias = p.flag("bias")
    activation = p.choice("activation", "none", ACTIVATIONS)
    c = Case()
    x = randn(rng, *batch, k, scale=p.float("scale", 1.0))
    w = randn(rng, n, k, scale=1 / math.sqrt(k))
    b = randn(rng, n) if with_bias else None
    c.op("tfm.linear", c.args_of(("input", x), ("weight", w), ("bias", b)),
         attrs={"activation": graph.enum("tfm.activation", activation)
                if p.has("activation") else None})
    c.expected = ref.linear(x, w, b, activation)
    return c


def ffn(p, rng):
    """batch=2x3 d=7 f=9 do=d biases=both|b1|b2|none activation
    gate=none|plain|bias (the gated form, its gate with or without bias)"""
    batch, d, f = p.shape("batch", "2x3"), p.int("d", 7), p.int("f", 9)
    do = p.int("do", d)
    biases = p.choice("biases", "both", ("both", "b1", "b2", "none"))
    activation = p.choice("activation", "relu", ACTIVATIONS[1:])
    gate = p.choice("gate", "none", ("none", "plain", "bias"))
    c = Case()
    x = randn(rng, *batch, d)
    w1, w2 = randn(rng, f, d, scale=1 / math.sqrt(d)), \
        randn(rng, do, f, scale=1 / math.sqrt(f))
    b1 = randn(rng, f) if biases in ("both", "b1") else None
    b2 = randn(rng, do) if biases in ("both", "b2") else None
    wg = None if gate == "none" else randn(rng, f, d, scale=1 / math.sqrt(d))
    bg = randn(rng, f) if gate == "bias" else None
    c.op("tfm.ffn", [c.arg("input", x)],
         groups={"gate": c.args_of(("w_gate", wg), ("b_gate", bg)) or None,
                 "dense1": c.args_of(("w1", w1), ("b1", b1)),
                 "dense2": c.args_of(("w2", w2), ("b2", b2))},
         attrs={"activation": graph.enum("tfm.activation", activation)
                if p.has("activation") else None})
    c.expected = ref.ffn(x, w1, b1, w2, b2, activation, wg, bg)
    return c


def layer_norm(p, rng):
    """batch=2x3 d=7 epsilon=E offset=O (added to the input: a large
    mean tests the variance's cancellation)"""
    batch, d, eps = p.shape("batch", "2x3"), p.int("d", 7), p.float("epsilon")
    c = Case()
    x = randn(rng, *batch, d) + np.float32(p.float("offset", 0.0))
    gamma, beta = 1 + randn(rng, d, scale=0.5), randn(rng, d)
    c.op("tfm.layer_norm",
         c.args_of(("input", x), ("gamma", gamma), ("beta", beta)),
         attrs={"epsilon": eps})
    c.expected = ref.layer_norm(x, gamma, beta, 1e-5 if eps is None else eps)
    return c


def rms_norm(p, rng):
    """batch=2x3 d=7 epsilon=E offset=O (added to the input)"""
    batch, d, eps = p.shape("batch", "2x3"), p.int("d", 7), p.float("epsilon")
    c = Case()
    x = randn(rng, *batch, d) + np.float32(p.float("offset", 0.0))
    gamma = 1 + randn(rng, d, scale=0.5)
    c.op("tfm.rms_norm", c.args_of(("input", x), ("gamma", gamma)),
         attrs={"epsilon": eps})
    c.expected = ref.rms_norm(x, gamma, 1e-6 if eps is None else eps)
    return c


def add_norm(p, rng):
    """batch=2x3 d=7 epsilon=E dropout=R"""
    batch, d, eps = p.shape("batch", "2x3"), p.int("d", 7), p.float("epsilon")
    rate = p.float("dropout")
    c = Case()
    x, y = randn(rng, *batch, d), randn(rng, *batch, d)
    gamma, beta = 1 + randn(rng, d, scale=0.5), randn(rng, d)
    c.op("tfm.add_norm",
         c.args_of(("residual", x), ("sublayer", y), ("gamma", gamma),
                   ("beta", beta)),
         attrs={"epsilon": eps, "dropout": rate})
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
    c.op("tfm.gelu", [c.arg("input", x)], same_type=True,
         attrs={"approximate": graph.enum("tfm.gelu_approximation",
                                          approximate)
                if p.has("approximate") else None})
    c.expected = ref.gelu(x, approximate)
    return c


def dropout(p, rng):
    """shape=2x7x9 rate=0.1"""
    shape, rate = p.shape("shape", "2x7x9"), p.float("rate", 0.1)
    c = Case()
    x = randn(rng, *shape)
    c.op("tfm.dropout", [c.arg("input", x)], attrs={"rate": rate},
         same_type=True)
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
    c.op("tfm.embedding", c.args_of(("indices", ids), ("table", table)),
         attrs={"scale_by_sqrt_dim": scaled})
    c.expected = ref.embedding(ids, table, scaled)
    return c


def positional_encoding(p, rng):
    """shape=2x7x16 (the last two dimensions are S and D)"""
    shape = p.shape("shape", "2x7x16")
    c = Case()
    x = randn(rng, *shape)
    c.op("tfm.positional_encoding", [c.arg("input", x)], same_type=True)
    c.expected = ref.positional_encoding(x)
    return c


def rotary_embedding(p, rng):
    """batch=2x4 s=5 d=8 positions=P offset=O interleaved (tables of P rows,
    default O + s, of angles p * 10000^(-2i/d) as Llama's)"""
    batch, s, d = p.shape("batch", "2x4"), p.int("s", 5), p.int("d", 8)
    offset = p.int("offset", 0)
    rows = p.int("positions", offset + s)
    interleaved = p.flag("interleaved")
    c = Case()
    x = randn(rng, *batch, s, d)
    angles = np.outer(np.arange(rows),
                      10000.0 ** (-np.arange(0, d, 2) / d))
    cos, sin = np.cos(angles).astype(np.float32), np.sin(angles).astype(np.float32)
    operands = c.args_of(("input", x), ("cos", cos), ("sin", sin))
    off = c.main.index(offset, name="offset") if p.has("offset") else None
    c.op("tfm.rotary_embedding", operands, groups={"offset": off},
         attrs={"interleaved": True if interleaved else None})
    c.expected = ref.rotary_embedding(x, cos, sin, offset, interleaved)
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
    c.op("tfm.patch_embed",
         c.args_of(("image", image), ("weight", weight), ("bias", bias)))
    c.expected = ref.patch_embed(image, weight, bias)
    return c


def prepend_class_token(p, rng):
    """b=2 n=7 d=9"""
    b, n, d = p.int("b", 2), p.int("n", 7), p.int("d", 9)
    c = Case()
    x, cls = randn(rng, b, n, d), randn(rng, 1, 1, d)
    c.op("tfm.prepend_class_token",
         c.args_of(("input", x), ("class_token", cls)))
    c.expected = ref.prepend_class_token(x, cls)
    return c


OPS = {f.__name__: f for f in [
    batch_matmul, masked_softmax, attention, additive_attention,
    kernel_pooling, split_heads, merge_heads, multi_head_attention, linear,
    ffn, layer_norm, rms_norm, add_norm, gelu, dropout, embedding,
    positional_encoding, rotary_embedding, patch_embed, prepend_class_token]}


#===----------------------------------------------------------------------===#
# Compile, run, compare
#===----------------------------------------------------------------------===#


def check(case, compiler, work, tolerance, flags=()):
    graph = runner.write_text(os.path.join(work, "graph.mlir"),
                              case.text())
    exe, out = os.path.join(work, "graph"), os.path.join(work, "result.npy")
    inputs = runner.save_arrays(work, case.args)
    weights = None
    if case.weights:
        weights = os.path.join(work, "weights.safetensors")
        safetensors.save(weights, case.weights)
    with runner.exit_on_failure():
        runner.compile_graph(compiler, graph, exe, flags, weights)
        runner.run_model(exe, inputs, [out])
    result = np.load(out)
    stored = np.uint16 if FLOAT == "bfloat16" else np.dtype(FLOAT)
    if result.dtype != stored:
        print(f"error: result is {result.dtype}, expected {np.dtype(stored)}")
        return False
    if compare.check(from_float_type(result), case.expected, tolerance):
        return True
    print(f"graph in {graph}")
    return False


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
    parser.add_argument("--tolerance", type=float, default=compare.TOLERANCE)
    parser.add_argument("--dtype", choices=("float32", "float16", "bfloat16"),
                        default="float32",
                        help="the element type of the floating-point inputs "
                        "and of the result")
    parser.add_argument("--bind", default="",
                        help="arguments to bind at compile time, as "
                        "weights (comma-separated names, e.g. weight,bias)")
    parser.add_argument("--print", action="store_true",
                        help="print the graph and stop")
    parser.add_argument("--list", action="store_true",
                        help="list the ops and their parameters")
    args = parser.parse_intermixed_args()
    if args.list or args.op is None:
        for name, f in OPS.items():
            print(f"{name}: {' '.join(f.__doc__.split())}")
        return 0
    global FLOAT
    FLOAT = args.dtype
    params = Params(args.params)
    Case.bound = frozenset(n for n in args.bind.split(",") if n)
    case = OPS[args.op](params, np.random.default_rng(args.seed))
    params.check_all_read()
    if args.print:
        print(case.text(), end="")
        return 0
    if args.work:
        return 0 if check(case, args.compiler, args.work, args.tolerance,
                          args.flag) else 1
    with tempfile.TemporaryDirectory() as work:
        return 0 if check(case, args.compiler, work, args.tolerance,
                          args.flag) else 1


if __name__ == "__main__":
    sys.exit(main())
