#!/usr/bin/env python3
"""tfm against ONNX Runtime and PyTorch on the same .onnx files, in one run.

    bench/ort.py [--quick] [--models a,b,...] [--threads 1,2] [--rounds 5]
                 [--budget 4] [--markdown FILE] [--json FILE] [--work DIR]

Every model below is a PyTorch module with seeded random weights, in eval
mode, exported by this script with torch.onnx.export (opset 17, static
shapes, gradients enabled: under no_grad PyTorch 1.13's encoder layer and
MultiheadAttention take a fused path that the exporter cannot export). Each
.onnx file then runs on three systems:

  ORT      ONNX Runtime 1.30.0, the npm package onnxruntime-node (its CPU
           execution provider ships inside it) installed from
           bench/ort/package.json into --ort (bench/run.sh does it),
           driven by bench/ort/run.js under Node.js: graphOptimizationLevel
           'all', intraOpNumThreads T, interOpNumThreads 1, sequential;
  PyTorch  the module itself, eager, eval, under torch.no_grad(), with
           torch.set_num_threads(T) and OpenBLAS's pool set to T too
           (common.set_threads);
  tfm      `tfm-compile MODEL.onnx -o MODEL` with default options, run as
           `MODEL --bench N --threads T`.

Models (--models takes these keys):

  vit_ti_16, vit_b_16      torchvision ViT-Ti/16 and ViT-B/16, batch 1,
                           224x224, 1000 classes (bench/vit.py's
                           build_model: the zero-initialised head, class
                           token and biases redrawn)
  encoder_s{128,384}_b{1,8}
                           nn.TransformerEncoderLayer(768, 12, 3072,
                           activation="gelu", batch_first=True): BERT-base's
                           layer on [B, S, 768]
  mha_s1024                nn.MultiheadAttention(768, 12) self-attention on
                           [1024, 1, 768] (PyTorch's default [S, B, D]
                           layout), need_weights=False
  gpt2_s1024               a GPT-2-small-size pre-norm causal block on
                           [1, 1024, 768]: x + proj(attn(ln_1(x))) with
                           masked_fill of a boolean upper triangle by -inf,
                           then x + mlp(ln_2(x)), tanh-GELU 768->3072->768
  d2l_encoder              the seed's d2l TransformerEncoder (python/tfm_tools/d2l.py):
                           embedding, positional encoding, 2 blocks of
                           multi-head attention with valid_lens (its
                           masked_softmax), add & norm, ReLU FFN, at 768,
                           12 heads, 3072; int64 tokens [8, 128] and
                           valid_lens [8]
  attention_s{197,1024,4096}[_causal]
                           bmm(q, k^T) / 8, [masked_fill of the upper
                           triangle by -inf], softmax, bmm(., v) on q, k, v
                           of [12, S, 64]
  sgemm                    torch.matmul of two 2048x2048 float32 matrices
                           (an ONNX MatMul): each system's SGEMM rate

Parameters that PyTorch initialises to zero (biases) are redrawn ~ N(0,
0.02²) and LayerNorm weights are 1 + N(0, 0.1²) (common.redraw_dead_weights),
so that no path computes a constant. Inputs are standard normal from a
fixed seed (tokens and valid lengths uniform, one sentence at full
length).

Timing. For each model, one first call of every (system, T) warms up,
estimates its time per run and writes the outputs that are checked; then
--rounds rounds alternate the systems (ORT T=1, PyTorch T=1, tfm T=1, ORT
T=2, ...) so that noise falls on all of them alike. A round of ORT or tfm is
a fresh process with one warm-up run and N timed runs (ORT: node
bench/ort/run.js --warmup 1 --runs N; tfm: --bench N, which warms up once);
a round of PyTorch is one warm-up call (none when a call takes over 2 s)
and N timed calls. N fills --budget seconds over the rounds (1 to 20 a
round); a (system, T) whose first call takes longer than the budget gets at
least 3 rounds of 1 run, and one slower than --max-seconds keeps its first
call as the only measurement. The latency of a (system, T) is the median
over its rounds of each round's median; a system's "best" is its better
T, and "tfm × best peer" = min(ORT best, PyTorch best) / tfm best (above 1:
tfm is faster). A second table puts each system's median beside its fastest
single run: a peer slowed on its own, not by noise that falls on all alike,
shows a median far above its fastest run (⚠ above 1.3×) and makes the
medians' ratio flatter tfm; "tfm × peers' fastest run" = the faster peer's
fastest run over both thread counts / tfm best does not.

The machine's limit, in the same run: bench/fma_peak.c (compiled with
clang -O3 -march=native -fopenmp) runs independent FMA chains on vector
registers at each T, at the start and the end, and the higher GFLOP/s is
the peak; the sgemm row gives each system's SGEMM rate, and the best peer's
is printed with the peak.

FLOPs, counted from the shapes (multiply-adds x 2; elementwise work, softmax
and LayerNorm are left out), with B batch, S tokens, D = 768, F = 3072:
  encoder    B*S*(2*D*3D + 2*D*D + 2*2*D*F) + 4*B*S²*D
  mha        B*S*(2*D*3D + 2*D*D) + 4*B*S²*D
  gpt2       B*S*(2*D*3D + 2*D*D + 2*2*D*F) + 4*B*S²*D / 2
  attention  4*12*S²*64, halved when causal
  vit        bench/vit.py's flops (patch embedding, 12 layers, head)
  sgemm      2*2048³
Causal attention counts half the products (the keys at or before each
query), as bench/attention.py does. GFLOP/s is tfm's at its best T; % of
peak is that over the FMA peak at the same T.

Correctness: every output of every system (PyTorch at each T too) is
compared with PyTorch's output at T = 1: max |out - ref| and the relative
error max |out - ref| / max |ref| (tfm_tools.compare), held to 1e-4
(compare.TOLERANCE, the tolerance of tfm's tests and bench/vit.py); a
larger error is marked ✗ in the table.

Peak RSS (GNU time's %M) is measured for the ORT (Node.js included) and
tfm processes; PyTorch runs inside this process, whose high-water mark
covers every model, so it has none.

--quick smoke-tests the same path in about a minute: every model at tiny
sizes (width 64, 4 heads, S <= 64, images 32x32 with 2 layers), 2 rounds of
about 0.3 s. If tfm fails to compile or run a model, the row says so with
the first line of the error (the whole message is in the JSON).
"""

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import time
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
sys.path.insert(0, HERE)
import common  # noqa: E402
import vit  # noqa: E402
import vit_graph  # noqa: E402
from common import fmt, mib  # noqa: E402
from tfm_tools import compare, d2l, runner  # noqa: E402

OPSET = 17
SYSTEMS = ("ORT", "PyTorch", "tfm")
ORT_VERSION = "1.30.0"
RUN_JS = os.path.join(HERE, "ort", "run.js")
FMA_PEAK_C = os.path.join(HERE, "fma_peak.c")
BERT = dict(d=768, heads=12, ff=3072)


# ===------------------------------------------------------------------=== #
# Models
# ===------------------------------------------------------------------=== #


class Case:
    """One row: a key and how to build the module, its inputs, its FLOPs
    and its title (with the sizes it has) at full or --quick size."""

    def __init__(self, key, build):
        self.key = key
        self.build = build  # (torch, quick) -> (module, inputs, flops, title)


def randn(torch, *shape, seed=2):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def vit_case(name, config):
    def build(torch, quick):
        config_ = dict(config)
        image = 224
        if quick:
            config_.update(hidden=config["hidden"] // 4, layers=2, patch=8,
                           mlp=config["mlp"] // 4)
            image = 32
        model = vit.build_model(torch, config_, image, 1000)
        x = randn(torch, 1, 3, image, image)
        title = name + ("" if not quick else
                        f" ({image}², {config_['layers']} layers, "
                        f"D={config_['hidden']})")
        return model, (x,), vit.flops(config_, image, 1000), title
    return build


def swin_case():
    def build(torch, quick):
        from torchvision.models.swin_transformer import SwinTransformer
        if quick:
            # 40x40 images: 10x10 patches that 4x4 windows pad to 12x12.
            model = SwinTransformer(patch_size=[4, 4], embed_dim=16,
                                    depths=[2, 2], num_heads=[2, 4],
                                    window_size=[4, 4], num_classes=10)
            x = randn(torch, 1, 3, 40, 40)
            # The smoke test counts its linear layers' multiply-adds only.
            macs = []
            hooks = [m.register_forward_hook(
                lambda m, i, o: macs.append(o.numel() * m.in_features))
                for m in model.modules() if isinstance(m, torch.nn.Linear)]
            with torch.no_grad():
                model.eval()(x)
            for h in hooks:
                h.remove()
            return model, (x,), 2.0 * sum(macs), "Swin (40², 2 stages)"
        from torchvision.models import swin_t
        torch.manual_seed(0)
        # torchvision zero-initializes Swin's biases: redrawn, like every
        # other model's, so that no bias is a constant zero.
        model = common.redraw_dead_weights(torch, swin_t().eval(), 1)
        # torchvision's 4.49 G multiply-adds at 224x224.
        return model, (randn(torch, 1, 3, 224, 224),), 2 * 4.49e9, "Swin-T"
    return build


def width(quick):
    return dict(d=64, heads=4, ff=128) if quick else BERT


def dim(w):
    """The title's note on a width other than BERT-base's."""
    return "" if w == BERT else f" (D={w['d']})"


def encoder_flops(b, s, d, ff, causal=False, ffn=True):
    linear = 2 * d * 3 * d + 2 * d * d + (2 * 2 * d * ff if ffn else 0)
    attention = 4 * b * s * s * d
    return b * s * linear + (attention / 2 if causal else attention)


def encoder_case(s, b):
    def build(torch, quick):
        w = width(quick)
        seq, batch = (s // 8, min(b, 2)) if quick else (s, b)
        torch.manual_seed(0)
        layer = torch.nn.TransformerEncoderLayer(
            w["d"], w["heads"], w["ff"], activation="gelu",
            batch_first=True)
        common.redraw_dead_weights(torch, layer, 1)
        x = randn(torch, batch, seq, w["d"])
        return (layer.eval(), (x,), encoder_flops(batch, seq, w["d"], w["ff"]),
                f"TransformerEncoderLayer S={seq} B={batch}" + dim(w))
    return build


def mha_case(s):
    def build(torch, quick):
        w = width(quick)
        seq = 64 if quick else s

        class SelfAttention(torch.nn.Module):
            """nn.MultiheadAttention(x, x, x) in PyTorch's default [S, B,
            D] layout, without the attention weights."""

            def __init__(self):
                super().__init__()
                self.attn = torch.nn.MultiheadAttention(w["d"], w["heads"])

            def forward(self, x):
                return self.attn(x, x, x, need_weights=False)[0]

        torch.manual_seed(0)
        module = common.redraw_dead_weights(torch, SelfAttention(), 1)
        x = randn(torch, seq, 1, w["d"])
        return (module.eval(), (x,),
                encoder_flops(1, seq, w["d"], 0, ffn=False),
                f"MultiheadAttention S={seq}" + dim(w))
    return build


def gpt2_case(s):
    def build(torch, quick):
        w = width(quick)
        seq = 64 if quick else s
        nn = torch.nn
        d, heads = w["d"], w["heads"]

        class Block(nn.Module):
            """GPT-2's block: pre-norm causal self-attention and a tanh-GELU
            MLP, each with a residual."""

            def __init__(self):
                super().__init__()
                self.ln_1 = nn.LayerNorm(d)
                self.c_attn = nn.Linear(d, 3 * d)
                self.c_proj = nn.Linear(d, d)
                self.ln_2 = nn.LayerNorm(d)
                self.c_fc = nn.Linear(d, w["ff"])
                self.mlp_proj = nn.Linear(w["ff"], d)
                self.register_buffer("mask", torch.ones(
                    seq, seq, dtype=torch.bool).triu(1))

            def forward(self, x):
                b, t, _ = x.shape
                q, k, v = self.c_attn(self.ln_1(x)).split(d, dim=2)
                q, k, v = (y.view(b, t, heads, d // heads).transpose(1, 2)
                           for y in (q, k, v))
                scores = q @ k.transpose(-2, -1) / math.sqrt(d // heads)
                scores = scores.masked_fill(self.mask, float("-inf"))
                y = torch.softmax(scores, dim=-1) @ v
                y = y.transpose(1, 2).reshape(b, t, d)
                x = x + self.c_proj(y)
                h = nn.functional.gelu(self.c_fc(self.ln_2(x)),
                                       approximate="tanh")
                return x + self.mlp_proj(h)

        torch.manual_seed(0)
        module = common.redraw_dead_weights(torch, Block(), 1)
        x = randn(torch, 1, seq, d)
        return (module.eval(), (x,),
                encoder_flops(1, seq, d, w["ff"], causal=True),
                f"GPT-2 block S={seq} causal" + dim(w))
    return build


def d2l_case(s, b, blocks):
    def build(torch, quick):
        w = width(quick)
        seq, batch = (s // 8, min(b, 2)) if quick else (s, b)
        vocab = 1000
        torch.manual_seed(0)
        module = d2l.build(torch, vocab, w["d"], w["heads"], w["ff"], blocks)
        common.redraw_dead_weights(torch, module, 1)
        tokens = torch.randint(0, vocab, (batch, seq),
                               generator=torch.Generator().manual_seed(2))
        # Sentences of different lengths, one of them the full length.
        lens = torch.randint(1, seq + 1, (batch,),
                             generator=torch.Generator().manual_seed(3))
        lens[0] = seq
        flops = blocks * encoder_flops(batch, seq, w["d"], w["ff"])
        return (module.eval(), (tokens, lens), flops,
                f"d2l TransformerEncoder {blocks} blocks S={seq} B={batch}, "
                f"valid_lens" + dim(w))
    return build


def attention_case(s, causal):
    def build(torch, quick):
        seq = s // 16 if quick else s
        heads, dim = (2, 16) if quick else (12, 64)

        class Attention(torch.nn.Module):
            """The seed's DotProductAttention: bmm, / sqrt(d), softmax
            (causal: masked_fill of the upper triangle with -inf), bmm."""

            def __init__(self):
                super().__init__()
                self.register_buffer("mask", torch.ones(
                    seq, seq, dtype=torch.bool).triu(1))

            def forward(self, q, k, v):
                scores = torch.bmm(q, k.transpose(1, 2)) / math.sqrt(dim)
                if causal:
                    scores = scores.masked_fill(self.mask, float("-inf"))
                return torch.bmm(torch.softmax(scores, dim=-1), v)

        inputs = tuple(randn(torch, heads, seq, dim, seed=2 + i)
                       for i in range(3))
        flops = 4.0 * heads * seq * seq * dim
        title = (f"attention [{heads}, {seq}, {dim}]"
                 + (" causal" if causal else ""))
        return (Attention().eval(), inputs,
                flops / 2 if causal else flops, title)
    return build


def sgemm_case(n):
    def build(torch, quick):
        size = 256 if quick else n

        class MatMul(torch.nn.Module):
            def forward(self, a, b):
                return a @ b

        inputs = (randn(torch, size, size), randn(torch, size, size, seed=3))
        return (MatMul().eval(), inputs, 2.0 * size ** 3,
                f"SGEMM {size}³ (MatMul)")
    return build


CASES = [Case("sgemm", sgemm_case(2048)),
         Case("vit_ti_16", vit_case("ViT-Ti/16", vit_graph.VIT_TI_16)),
         Case("vit_b_16", vit_case("ViT-B/16", vit_graph.VIT_B_16)),
         Case("swin_t", swin_case())]
CASES += [Case(f"encoder_s{s}_b{b}", encoder_case(s, b))
          for s in (128, 384) for b in (1, 8)]
CASES += [Case("mha_s1024", mha_case(1024)),
          Case("gpt2_s1024", gpt2_case(1024)),
          Case("d2l_encoder", d2l_case(128, 8, 2))]
CASES += [Case(f"attention_s{s}" + ("_causal" if causal else ""),
               attention_case(s, causal))
          for causal in (False, True) for s in (197, 1024, 4096)]
MODELS = {c.key: c for c in CASES}


def export(torch, case, quick, work):
    """Builds CASE's module, exports it to WORK/KEY.onnx and writes its
    inputs; returns (module, inputs as tensors, the .onnx file, the input
    files, FLOPs, title)."""
    module, inputs, flops, title = case.build(torch, quick)
    path = os.path.join(work, case.key + ".onnx")
    names = [f"in{i}" for i in range(len(inputs))]
    start = time.perf_counter()
    # With gradients enabled (see the docstring). The tracer warns about
    # torchvision's shape asserts, which are constants at static shapes.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", torch.jit.TracerWarning)
        torch.onnx.export(module, inputs, path, opset_version=OPSET,
                          input_names=names, output_names=["y"])
    print(f"  exported {case.key}.onnx ({os.path.getsize(path) / 2**20:.1f}"
          f" MiB) in {time.perf_counter() - start:.1f} s", file=sys.stderr)
    files = runner.save_arrays(work, [(n, t.numpy())
                                      for n, t in zip(names, inputs)],
                               prefix=case.key + ".")
    return module, inputs, path, files, flops, title


# ===------------------------------------------------------------------=== #
# The three systems
# ===------------------------------------------------------------------=== #


class Measurement:
    """One process or one batch of calls: the median and min of its timed
    runs, how many, and the process's peak RSS (bytes or None)."""

    def __init__(self, median_ms, min_ms, runs, peak_rss=None):
        self.median_ms = median_ms
        self.min_ms = min_ms
        self.runs = runs
        self.peak_rss = peak_rss


class Ort:
    name = "ORT"

    def __init__(self, args):
        self.args = args

    def prepare(self, model, work, key):
        return model

    def measure(self, model, inputs, outputs, threads, runs, first,
                seconds=None):
        command = [self.args.node, RUN_JS, "--ort", self.args.ort,
                   "--model", model, "--threads", str(threads),
                   "--warmup", "1", "--runs", str(runs)]
        for path in outputs:
            command += ["-o", path]
        out, _, peak = common.run_measured(command + list(inputs))
        result = json.loads(out.strip().splitlines()[-1])
        times = result["times_ms"]
        return Measurement(statistics.median(times), min(times), runs, peak)


class Torch:
    name = "PyTorch"

    def __init__(self, args, torch):
        self.args = args
        self.torch = torch

    def prepare(self, module_inputs, work, key):
        return module_inputs

    def measure(self, module_inputs, inputs, outputs, threads, runs, first,
                seconds=None):
        module, tensors = module_inputs
        torch = self.torch
        common.set_threads(torch, threads)
        with torch.no_grad():
            # A warm-up call (the first call's result is the one checked),
            # except in the rounds of calls slower than 2 s.
            if first or seconds < 2:
                result = module(*tensors)
            min_ms, median_ms = common.time_torch(lambda: module(*tensors),
                                                  runs, warmup=0)
        if first:
            results = result if isinstance(result, tuple) else (result,)
            for path, t in zip(outputs, results):
                np.save(path, t.numpy())
        return Measurement(median_ms, min_ms, runs)


class Tfm:
    name = "tfm"

    def __init__(self, args):
        self.args = args

    def prepare(self, model, work, key):
        start = time.perf_counter()
        exe = common.compile_file(self.args.compiler, model,
                                  os.path.join(work, key))
        self.compile_s = time.perf_counter() - start
        return exe

    def measure(self, exe, inputs, outputs, threads, runs, first,
                seconds=None):
        r = common.run_exe(exe, inputs, outputs, runs, threads)
        return Measurement(r.median_ms, r.min_ms, runs, r.peak_rss)


def first_error_line(error):
    """The line of a tool's message that says what went wrong."""
    text = getattr(error, "output", None) or str(error)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    for line in lines:
        if "error" in line.lower():
            return line
    return lines[0] if lines else type(error).__name__


# ===------------------------------------------------------------------=== #
# Measuring
# ===------------------------------------------------------------------=== #


class Plan:
    """The rounds and runs per round of one (system, T), from its first
    call."""

    def __init__(self, args, seconds):
        budget, rounds, hi = args.budget, args.rounds, 20
        self.seconds = seconds
        if args.runs:
            self.rounds, self.runs = rounds, args.runs
        elif seconds > args.max_seconds:
            self.rounds, self.runs = 0, 1
        elif seconds * rounds > budget:
            self.rounds = max(min(3, rounds), min(rounds,
                                                  int(budget / seconds)))
            self.runs = 1
        else:
            self.rounds = rounds
            self.runs = max(1, min(hi, int(budget / (rounds * seconds))))


def bench_case(args, torch, case, systems):
    work = os.path.join(args.work, "onnx")
    os.makedirs(work, exist_ok=True)
    print(f"{case.key}:", file=sys.stderr)
    module, tensors, model, inputs, flops, title = export(
        torch, case, args.quick, work)
    row = {"key": case.key, "model": title, "gflop": flops / 1e9,
           "inputs": [list(t.shape) for t in tensors],
           "onnx_mib": os.path.getsize(model) / 2 ** 20, "systems": {}}

    # The reference: PyTorch at T = 1.
    common.set_threads(torch, 1)
    with torch.no_grad():
        ref = module(*tensors)
    refs = [t.numpy().astype(np.float64)
            for t in (ref if isinstance(ref, tuple) else (ref,))]
    row["outputs"] = [list(r.shape) for r in refs]

    # Prepare each system: the file it runs, or why it cannot.
    targets = {}
    for system in systems:
        entry = row["systems"].setdefault(system.name, {})
        subject = (module, tensors) if system.name == "PyTorch" else model
        try:
            targets[system.name] = system.prepare(subject, work, case.key)
            if system.name == "tfm":
                entry["compile_s"] = system.compile_s
        except (runner.ToolError, OSError, RuntimeError) as e:
            entry["error"] = first_error_line(e)
            entry["message"] = str(e)
            print(f"  {system.name}: {entry['error']}", file=sys.stderr)

    slots = [(system, t) for t in args.threads for system in systems
             if system.name in targets]
    outputs = {(s.name, t): [os.path.join(
        work, f"{case.key}.{s.name}.t{t}.out{i}.npy")
        for i in range(len(refs))] for s, t in slots}
    rounds = {}
    plans = {}

    def record(system, t, first):
        plan = plans.get((system.name, t))
        try:
            m = system.measure(targets[system.name], inputs,
                               outputs[(system.name, t)], t,
                               1 if first else plan.runs, first,
                               None if first else plan.seconds)
        except (runner.ToolError, OSError, RuntimeError, ValueError) as e:
            entry = row["systems"][system.name]
            entry["error"] = first_error_line(e)
            entry["message"] = str(e)
            print(f"  {system.name} T={t}: {entry['error']}",
                  file=sys.stderr)
            return None
        rounds.setdefault((system.name, t), []).append(m)
        return m

    # First calls: warm-up, estimate, outputs.
    for system, t in slots:
        m = record(system, t, first=True)
        if m is not None:
            plans[(system.name, t)] = Plan(args, m.median_ms / 1e3)
    live = [(s, t) for s, t in slots if (s.name, t) in plans
            and "error" not in row["systems"][s.name]]
    # Interleaved rounds; the first call counts only where no round
    # follows.
    for key, plan in plans.items():
        if plan.rounds:
            rounds[key] = []
    for r in range(max((p.rounds for p in plans.values()), default=0)):
        for system, t in live:
            if ("error" not in row["systems"][system.name]
                    and r < plans[(system.name, t)].rounds):
                record(system, t, first=False)

    for system, t in slots:
        entry = row["systems"][system.name]
        ms = rounds.get((system.name, t))
        if not ms or "error" in entry:
            continue
        per_t = entry.setdefault("threads", {})
        result = {"median_ms": statistics.median(m.median_ms for m in ms),
                  "min_ms": min(m.min_ms for m in ms),
                  "rounds": len(ms), "runs": sum(m.runs for m in ms)}
        peaks = [m.peak_rss for m in ms if m.peak_rss]
        result["peak_rss"] = max(peaks) if peaks else None
        errors = []
        for path, ref in zip(outputs[(system.name, t)], refs):
            out = np.load(path)
            if out.shape != ref.shape:
                errors.append({"shape": list(out.shape)})
                continue
            errors.append({
                "max_abs": float(np.abs(out.astype(np.float64) - ref).max(
                    initial=0.0)),
                "rel": compare.relative_error(out, ref)})
        result["errors"] = errors
        result["rel_err"] = max((e.get("rel", math.inf) for e in errors),
                                default=math.nan)
        result["max_abs"] = max((e.get("max_abs", math.inf)
                                 for e in errors), default=math.nan)
        per_t[str(t)] = result
        print(f"  {system.name} T={t}: {result['median_ms']:.3f} ms "
              f"({result['rounds']} rounds, {result['runs']} runs), max "
              f"rel. err. {result['rel_err']:.1e}", file=sys.stderr)
    return row


def fma_peak(args, work):
    """Compiles bench/fma_peak.c; returns {T: GFLOP/s}."""
    exe = os.path.join(work, "fma_peak")
    runner.run([args.cc, "-O3", "-march=native", "-fopenmp", FMA_PEAK_C,
                "-o", exe])
    seconds = "0.3" if args.quick else "1"
    return {t: json.loads(runner.run([exe, str(t), seconds])[0])
            for t in args.threads}


def ort_version(args):
    path = os.path.join(args.ort, "node_modules", "onnxruntime-node",
                        "package.json")
    with open(path) as f:
        return json.load(f)["version"]


def check_ort(args):
    """Exits with a hint when onnxruntime-node is not installed in
    --ort."""
    try:
        version = ort_version(args)
    except OSError:
        sys.exit(f"error: no onnxruntime-node in {args.ort}; bench/run.sh "
                 "installs it (or: mkdir -p DIR && cp bench/ort/package*.json"
                 " DIR && (cd DIR && npm ci --ignore-scripts))")
    if version != ORT_VERSION:
        print(f"warning: onnxruntime-node {version} in {args.ort}, "
              f"bench/ort/package.json pins {ORT_VERSION}", file=sys.stderr)
    subprocess.run([args.node, "-e", "require(require.resolve("
                    "'onnxruntime-node', {paths: [process.argv[1]]}))",
                    args.ort], check=True)
    return version


# ===------------------------------------------------------------------=== #
# Reporting
# ===------------------------------------------------------------------=== #


def best(entry):
    """(median ms, T) of a system's best thread count, or None."""
    per_t = entry.get("threads") or {}
    if not per_t:
        return None
    t = min(per_t, key=lambda k: per_t[k]["median_ms"])
    return per_t[t]["median_ms"], int(t)


def fastest(entry):
    """A system's fastest single run over its thread counts (ms), or None."""
    per_t = entry.get("threads") or {}
    return min((m["min_ms"] for m in per_t.values()), default=None)


# A peer whose median at its best T is more than this over its own fastest
# run at that T was disturbed on its own (noise that falls on every system
# alike moves all the medians together): its median flatters tfm.
DISTURBED = 1.3


def spread_cell(entry):
    """"median / fastest" of a system, ⚠ where it was disturbed."""
    b = best(entry) if "error" not in entry else None
    if not b:
        return "—"
    at_best = entry["threads"][str(b[1])]
    flag = " ⚠" if b[0] > DISTURBED * at_best["min_ms"] else ""
    return f"{fmt_ms(b[0])} / {fmt_ms(fastest(entry))}{flag}"


def worst_error(entry):
    per_t = entry.get("threads") or {}
    errs = [r["rel_err"] for r in per_t.values()]
    return max(errs) if errs else None


def err_cell(entry, tolerance):
    if "error" in entry:
        return "—"
    e = worst_error(entry)
    if e is None:
        return "—"
    return f"{e:.1e}" + (" ✗" if not e <= tolerance else "")


def latency_cell(entry):
    if "error" in entry:
        return "failed"
    b = best(entry)
    return f"{fmt_ms(b[0])} @{b[1]}" if b else "—"


def fmt_ms(ms):
    if ms >= 100:
        return f"{ms:.0f}"
    if ms >= 10:
        return f"{ms:.1f}"
    return f"{ms:.2f}" if ms >= 1 else f"{ms:.3f}"


def report(results):
    tol = results["tolerance"]
    peak = {int(t): g for t, g in results["fma_gflops"].items()}
    out = ["## tfm against ONNX Runtime and PyTorch (ONNX models, float32)\n"]
    load = results.get("load_average")
    out.append(
        f"Machine: {results['machine']}. ONNX Runtime "
        f"{results['ort_version']} (onnxruntime-node, CPU execution "
        f"provider, Node.js {results['node_version']}); models exported "
        f"from PyTorch at opset {OPSET}. Threads: "
        f"{', '.join(map(str, results['threads']))}, each system at its "
        f"best."
        + (f" Load average at start / end: {load[0]:.2f} / {load[-1]:.2f}."
           if load else "") + "\n")
    sgemm = next((r for r in results["models"] if r["key"] == "sgemm"), None)
    peer_sgemm = None
    if sgemm:
        rates = [(sgemm["gflop"] / (b[0] * 1e-3), name, b[1])
                 for name in ("ORT", "PyTorch")
                 for b in [best(sgemm["systems"].get(name, {}))] if b]
        if rates:
            peer_sgemm = max(rates)
    out.append("FMA peak (bench/fma_peak.c): " + ", ".join(
        f"{g:.0f} GFLOP/s at T={t}" for t, g in sorted(peak.items()))
        + (f". Best peer SGEMM ({sgemm['inputs'][0][0]}³): "
           f"{peer_sgemm[0]:.0f} GFLOP/s ({peer_sgemm[1]}, T="
           f"{peer_sgemm[2]})" if peer_sgemm else "") + ".\n")
    out.append(
        "Latencies are medians over interleaved rounds, in ms, at the best "
        "thread count (`@T`); tfm × best peer = the faster peer's latency /"
        " tfm's (above 1: tfm is faster). GFLOP/s and % of peak are tfm's, "
        "at its best T, against the FMA peak at that T (FLOPs counted from"
        " the shapes, see bench/ort.py). Errors: the largest max |out − "
        "ref| / max |ref| over the thread counts, ref = PyTorch at T=1; ✗ "
        f"marks one above {tol:g}.\n")
    headers = ["model", "GFLOP", "ORT best", "PyTorch best", "tfm best",
               "tfm × best peer", "GFLOP/s", "% of peak", "ORT err",
               "tfm err"]
    rows = []
    failures = []
    for r in results["models"]:
        s = r["systems"]
        ort, pt, tfm = (s.get(n, {"error": "not run"}) for n in SYSTEMS)
        peers = [b[0] for b in (best(ort), best(pt)) if b]
        t = best(tfm) if "error" not in tfm else None
        ratio = fmt(min(peers) / t[0], 2) if peers and t else "—"
        gflops = r["gflop"] / (t[0] * 1e-3) if t else None
        pct = (f"{100 * gflops / peak[t[1]]:.0f}%"
               if t and t[1] in peak else "—")
        rows.append([r["model"], f"{r['gflop']:.3g}", latency_cell(ort),
                     latency_cell(pt), latency_cell(tfm), ratio,
                     fmt(gflops, 1), pct, err_cell(ort, tol),
                     err_cell(tfm, tol)])
        for name in SYSTEMS:
            if "error" in s.get(name, {}):
                failures.append(f"- {r['model']}: {name} failed: "
                                f"`{s[name]['error']}`")
    out.append(common.markdown_table(headers, rows) + "\n")
    if failures:
        out.append("Failures (the whole messages are in the JSON):\n")
        out.append("\n".join(failures) + "\n")

    out.append("### Against the peers' fastest single runs\n")
    out.append(
        "The medians above resist noise that falls on every system alike. "
        "A peer disturbed on its own (⚠: its median at its best T more "
        f"than {DISTURBED:g}× its fastest run at that T) makes them flatter "
        "tfm; the ratio here does not: tfm's median at its best T against "
        "the faster peer's fastest single run over both thread counts. "
        "Cells: median at the best T / fastest run, in ms.\n")
    headers = ["model", "ORT", "PyTorch", "tfm",
               "tfm × peers' fastest run"]
    rows = []
    for r in results["models"]:
        s = r["systems"]
        ort, pt, tfm = (s.get(n, {"error": "not run"}) for n in SYSTEMS)
        runs = [f for f in (fastest(e) for e in (ort, pt)
                            if "error" not in e) if f is not None]
        t = best(tfm) if "error" not in tfm else None
        rows.append([r["model"], spread_cell(ort), spread_cell(pt),
                     spread_cell(tfm),
                     fmt(min(runs) / t[0], 2) if runs and t else "—"])
    out.append(common.markdown_table(headers, rows) + "\n")

    out.append("### Every system at every thread count\n")
    out.append("Median and min in ms; runs: rounds × timed runs per "
               "round; max abs diff and relative error against "
               "PyTorch at T=1; peak RSS of the process (ORT's includes "
               "Node.js; PyTorch runs in the bench's own process: none).\n")
    headers = ["model", "system", "T", "median ms", "min ms", "runs",
               "max abs diff", "max rel err", "peak RSS MiB"]
    rows = []
    for r in results["models"]:
        for name in SYSTEMS:
            entry = r["systems"].get(name, {})
            for t, m in sorted((entry.get("threads") or {}).items()):
                rows.append([
                    r["model"], name, t, fmt_ms(m["median_ms"]),
                    fmt_ms(m["min_ms"]),
                    f"{m['rounds']} × {m['runs'] // m['rounds']}",
                    f"{m['max_abs']:.1e}",
                    f"{m['rel_err']:.1e}"
                    + (" ✗" if not m["rel_err"] <= tol else ""),
                    fmt(mib(m["peak_rss"])) if m.get("peak_rss") else "—"])
    out.append(common.markdown_table(headers, rows) + "\n")
    return "\n".join(out)


# ===------------------------------------------------------------------=== #
# Driver
# ===------------------------------------------------------------------=== #


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--quick", action="store_true",
                        help="a smoke test: tiny sizes, 2 short rounds")
    parser.add_argument("--models", default=",".join(MODELS),
                        help="of " + ", ".join(MODELS) + " (default: all)")
    parser.add_argument("--threads", default="1,2",
                        help="thread counts (default 1,2)")
    parser.add_argument("--rounds", type=int,
                        help="interleaved rounds (default 5; --quick 2)")
    parser.add_argument("--budget", type=float,
                        help="seconds of timed runs per system and thread "
                        "count, over all rounds (default 4; --quick 0.3)")
    parser.add_argument("--runs", type=int,
                        help="timed runs per round (default: by --budget)")
    parser.add_argument("--max-seconds", type=float, default=30.0,
                        help="a system slower than this per run keeps its "
                        "first call as its only measurement (default 30)")
    parser.add_argument("--compiler", default=common.DEFAULT_COMPILER)
    parser.add_argument("--ort", default=os.path.join(
        common.ROOT, "build", "bench", "ort"),
        help="where bench/ort/package.json is installed (default "
        "build/bench/ort)")
    parser.add_argument("--node", default="node")
    parser.add_argument("--cc", default="clang-22",
                        help="the C compiler of bench/fma_peak.c (default "
                        "clang-22)")
    parser.add_argument("--work", default=os.path.join(
        common.ROOT, "build", "bench"))
    parser.add_argument("--markdown", help="write the tables here too")
    parser.add_argument("--json", help="the raw results (default "
                        "WORK/ort.json)")
    parser.add_argument("--from-json", help="report these raw results "
                        "instead of measuring")
    args = parser.parse_args()
    if args.quick:
        args.work = os.path.join(args.work, "quick")
    args.rounds = args.rounds or (2 if args.quick else 5)
    args.budget = args.budget or (0.3 if args.quick else 4.0)
    args.threads = [int(t) for t in args.threads.split(",") if t]
    json_path = args.json or os.path.join(args.work, "ort.json")

    if args.from_json:
        with open(args.from_json) as f:
            results = json.load(f)
    else:
        keys = [k for k in args.models.split(",") if k]
        for k in keys:
            if k not in MODELS:
                sys.exit(f"error: unknown model {k}; expected one of "
                         + ", ".join(MODELS))
        if not os.path.exists(args.compiler):
            sys.exit(f"error: no tfm-compile at {args.compiler} "
                     "(scripts/build.sh tfm-compile tfm_runtime)")
        version = check_ort(args)
        import torch
        os.makedirs(args.work, exist_ok=True)
        start = time.perf_counter()
        load_start = os.getloadavg()[0]
        if load_start > 0.5:
            print(f"warning: load average {load_start:.2f}: the machine is "
                  "busy, timings will be noisy", file=sys.stderr)
        peaks = [fma_peak(args, args.work)]
        print("FMA peak: " + ", ".join(f"{g['gflops']:.0f} GFLOP/s at T={t}"
                                        for t, g in peaks[0].items()),
              file=sys.stderr)
        systems = [Ort(args), Torch(args, torch), Tfm(args)]
        models = [bench_case(args, torch, MODELS[k], systems) for k in keys]
        peaks.append(fma_peak(args, args.work))
        results = {
            "machine": common.machine_description(torch),
            "ort_version": version,
            "node_version": subprocess.run(
                [args.node, "--version"], capture_output=True,
                text=True).stdout.strip(),
            "threads": args.threads, "quick": args.quick,
            "rounds": args.rounds, "budget_s": args.budget,
            "tolerance": compare.TOLERANCE,
            "fma_gflops": {t: max(p[t]["gflops"] for p in peaks)
                           for t in args.threads},
            "fma_runs": peaks,
            "models": models,
            "load_average": [load_start, os.getloadavg()[0]],
            "seconds": time.perf_counter() - start}
        common.save_results(results, json_path)

    common.print_report(report(results), args.markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
