#!/usr/bin/env python3
"""Generation with a key/value cache: tfm against ONNX Runtime and PyTorch.

    bench/generate.py [--quick] [--model gpt|llama] [--lengths 128,1024]
                      [--batches 1,8] [--threads 1,2] [--steps 9]
                      [--rounds 2] [--markdown FILE] [--json FILE]
                      [--work DIR]

The model is python/tfm_tools/gpt.py's at GPT-2-small size (12 layers,
d_model 768, 12 heads, a vocabulary of 50257, GPT-2's initialisation from
a fixed seed; 2048 learned positions, so that a cache of 1024 has room for
the steps after it) or, with --model llama, python/tfm_tools/llama.py's at
a similar size (12 layers, d_model 768, 12 query heads sharing 4 key/value
heads, a SwiGLU MLP of 2048, a vocabulary of 32000, an untied head: 125M
parameters), exported once "with past" (past_key_values inputs,
present outputs; batch, seq and past dynamic). The same .onnx file runs on
three systems, each generating greedily from random prompts of LENGTH
tokens for every batch B:

  tfm      `tfm-compile gpt.onnx --kv-cache --max-seq=M` (M the longest
           prompt plus the steps), run as `gpt --generate N --prompt P.npy
           --threads T`: the prompt in one call, then N - 1 steps that
           append to caches in place;
  ORT      ONNX Runtime 1.30.0 (bench/ort/generate.js): the prompt with
           empty pasts, then N - 1 calls feeding each call's presents back
           as the pasts (the with-past model's own protocol: every call
           takes and returns the whole cache);
  PyTorch  the module itself in the same loop (gpt.generate's), eager,
           under no_grad, with torch and OpenBLAS at T threads.

A step is one call of one token per sequence; its time is the median over
the N - 1 steps of a run (cache lengths LENGTH to LENGTH + N - 2), and a
system's time the median over --rounds runs, interleaved with the other
systems'. Tokens per second = B / step time. Each system is reported at
its best thread count of --threads (PyTorch is often fastest at 1 thread
on 2 cores); the ratio is tfm's best over the peer's best, from this run.
All three must generate the same tokens (the table says when they do not).

The limit: a step reads every weight once (and the caches; of an untied
input embedding one row a token), so at best it takes (those bytes + cache
bytes) / bandwidth. bench/bandwidth.c measures the bandwidth (with the
most threads of --threads) right before and right after each of tfm's runs,
and that run is held to the better of the two: a shared machine's rate
moves by a third from minute to minute, so each run meets the limit of its
own minutes. `tfm of limit` is the median over the rounds of (limit at that
bandwidth) / (tfm's step in that run), at tfm's best thread count; `at best
bw` holds the same steps to the highest bandwidth measured in the whole run
(around every tfm run, and at the run's start and end), the stricter
figure. The prefill's rate is 2 * (those weights) * B * LENGTH flops over
its time.

--quick is a smoke test with a 2-layer model of width 128 and short
prompts. A full run takes about 20-40 minutes on 2 cores.
"""

import argparse
import json
import os
import statistics
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import common  # noqa: E402
from common import runner  # noqa: E402
from tfm_tools import gpt, llama  # noqa: E402

BANDWIDTH_C = os.path.join(HERE, "bandwidth.c")
GENERATE_JS = os.path.join(HERE, "ort", "generate.js")


def parse_ints(text):
    return [int(x) for x in text.split(",") if x]


def model_config(name, quick):
    if name == "llama":
        if quick:
            return dict(layers=2, d_model=128, heads=4, kv_heads=2, ffn=344,
                        vocab=1000)
        return dict(layers=12, d_model=768, heads=12, kv_heads=4, ffn=2048,
                    vocab=32000)
    if quick:
        return dict(layers=2, d_model=128, heads=4, vocab=1000,
                    max_positions=256)
    return dict(layers=12, d_model=768, heads=12, vocab=50257,
                max_positions=2048)


def weight_bytes(model):
    # A tied LM head is the token embedding's tensor: counted once.
    return sum(p.numel() for p in model.parameters()) * 4


def step_weight_bytes(model):
    """The weight bytes a step reads: all but an untied input embedding
    (llama.py's embed_tokens), of which a step gathers one row a token;
    GPT's is its LM head too, read whole."""
    embed = getattr(model, "embed_tokens", None)
    return weight_bytes(model) - (0 if embed is None else
                                  embed.weight.numel() * 4)


def cache_bytes(config, batch, length):
    head_dim = config["d_model"] // config["heads"]
    kv_heads = config.get("kv_heads", config["heads"])
    return (2 * config["layers"] * batch * kv_heads * length * head_dim * 4)


def build_bandwidth(args, work):
    exe = os.path.join(work, "bandwidth")
    runner.run([args.cc, "-O3", "-march=native", "-fopenmp", BANDWIDTH_C,
                "-o", exe])
    return exe


def bandwidth(args, exe, threads=None):
    """{threads: GB/s} of bench/bandwidth.c at each of `threads` (default
    --threads)."""
    mib = "256" if args.quick else "1024"
    return {t: json.loads(runner.run([exe, str(t), mib])[0])["gb_per_s"]
            for t in threads or args.threads}


def run_tfm(exe, prompt, steps, threads, tokens):
    out, _ = runner.run([exe, "--generate", steps, "--prompt", prompt,
                         "-o", tokens, "--threads", threads])
    prefill = step = None
    for line in out.splitlines():
        words = line.replace(",", "").split()
        if line.startswith("prefill:"):
            prefill = float(words[words.index("in") + 1])
        elif line.startswith("decode:"):
            step = float(words[words.index("median") + 1])
    if prefill is None or step is None:
        raise RuntimeError(f"no prefill or decode line in:\n{out}")
    return prefill, step


def run_ort(args, model, prompt, steps, threads, tokens):
    out, _ = runner.run(["node", GENERATE_JS, "--ort", args.ort, "--model",
                         model, "--prompt", prompt, "--steps", steps,
                         "--threads", threads, "-o", tokens])
    result = json.loads(out.strip().splitlines()[-1])
    return result["prefill_ms"], statistics.median(result["step_ms"])


def run_torch(torch, model, prompt, steps, threads):
    common.set_threads(torch, threads)
    ids = torch.as_tensor(np.load(prompt))
    with torch.no_grad():
        past = gpt.empty_past(model, ids.shape[0])
        start = time.perf_counter()
        out = model(ids, *past)
        prefill = (time.perf_counter() - start) * 1e3
        tokens = [out[0][:, -1, :].argmax(-1)]
        times = []
        for _ in range(steps - 1):
            past = list(out[1:])
            start = time.perf_counter()
            out = model(tokens[-1][:, None], *past)
            times.append((time.perf_counter() - start) * 1e3)
            tokens.append(out[0][:, -1, :].argmax(-1))
    return prefill, statistics.median(times), torch.stack(tokens, 1).numpy()


def measure(args, torch, model, onnx, exe, bandwidth_exe, work):
    """{(batch, length): {system: {threads: [(prefill_ms, step_ms)...]},
    "bandwidth": {threads: [GB/s around tfm's run of each round...]},
    "tokens_agree": bool}}."""
    results, agree = {}, {}
    rng = np.random.default_rng(0)
    vocab = model.vocab
    most = max(args.threads)
    for length in args.lengths:
        for batch in args.batches:
            key = f"b{batch}_l{length}"
            prompt = os.path.join(work, f"prompt_{key}.npy")
            np.save(prompt, rng.integers(0, vocab, size=(batch, length),
                                         dtype=np.int64))
            entry = results.setdefault(key, {"batch": batch,
                                             "length": length})
            tokens = {}
            for _ in range(args.rounds):
                for t in args.threads:
                    path = os.path.join(work, f"tfm_{key}.npy")
                    # The machine's rate right before and right after tfm's
                    # run (with every thread: the limit of any step), the
                    # better of the two.
                    before = bandwidth(args, bandwidth_exe, [most])[most]
                    r = run_tfm(exe, prompt, args.steps, t, path)
                    after = bandwidth(args, bandwidth_exe, [most])[most]
                    entry.setdefault("tfm", {}).setdefault(str(t), []).append(r)
                    entry.setdefault("bandwidth", {}).setdefault(
                        str(t), []).append(max(before, after))
                    tokens["tfm"] = np.load(path)
                    if args.ort:
                        path = os.path.join(work, f"ort_{key}.npy")
                        r = run_ort(args, onnx, prompt, args.steps, t, path)
                        entry.setdefault("ort", {}).setdefault(
                            str(t), []).append(r)
                        tokens["ort"] = np.load(path)
                    *r, tokens["torch"] = run_torch(torch, model, prompt,
                                                    args.steps, t)
                    entry.setdefault("torch", {}).setdefault(
                        str(t), []).append(tuple(r))
                    print(f"  {key} T={t}: " + ", ".join(
                        f"{s} {entry[s][str(t)][-1][1]:.2f} ms a step"
                        for s in ("tfm", "ort", "torch") if s in entry),
                        file=sys.stderr)
            agree[key] = all(np.array_equal(tokens[s], tokens["torch"])
                             for s in tokens)
            entry["tokens_agree"] = agree[key]
    return results


def of_limit(entry, limit_ms, threads):
    """Median over the rounds of the limit at the bandwidth measured around
    tfm's run at `threads` over that run's step."""
    key = str(threads)
    return statistics.median(
        limit_ms(bw * 1e9) / run[1]
        for bw, run in zip(entry["bandwidth"][key], entry["tfm"][key]))


def best(entry, system):
    """(threads, median prefill ms, median step ms) at the best threads."""
    options = []
    for t, runs in entry.get(system, {}).items():
        prefill = statistics.median(r[0] for r in runs)
        step = statistics.median(r[1] for r in runs)
        options.append((step, prefill, int(t)))
    if not options:
        return None
    step, prefill, t = min(options)
    return t, prefill, step


def report(results):
    config = results["config"]
    step_bytes = results.get("step_weight_bytes", results["weight_bytes"])
    # Every bandwidth measured around tfm's runs.
    rates = [bw for e in results["cases"].values()
             for runs in e["bandwidth"].values() for bw in runs]
    lines = [
        "## Generation with a key/value cache",
        "",
        f"Machine: {results['machine']}. Memory read bandwidth "
        f"(bench/bandwidth.c): "
        + ", ".join(f"{bw:.1f} GB/s at {t} thread{'s' * (int(t) > 1)}"
                    for t, bw in results["bandwidth"].items())
        + " (the better of the run's start and end); around tfm's runs: "
        + "{:.1f}-{:.1f} GB/s".format(min(rates), max(rates))
        + f". ONNX Runtime {results['ort_version']}.",
        "",
        f"Model: python/tfm_tools/{results.get('model', 'gpt')}.py, "
        f"{config['layers']} layers, d_model {config['d_model']}, "
        f"{config['heads']} heads"
        + (f" ({config['kv_heads']} key/value heads)"
           if "kv_heads" in config else "")
        + f", vocabulary "
        f"{config['vocab']}: {results['weight_bytes'] / 1e6:.0f} MB of "
        f"float32 weights, {step_bytes / 1e6:.0f} MB read by a step; "
        f"{results['steps'] - 1} decoding steps after a "
        "prompt of `length` tokens, medians of "
        f"{results['rounds']} interleaved runs; each system at its best of "
        f"{', '.join(map(str, results['threads']))} threads (in brackets). "
        "`limit` is (bytes read by a step + cache bytes) / bandwidth, at "
        "the median bandwidth around tfm's runs at its best threads; `tfm "
        "of limit` the median over rounds of the limit at the bandwidth "
        "around each run over that run's step, `at best bw` the same steps "
        "against the highest bandwidth of the whole run.",
        "",
    ]
    best_bw = max(list(results["bandwidth"].values()) + rates) * 1e9
    rows = []
    for key, entry in results["cases"].items():
        b, length = entry["batch"], entry["length"]

        def limit_at(bw, b=b, length=length):
            return (step_bytes + cache_bytes(config, b, length)) / bw * 1e3

        systems = {s: best(entry, s) for s in ("tfm", "ort", "torch")}
        tfm = systems["tfm"]
        limit_ms = limit_at(statistics.median(
            entry["bandwidth"][str(tfm[0])]) * 1e9)
        cells = [str(b), str(length)]
        for s in ("tfm", "ort", "torch"):
            r = systems[s]
            cells.append("—" if r is None else
                         f"{b * 1e3 / r[2]:.1f} ({r[0]})")
        for peer in ("ort", "torch"):
            r = systems[peer]
            cells.append("—" if r is None else
                         f"{r[2] / tfm[2]:.2f}x")
        cells.append(f"{b * 1e3 / limit_ms:.1f}")
        cells.append(f"{100 * of_limit(entry, limit_at, tfm[0]):.0f}%")
        cells.append(f"{100 * limit_at(best_bw) / tfm[2]:.0f}%")
        flops = 2 * step_bytes / 4 * b * length
        cells.append(" / ".join(
            "—" if systems[s] is None else
            f"{flops / (systems[s][1] * 1e-3) / 1e9:.0f}"
            for s in ("tfm", "ort", "torch")))
        cells.append("yes" if entry["tokens_agree"] else "**no**")
        rows.append(cells)
    lines.append(common.markdown_table(
        ["batch", "length", "tfm tok/s", "ORT tok/s", "PyTorch tok/s",
         "vs ORT", "vs PyTorch", "limit tok/s", "tfm of limit",
         "at best bw",
         "prefill GFLOP/s tfm / ORT / PyTorch", "same tokens"], rows))
    lines.append("")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--model", choices=("gpt", "llama"), default="gpt")
    parser.add_argument("--lengths", type=parse_ints)
    parser.add_argument("--batches", type=parse_ints)
    parser.add_argument("--threads", type=parse_ints, default=[1, 2])
    parser.add_argument("--steps", type=int)
    parser.add_argument("--rounds", type=int)
    parser.add_argument("--compiler", default=common.DEFAULT_COMPILER)
    parser.add_argument("--cc", default="clang-22")
    parser.add_argument("--ort", default=os.path.join(
        common.ROOT, "build", "bench", "ort"))
    parser.add_argument("--no-ort", action="store_true")
    parser.add_argument("--work")
    parser.add_argument("--markdown")
    parser.add_argument("--json")
    args = parser.parse_args()
    args.lengths = args.lengths or ([16] if args.quick else [128, 1024])
    args.batches = args.batches or ([1, 2] if args.quick else [1, 8])
    args.steps = args.steps or (5 if args.quick else 9)
    args.rounds = args.rounds or (1 if args.quick else 2)
    if args.no_ort:
        args.ort = None
    args.work = args.work or os.path.join(
        common.ROOT, "build", "bench", "generate-quick" if args.quick
        else "generate")
    suffix = "" if args.model == "gpt" else f"-{args.model}"
    if suffix:
        args.work += suffix
    os.makedirs(args.work, exist_ok=True)
    started = time.perf_counter()

    import torch
    config = model_config(args.model, args.quick)
    builder = {"gpt": gpt, "llama": llama}[args.model]
    model = builder.build(**config, seed=0)
    onnx = os.path.join(args.work, f"{args.model}.onnx")
    if not os.path.exists(onnx):
        gpt.export(model, onnx)
    exe = os.path.join(args.work, args.model)
    max_seq = max(args.lengths) + args.steps
    with runner.exit_on_failure():
        runner.compile_graph(args.compiler, onnx, exe,
                             ["--kv-cache", f"--max-seq={max_seq}"])
        # At the start and the end of the run too (each tfm run also has its
        # own): the strictest limit is the highest of all.
        bandwidth_exe = build_bandwidth(args, args.work)
        before = bandwidth(args, bandwidth_exe)
        cases = measure(args, torch, model, onnx, exe, bandwidth_exe,
                        args.work)
        after = bandwidth(args, bandwidth_exe)
        bw = {t: max(before[t], after[t]) for t in before}
    version = "—"
    if args.ort:
        with open(os.path.join(args.ort, "node_modules", "onnxruntime-node",
                               "package.json")) as f:
            version = json.load(f)["version"]
    results = {
        "machine": common.machine_description(torch),
        "model": args.model, "config": config,
        "weight_bytes": weight_bytes(model),
        "step_weight_bytes": step_weight_bytes(model),
        "steps": args.steps, "rounds": args.rounds,
        "threads": args.threads, "bandwidth": {str(t): v
                                               for t, v in bw.items()},
        "ort_version": version, "cases": cases,
        "seconds": time.perf_counter() - started,
    }
    if args.json:
        common.save_results(results, args.json)
    common.print_report(report(results), args.markdown)


if __name__ == "__main__":
    main()
