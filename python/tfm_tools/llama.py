"""A Llama-style decoder-only model in PyTorch, exported "with past".

The architecture of Llama 2/3, Mistral and Qwen2 written out small, as
Hugging Face's modeling_llama.py writes it: token embeddings, pre-norm
blocks of RMSNorm, grouped-query causal self-attention with rotary position
embeddings (rotate-half, cos/sin of positions times inverse frequencies)
and a SwiGLU MLP (`down(silu(gate(x)) * up(x))`), a final RMSNorm and an
untied LM head; no biases. The key/value heads are fewer than the query
heads and repeated for them by `repeat_kv` (expand + reshape), as Hugging
Face does before its attention.

Its calling convention is python/tfm_tools/gpt.py's, so that gpt's
`export`, `step` and `generate` run it, and the past holds the key/value
heads only:

    past_key_<i>     [batch, kv_heads, past, head_dim]   float32
"""

import math


def build(layers=2, d_model=64, heads=8, kv_heads=2, ffn=172, vocab=97,
          rope_base=10000.0, eps=1e-5, seed=0, std=0.02):
    """The model in eval mode, with weights from `seed`: normal with `std`
    (Llama's initializer_range is 0.02; a larger one makes a small random
    model generate varied tokens), RMSNorm weights from 0.5 to 1.5 (not 1,
    so that a norm without its weight would show)."""
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    head_dim = d_model // heads
    group = heads // kv_heads

    class RMSNorm(nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = nn.Parameter(torch.ones(d_model))

        def forward(self, x):
            variance = x.pow(2).mean(-1, keepdim=True)
            return self.weight * (x * torch.rsqrt(variance + eps))

    def rotate_half(x):
        x1, x2 = x[..., :head_dim // 2], x[..., head_dim // 2:]
        return torch.cat((-x2, x1), dim=-1)

    def repeat_kv(x):
        b, h, s, d = x.shape
        x = x[:, :, None, :, :].expand(b, h, group, s, d)
        return x.reshape(b, h * group, s, d)

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.input_layernorm = RMSNorm()
            self.q_proj = nn.Linear(d_model, heads * head_dim, bias=False)
            self.k_proj = nn.Linear(d_model, kv_heads * head_dim, bias=False)
            self.v_proj = nn.Linear(d_model, kv_heads * head_dim, bias=False)
            self.o_proj = nn.Linear(heads * head_dim, d_model, bias=False)
            self.post_attention_layernorm = RMSNorm()
            self.gate_proj = nn.Linear(d_model, ffn, bias=False)
            self.up_proj = nn.Linear(d_model, ffn, bias=False)
            self.down_proj = nn.Linear(ffn, d_model, bias=False)

        def forward(self, x, cos, sin, past_k, past_v):
            b, s, _ = x.shape
            h = self.input_layernorm(x)
            q = self.q_proj(h).view(b, s, heads, head_dim).transpose(1, 2)
            k = self.k_proj(h).view(b, s, kv_heads, head_dim).transpose(1, 2)
            v = self.v_proj(h).view(b, s, kv_heads, head_dim).transpose(1, 2)
            q = q * cos + rotate_half(q) * sin
            k = k * cos + rotate_half(k) * sin
            k = torch.cat([past_k, k], dim=2)
            v = torch.cat([past_v, v], dim=2)
            past = past_k.shape[2]
            scores = (q @ repeat_kv(k).transpose(-2, -1)) / math.sqrt(head_dim)
            # Query i is position past + i: it sees keys 0 .. past + i.
            visible = torch.ones(s, past + s, dtype=torch.bool).tril(past)
            scores = scores.masked_fill(~visible, float("-inf"))
            y = F.softmax(scores, dim=-1) @ repeat_kv(v)
            y = y.transpose(1, 2).reshape(b, s, heads * head_dim)
            x = x + self.o_proj(y)
            h = self.post_attention_layernorm(x)
            x = x + self.down_proj(F.silu(self.gate_proj(h)) * self.up_proj(h))
            return x, k, v

    class Llama(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed_tokens = nn.Embedding(vocab, d_model)
            self.blocks = nn.ModuleList(Block() for _ in range(layers))
            self.norm = RMSNorm()
            self.lm_head = nn.Linear(d_model, vocab, bias=False)
            inv_freq = 1.0 / rope_base ** (
                torch.arange(0, head_dim, 2, dtype=torch.float32) / head_dim)
            self.register_buffer("inv_freq", inv_freq, persistent=False)
            self.heads, self.kv_heads, self.head_dim = heads, kv_heads, head_dim
            self.layers, self.vocab = layers, vocab

        def forward(self, ids, *past):
            past_len = past[0].shape[2]
            # int64 positions, then float, as Hugging Face's position_ids.
            positions = torch.arange(past_len, past_len + ids.shape[1])
            freqs = positions[:, None].float() * self.inv_freq[None, :]
            emb = torch.cat((freqs, freqs), dim=-1)
            cos, sin = emb.cos(), emb.sin()
            x = self.embed_tokens(ids)
            present = []
            for i, block in enumerate(self.blocks):
                x, k, v = block(x, cos, sin, past[2 * i], past[2 * i + 1])
                present += [k, v]
            return (self.lm_head(self.norm(x)), *present)

    torch.manual_seed(seed)
    model = Llama()
    for name, p in model.named_parameters():
        if "layernorm" in name or name == "norm.weight":
            with torch.no_grad():
                p.uniform_(0.5, 1.5)
        else:
            nn.init.normal_(p, std=std)
    return model.eval()


def rope_tables(model, length):
    """The rotary tables of positions 0 .. length - 1 as the model's forward
    computes them: cos and sin of position x inverse frequency, [length,
    head_dim / 2] float32 NumPy arrays (the first half of Hugging Face's
    cat(freqs, freqs), which tfm.rotary_embedding takes)."""
    import torch
    with torch.no_grad():
        positions = torch.arange(0, length)
        freqs = positions[:, None].float() * model.inv_freq[None, :]
        return freqs.cos().numpy(), freqs.sin().numpy()
