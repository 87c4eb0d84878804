"""A GPT-style decoder-only model in PyTorch, exported "with past".

The one module of tfm_tools that needs PyTorch (it imports it when
called). The model is GPT-2's architecture written out: token and learned
position embeddings, pre-norm blocks of causal self-attention and a GELU
MLP, a final LayerNorm and an LM head tied to the token embedding. Its
forward pass takes the keys and values of the earlier positions and returns
them with this call's appended, in Hugging Face's / optimum's "decoder with
past" layout:

    logits, present_key_0, present_value_0, ... =
        model(input_ids, past_key_0, past_value_0, ...)

    input_ids        [batch, seq]                     int64
    past_key_<i>     [batch, heads, past, head_dim]   float32
    present_key_<i>  [batch, heads, past + seq, head_dim]
    logits           [batch, seq, vocab]

`export` writes it to ONNX with batch, seq and past as dynamic axes (named
as the tests' exporters name them: AXIS_NAMES), `step` runs one call, and
`generate` is PyTorch's own greedy loop over it, the reference that tfm's
generation is compared with.
"""

import math


def build(layers=2, d_model=64, heads=4, vocab=97, max_positions=128,
          seed=0, std=0.02):
    """The model in eval mode, with weights from `seed`: GPT-2's init,
    normal with std 0.02 (or `std`: a larger one makes a small random model
    generate varied tokens instead of repeating one), biases at 0 and
    LayerNorms at 1 and 0."""
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln1 = nn.LayerNorm(d_model)
            self.qkv = nn.Linear(d_model, 3 * d_model)
            self.proj = nn.Linear(d_model, d_model)
            self.ln2 = nn.LayerNorm(d_model)
            self.fc = nn.Linear(d_model, 4 * d_model)
            self.out = nn.Linear(4 * d_model, d_model)

        def forward(self, x, past_k, past_v):
            b, s, _ = x.shape
            hd = d_model // heads
            q, k, v = self.qkv(self.ln1(x)).split(d_model, dim=2)
            q, k, v = (t.view(b, s, heads, hd).transpose(1, 2)
                       for t in (q, k, v))
            k = torch.cat([past_k, k], dim=2)
            v = torch.cat([past_v, v], dim=2)
            past = past_k.shape[2]
            scores = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(hd))
            # Query i is position past + i: it sees keys 0 .. past + i.
            visible = torch.ones(s, past + s, dtype=torch.bool).tril(past)
            scores = scores.masked_fill(~visible, float("-inf"))
            y = F.softmax(scores, dim=-1) @ v
            y = y.transpose(1, 2).reshape(b, s, d_model)
            x = x + self.proj(y)
            x = x + self.out(F.gelu(self.fc(self.ln2(x))))
            return x, k, v

    class Gpt(nn.Module):
        def __init__(self):
            super().__init__()
            self.wte = nn.Embedding(vocab, d_model)
            self.wpe = nn.Embedding(max_positions, d_model)
            self.blocks = nn.ModuleList(Block() for _ in range(layers))
            self.ln_f = nn.LayerNorm(d_model)
            self.heads = self.kv_heads = heads
            self.head_dim = d_model // heads
            self.layers, self.vocab = layers, vocab

        def forward(self, ids, *past):
            past_len = past[0].shape[2]
            positions = torch.arange(past_len, past_len + ids.shape[1])
            x = self.wte(ids) + self.wpe(positions)
            present = []
            for i, block in enumerate(self.blocks):
                x, k, v = block(x, past[2 * i], past[2 * i + 1])
                present += [k, v]
            logits = self.ln_f(x) @ self.wte.weight.t()
            return (logits, *present)

    torch.manual_seed(seed)
    model = Gpt()
    for name, p in model.named_parameters():
        if name.endswith("bias"):
            nn.init.zeros_(p)
        elif "ln" in name:
            nn.init.ones_(p)
        else:
            nn.init.normal_(p, std=std)
    return model.eval()


# The functions below take any model of this calling convention with
# attributes `layers`, `kv_heads` and `head_dim` (python/tfm_tools/llama.py's
# too).


def empty_past(model, batch):
    """The past of a first call: [batch, kv_heads, 0, head_dim] per key and
    value."""
    import torch
    shape = (batch, model.kv_heads, 0, model.head_dim)
    return [torch.zeros(shape) for _ in range(2 * model.layers)]


def input_names(model):
    return ["input_ids"] + [f"past_{kind}_{i}" for i in range(model.layers)
                            for kind in ("key", "value")]


def output_names(model):
    return ["logits"] + [f"present_{kind}_{i}" for i in range(model.layers)
                         for kind in ("key", "value")]


# The names an export gives its dynamic axes: (batch, seq, past, present)
# by style. "hf" is what Hugging Face's exporters write; "unnamed" gives
# dynamic_axes as lists of indices, which torch.onnx.export names itself
# (`input_ids_dynamic_axes_1`, ...: a name per input, shared by none).
AXIS_NAMES = {
    "seq": ("batch", "seq", "past", "total"),
    "t": ("batch", "t", "past", "total"),
    "hf": ("batch_size", "sequence_length", "past_sequence_length",
           "past_sequence_length + sequence_length"),
    "unnamed": None,
}


def export(model, path, batch=1, opset=17, axes="seq"):
    """torch.onnx.export with batch, seq and past (and past + seq, the
    presents' length) as dynamic axes, named as AXIS_NAMES[axes] says."""
    import torch
    ids = torch.zeros((batch, 2), dtype=torch.int64)
    # A past of 3 positions: an empty one would be traced as a constant.
    past = [torch.zeros((batch, model.kv_heads, 3, model.head_dim))
            for _ in range(2 * model.layers)]
    names = AXIS_NAMES[axes]
    if names is None:
        dynamic = {name: [0, 1] for name in ("input_ids", "logits")}
        for name in input_names(model)[1:] + output_names(model)[1:]:
            dynamic[name] = [0, 2]
    else:
        batch_name, seq, past_name, total = names
        dynamic = {name: {0: batch_name, 1: seq}
                   for name in ("input_ids", "logits")}
        for name in input_names(model)[1:]:
            dynamic[name] = {0: batch_name, 2: past_name}
        for name in output_names(model)[1:]:
            dynamic[name] = {0: batch_name, 2: total}
    with torch.no_grad():
        torch.onnx.export(model, (ids, *past), path,
                          input_names=input_names(model),
                          output_names=output_names(model),
                          dynamic_axes=dynamic, opset_version=opset)


def step(model, ids, past):
    """One call of the model with past: (logits, presents) as NumPy
    arrays."""
    import torch
    with torch.no_grad():
        out = model(torch.as_tensor(ids, dtype=torch.int64),
                    *(torch.as_tensor(p) for p in past))
    return out[0].numpy(), [p.numpy() for p in out[1:]]


def generate(model, prompt, steps):
    """PyTorch's greedy loop: the prompt in one call, then one token a call
    against the returned past. Returns (tokens [batch, steps] int64, the
    logits of each new token [steps, batch, vocab] float32); the first token
    is the prompt call's."""
    import torch
    tokens, logits = [], []
    with torch.no_grad():
        ids = torch.as_tensor(prompt, dtype=torch.int64)
        past = empty_past(model, ids.shape[0])
        for _ in range(steps):
            out = model(ids, *past)
            last = out[0][:, -1, :]
            past = list(out[1:])
            ids = last.argmax(dim=-1, keepdim=True)
            tokens.append(ids[:, 0])
            logits.append(last)
    return (torch.stack(tokens, dim=1).numpy(),
            torch.stack(logits).numpy())
