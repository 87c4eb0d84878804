#!/usr/bin/python3
"""How long tfm-compile takes on the models users bring, with and without
kernel deduplication.

Usage: /usr/bin/python3 bench/compile.py [--models KEYS] [--quick]
           [--markdown FILE] [--json FILE]

Models (keys for --models): `vit_ti_16`, `vit_b_16` and `swin_t`
(torchvision's, exported by bench/ort.py's code), `bert_base` (a 12-layer
`nn.TransformerEncoder` of BERT-base's width, S=128) and `gpt2_kv` (the
GPT-2-small-size decoder of bench/generate.py, compiled with `--kv-cache
--max-seq=1033` as that benchmark does). Each ONNX file is compiled twice:

  tfm           `tfm-compile MODEL -o EXE --verbose` (the default: kernels
                that are the same code on other weights share one function)
  --no-dedup    the same with `--no-dedup` (every kernel compiled on its own)

and each row gives the wall time of the compile, its stages as tfm-compile
--verbose prints them (the MLIR passes; the translation to LLVM IR; LLVM's
optimization and code generation on the machine's cores), the compiler's
peak RSS (GNU time), the binary's size and its kernel functions (`nm`).
Both binaries run on the model's inputs (the decoder generates 4 tokens),
and the row says whether their outputs are the same bits: deduplication
must not change a single one.

--quick compiles the small versions of the models (bench/ort.py --quick's)
as a smoke test. A full run takes about 8 minutes on 2 cores.
"""

import argparse
import json
import os
import platform
import re
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import common  # noqa: E402
import ort  # noqa: E402
from common import runner  # noqa: E402
from tfm_tools import gpt  # noqa: E402

MODES = (("tfm", []), ("--no-dedup", ["--no-dedup"]))
STAGES = (("passes", "the passes"), ("llvm_ir", "LLVM IR"),
          ("codegen", "optimization and code generation"))
GPT_STEPS = 4


def bert_case():
    def build(torch, quick):
        w = ort.width(quick)
        layers, seq = (2, 16) if quick else (12, 128)
        torch.manual_seed(0)
        layer = torch.nn.TransformerEncoderLayer(
            w["d"], w["heads"], w["ff"], activation="gelu", batch_first=True)
        model = torch.nn.TransformerEncoder(layer, layers,
                                            enable_nested_tensor=False)
        # TransformerEncoder copies one layer: weights of their own per
        # layer, as a trained model has (the exporter would store equal
        # ones once).
        with torch.no_grad():
            for name, p in model.named_parameters():
                if p.dim() > 1:
                    p.normal_(0.0, p.shape[-1] ** -0.5)
                elif "norm" in name and name.endswith("weight"):
                    p.uniform_(0.9, 1.1)
                else:
                    p.uniform_(-0.1, 0.1)
        x = ort.randn(torch, 1, seq, w["d"])
        flops = layers * ort.encoder_flops(1, seq, w["d"], w["ff"])
        return (model.eval(), (x,), flops,
                f"BERT-base, {layers} layers, S={seq}" + ort.dim(w))
    return ort.Case("bert_base", build)


CASES = [ort.MODELS["vit_ti_16"], ort.MODELS["vit_b_16"],
         ort.MODELS["swin_t"], bert_case()]
KEYS = [c.key for c in CASES] + ["gpt2_kv"]
TITLES = {"gpt2_kv": "GPT-2-small size, --kv-cache"}


def export_gpt(quick, work):
    """bench/generate.py's decoder as WORK/gpt2_kv.onnx, a prompt for it,
    and its compile flags."""
    config = dict(layers=2, d_model=128, heads=4, vocab=1000,
                  max_positions=256) if quick else dict(
        layers=12, d_model=768, heads=12, vocab=50257, max_positions=2048)
    path = os.path.join(work, "gpt2_kv.onnx")
    if not os.path.exists(path):
        gpt.export(gpt.build(**config, seed=0), path)
    prompt = os.path.join(work, "gpt2_kv.prompt.npy")
    rng = np.random.default_rng(0)
    np.save(prompt, rng.integers(0, config["vocab"], size=(1, 16),
                                 dtype=np.int64))
    max_seq = 16 + GPT_STEPS if quick else 1024 + 9
    return path, prompt, ["--kv-cache", f"--max-seq={max_seq}"]


def compile_once(compiler, model, exe, flags):
    """Compiles MODEL; returns its wall time, stages, peak RSS, size and
    kernel functions."""
    command = [compiler, model, "-o", exe, "--verbose"] + flags
    start = time.perf_counter()
    _, err, peak = common.run_measured(command)
    wall = time.perf_counter() - start
    stages = {}
    for key, text in STAGES:
        m = re.search(r"tfm-compile: " + re.escape(text) + r"[^:]*: ([\d.]+) s",
                      err)
        stages[key] = float(m.group(1)) if m else None
    symbols = subprocess.run(["nm", exe], capture_output=True,
                             text=True).stdout
    kernels = len(re.findall(r"_kernel_\d+$", symbols, re.MULTILINE))
    return dict(wall_s=wall, stages=stages, peak_rss=peak,
                size=os.path.getsize(exe), kernels=kernels)


def run_outputs(exe, key, inputs, work, mode, prompt):
    """Runs EXE once; returns its output files' bytes."""
    tag = mode.strip("-")
    if prompt:
        out = os.path.join(work, f"{key}.{tag}.tokens.npy")
        runner.run([exe, "--generate", str(GPT_STEPS), "--prompt", prompt,
                    "-o", out, "--threads", "1"])
        paths = [out]
    else:
        out = os.path.join(work, f"{key}.{tag}.out0.npy")
        runner.run([exe] + inputs + ["-o", out, "--threads", "1"])
        paths = [out]
    return [open(p, "rb").read() for p in paths]


def measure(args, torch, key):
    if key == "gpt2_kv":
        model, prompt, flags = export_gpt(args.quick, args.work)
        inputs = []
        title = TITLES[key] + (" (2 layers, D=128)" if args.quick else "")
    else:
        case = {c.key: c for c in CASES}[key]
        _, _, model, inputs, _, title = ort.export(torch, case, args.quick,
                                                   args.work)
        prompt, flags = None, []
    row = {"model": title}
    outputs = {}
    for mode, extra in MODES:
        exe = os.path.join(args.work, key + (".nodedup" if extra else ""))
        row[mode] = compile_once(args.compiler, model, exe, flags + extra)
        outputs[mode] = run_outputs(exe, key, inputs, args.work, mode, prompt)
        print(f"  {key} {mode}: {row[mode]['wall_s']:.1f} s", file=sys.stderr)
    row["same_bits"] = outputs["tfm"] == outputs["--no-dedup"]
    return row


def fmt_s(value):
    return "—" if value is None else f"{value:.1f}"


def report(results, header):
    lines = [header, "",
             "| model | tfm: wall s (passes / LLVM IR / opt + codegen) | "
             "--no-dedup: wall s (passes / LLVM IR / opt + codegen) | "
             "speed-up | kernel functions | compiler peak MiB | "
             "binary MiB | same bits |",
             "|---|---|---|---|---|---|---|---|"]
    for row in results:
        a, b = row["tfm"], row["--no-dedup"]

        def cell(r):
            s = r["stages"]
            return (f"{r['wall_s']:.1f} ({fmt_s(s['passes'])} / "
                    f"{fmt_s(s['llvm_ir'])} / {fmt_s(s['codegen'])})")

        def mib(r, key):
            return "—" if r[key] is None else f"{r[key] / 2**20:.0f}"

        lines.append(
            f"| {row['model']} | {cell(a)} | {cell(b)} | "
            f"{b['wall_s'] / a['wall_s']:.1f}× | {a['kernels']} / "
            f"{b['kernels']} | {mib(a, 'peak_rss')} / {mib(b, 'peak_rss')} | "
            f"{mib(a, 'size')} / {mib(b, 'size')} | "
            f"{'yes' if row['same_bits'] else '**no**'} |")
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--models",
                        default="vit_ti_16,vit_b_16,swin_t,bert_base,gpt2_kv")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--compiler", default=common.DEFAULT_COMPILER)
    parser.add_argument("--work")
    parser.add_argument("--markdown", help="write the table here too")
    parser.add_argument("--json", help="write the measurements here")
    args = parser.parse_args()
    args.work = args.work or os.path.join(
        common.ROOT, "build", "bench", "compile-quick" if args.quick
        else "compile")
    os.makedirs(args.work, exist_ok=True)
    keys = [k for k in args.models.split(",") if k]
    unknown = [k for k in keys if k not in KEYS]
    if unknown:
        parser.error(f"unknown models {unknown}; known: {', '.join(KEYS)}")

    import torch
    commit = subprocess.run(["git", "-C", common.ROOT, "rev-parse",
                             "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    results = []
    with runner.exit_on_failure():
        for key in keys:
            results.append(measure(args, torch, key))
    header = (f"tfm-compile at {commit}, {time.strftime('%Y-%m-%d')}, "
              f"{os.cpu_count()} cores ({platform.machine()}); "
              "each cell: tfm / --no-dedup where two")
    text = report(results, header)
    print(text)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return 0 if all(r["same_bits"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
