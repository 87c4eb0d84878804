"""NumPy references of every tfm op and of the example models.

Each function is written from the math, or from the PyTorch code of d2l's
chapter 11 where d2l defines the op, never from tfm's lowering. Everything is
computed in float64: inputs are cast on entry, so a caller may pass float32
arrays and compare a float32 result against the float64 answer.

`python3 python/tfm_tools/reference.py --self-test` checks the references
against small cases worked out by hand and against each other (a layer
written two ways).
"""

import math

import numpy as np

# d2l's masked_softmax replaces masked scores by this value before the
# softmax.
D2L_MASK_VALUE = -1e6


def _f64(*arrays):
    return [None if a is None else np.asarray(a, dtype=np.float64)
            for a in arrays]


def softmax(x, axis=-1):
    """The softmax of `x` along `axis`, stable for -inf entries."""
    x = np.asarray(x, dtype=np.float64)
    m = np.max(x, axis=axis, keepdims=True)
    e = np.exp(x - m)
    return e / np.sum(e, axis=axis, keepdims=True)


#===----------------------------------------------------------------------===#
# Attention family
#===----------------------------------------------------------------------===#


def batch_matmul(lhs, rhs, transpose_rhs=False):
    """torch.bmm over the last two dimensions, any number of batch dims."""
    lhs, rhs = _f64(lhs, rhs)
    if transpose_rhs:
        rhs = np.swapaxes(rhs, -1, -2)
    return np.matmul(lhs, rhs)


def _valid_mask(shape, valid_lens):
    """True where key position j < valid length, for scores of `shape`.

    `valid_lens` is `[...]` (one length per batch) or `[..., Q]` (one per
    query), as in d2l's masked_softmax.
    """
    lens = np.asarray(valid_lens)
    q, k = shape[-2], shape[-1]
    batch = tuple(shape[:-2])
    if lens.shape == batch:
        lens = np.broadcast_to(lens[..., None], batch + (q,))
    if lens.shape != batch + (q,):
        raise ValueError(f"valid_lens of shape {lens.shape} for scores "
                         f"{tuple(shape)}")
    return np.arange(k) < lens[..., None]


def masked_softmax(x, valid_lens=None):
    """d2l's masked_softmax: keys at or past the valid length get -1e6."""
    (x,) = _f64(x)
    if valid_lens is not None:
        x = np.where(_valid_mask(x.shape, valid_lens), x, D2L_MASK_VALUE)
    return softmax(x, axis=-1)


def attention(query, key, value, valid_lens=None, mask=None, scale=None,
              causal=False, query_offset=0):
    """Scaled dot-product attention over the last two dimensions.

    The scores are `Q Kᵀ · scale` (scale 1/sqrt(D) by default), plus the
    additive `mask`; keys at or past `valid_lens` are then replaced by -1e6
    (d2l's DotProductAttention), and with `causal` key j > query i +
    query_offset is -inf (PyTorch's is_causal, aligned at the top left
    without an offset). Grouped-query attention: key and value with fewer
    heads (dimension -3) than query are repeated to query's heads, each
    key/value head for its group of consecutive query heads (Hugging Face's
    repeat_kv).
    """
    query, key, value, mask = _f64(query, key, value, mask)
    if query.ndim >= 3 and key.shape[-3] != query.shape[-3]:
        group = query.shape[-3] // key.shape[-3]
        key = np.repeat(key, group, axis=-3)
        value = np.repeat(value, group, axis=-3)
    if scale is None:
        scale = 1.0 / math.sqrt(query.shape[-1])
    scores = batch_matmul(query, key, transpose_rhs=True) * scale
    if mask is not None:
        scores = scores + mask
    if valid_lens is not None:
        scores = np.where(_valid_mask(scores.shape, valid_lens), scores,
                          D2L_MASK_VALUE)
    if causal:
        sq, sk = scores.shape[-2:]
        future = (np.arange(sk)[None, :]
                  > np.arange(sq)[:, None] + query_offset)
        scores = np.where(future, -np.inf, scores)
    return np.matmul(softmax(scores, axis=-1), value)


def additive_attention(query, key, value, w_q, w_k, w_v, valid_lens=None):
    """d2l's AdditiveAttention with nn.Linear(bias=False) weights."""
    query, key, value, w_q, w_k, w_v = _f64(query, key, value, w_q, w_k, w_v)
    q = query @ w_q.T                                   # [..., Sq, H]
    k = key @ w_k.T                                     # [..., Sk, H]
    features = np.tanh(q[..., :, None, :] + k[..., None, :, :])
    scores = (features @ w_v.T)[..., 0]                 # [..., Sq, Sk]
    return masked_softmax(scores, valid_lens) @ value


_KERNELS = {
    "gaussian": lambda x: np.exp(-x * x / 2),
    "boxcar": lambda x: (np.abs(x) < 1.0).astype(np.float64),
    "constant": lambda x: np.ones_like(x),
    "epanechikov": lambda x: np.maximum(0.0, 1.0 - np.abs(x)),
}


def kernel_pooling(queries, keys, values, kernel, bandwidth=1.0):
    """d2l 11.2's Nadaraya-Watson pooling: weights normalised over keys."""
    queries, keys, values = _f64(queries, keys, values)
    dist = (queries[..., :, None] - keys[..., None, :]) / bandwidth
    w = _KERNELS[kernel](dist)                          # [..., Q, K]
    with np.errstate(invalid="ignore", divide="ignore"):
        w = w / w.sum(axis=-1, keepdims=True)
    if values.ndim == keys.ndim:                        # scalar values
        return (w * values[..., None, :]).sum(axis=-1)
    return w @ values


def split_heads(x, num_heads):
    """d2l's transpose_qkv: [B, S, H*Dh] -> [B*H, S, Dh]."""
    (x,) = _f64(x)
    b, s, _ = x.shape
    x = x.reshape(b, s, num_heads, -1).transpose(0, 2, 1, 3)
    return x.reshape(-1, s, x.shape[3])


def merge_heads(x, num_heads):
    """d2l's transpose_output: [B*H, S, Dh] -> [B, S, H*Dh]."""
    (x,) = _f64(x)
    x = x.reshape(-1, num_heads, x.shape[1], x.shape[2]).transpose(0, 2, 1, 3)
    return x.reshape(x.shape[0], x.shape[1], -1)


def multi_head_attention(query, key, value, w_q, w_k, w_v, w_o, num_heads,
                         biases=None, valid_lens=None, mask=None, scale=None,
                         causal=False, num_kv_heads=None):
    """d2l's MultiHeadAttention; `biases` is (b_q, b_k, b_v, b_o) or None.
    With num_kv_heads, grouped-query: w_k and w_v project to that many
    heads, repeated for their groups of query heads by attention()."""
    b_q, b_k, b_v, b_o = biases if biases is not None else (None,) * 4
    kv_heads = num_kv_heads or num_heads
    q = split_heads(linear(query, w_q, b_q), num_heads)
    k = split_heads(linear(key, w_k, b_k), kv_heads)
    v = split_heads(linear(value, w_v, b_v), kv_heads)
    if valid_lens is not None:
        # torch.repeat_interleave(valid_lens, repeats=num_heads, dim=0)
        valid_lens = np.repeat(np.asarray(valid_lens), num_heads, axis=0)
    if scale is None:
        scale = 1.0 / math.sqrt(q.shape[-1])
    out = attention(q, k, v, valid_lens, mask, scale, causal)
    return linear(merge_heads(out, num_heads), w_o, b_o)


#===----------------------------------------------------------------------===#
# Layer family
#===----------------------------------------------------------------------===#


def relu(x):
    return np.maximum(np.asarray(x, dtype=np.float64), 0.0)


_erf = np.vectorize(math.erf, otypes=[np.float64])


def gelu(x, approximate="none"):
    """PyTorch's nn.GELU(approximate=...): exact (erf) or tanh form."""
    (x,) = _f64(x)
    if approximate == "tanh":
        inner = math.sqrt(2.0 / math.pi) * (x + 0.044715 * x**3)
        return 0.5 * x * (1.0 + np.tanh(inner))
    return 0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)))


def rotary_embedding(x, cos, sin, offset=0, interleaved=False):
    """RoPE on x [..., S, D]: each pair (a, b), (x[i], x[i + D/2]) or with
    INTERLEAVED (x[2i], x[2i + 1]), at position p = OFFSET + s becomes
    (a cos - b sin, b cos + a sin) with cos, sin = COS[p, i], SIN[p, i];
    as a complex product, (a + ib) * e^(i angle)."""
    x, cos, sin = _f64(x, cos, sin)
    s, half = x.shape[-2], x.shape[-1] // 2
    if interleaved:
        pairs = x[..., 0::2] + 1j * x[..., 1::2]
    else:
        pairs = x[..., :half] + 1j * x[..., half:]
    rotated = pairs * (cos[offset:offset + s] + 1j * sin[offset:offset + s])
    if interleaved:
        return np.stack([rotated.real, rotated.imag], -1).reshape(x.shape)
    return np.concatenate([rotated.real, rotated.imag], -1)


def dropout(x, rate=0.0):
    """nn.Dropout in eval mode: the identity."""
    return np.asarray(x, dtype=np.float64)


def silu(x):
    """x * sigmoid(x) (nn.SiLU; Llama's gate)."""
    (x,) = _f64(x)
    return x / (1.0 + np.exp(-x))


_ACTIVATIONS = {
    "none": lambda x: x,
    "silu": silu,
    "relu": relu,
    "gelu": gelu,
    "gelu_tanh": lambda x: gelu(x, "tanh"),
}


def linear(x, weight, bias=None, activation="none"):
    """nn.Linear (x·Wᵀ + b) followed by `activation`."""
    x, weight, bias = _f64(x, weight, bias)
    y = x @ weight.T
    if bias is not None:
        y = y + bias
    return _ACTIVATIONS[activation](y)


def ffn(x, w1, b1, w2, b2, activation="relu", w_gate=None, b_gate=None):
    """d2l's PositionWiseFFN / ViT's MLP: dense2(act(dense1(x))); with
    w_gate, the GLU form dense2(act(gate(x)) * dense1(x)) (SwiGLU with
    silu, GeGLU with gelu)."""
    if w_gate is None:
        return linear(linear(x, w1, b1, activation), w2, b2)
    hidden = linear(x, w_gate, b_gate, activation) * linear(x, w1, b1)
    return linear(hidden, w2, b2)


def layer_norm(x, gamma, beta, epsilon=1e-5):
    """nn.LayerNorm over the last dimension (biased variance)."""
    x, gamma, beta = _f64(x, gamma, beta)
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + epsilon) * gamma + beta


def rms_norm(x, gamma, epsilon=1e-6):
    """RMSNorm over the last dimension: x / sqrt(mean(x^2) + eps) * gamma."""
    x, gamma = _f64(x, gamma)
    return x / np.sqrt((x ** 2).mean(axis=-1, keepdims=True) + epsilon) * gamma


def add_norm(residual, sublayer, gamma, beta, epsilon=1e-5):
    """d2l's AddNorm: LN(dropout(Y) + X)."""
    residual, sublayer = _f64(residual, sublayer)
    return layer_norm(dropout(sublayer) + residual, gamma, beta, epsilon)


#===----------------------------------------------------------------------===#
# Embedding family
#===----------------------------------------------------------------------===#


def embedding(indices, table, scale_by_sqrt_dim=False):
    """nn.Embedding, optionally times sqrt(D) as d2l's TransformerEncoder."""
    (table,) = _f64(table)
    out = table[np.asarray(indices)]
    if scale_by_sqrt_dim:
        out = out * math.sqrt(table.shape[-1])
    return out


def positional_encoding_table(seq_len, dim):
    """d2l's P[:seq_len]: P[i, 2j] = sin(i / 10000^(2j/D)), P[i, 2j+1] = cos."""
    pos = np.arange(seq_len, dtype=np.float64)[:, None]
    angle = pos / np.power(10000.0, np.arange(0, dim, 2) / dim)
    p = np.zeros((seq_len, dim))
    p[:, 0::2] = np.sin(angle)
    p[:, 1::2] = np.cos(angle)
    return p


def positional_encoding(x):
    """d2l's PositionalEncoding without its dropout: X + P."""
    (x,) = _f64(x)
    return x + positional_encoding_table(x.shape[-2], x.shape[-1])


def patch_embed(image, weight, bias=None):
    """Conv2d(kernel = stride = patch) on NCHW, then flatten(2).transpose(1, 2).

    Written as the convolution it is: every output pixel (u, v) of channel d
    is the sum over c, i, j of weight[d, c, i, j] * image[c, u*ph+i, v*pw+j].
    """
    image, weight, bias = _f64(image, weight, bias)
    b, c, h, w = image.shape
    d, _, ph, pw = weight.shape
    gh, gw = h // ph, w // pw
    conv = np.zeros((b, d, gh, gw))
    for i in range(ph):
        for j in range(pw):
            pixels = image[:, :, i:gh * ph:ph, j:gw * pw:pw]   # [B, C, gh, gw]
            conv += np.einsum("bcuv,dc->bduv", pixels, weight[:, :, i, j])
    if bias is not None:
        conv += bias[None, :, None, None]
    return conv.reshape(b, d, gh * gw).transpose(0, 2, 1)


def prepend_class_token(x, class_token):
    """torch.cat((cls_token.expand(B, -1, -1), X), dim=1)."""
    x, class_token = _f64(x, class_token)
    cls = np.broadcast_to(class_token, (x.shape[0], 1, x.shape[2]))
    return np.concatenate([cls, x], axis=1)


#===----------------------------------------------------------------------===#
# The example models, on state_dict-like weights (see examples/*.mlir and
# examples/make_weights.py for the names).
#===----------------------------------------------------------------------===#


def _mha(p, prefix, q, k, v, num_heads, valid_lens=None, biases=False):
    w = [p[f"{prefix}.W_{n}.weight"] for n in "qkvo"]
    b = [p[f"{prefix}.W_{n}.bias"] for n in "qkvo"] if biases else None
    return multi_head_attention(q, k, v, *w, num_heads, biases=b,
                                valid_lens=valid_lens)


def _ln(p, prefix, x, epsilon=1e-5):
    return layer_norm(x, p[f"{prefix}.weight"], p[f"{prefix}.bias"], epsilon)


def _ffn(p, prefix, x, activation="relu"):
    return ffn(x, p[f"{prefix}.dense1.weight"], p[f"{prefix}.dense1.bias"],
               p[f"{prefix}.dense2.weight"], p[f"{prefix}.dense2.bias"],
               activation)


def encoder_block(p, x, valid_lens, num_heads=4, prefix=""):
    """d2l's TransformerEncoderBlock (post-norm)."""
    y = add_norm(x, _mha(p, prefix + "attention", x, x, x, num_heads,
                         valid_lens),
                 p[prefix + "addnorm1.ln.weight"],
                 p[prefix + "addnorm1.ln.bias"])
    return add_norm(y, _ffn(p, prefix + "ffn", y),
                    p[prefix + "addnorm2.ln.weight"],
                    p[prefix + "addnorm2.ln.bias"])


def transformer_encoder(p, tokens, valid_lens, num_heads=4, num_blks=2):
    """d2l's TransformerEncoder: embedding * sqrt(d) + P, then the blocks."""
    x = positional_encoding(embedding(tokens, p["embedding.weight"], True))
    for i in range(num_blks):
        x = encoder_block(p, x, valid_lens, num_heads, f"blks.block{i}.")
    return x


def decoder_block(p, x, enc_outputs, enc_valid_lens, num_heads=4):
    """d2l's TransformerDecoderBlock in training mode (whole target at once).

    d2l masks the self-attention with dec_valid_lens = [1, ..., num_steps]
    per query, which is what examples/decoder_block.mlir expresses as
    `causal`; the reference uses d2l's form.
    """
    batch, steps, _ = np.shape(x)
    dec_valid_lens = np.tile(np.arange(1, steps + 1), (batch, 1))
    x2 = _mha(p, "attention1", x, x, x, num_heads, dec_valid_lens)
    y = add_norm(x, x2, p["addnorm1.ln.weight"], p["addnorm1.ln.bias"])
    y2 = _mha(p, "attention2", y, enc_outputs, enc_outputs, num_heads,
              enc_valid_lens)
    z = add_norm(y, y2, p["addnorm2.ln.weight"], p["addnorm2.ln.bias"])
    return add_norm(z, _ffn(p, "ffn", z), p["addnorm3.ln.weight"],
                    p["addnorm3.ln.bias"])


def vit_block(p, prefix, x, num_heads):
    """d2l's ViTBlock (pre-norm): X + MHA(LN1(X)), then X + MLP(LN2(X))."""
    n1 = _ln(p, prefix + "ln1", x)
    x = x + _mha(p, prefix + "attention", n1, n1, n1, num_heads, biases=True)
    return x + _ffn(p, prefix + "mlp", _ln(p, prefix + "ln2", x), "gelu")


def vit(p, image, num_heads=3, num_blks=2):
    """d2l's ViT as examples/vit.mlir builds it; returns the logits."""
    x = patch_embed(image, p["patch_embedding.conv.weight"],
                    p["patch_embedding.conv.bias"])
    x = prepend_class_token(x, p["cls_token"]) + p["pos_embedding"]
    for i in range(num_blks):
        x = vit_block(p, f"blks.block{i}.", x, num_heads)
    cls = _ln(p, "head.0", x[:, 0])
    return linear(cls, p["head.1.weight"], p["head.1.bias"])


#===----------------------------------------------------------------------===#
# Self-test: tiny cases worked out by hand, and layers written two ways.
#===----------------------------------------------------------------------===#


def _close(name, got, want, tol=1e-12):
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    if got.shape != want.shape or not np.allclose(got, want, rtol=tol,
                                                  atol=tol, equal_nan=True):
        raise AssertionError(f"{name}: got\n{got}\nexpected\n{want}")
    print(f"ok {name}")


def self_test():
    rng = np.random.default_rng(0)

    # d2l's bmm example: ones(2, 3, 4) @ ones(2, 4, 6) is 4 everywhere.
    _close("batch_matmul", batch_matmul(np.ones((2, 3, 4)),
                                        np.ones((2, 4, 6))),
           np.full((2, 3, 6), 4.0))
    a, b = rng.standard_normal((2, 3, 4)), rng.standard_normal((2, 5, 4))
    _close("batch_matmul transpose_rhs", batch_matmul(a, b, True),
           [a[i] @ b[i].T for i in range(2)])

    # masked_softmax of zeros: uniform over the first valid_len keys; a
    # length of 0 gives the uniform distribution over all keys (d2l).
    _close("masked_softmax", masked_softmax(np.zeros((3, 1, 4)), [2, 4, 0]),
           [[[.5, .5, 0, 0]], [[.25] * 4], [[.25] * 4]])
    _close("masked_softmax per query",
           masked_softmax(np.zeros((1, 2, 3)), [[1, 3]]),
           [[[1, 0, 0], [1 / 3] * 3]])
    _close("masked_softmax values", masked_softmax([[0.0, math.log(3.0)]]),
           [[0.25, 0.75]])

    # One query, two keys: scores 0 and 2/sqrt(4) = 1.
    q, k = np.array([[[1.0, 1, 1, 1]]]), np.array([[[0.0, 0, 0, 0],
                                                     [1.0, 1, 0, 0]]])
    v = np.array([[[10.0], [20.0]]])
    w1 = math.e / (1 + math.e)
    _close("attention", attention(q, k, v), [[[10 * (1 - w1) + 20 * w1]]])
    _close("attention valid_lens", attention(q, k, v, valid_lens=[1]),
           [[[10.0]]])
    _close("attention mask", attention(q, k, v, mask=[[0.0, -1.0]]),
           [[[15.0]]])
    _close("attention scale", attention(q, k, v, scale=0.0), [[[15.0]]])
    # Causal: query 0 sees key 0 only, query 1 both keys.
    q2 = np.zeros((2, 4))
    _close("attention causal", attention(q2, k[0], v[0], causal=True),
           [[10.0], [15.0]])
    # Causal equals d2l's dec_valid_lens = [1, 2, ..., S].
    q3, k3, v3 = (rng.standard_normal((2, 5, 4)) for _ in range(3))
    _close("attention causal = per-query valid_lens",
           attention(q3, k3, v3, causal=True),
           attention(q3, k3, v3, valid_lens=np.tile(np.arange(1, 6), (2, 1))))
    # Leading batch dims: 4D equals the flattened 3D.
    q4, k4, v4 = (rng.standard_normal((2, 3, 5, 4)) for _ in range(3))
    _close("attention 4D", attention(q4, k4, v4, valid_lens=[[1, 2, 3]] * 2),
           attention(q4.reshape(6, 5, 4), k4.reshape(6, 5, 4),
                     v4.reshape(6, 5, 4), valid_lens=[1, 2, 3] * 2)
           .reshape(2, 3, 5, 4))

    # Additive attention with H = 1, w_q = w_k = 0: uniform weights.
    _close("additive_attention uniform",
           additive_attention(np.ones((1, 1, 2)), np.ones((1, 3, 2)),
                              np.array([[[1.0], [2.0], [6.0]]]),
                              np.zeros((1, 2)), np.zeros((1, 2)),
                              np.ones((1, 1))),
           [[[3.0]]])
    # Score of key j is tanh(k_j): keys atanh(0), atanh(ln 2): weights 1:2.
    keys = np.array([[[0.0], [math.atanh(math.log(2.0))]]])
    _close("additive_attention scores",
           additive_attention(np.zeros((1, 1, 1)), keys,
                              np.array([[[3.0], [6.0]]]), np.ones((1, 1)),
                              np.ones((1, 1)), np.ones((1, 1))),
           [[[5.0]]])

    # Kernels at distances 0 and 2 (bandwidth 2 -> 0 and 1).
    kq, kk, kv = np.array([0.0]), np.array([0.0, 2.0]), np.array([1.0, 4.0])
    g = math.exp(-0.5)
    _close("kernel_pooling gaussian",
           kernel_pooling(kq, kk, kv, "gaussian", 2.0), [(1 + 4 * g) / (1 + g)])
    _close("kernel_pooling boxcar", kernel_pooling(kq, kk, kv, "boxcar", 2.0),
           [1.0])
    _close("kernel_pooling constant",
           kernel_pooling(kq, kk, kv, "constant"), [2.5])
    _close("kernel_pooling epanechikov",
           kernel_pooling(np.array([0.5]), kk, kv, "epanechikov", 2.0),
           [(0.75 * 1 + 0.25 * 4) / 1.0])
    _close("kernel_pooling vector values",
           kernel_pooling(kq, kk, np.stack([kv, 2 * kv], -1), "constant"),
           [[2.5, 5.0]])

    # d2l's transpose_qkv example: [2, 4, 100] with 5 heads -> [10, 4, 20].
    x = rng.standard_normal((2, 4, 100))
    h = split_heads(x, 5)
    _close("split_heads shape", h.shape, (10, 4, 20))
    _close("split_heads head 7 = batch 1, head 2", h[7], x[1, :, 40:60])
    _close("merge_heads inverts split_heads", merge_heads(h, 5), x)

    # Multi-head attention with one head and identity projections is
    # attention; valid_lens repeat per head.
    x = rng.standard_normal((2, 3, 4))
    eye = np.eye(4)
    _close("multi_head_attention 1 head",
           multi_head_attention(x, x, x, eye, eye, eye, eye, 1,
                                valid_lens=[1, 2]),
           attention(x, x, x, valid_lens=[1, 2]))
    # Block-diagonal heads: head 1 sees features 2..3 only.
    out = multi_head_attention(x, x, x, eye, eye, eye, eye, 2, causal=True)
    _close("multi_head_attention head split", out[..., 2:],
           attention(x[..., 2:], x[..., 2:], x[..., 2:], causal=True))

    _close("linear", linear([[1.0, 2.0]], [[1.0, 1.0], [1.0, -1.0]],
                            [0.5, 0.0], "relu"), [[3.5, 0.0]])
    _close("ffn", ffn([[1.0]], [[2.0], [-2.0]], [0.0, 0.0], [[1.0, 1.0]],
                      [1.0]), [[3.0]])
    # LayerNorm of [1, 3]: mean 2, biased variance 1.
    _close("layer_norm", layer_norm([[1.0, 3.0]], [1.0, 2.0], [0.0, 1.0],
                                    epsilon=0.0), [[-1.0, 3.0]])
    _close("add_norm", add_norm([[1.0, 1.0]], [[0.0, 2.0]], [1.0, 1.0],
                                [0.0, 0.0], epsilon=0.0), [[-1.0, 1.0]])
    # GELU(1) = Phi(1) = 0.8413447460685429; tanh form 0.8411919906082768.
    _close("gelu", gelu([0.0, 1.0, -1.0]),
           [0.0, 0.8413447460685429, -0.15865525393145707])
    _close("gelu tanh", gelu([1.0], "tanh"), [0.8411919906082768])
    _close("dropout", dropout([1.0, 2.0], 0.5), [1.0, 2.0])

    table = np.arange(12.0).reshape(3, 4)
    _close("embedding", embedding([[2, 0]], table, True),
           [[[16.0, 18.0, 20.0, 22.0], [0.0, 2.0, 4.0, 6.0]]])
    p = positional_encoding_table(3, 4)
    _close("positional_encoding", p,
           [[0, 1, 0, 1], [math.sin(1), math.cos(1), math.sin(0.01),
                           math.cos(0.01)],
            [math.sin(2), math.cos(2), math.sin(0.02), math.cos(0.02)]])

    # Patch embedding = the matmul of flattened patches, in row-major
    # patch order.
    img = rng.standard_normal((2, 3, 4, 6))
    w, bias = rng.standard_normal((5, 3, 2, 3)), rng.standard_normal(5)
    patches = img.reshape(2, 3, 2, 2, 2, 3).transpose(0, 2, 4, 1, 3, 5)
    _close("patch_embed", patch_embed(img, w, bias),
           patches.reshape(2, 4, 18) @ w.reshape(5, 18).T + bias)
    _close("patch_embed patch (1, 0)", patch_embed(img, w)[:, 2],
           np.einsum("bcij,dcij->bd", img[:, :, 2:4, 0:3], w))

    cls = np.array([[[7.0, 8.0]]])
    _close("prepend_class_token", prepend_class_token(np.zeros((2, 1, 2)),
                                                      cls),
           [[[7, 8], [0, 0]]] * 2)
    print("all reference self-tests passed")


if __name__ == "__main__":
    import sys

    if sys.argv[1:] != ["--self-test"]:
        sys.exit("usage: reference.py --self-test")
    self_test()
