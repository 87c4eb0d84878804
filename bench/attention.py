#!/usr/bin/env python3
"""Scaled dot-product attention on the CPU: tfm fused vs tfm unfused vs
PyTorch, in one run on one machine.

    bench/attention.py [--quick] [--sizes 128,197,...] [--dims 64,128]
                       [--causal off,on] [--threads 2] [--markdown FILE]
                       [--plot FILE] [--json FILE] [--work DIR]

For B = 1, H = 12 heads, sequence length S and head dimension d, float32,
it measures

  tfm fused     a graph of one `tfm.attention` on [12, S, d] tensors
                (`{causal}` when causal), compiled by tfm-compile with its
                default options;
  tfm unfused   the same attention as the seed's DotProductAttention writes
                it: tfm.batch_matmul with transpose_rhs, arith.mulf by a
                splat constant 1/sqrt(d), tfm.masked_softmax (for causal
                with per-query valid_lens i + 1, i.e. d2l's masking of the
                keys after the query) and tfm.batch_matmul with V, compiled
                with --no-fusion;
  PyTorch       the seed's DotProductAttention in torch: bmm, / sqrt(d),
                softmax (causal: masked_fill of the keys after the query
                with -inf), bmm; and the same into one preallocated S x S
                buffer with in-place ops ("prealloc"), which leaves out the
                cost of allocating fresh S x S tensors on every call;
  SGEMM         torch.mm of 2048 x 2048 float32 on the same threads, the
                machine's practical ceiling;

and, for d = 64 (model dimension 768), nn.MultiheadAttention(768, 12,
batch_first=True) against a tfm graph of one `tfm.multi_head_attention` with
the same weights (both include the four projections, so they are reported
apart).

Every tfm executable runs in a fresh process with `--bench N --threads T`;
its peak RSS (wait4's ru_maxrss) less the bytes of Q, K, V and the output
is the "extra" memory, which must grow linearly in S for the fused op.
PyTorch runs with torch.set_num_threads(T), under torch.no_grad().

Timed runs: as many as fit --budget seconds (3 to 30; --quick: 2 to 3);
a first `--bench 1` process sizes each tfm measurement, and a tfm variant
whose time per run, extrapolated by S^2 from the previous S, would exceed
--max-seconds is skipped (shown as "skipped") to bound the total time.

FLOPs: 4 * B * H * S^2 * d per attention (two matmuls); for causal, half of
that (the work on the keys at or before each query), so that GFLOP/s stay
comparable with the SGEMM rate. Ratios of latencies do not depend on it.
"""

import argparse
import json
import math
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
sys.path.insert(0, HERE)
import common  # noqa: E402
from common import fmt, mib  # noqa: E402
from tfm_tools import compare, graph, runner, safetensors  # noqa: E402

HEADS = 12
FULL_SIZES = [128, 197, 512, 1024, 2048, 4096]
QUICK_SIZES = [64, 197]


# ===------------------------------------------------------------------=== #
# Graphs
# ===------------------------------------------------------------------=== #


def fused_graph(h, s, d, causal, element="f32"):
    """One tfm.attention on [H, S, d] tensors of ELEMENT (f32, f16)."""
    t = graph.tensor((h, s, d), element)
    f = graph.Function("main", comment=(
        f"tfm fused: one tfm.attention, H={h} S={s} d={d}"
        f"{' causal' if causal else ''}"))
    q, k, v = (f.input(name, t) for name in ("q", "k", "v"))
    o = f.op("tfm.attention", [q, k, v], t, attrs={"causal": causal},
             name="o")
    f.ret(o, names="o")
    return f.text()


def unfused_graph(h, s, d, causal, softmax="tfm"):
    """The seed's DotProductAttention op by op. SOFTMAX is "tfm"
    (tfm.masked_softmax) or "linalg" (upstream linalg.softmax, for
    non-causal graphs; causal ones keep tfm.masked_softmax and its
    valid_lens)."""
    t = graph.tensor((h, s, d))
    ts = graph.tensor((h, s, s))
    f = graph.Function("main", comment=(
        f"tfm unfused (seed's DotProductAttention), H={h} S={s} d={d}"
        f"{' causal: valid_lens = i + 1 per query' if causal else ''}"))
    q, k, v = (f.input(name, t) for name in ("q", "k", "v"))
    lens = f.input("valid_lens", graph.tensor((h, s), "i32"), arg="lens") \
        if causal else None
    scores = f.op("tfm.batch_matmul", [q, k], ts,
                  attrs={"transpose_rhs": True}, name="scores")
    scale = f.constant(1 / math.sqrt(d), ts, name="scale")
    scaled = f.op("arith.mulf", [scores, scale], same_type=True,
                  name="scaled")
    if softmax == "linalg" and not causal:
        weights = f.linalg_softmax(scaled, f.empty(ts, name="init"), 2,
                                   name="weights")
    else:
        weights = f.op("tfm.masked_softmax", [scaled], ts,
                       groups={"valid_lens": lens}, name="weights")
    o = f.op("tfm.batch_matmul", [weights, v], t, name="o")
    f.ret(o, names="o")
    return f.text()


def mha_graph(s, dim, heads, causal):
    tx = graph.tensor((1, s, dim))
    f = graph.Function("main", comment=(
        f"tfm.multi_head_attention = nn.MultiheadAttention({dim}, {heads},"
        f" batch_first=True), S={s}{' causal' if causal else ''}"))
    x = f.input("x", tx)
    weights = [f.weight(f"w_{n}", graph.tensor((dim, dim))) for n in "qkvo"]
    biases = [f.weight(f"b_{n}", graph.tensor((dim,))) for n in "qkvo"]
    y = f.op("tfm.multi_head_attention", [x, x, x], tx,
             groups={"weights": weights, "biases": biases},
             attrs={"causal": causal, "num_heads": heads}, name="y")
    f.ret(y, names="y")
    return f.text()


# ===------------------------------------------------------------------=== #
# Measurements
# ===------------------------------------------------------------------=== #


def attention_flops(h, s, d, causal):
    flops = 4.0 * h * s * s * d
    return flops / 2 if causal else flops


def gflops(flops, ms):
    return flops / (ms * 1e-3) / 1e9 if ms else float("nan")


class Bench:
    def __init__(self, args, torch):
        self.args = args
        self.torch = torch
        self.budget = 0.6 if args.quick else args.budget
        self.lo, self.hi = (2, 3) if args.quick else (3, 30)
        self.last = {}      # (variant, d, causal) -> (S, seconds per run)

    def too_slow(self, key, s):
        """A reason to skip variant KEY at length S when its time at the
        previous S, scaled by S², predicts more than --max-seconds a run."""
        if key not in self.last:
            return None
        s0, seconds = self.last[key]
        predicted = seconds * (s / s0) ** 2
        if predicted <= self.args.max_seconds:
            return None
        return (f"skipped: {seconds:.1f} s per run at S={s0} predicts "
                f"{predicted:.0f} s at S={s} (> --max-seconds "
                f"{self.args.max_seconds:g})")

    def runs(self, seconds):
        return common.runs_for(seconds, self.budget, self.lo, self.hi)

    def torch_attention(self, q, k, v, causal):
        torch = self.torch
        s, d = q.shape[1], q.shape[2]
        mask = torch.ones(s, s, dtype=torch.bool).triu(1) if causal else None
        scale = math.sqrt(d)

        def run():
            # The seed's DotProductAttention: bmm, scale, softmax, bmm.
            scores = torch.bmm(q, k.transpose(1, 2)) / scale
            if mask is not None:
                scores.masked_fill_(mask, float("-inf"))
            weights = torch.softmax(scores, dim=-1)
            return torch.bmm(weights, v)
        return run

    def torch_attention_prealloc(self, q, k, v, causal):
        """The same computation with every S x S buffer allocated once:
        bmm into a preallocated buffer, then in-place ops. It separates
        PyTorch's compute from the cost of allocating (and first touching)
        fresh S x S tensors on every call."""
        torch = self.torch
        h, s, d = q.shape
        mask = torch.ones(s, s, dtype=torch.bool).triu(1) if causal else None
        scores = torch.empty(h, s, s)
        out = torch.empty(h, s, v.shape[2])
        scale = 1 / math.sqrt(d)

        def run():
            torch.baddbmm(scores, q, k.transpose(1, 2), beta=0, alpha=scale,
                          out=scores)
            if mask is not None:
                scores.masked_fill_(mask, float("-inf"))
            scores.sub_(scores.amax(dim=-1, keepdim=True)).exp_()
            scores.div_(scores.sum(dim=-1, keepdim=True))
            return torch.bmm(scores, v, out=out)
        return run

    def measure_torch(self, fn):
        start = time.perf_counter()
        with self.torch.no_grad():
            out = fn()                              # warm-up and estimate
            once = time.perf_counter() - start
            runs = self.runs(once)
            min_ms, median_ms = common.time_torch(fn, runs, warmup=0)
        return out, min_ms, median_ms, runs, once

    def attention_case(self, s, d, causal):
        args, torch = self.args, self.torch
        h = HEADS
        tag = f"h{h}_s{s}_d{d}{'_causal' if causal else ''}"
        work = os.path.join(args.work, "attention")
        os.makedirs(work, exist_ok=True)
        rng = np.random.default_rng(s * 1000 + d)
        q, k, v = (rng.standard_normal((h, s, d), dtype=np.float32)
                   for _ in range(3))
        paths = runner.save_arrays(work, [("q", q), ("k", k), ("v", v)],
                                   prefix=tag + ".")
        lens_path = None
        if causal:
            lens = np.broadcast_to(np.arange(1, s + 1, dtype=np.int32),
                                   (h, s)).copy()
            (lens_path,) = runner.save_arrays(work, [("valid_lens", lens)],
                                              prefix=tag + ".")
        flops = attention_flops(h, s, d, causal)
        qkvo_bytes = 4 * q.nbytes
        row = {"s": s, "d": d, "causal": causal, "flops": flops,
               "qkvo_bytes": qkvo_bytes}

        # PyTorch first: its warm-up run sizes the number of runs of all.
        tq, tk, tv = (torch.from_numpy(a) for a in (q, k, v))
        ref, tmin, tmed, truns, once = self.measure_torch(
            self.torch_attention(tq, tk, tv, causal))
        ref = ref.numpy()
        row["torch"] = {"min_ms": tmin, "median_ms": tmed, "runs": truns}
        print(f"  S={s} d={d} causal={int(causal)}: PyTorch "
              f"{tmed:.3f} ms ({truns} runs)", file=sys.stderr)
        if not args.no_prealloc:
            out, pmin, pmed, pruns, _ = self.measure_torch(
                self.torch_attention_prealloc(tq, tk, tv, causal))
            row["torch_prealloc"] = {
                "min_ms": pmin, "median_ms": pmed, "runs": pruns,
                "rel_err": compare.relative_error(out.numpy(), ref)}
            print(f"  S={s} d={d} causal={int(causal)}: PyTorch prealloc "
                  f"{pmed:.3f} ms ({pruns} runs)", file=sys.stderr)

        variants = [("fused", fused_graph(h, s, d, causal), [], paths)]
        if not args.no_unfused:
            variants.append(
                ("unfused", unfused_graph(h, s, d, causal, args.softmax),
                 ["--no-fusion"], paths + ([lens_path] if causal else [])))
        for kind, text, flags, inputs in variants:
            skip = self.too_slow((kind, d, causal), s)
            if skip:
                row[kind] = {"skipped": skip}
                print(f"  S={s} d={d} causal={int(causal)}: tfm {kind} "
                      f"{skip}", file=sys.stderr)
                continue
            try:
                exe = common.compile_graph(args.compiler, text, work,
                                           f"{kind}_{tag}", flags)
            except runner.ToolError as e:
                row[kind] = {"error": str(e)}
                print(f"  error: {e}", file=sys.stderr)
                continue
            out = os.path.join(work, f"{tag}.{kind}.out.npy")
            # A first --bench 1 run sizes the number of timed runs.
            r = common.run_exe_adaptive(exe, inputs, out, args.threads,
                                        self.budget, self.lo, self.hi)
            runs = r.runs
            self.last[(kind, d, causal)] = (s, r.median_ms / 1e3)
            err = compare.relative_error(np.load(out), ref)
            row[kind] = {"min_ms": r.min_ms, "median_ms": r.median_ms,
                         "runs": r.runs, "rel_err": err}
            if r.peak_rss is not None:
                row[kind]["peak_rss"] = r.peak_rss
                row[kind]["extra_bytes"] = r.peak_rss - qkvo_bytes
            os.remove(out)
            print(f"  S={s} d={d} causal={int(causal)}: tfm {kind} "
                  f"{r.median_ms:.3f} ms ({runs} runs), peak RSS "
                  f"{fmt(mib(r.peak_rss) if r.peak_rss else None)} MiB, "
                  f"rel. err. {err:.1e}", file=sys.stderr)
        for p in paths + ([lens_path] if lens_path else []):
            os.remove(p)
        return row

    def mha_case(self, s, dim, causal):
        args, torch = self.args, self.torch
        heads = HEADS
        tag = f"mha_d{dim}_h{heads}_s{s}{'_causal' if causal else ''}"
        work = os.path.join(args.work, "attention")
        skip = self.too_slow(("mha", dim, causal), s)
        torch.manual_seed(0)
        mha = torch.nn.MultiheadAttention(dim, heads, batch_first=True)
        mha.eval()
        # nn.MultiheadAttention's default init leaves the biases at 0: give
        # them values so that the comparison covers them.
        with torch.no_grad():
            mha.in_proj_bias.normal_(0, 0.02)
            mha.out_proj.bias.normal_(0, 0.02)
        x = torch.randn(1, s, dim, generator=torch.Generator().manual_seed(1))
        mask = torch.ones(s, s, dtype=torch.bool).triu(1) if causal else None

        def run():
            return mha(x, x, x, attn_mask=mask, need_weights=False)[0]
        ref, tmin, tmed, truns, once = self.measure_torch(run)
        ref = ref.numpy()
        proj_flops = 4 * 2.0 * s * dim * dim
        flops = proj_flops + attention_flops(1, s, dim, causal)
        row = {"s": s, "dim": dim, "causal": causal, "flops": flops,
               "torch": {"min_ms": tmin, "median_ms": tmed, "runs": truns}}

        if skip:
            row["tfm"] = {"skipped": skip}
            print(f"  MHA S={s} causal={int(causal)}: tfm {skip}",
                  file=sys.stderr)
            return row
        w_q, w_k, w_v = mha.in_proj_weight.detach().numpy().reshape(
            3, dim, dim)
        b_q, b_k, b_v = mha.in_proj_bias.detach().numpy().reshape(3, dim)
        weights = os.path.join(work, f"mha_d{dim}.safetensors")
        safetensors.save(weights, {
            "w_q": w_q, "w_k": w_k, "w_v": w_v,
            "w_o": mha.out_proj.weight.detach().numpy(),
            "b_q": b_q, "b_k": b_k, "b_v": b_v,
            "b_o": mha.out_proj.bias.detach().numpy()})
        x_path = os.path.join(work, f"{tag}.x.npy")
        np.save(x_path, x.numpy())
        try:
            exe = common.compile_graph(args.compiler,
                                       mha_graph(s, dim, heads, causal),
                                       work, tag, weights=weights)
        except runner.ToolError as e:
            row["tfm"] = {"error": str(e)}
            print(f"  error: {e}", file=sys.stderr)
            return row
        out = os.path.join(work, f"{tag}.out.npy")
        r = common.run_exe_adaptive(exe, [x_path], out, args.threads,
                                    self.budget, self.lo, self.hi)
        self.last[("mha", dim, causal)] = (s, r.median_ms / 1e3)
        row["tfm"] = {"min_ms": r.min_ms, "median_ms": r.median_ms,
                      "runs": r.runs, "peak_rss": r.peak_rss,
                      "rel_err": compare.relative_error(np.load(out), ref)}
        print(f"  MHA S={s} causal={int(causal)}: PyTorch {tmed:.3f} ms, "
              f"tfm {r.median_ms:.3f} ms, rel. err. "
              f"{row['tfm']['rel_err']:.1e}", file=sys.stderr)
        os.remove(out)
        os.remove(x_path)
        return row


# ===------------------------------------------------------------------=== #
# Report
# ===------------------------------------------------------------------=== #


def med(entry):
    return entry.get("median_ms") if entry else None


def missing(entry):
    """How a table shows a measurement that is not there."""
    if not entry:
        return "—"
    if "error" in entry:
        return "error"
    if "skipped" in entry:
        return "skipped"
    return "—"


def report(results):
    sgemm = results["sgemm_gflops"]
    out = []
    out.append("## Scaled dot-product attention (B=1, H=12, float32)\n")
    load = results.get("load_average")
    out.append(f"Machine: {results['machine']}. Threads: "
               f"{results['threads']} (tfm `--threads`, "
               f"`torch.set_num_threads`)."
               + (f" Load average at start / end: {load[0]:.2f} / "
                  f"{load[-1]:.2f}." if load else "") + "\n")
    out.append(f"SGEMM ceiling: torch.mm 2048x2048 float32 = "
               f"**{sgemm:.1f} GFLOP/s** (median "
               f"{results['sgemm_ms']:.2f} ms).\n")
    out.append("GFLOP/s count 4·B·H·S²·d per attention, half of that when "
               "causal. Latencies are medians; ×PyTorch is PyTorch's "
               "latency over tfm's (>1: tfm is faster). Unfused causal masks "
               f"with per-query valid_lens (d2l's masked_softmax); unfused "
               f"softmax: {results['softmax']}. *PyTorch* is the seed's "
               "DotProductAttention (`bmm`, `/ sqrt(d)`, `softmax`, `bmm`; "
               "causal: `masked_fill_` with -inf), which allocates its S×S "
               "tensors on every call; *PyTorch prealloc* computes the same "
               "into one preallocated S×S buffer (`baddbmm(out=)`, in-place "
               "softmax, `bmm(out=)`), without those allocations and their "
               "page faults.\n")
    headers = ["d", "causal", "S", "fused ms", "fused GFLOP/s",
               "unfused ms", "unfused GFLOP/s", "PyTorch ms",
               "PyTorch GFLOP/s", "PyTorch prealloc ms", "fused ×PyTorch",
               "fused × prealloc", "fused % SGEMM", "unfused ×PyTorch",
               "fused err", "runs f/u/P/p"]
    rows = []
    for r in results["attention"]:
        f, u, t = med(r.get("fused")), med(r.get("unfused")), \
            med(r.get("torch"))
        p = med(r.get("torch_prealloc"))
        rows.append([
            r["d"], "yes" if r["causal"] else "no", r["s"],
            fmt(f, 3) if f else missing(r.get("fused")),
            fmt(gflops(r["flops"], f)),
            fmt(u, 3) if u else missing(r.get("unfused")),
            fmt(gflops(r["flops"], u)) if u else "—",
            fmt(t, 3), fmt(gflops(r["flops"], t)),
            fmt(p, 3) if p else "—",
            fmt(t / f, 2) if f else "—",
            fmt(p / f, 2) if f and p else "—",
            fmt(100 * gflops(r["flops"], f) / sgemm, 0) if f else "—",
            fmt(t / u, 2) if u else "—",
            f"{r['fused']['rel_err']:.1e}" if f else "—",
            "/".join(str(r.get(k, {}).get("runs", "—"))
                     for k in ("fused", "unfused", "torch",
                               "torch_prealloc"))])
    out.append(common.markdown_table(headers, rows) + "\n")

    # Memory: peak RSS of the executables less Q, K, V and O.
    out.append("### Peak memory of the tfm executables\n")
    out.append("Peak RSS of each executable's process (ru_maxrss), and the "
               "extra memory: peak RSS − bytes of Q, K, V and the output. "
               "The extra includes the process's fixed footprint (code, "
               "libraries, OpenMP) and the runtime's transient copy while "
               "reading each .npy input, which grows linearly in S.\n")
    headers = ["d", "causal", "S", "Q+K+V+O MiB", "fused peak MiB",
               "fused extra MiB", "unfused peak MiB", "unfused extra MiB"]
    rows = []
    for r in results["attention"]:
        f, u = r.get("fused", {}), r.get("unfused", {})
        rows.append([r["d"], "yes" if r["causal"] else "no", r["s"],
                     fmt(mib(r["qkvo_bytes"])),
                     fmt(mib(f["peak_rss"])) if "peak_rss" in f else "—",
                     fmt(mib(f["extra_bytes"])) if "peak_rss" in f else "—",
                     fmt(mib(u["peak_rss"])) if "peak_rss" in u else "—",
                     fmt(mib(u["extra_bytes"])) if "peak_rss" in u else "—"])
    out.append(common.markdown_table(headers, rows) + "\n")

    if results.get("mha"):
        out.append("### Multi-head attention with projections (d_model = 768,"
                   " 12 heads, B=1)\n")
        out.append("`nn.MultiheadAttention(768, 12, batch_first=True)` "
                   "(eval, `need_weights=False`; causal: boolean "
                   "`attn_mask`) against one `tfm.multi_head_attention` with "
                   "the same weights. GFLOP/s count the four projections "
                   "(8·S·768²) plus the attention as above.\n")
        headers = ["causal", "S", "tfm ms", "tfm GFLOP/s", "PyTorch ms",
                   "PyTorch GFLOP/s", "tfm ×PyTorch", "tfm err",
                   "runs tfm/P"]
        rows = []
        for r in results["mha"]:
            f, t = med(r.get("tfm")), med(r.get("torch"))
            rows.append([
                "yes" if r["causal"] else "no", r["s"],
                fmt(f, 3) if f else missing(r.get("tfm")),
                fmt(gflops(r["flops"], f)),
                fmt(t, 3), fmt(gflops(r["flops"], t)),
                fmt(t / f, 2) if f else "—",
                f"{r['tfm']['rel_err']:.1e}" if f else "—",
                f"{r['tfm'].get('runs', '—')}/{r['torch']['runs']}"])
        out.append(common.markdown_table(headers, rows) + "\n")

    out.append("### Targets\n")
    out += [f"- {line}" for line in targets(results)]
    errors = []
    for r in results["attention"] + results.get("mha", []):
        for key in ("fused", "unfused", "tfm"):
            message = r.get(key, {}).get("error")
            if message and message not in errors:
                errors.append(message)
    if errors:
        out.append("\n### Compile errors\n")
        out += [f"```\n{e}\n```\n" for e in errors]
    return "\n".join(out) + "\n"


def find(results, s, d, causal):
    for r in results["attention"]:
        if (r["s"], r["d"], r["causal"]) == (s, d, causal):
            return r
    return None


def targets(results):
    lines = []
    sgemm = results["sgemm_gflops"]
    r = find(results, 1024, 64, False)
    if r and med(r.get("fused")):
        f, t = med(r["fused"]), med(r["torch"])
        speedup, share = t / f, gflops(r["flops"], f) / sgemm
        lines.append(
            f"fused attention S=1024 d=64: {speedup:.2f}× PyTorch unfused "
            f"(target ≥ 3×): {'PASS' if speedup >= 3 else 'FAIL'}; "
            f"{100 * share:.0f}% of SGEMM (target ≥ 60%): "
            f"{'PASS' if share >= 0.6 else 'FAIL'}")
    else:
        lines.append("fused attention S=1024 d=64: not measured")
    for d in sorted({r["d"] for r in results["attention"]}):
        for causal in (False, True):
            a, b = find(results, 2048, d, causal), find(results, 4096, d,
                                                        causal)
            if not (a and b and "peak_rss" in a.get("fused", {})
                    and "peak_rss" in b.get("fused", {})):
                continue
            ratio = b["fused"]["extra_bytes"] / a["fused"]["extra_bytes"]
            lines.append(
                f"fused peak memory beyond Q/K/V/O, d={d}"
                f"{' causal' if causal else ''}: S=4096 / S=2048 = "
                f"{ratio:.2f} (target < 2): "
                f"{'PASS' if ratio < 2 else 'FAIL'}")
    if len(lines) == 1:
        lines.append("peak memory growth: needs S=2048 and S=4096")
    return lines


def plot(results, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("warning: matplotlib is missing (apt-get install "
              "python3-matplotlib); no plot", file=sys.stderr)
        return False
    combos = sorted({(r["d"], r["causal"]) for r in results["attention"]})
    cols = 2 if len(combos) > 1 else 1
    nrows = (len(combos) + cols - 1) // cols
    fig, axes = plt.subplots(nrows, cols, figsize=(6 * cols, 4 * nrows),
                             squeeze=False)
    sgemm = results["sgemm_gflops"]
    for ax, (d, causal) in zip(axes.flat, combos):
        rs = [r for r in results["attention"]
              if (r["d"], r["causal"]) == (d, causal)]
        rs.sort(key=lambda r: r["s"])
        for key, label, style in (("fused", "tfm fused", "o-"),
                                  ("unfused", "tfm unfused", "s--"),
                                  ("torch", "PyTorch (bmm/softmax/bmm)",
                                   "^-"),
                                  ("torch_prealloc", "PyTorch, preallocated",
                                   "v:")):
            pts = [(r["s"], gflops(r["flops"], med(r.get(key))))
                   for r in rs if med(r.get(key))]
            if pts:
                ax.plot(*zip(*pts), style, label=label)
        ax.axhline(sgemm, color="gray", linestyle=":",
                   label=f"SGEMM {sgemm:.0f} GFLOP/s")
        ax.set_xscale("log", base=2)
        ax.set_xticks([r["s"] for r in rs])
        ax.set_xticklabels([str(r["s"]) for r in rs])
        ax.set_xlabel("sequence length S")
        ax.set_ylabel("GFLOP/s")
        ax.set_ylim(bottom=0)
        ax.set_title(f"attention B=1 H=12 d={d}"
                     f"{', causal (half FLOPs)' if causal else ''}")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    for ax in list(axes.flat)[len(combos):]:
        ax.axis("off")
    fig.suptitle(results["machine"], fontsize=8)
    fig.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    fig.savefig(path, dpi=110)
    print(f"wrote {path}", file=sys.stderr)
    return True


# ===------------------------------------------------------------------=== #


def parse_list(text, kind=int):
    return [kind(x) for x in text.split(",") if x]


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--quick", action="store_true",
                        help="a smoke test: tiny sizes, 2-3 runs")
    parser.add_argument("--sizes", help="sequence lengths (default "
                        + ",".join(map(str, FULL_SIZES)) + ")")
    parser.add_argument("--dims", help="head dimensions (default 64,128)")
    parser.add_argument("--causal", default="off,on",
                        help="off, on or off,on (default)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--budget", type=float, default=2.0,
                        help="seconds of timed runs per measurement "
                        "(3 to 30 runs; default 2)")
    parser.add_argument("--max-seconds", type=float, default=30.0,
                        help="skip a tfm variant whose time per run, scaled "
                        "by S² from the previous S, exceeds this (default "
                        "30)")
    parser.add_argument("--mha-sizes", help="sequence lengths of the "
                        "multi-head attention (default: --sizes up to 2048)")
    parser.add_argument("--no-unfused", action="store_true")
    parser.add_argument("--no-mha", action="store_true")
    parser.add_argument("--no-prealloc", action="store_true",
                        help="skip the PyTorch variant with preallocated "
                        "buffers")
    parser.add_argument("--softmax", choices=("tfm", "linalg"),
                        default="tfm", help="the unfused graph's softmax: "
                        "tfm.masked_softmax (default, the seed's) or "
                        "linalg.softmax (for non-causal graphs; causal ones "
                        "keep tfm.masked_softmax)")
    parser.add_argument("--compiler", default=common.DEFAULT_COMPILER)
    parser.add_argument("--work", default=os.path.join(
        common.ROOT, "build", "bench"))
    parser.add_argument("--markdown", help="write the tables here too")
    parser.add_argument("--plot", help="the GFLOP/s plot (default "
                        "docs/benchmarks-attention.png; with --quick, in "
                        "--work)")
    parser.add_argument("--json", help="write the raw results here "
                        "(default: WORK/attention.json)")
    parser.add_argument("--from-json", help="report and plot these raw "
                        "results instead of measuring")
    args = parser.parse_args()
    if args.quick:
        args.work = os.path.join(args.work, "quick")
    sizes = parse_list(args.sizes) if args.sizes else (
        QUICK_SIZES if args.quick else FULL_SIZES)
    dims = parse_list(args.dims) if args.dims else (
        [64] if args.quick else [64, 128])
    causals = [{"off": False, "on": True}[c]
               for c in parse_list(args.causal, str)]
    plot_path = args.plot or (
        os.path.join(args.work, "benchmarks-attention.png") if args.quick
        else os.path.join(common.ROOT, "docs", "benchmarks-attention.png"))
    json_path = args.json or os.path.join(args.work, "attention.json")

    if args.from_json:
        with open(args.from_json) as f:
            results = json.load(f)
    else:
        if not os.path.exists(args.compiler):
            sys.exit(f"error: no tfm-compile at {args.compiler} "
                     "(scripts/build.sh tfm-compile tfm_runtime)")
        import torch
        torch.set_num_threads(args.threads)
        os.makedirs(args.work, exist_ok=True)
        start = time.perf_counter()
        rate, ms = common.sgemm_rate(torch, runs=3 if args.quick else 7)
        print(f"SGEMM 2048: {rate:.1f} GFLOP/s", file=sys.stderr)
        load_start = os.getloadavg()[0]
        if load_start > 0.5:
            print(f"warning: load average {load_start:.2f}: the machine is "
                  "busy, timings will be noisy", file=sys.stderr)
        results = {"machine": common.machine_description(torch),
                   "load_average": [load_start],
                   "threads": args.threads, "sgemm_gflops": rate,
                   "sgemm_ms": ms, "softmax": (
                       "tfm.masked_softmax" if args.softmax == "tfm"
                       else "linalg.softmax"),
                   "attention": [], "mha": []}
        bench = Bench(args, torch)
        for d in dims:
            for causal in causals:
                for s in sizes:
                    results["attention"].append(
                        bench.attention_case(s, d, causal))
        mha_sizes = parse_list(args.mha_sizes) if args.mha_sizes else [
            s for s in sizes if s <= 2048]
        if not args.no_mha:
            for causal in causals:
                for s in mha_sizes:
                    results["mha"].append(bench.mha_case(s, 768, causal))
        # Measure the ceiling again at the end: the machine may have
        # changed speed (other load, turbo); report the higher of the two.
        rate2, ms2 = common.sgemm_rate(torch, runs=3 if args.quick else 7)
        if rate2 > rate:
            results["sgemm_gflops"], results["sgemm_ms"] = rate2, ms2
        results["sgemm_runs_gflops"] = [rate, rate2]
        results["load_average"].append(os.getloadavg()[0])
        results["seconds"] = time.perf_counter() - start
        common.save_results(results, json_path)

    common.print_report(report(results), args.markdown)
    plot(results, plot_path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
