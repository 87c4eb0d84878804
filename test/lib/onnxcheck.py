"""Exports a small PyTorch model to ONNX, compiles it with tfm-compile, runs
it and compares it with PyTorch's output.

    onnxcheck.py MODEL --compiler PATH/tfm-compile --work DIR
    onnxcheck.py MODEL --export-only --work DIR    # DIR/MODEL.onnx only

The models (see MODELS below) are PyTorch's own modules at small sizes, in
eval mode, with weights from a fixed seed, exported with torch.onnx.export
at --opset (default 17). The driver writes DIR/MODEL.onnx, one .npy per
input, compiles the model into DIR/MODEL, runs it and prints

    max relative error E (tolerance T)

where E = max|out - ref| / max|ref| over each output, ref being PyTorch's
float32 output. It exits with 1 when E > T or a shape differs, and with 2
when exporting, compiling or running fails.

    onnxcheck.py MODEL --sizes 1x1 3x5 2x37 --compiler ... --work DIR

exports MODEL with dynamic axes instead (DYNAMIC below: batch and sequence
as dim_params "batch" and "seq"), compiles it once, and runs the one
executable at each BxS against PyTorch at that size, printing

    b=B s=S: max relative error E (tolerance T)

    onnxcheck.py MODEL --half --compiler ... --work DIR

runs the model as `model.half()` before the export would have written it
(python/tfm_tools/half.py: every float32 tensor of the exported graph made
float16, as PyTorch 1.13 cannot run a half model on the CPU), on float16
inputs, against PyTorch's float32 output with a tolerance of 1e-2.
"""

import argparse
import inspect
import math
import os
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "python"))
from tfm_tools import compare, d2l, runner  # noqa: E402

D_MODEL, HEADS, FFN, SEQ, BATCH = 32, 4, 64, 8, 2


class SelfAttention(nn.Module):
    """nn.MultiheadAttention on one sequence, as a Transformer layer calls
    it (batch_first, attention weights not returned)."""

    def __init__(self):
        super().__init__()
        self.attn = nn.MultiheadAttention(D_MODEL, HEADS, batch_first=True)

    def forward(self, x):
        return self.attn(x, x, x, need_weights=False)[0]


class CrossAttention(nn.Module):
    """nn.MultiheadAttention with different queries and keys (PyTorch's
    default layout, [seq, batch, d])."""

    def __init__(self):
        super().__init__()
        self.attn = nn.MultiheadAttention(D_MODEL, HEADS)

    def forward(self, q, kv):
        return self.attn(q, kv, kv, need_weights=False)[0]


class Decoder(nn.Module):
    """nn.TransformerDecoderLayer with a causal mask on the targets."""

    def __init__(self):
        super().__init__()
        self.layer = nn.TransformerDecoderLayer(
            D_MODEL, HEADS, FFN, batch_first=True)

    def forward(self, tgt, memory):
        mask = nn.Transformer.generate_square_subsequent_mask(tgt.shape[1])
        return self.layer(tgt, memory, tgt_mask=mask)


class CausalAttention(nn.Module):
    """Attention with the causal mask as GPT-2 style code writes it:
    masked_fill of a boolean upper triangle by -inf, over [B, H, S, S]
    scores (the mask a [S, S] buffer broadcast over batch and heads), and
    the lower-triangle form masked_fill(~tril, -1e9) on [B, S, S]."""

    def __init__(self):
        super().__init__()
        self.register_buffer("triu", torch.ones(
            SEQ, SEQ, dtype=torch.bool).triu(1))
        self.register_buffer("tril", torch.ones(
            SEQ, SEQ, dtype=torch.bool).tril())

    def forward(self, q, k, v):
        d = q.shape[-1]
        s = q @ k.transpose(-2, -1) / math.sqrt(d)
        a = torch.softmax(s.masked_fill(self.triu, float("-inf")), -1) @ v
        q3, k3, v3 = (t.flatten(0, 1) for t in (q, k, v))
        s3 = torch.bmm(q3, k3.transpose(1, 2)) * (1.0 / math.sqrt(d))
        b = torch.bmm(torch.softmax(s3.masked_fill(~self.tril, -1e9), -1), v3)
        return a + b.view_as(a)


def seed_masked_softmax(x, valid_lens):
    """The seed's masked_softmax (d2l 11.3) as written there, with
    torch.repeat_interleave."""
    return d2l.masked_softmax(torch, x, valid_lens, torch.repeat_interleave)


class SeedAttention(nn.Module):
    """The seed's DotProductAttention with per-batch valid_lens (a length
    of 0 included, which attends uniformly) and its AdditiveAttention with
    per-query valid_lens, both through its masked_softmax."""

    def __init__(self):
        super().__init__()
        self.w_q = nn.Linear(16, D_MODEL, bias=False)
        self.w_k = nn.Linear(16, D_MODEL, bias=False)
        self.w_v = nn.Linear(D_MODEL, 1, bias=False)

    def forward(self, q, k, v, batch_lens, query_lens):
        d = q.shape[-1]
        scores = torch.bmm(q, k.transpose(1, 2)) / math.sqrt(d)
        dot = torch.bmm(seed_masked_softmax(scores, batch_lens), v)
        features = torch.tanh(self.w_q(q).unsqueeze(2) +
                              self.w_k(k).unsqueeze(1))
        scores = self.w_v(features).squeeze(-1)
        additive = torch.bmm(seed_masked_softmax(scores, query_lens), v)
        return dot, additive


class PaddingMasks(nn.Module):
    """Padding masks as NLP code passes them: a bool src_key_padding_mask
    to nn.TransformerEncoderLayer, and to nn.MultiheadAttention a bool
    key_padding_mask with a float attn_mask."""

    def __init__(self):
        super().__init__()
        self.layer = nn.TransformerEncoderLayer(
            D_MODEL, HEADS, FFN, batch_first=True)
        self.attn = nn.MultiheadAttention(D_MODEL, HEADS, batch_first=True)

    def forward(self, x, padding, attn_mask):
        y = self.layer(x, src_key_padding_mask=padding)
        z = self.attn(x, x, x, key_padding_mask=padding, attn_mask=attn_mask,
                      need_weights=False)[0]
        return y, z


def padding_inputs():
    """x, a bool padding mask [B, S] (True: padding) whose rows each keep
    a few tokens, and a float attention mask [S, S]."""
    padding = torch.zeros(BATCH, SEQ, dtype=torch.bool)
    padding[0, 5:] = True
    padding[1, 2:] = True
    return randn(BATCH, SEQ, D_MODEL), padding, randn(SEQ, SEQ)


class TokenEncoder(nn.Module):
    """Token ids (int64) through nn.Embedding and a GELU encoder layer."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(50, D_MODEL)
        self.layer = nn.TransformerEncoderLayer(
            D_MODEL, HEADS, FFN, activation="gelu", batch_first=True)

    def forward(self, ids):
        return self.layer(self.embed(ids))


class GptBlock(nn.Module):
    """GPT-2's pre-norm block as its code writes it: one Q/K/V projection
    split in three, heads by view and transpose, the causal mask a
    masked_fill of the upper triangle, a GELU MLP."""

    def __init__(self):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(D_MODEL), nn.LayerNorm(D_MODEL)
        self.qkv = nn.Linear(D_MODEL, 3 * D_MODEL)
        self.proj = nn.Linear(D_MODEL, D_MODEL)
        self.fc = nn.Linear(D_MODEL, 4 * D_MODEL)
        self.out = nn.Linear(4 * D_MODEL, D_MODEL)
        self.register_buffer("triu", torch.ones(
            SEQ, SEQ, dtype=torch.bool).triu(1))

    def forward(self, x):
        b, s, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=-1)
        q, k, v = (t.view(b, s, HEADS, d // HEADS).transpose(1, 2)
                   for t in (q, k, v))
        scores = q @ k.transpose(-2, -1) / math.sqrt(d // HEADS)
        a = torch.softmax(scores.masked_fill(self.triu, float("-inf")), -1)
        a = (a @ v).transpose(1, 2).reshape(b, s, d)
        x = x + self.proj(a)
        return x + self.out(F.gelu(self.fc(self.ln2(x))))


class GptStyle(nn.Module):
    """A GPT-2-style decoder without a cache: token and learned position
    embeddings, two GptBlocks, a final LayerNorm and an LM head over a
    vocabulary of 97."""

    def __init__(self):
        super().__init__()
        self.tokens = nn.Embedding(97, D_MODEL)
        self.positions = nn.Embedding(SEQ, D_MODEL)
        self.blocks = nn.ModuleList([GptBlock(), GptBlock()])
        self.ln = nn.LayerNorm(D_MODEL)
        self.head = nn.Linear(D_MODEL, 97, bias=False)

    def forward(self, ids):
        x = self.tokens(ids) + self.positions(torch.arange(ids.shape[1]))
        for block in self.blocks:
            x = block(x)
        return self.head(self.ln(x))


class MixedOps(nn.Module):
    """The ONNX ops the models above do not write: Split, Less, Not, And,
    Where, Tanh (tanh GELU), ReduceMean outside a LayerNorm, Range, Cast of
    a computed tensor, Flatten, Squeeze; a float and an int64 input."""

    def forward(self, x, ids):
        a, b = torch.split(x, [12, 20], dim=-1)
        keep = (ids < 40) & ~(ids == 3)
        y = torch.where(keep.unsqueeze(-1), torch.tanh(a), a * 2.0)
        z = nn.functional.gelu(b, approximate="tanh")
        w = torch.cat([y, z], dim=-1)
        w = w - w.mean(-1, keepdim=True)
        w = w / torch.sqrt((w ** 2).mean(1, keepdim=True) + 1.0)
        pos = torch.arange(x.shape[1], dtype=torch.float32)
        w = w + pos.unsqueeze(-1) / 8 + ids.float().unsqueeze(-1) / 50
        return torch.flatten(w, 1).unsqueeze(0).squeeze(0)


class DecoderOps(nn.Module):
    """The ops that today's decoders and their exports add: rotary tables
    (Sin, Cos of positions that CumSum counts from a padding mask, Clip),
    SiLU (Sigmoid), RMSNorm's Reciprocal, Einsum, LogSoftmax, ArgMax,
    ReduceSum, ReduceMax, GreaterOrEqual, LessOrEqual, Or, Abs, Floor, Log,
    Max, Min, flip (Slice with a negative step) and repeat (Tile)."""

    def forward(self, x, mask):
        d = x.shape[-1]
        pos = (torch.cumsum(mask, dim=1) - 1).clamp(min=0)
        inv = 1.0 / (10000 ** (torch.arange(0, d, 2).float() / d))
        angles = pos.float().unsqueeze(-1) * inv
        rot = torch.cat([torch.cos(angles), torch.sin(angles)], -1)
        h = x * torch.sigmoid(x) + rot
        h = h * torch.reciprocal(torch.sqrt(h.pow(2).mean(-1, keepdim=True)
                                            + 1e-6))
        g = torch.log_softmax(torch.einsum("bsd,btd->bst", h, x), -1)
        idx = g.argmax(-1)
        big = (x >= 0.5) | (x <= -0.5)
        y = torch.where(big, torch.abs(x), torch.floor(x * 4) / 4)
        y = torch.maximum(y, torch.minimum(h, x.flip(1)))
        y = y + torch.log(torch.abs(x) + 1) + g.sum(-1, keepdim=True) / 64 \
            + g.amax(-1, keepdim=True)
        return y.repeat(1, 2, 1) + idx.float().repeat(1, 2).unsqueeze(-1) / 8


class RMSNorm(nn.Module):
    """Llama's RMSNorm as its reference code writes it (the mean square in
    float32, x * rsqrt(mean + eps) * weight), then a linear, so that the
    norm feeds a product as in a decoder block."""

    def __init__(self, d=D_MODEL, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(1 + 0.1 * torch.randn(d))
        self.eps = eps
        self.proj = nn.Linear(d, d)

    def forward(self, x):
        variance = x.to(torch.float32).pow(2).mean(-1, keepdim=True)
        h = x * torch.rsqrt(variance + self.eps)
        return self.proj(self.weight * h)


class LlamaMLP(nn.Module):
    """The second half of a Llama block: x + down(silu(gate(n)) * up(n))
    for n = RMSNorm(x), the SwiGLU feed-forward without biases."""

    def __init__(self, d=D_MODEL, f=FFN):
        super().__init__()
        self.norm = RMSNorm(d)
        self.gate = nn.Linear(d, f, bias=False)
        self.up = nn.Linear(d, f, bias=False)
        self.down = nn.Linear(f, d, bias=False)

    def forward(self, x):
        variance = x.pow(2).mean(-1, keepdim=True)
        n = self.norm.weight * (x * torch.rsqrt(variance + self.norm.eps))
        return x + self.down(nn.functional.silu(self.gate(n)) * self.up(n))


def ones_and_zeros(batch, seq):
    """An int64 mask of ones and zeros, a one first in each row."""
    mask = (torch.rand(batch, seq) > 0.3).long()
    mask[:, 0] = 1
    return mask


class ShiftMerge(nn.Module):
    """Swin's data movement at sizes that make its copies kernels of their
    own: a roll of the image by half a window each way (Slice and Concat),
    its patch merging (a Concat of four strided slices), a roll back along
    an odd width, and a transpose; large enough (400 KiB an image) for the
    copies to run in parallel."""

    def forward(self, x):
        x = torch.roll(x, shifts=(-3, -3), dims=(1, 2))
        merged = torch.cat([x[:, 0::2, 0::2], x[:, 1::2, 0::2],
                            x[:, 0::2, 1::2], x[:, 1::2, 1::2]], dim=-1)
        odd = torch.roll(merged[:, :, 1:], shifts=5, dims=2)
        return odd.transpose(1, 2) * 2.0


class Roll(nn.Module):
    """Swin's roll by half a window each way, and a transpose: of dynamic
    size, its copies take the runtime's path."""

    def forward(self, x):
        return torch.roll(x, shifts=(-3, 5), dims=(1, 2)).transpose(1, 2) * 2.0


def vit():
    from torchvision.models.vision_transformer import VisionTransformer
    model = VisionTransformer(image_size=32, patch_size=8, num_layers=2,
                              num_heads=HEADS, hidden_dim=D_MODEL,
                              mlp_dim=FFN, num_classes=10)
    # torchvision zero-initializes the head and the class token, which would
    # make every logit 0 whatever the body computes.
    with torch.no_grad():
        nn.init.normal_(model.heads.head.weight, std=0.2)
        nn.init.normal_(model.heads.head.bias)
        nn.init.normal_(model.class_token)
    return model


def vit_ti():
    """torchvision's VisionTransformer at ViT-Ti/16's size: 224x224 images,
    12 layers of width 192 with 3 heads (tensor parallelism splits it over
    3 ranks, not 2)."""
    from torchvision.models.vision_transformer import VisionTransformer
    model = VisionTransformer(image_size=224, patch_size=16, num_layers=12,
                              num_heads=3, hidden_dim=192, mlp_dim=768)
    with torch.no_grad():
        nn.init.normal_(model.heads.head.weight, std=0.02)
        nn.init.normal_(model.class_token, std=0.02)
    return model


def swin():
    """A small torchvision Swin Transformer: 40x40 images make 10x10 patches
    that its 4x4 windows pad to 12x12 (Pad, Mod), shifted windows (Slice and
    Concat rolls, the ScatterND-built mask) in the first stage, patch
    merging, and GlobalAveragePool."""
    from torchvision.models.swin_transformer import SwinTransformer
    return SwinTransformer(patch_size=[4, 4], embed_dim=16, depths=[2, 2],
                           num_heads=[2, 4], window_size=[4, 4],
                           num_classes=10)


def swin_t():
    """torchvision's swin_t (28 M parameters) with random weights, for a
    check by hand at 224x224 (not in the suite: it compiles in about 40 s)."""
    from torchvision.models import swin_t as build
    return build()


def randn(*shape):
    return torch.randn(*shape)


def padding_mask(b, s):
    """A bool padding mask [B, S] (True: padding) keeping 1 to S tokens per
    row."""
    keep = torch.randint(1, s + 1, (b,))
    return torch.arange(s).unsqueeze(0) >= keep.unsqueeze(1)


# Models exported with dynamic axes: name: (module factory, inputs of batch
# b and sequence s, each input's dynamic axes). Outputs are "y" (and "z").
BATCH_SEQ = {0: "batch", 1: "seq"}
DYNAMIC = {
    "roll": (Roll, lambda b, s: (randn(b, s, s + 3, 32),),
             [{0: "batch", 1: "height", 2: "width"}]),
    "encoder": (lambda: nn.TransformerEncoderLayer(
        D_MODEL, HEADS, FFN, batch_first=True),
        lambda b, s: (randn(b, s, D_MODEL),), [BATCH_SEQ]),
    "decoder": (Decoder,
                lambda b, s: (randn(b, s, D_MODEL), randn(b, s + 3, D_MODEL)),
                [BATCH_SEQ, {0: "batch", 1: "memory"}]),
    "padding-masks": (PaddingMasks,
                      lambda b, s: (randn(b, s, D_MODEL), padding_mask(b, s),
                                    randn(s, s)),
                      [BATCH_SEQ, BATCH_SEQ, {0: "seq", 1: "seq"}]),
    "token-encoder": (TokenEncoder,
                      lambda b, s: (torch.randint(0, 50, (b, s)),),
                      [BATCH_SEQ]),
    # The image size is fixed by the position embedding: the batch varies.
    "vit": (vit, lambda b, s: (randn(b, 3, 32, 32),), [{0: "batch"}]),
}


# name: (module factory, input factory)
MODELS = {
    "mha": (SelfAttention, lambda: (randn(BATCH, SEQ, D_MODEL),)),
    "cross-attention": (CrossAttention,
                        lambda: (randn(SEQ, BATCH, D_MODEL),
                                 randn(SEQ + 4, BATCH, D_MODEL))),
    "encoder": (lambda: nn.TransformerEncoderLayer(
        D_MODEL, HEADS, FFN, batch_first=True),
        lambda: (randn(BATCH, SEQ, D_MODEL),)),
    "decoder": (Decoder, lambda: (randn(BATCH, SEQ, D_MODEL),
                                  randn(BATCH, SEQ + 2, D_MODEL))),
    "causal-attention": (CausalAttention,
                         lambda: tuple(randn(BATCH, HEADS, SEQ, 16)
                                       for _ in range(3))),
    "seed-attention": (SeedAttention,
                       lambda: (randn(BATCH, SEQ, 16),
                                randn(BATCH, SEQ + 2, 16),
                                randn(BATCH, SEQ + 2, 8),
                                torch.tensor([0, 7]),
                                torch.randint(1, SEQ + 3, (BATCH, SEQ)))),
    "padding-masks": (PaddingMasks, padding_inputs),
    "token-encoder": (TokenEncoder,
                      lambda: (torch.randint(0, 50, (BATCH, SEQ)),)),
    "vit": (vit, lambda: (randn(BATCH, 3, 32, 32),)),
    "vit-ti": (vit_ti, lambda: (randn(1, 3, 224, 224),)),
    "gpt": (GptStyle, lambda: (torch.randint(0, 97, (BATCH, SEQ)),)),
    "swin": (swin, lambda: (randn(BATCH, 3, 40, 40),)),
    "swin_t": (swin_t, lambda: (randn(1, 3, 224, 224),)),
    "shift-merge": (ShiftMerge, lambda: (randn(2, 56, 56, 32),)),
    "mixed-ops": (MixedOps, lambda: (randn(BATCH, SEQ, D_MODEL),
                                     torch.randint(0, 50, (BATCH, SEQ)))),
    "rms-norm": (RMSNorm, lambda: (randn(BATCH, SEQ, D_MODEL),)),
    "llama-mlp": (LlamaMLP, lambda: (randn(BATCH, SEQ, D_MODEL),)),
    "decoder-ops": (DecoderOps, lambda: (randn(BATCH, SEQ, D_MODEL),
                                         ones_and_zeros(BATCH, SEQ))),
}


def export(name, work, opset):
    """Writes WORK/NAME.onnx and the inputs; returns the input files and
    PyTorch's outputs."""
    torch.manual_seed(0)
    make_module, make_inputs = MODELS[name]
    module = make_module().eval()
    inputs = make_inputs()
    os.makedirs(work, exist_ok=True)
    path = os.path.join(work, name + ".onnx")
    # With gradients enabled: under no_grad, eval-mode encoder layers and
    # nn.MultiheadAttention take PyTorch's fused fast path, which the
    # exporter does not support.
    names = list(inspect.signature(module.forward).parameters)[:len(inputs)]
    torch.onnx.export(module, inputs, path, opset_version=opset,
                      input_names=names, output_names=["y"])
    outputs = module(*inputs)
    if isinstance(outputs, torch.Tensor):
        outputs = (outputs,)
    files = runner.save_arrays(
        work, [(f"in{i}", t.numpy()) for i, t in enumerate(inputs)],
        prefix=name + ".")
    return path, files, [t.detach().numpy() for t in outputs]


def export_dynamic(name, work, opset, sizes):
    """Writes WORK/NAME.onnx with dynamic axes and, for each (b, s) of
    SIZES, its inputs; returns the path and [(b, s, input files, PyTorch's
    outputs)]."""
    torch.manual_seed(0)
    make_module, make_inputs, axes = DYNAMIC[name]
    module = make_module().eval()
    os.makedirs(work, exist_ok=True)
    path = os.path.join(work, name + ".onnx")
    example = make_inputs(2, 8)
    names = list(inspect.signature(module.forward).parameters)[:len(example)]
    with torch.no_grad():
        outputs = module(*example)
    count = 1 if isinstance(outputs, torch.Tensor) else len(outputs)
    output_names = ["y", "z"][:count]
    dynamic_axes = dict(zip(names, axes))
    for output in output_names:
        dynamic_axes[output] = axes[0]
    # With gradients enabled, as in export().
    torch.onnx.export(module, example, path, opset_version=opset,
                      input_names=names, output_names=output_names,
                      dynamic_axes=dynamic_axes)
    runs = []
    for b, s in sizes:
        inputs = make_inputs(b, s)
        outputs = module(*inputs)
        if isinstance(outputs, torch.Tensor):
            outputs = (outputs,)
        files = runner.save_arrays(
            work, [(f"in{i}", t.numpy()) for i, t in enumerate(inputs)],
            prefix=f"{name}.{b}x{s}.")
        runs.append((b, s, files, [t.detach().numpy() for t in outputs]))
    return path, runs


def to_half(path, inputs):
    """The float16 form of the model at PATH and of its float inputs (files
    beside them, `.f16` before the extension)."""
    import onnx
    from tfm_tools import half
    half_path = path[:-len(".onnx")] + ".f16.onnx"
    onnx.save(half.to_float16(onnx.load(path)), half_path)
    half_inputs = []
    for name in inputs:
        array = np.load(name)
        if array.dtype == np.float32:
            name = name[:-len(".npy")] + ".f16.npy"
            np.save(name, array.astype(np.float16))
        half_inputs.append(name)
    return half_path, half_inputs


def main_dynamic(args):
    sizes = [tuple(int(v) for v in size.split("x")) for size in args.sizes]
    path, runs = export_dynamic(args.model, args.work, args.opset, sizes)
    exe = os.path.join(args.work, args.model)
    ok = True
    with runner.exit_on_failure():
        runner.compile_graph(args.compiler, path, exe, args.flag)
        for b, s, inputs, expected in runs:
            outs = [os.path.join(args.work, f"{args.model}.{b}x{s}.out{i}.npy")
                    for i in range(len(expected))]
            runner.run_model(exe, inputs, outs)
            for out, ref in zip(outs, expected):
                ok &= compare.check(np.load(out), ref, args.tolerance,
                                    label=f"b={b} s={s}")
    return 0 if ok else 1


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("model", choices=sorted(set(MODELS) | set(DYNAMIC)))
    parser.add_argument("--compiler", default="tfm-compile")
    parser.add_argument("--work", required=True)
    parser.add_argument("--opset", type=int, default=17)
    parser.add_argument("--flag", action="append", default=[],
                        help="an extra tfm-compile option (repeatable)")
    parser.add_argument("--tolerance", type=float, default=compare.TOLERANCE)
    parser.add_argument("--export-only", action="store_true")
    parser.add_argument("--half", action="store_true",
                        help="compile and run the float16 form of the export")
    parser.add_argument("--sizes", nargs="+", metavar="BxS",
                        help="export with dynamic axes and run at each size")
    args = parser.parse_args()
    if args.sizes:
        if args.model not in DYNAMIC:
            parser.error(f"no dynamic export of {args.model}; one of "
                         f"{', '.join(sorted(DYNAMIC))}")
        return main_dynamic(args)
    if args.model not in MODELS:
        parser.error(f"{args.model} is exported with dynamic axes only: "
                     "give --sizes")

    path, inputs, expected = export(args.model, args.work, args.opset)
    if args.half:
        path, inputs = to_half(path, inputs)
        if args.tolerance == compare.TOLERANCE:
            args.tolerance = compare.TOLERANCES["f16"]
    if args.export_only:
        return 0
    exe = os.path.join(args.work, args.model)
    outs = [os.path.join(args.work, f"{args.model}.out{i}.npy")
            for i in range(len(expected))]
    with runner.exit_on_failure():
        runner.compile_graph(args.compiler, path, exe, args.flag)
        runner.run_model(exe, inputs, outs)
    results = [compare.check(np.load(out), ref, args.tolerance,
                             dtype=np.float16 if args.half else None)
               for out, ref in zip(outs, expected)]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
