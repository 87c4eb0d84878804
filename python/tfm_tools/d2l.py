"""The seed's Transformer encoder (d2l, chapter 11) as PyTorch modules, for
the benchmarks and the ONNX tests: token embedding scaled by sqrt(d), sinusoidal positional
encoding, and blocks of multi-head attention (heads split with
transpose_qkv, valid_lens repeated per head and applied by masked_softmax),
add & norm, and a position-wise ReLU FFN. Written from the seed's
description of each piece; dropout is the identity in eval mode.

One change for the exporter: the seed repeats valid_lens with
torch.repeat_interleave, which PyTorch 1.13's ONNX exporter cannot export
when its input is computed (the per-head lengths fed to masked_softmax).
`build` takes `expand_repeat`, the same repetition as an expand and a
reshape; `masked_softmax` takes either."""

import math


def expand_repeat(x, n):
    """torch.repeat_interleave(x, n) for a 1-D x, as an expand and a
    reshape."""
    return x[:, None].expand(-1, n).reshape(-1)


def masked_softmax(torch, x, valid_lens, repeat):
    """The seed's masked_softmax: keys at or past each row's valid length
    get -1e6 before the softmax (a row of length 0 is uniform). `repeat`
    repeats 1-D lengths over the queries: torch.repeat_interleave as in
    the seed, or expand_repeat."""
    shape = x.shape
    if valid_lens.dim() == 1:
        valid_lens = repeat(valid_lens, shape[1])
    else:
        valid_lens = valid_lens.reshape(-1)
    x = x.reshape(-1, shape[-1])
    mask = torch.arange(shape[-1], dtype=torch.float32)[None, :] \
        < valid_lens[:, None]
    x[~mask] = -1e6
    return torch.softmax(x.reshape(shape), dim=-1)


def build(torch, vocab, d, heads, ffn, blocks, max_len=1000):
    """Returns the seed's TransformerEncoder(vocab, d, ffn, heads, blocks):
    forward(tokens [B, S] int64, valid_lens [B] int64) -> [B, S, d]."""
    nn = torch.nn

    class DotProductAttention(nn.Module):
        def forward(self, q, k, v, valid_lens):
            scores = torch.bmm(q, k.transpose(1, 2)) / math.sqrt(q.shape[-1])
            weights = masked_softmax(torch, scores, valid_lens,
                                     expand_repeat)
            return torch.bmm(weights, v)

    class MultiHeadAttention(nn.Module):
        def __init__(self):
            super().__init__()
            self.attention = DotProductAttention()
            self.w_q, self.w_k, self.w_v, self.w_o = (
                nn.Linear(d, d, bias=False) for _ in range(4))

        def split(self, x):
            # [B, S, d] -> [B * heads, S, d / heads]
            x = x.reshape(x.shape[0], x.shape[1], heads, -1)
            x = x.permute(0, 2, 1, 3)
            return x.reshape(-1, x.shape[2], x.shape[3])

        def merge(self, x):
            # [B * heads, S, d / heads] -> [B, S, d]
            x = x.reshape(-1, heads, x.shape[1], x.shape[2])
            x = x.permute(0, 2, 1, 3)
            return x.reshape(x.shape[0], x.shape[1], -1)

        def forward(self, q, k, v, valid_lens):
            q, k, v = self.split(self.w_q(q)), self.split(self.w_k(k)), \
                self.split(self.w_v(v))
            valid_lens = expand_repeat(valid_lens, heads)
            return self.w_o(self.merge(self.attention(q, k, v, valid_lens)))

    class AddNorm(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln = nn.LayerNorm(d)

        def forward(self, x, y):
            return self.ln(y + x)

    class PositionWiseFFN(nn.Module):
        def __init__(self):
            super().__init__()
            self.dense1 = nn.Linear(d, ffn)
            self.dense2 = nn.Linear(ffn, d)

        def forward(self, x):
            return self.dense2(torch.relu(self.dense1(x)))

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.attention = MultiHeadAttention()
            self.addnorm1 = AddNorm()
            self.ffn = PositionWiseFFN()
            self.addnorm2 = AddNorm()

        def forward(self, x, valid_lens):
            y = self.addnorm1(x, self.attention(x, x, x, valid_lens))
            return self.addnorm2(y, self.ffn(y))

    class TransformerEncoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.embedding = nn.Embedding(vocab, d)
            p = torch.zeros((1, max_len, d))
            x = torch.arange(max_len, dtype=torch.float32).reshape(-1, 1) \
                / torch.pow(10000, torch.arange(0, d, 2,
                                                dtype=torch.float32) / d)
            p[:, :, 0::2] = torch.sin(x)
            p[:, :, 1::2] = torch.cos(x)
            self.register_buffer("P", p)
            self.blocks = nn.ModuleList(Block() for _ in range(blocks))

        def forward(self, tokens, valid_lens):
            x = self.embedding(tokens) * math.sqrt(d)
            x = x + self.P[:, :x.shape[1], :]
            for block in self.blocks:
                x = block(x, valid_lens)
            return x

    return TransformerEncoder()
