#!/usr/bin/env python3
"""Runs the GPU attention benchmark's prebuilt executables on a GPU machine.

    bench/gpu/run.py [BIN_DIR] [--budget SECONDS] [--check-max-s S]
                     [--markdown FILE] [--json FILE]

BIN_DIR (default bench/gpu/out) holds what bench/gpu/build.sh made: one
executable per case of fused attention on [batch*heads, S, d] (float16 on
the threads' loops and on tensor cores, the "path" column) and
manifest.json. Needs python3 with NumPy; PyTorch with CUDA, where present,
is the peer.

First, where BIN_DIR/models.json lists them, it runs the example models
built for the GPU (encoder and decoder blocks, a Transformer encoder, a
ViT) on their sample inputs and checks each output against the model's
float64 NumPy reference with test/lib/modelcheck.py (tolerance 1e-4).
Then, where BIN_DIR/networks.json lists them, the networks (ViT-B/16 and a
BERT-base encoder layer, exported from PyTorch, on the threads' loops and
on tensor cores as TF32): each output against PyTorch's float32 output
(tolerance 1e-3, TF32 1e-2), tfm timed as the attention below, and the
module's TorchScript trace on the GPU (float32, CUDA events, median), the
"PyTorch eager" column.
Then, for each attention case, smallest S first, it

  checks      the output against the float64 NumPy reference of
              softmax(Q K^T / sqrt(d)) V (causal: keys after the query
              masked; tfm_tools.reference.attention) for S <=
              --check-max-s, and against PyTorch on the GPU above that,
              where PyTorch is there; maximum relative error
              E = max|out - ref| / max|ref| (tfm_tools.compare), tolerance
              1e-4 for float32 and 1e-2 for float16;
  times tfm   `EXE --bench N` with TFM_GPU_PROFILE=1: the median of N calls
              end to end (host arrays in and out, including the copies
              over PCIe and device allocation), and the kernels' own time
              per call from CUDA events;
  times torch torch.nn.functional.scaled_dot_product_attention (or, on a
              PyTorch without it, the explicit softmax(Q K^T) V) on
              [1, BH, S, d] CUDA tensors of the same dtype: kernel time from
              CUDA events, median of N;

and prints a table with TFLOP/s = 4 * BH * S^2 * d (halved for causal) /
time. It stops starting new cases once --budget seconds (default 420) have
passed, so that it fits a device session; cases not run are listed.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

try:
    import numpy as np
except ImportError:  # pragma: no cover - reported to the user
    sys.exit("error: bench/gpu/run.py needs NumPy (python3-numpy)")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
from tfm_tools import compare, runner  # noqa: E402
from tfm_tools import reference as ref  # noqa: E402

NUMPY_DTYPE = {"f32": np.float32, "f16": np.float16}


def load_torch():
    try:
        import torch
    except ImportError:
        return None, "PyTorch not installed"
    if not torch.cuda.is_available():
        return None, "PyTorch has no CUDA device"
    return torch, None


def flops(case):
    total = 4.0 * case["bh"] * case["s"] ** 2 * case["d"]
    return total / 2 if case["causal"] else total


def numpy_reference(q, k, v, causal):
    """tfm_tools.reference.attention (float64), one head at a time to bound
    memory."""
    return np.stack([ref.attention(q[h], k[h], v[h], causal=causal)
                     for h in range(q.shape[0])])


def torch_attention(torch, q, k, v, causal):
    """Attention on [1, BH, S, d] CUDA tensors."""
    functional = torch.nn.functional
    if hasattr(functional, "scaled_dot_product_attention"):
        return functional.scaled_dot_product_attention(q, k, v,
                                                       is_causal=causal)
    scores = q @ k.transpose(-1, -2) / (q.shape[-1] ** 0.5)
    if causal:
        s = q.shape[-2]
        mask = torch.ones(s, s, dtype=torch.bool, device=q.device).triu(1)
        scores = scores.masked_fill(mask, float("-inf"))
    return torch.softmax(scores, dim=-1) @ v


def torch_reference(torch, q, k, v, causal):
    """float64 on the GPU, one head at a time."""
    out = np.empty(q.shape, dtype=np.float64)
    for h in range(q.shape[0]):
        args = [torch.from_numpy(a[h:h + 1]).cuda().double().unsqueeze(0)
                for a in (q, k, v)]
        out[h] = torch_attention(torch, *args, causal)[0, 0].cpu().numpy()
    return out


def time_cuda(torch, call, runs):
    """The median of RUNS calls of CALL on the GPU (CUDA events, ms), after
    one warm-up call."""
    with torch.no_grad():
        call()
        times = []
        for _ in range(runs):
            start = torch.cuda.Event(enable_timing=True)
            stop = torch.cuda.Event(enable_timing=True)
            start.record()
            call()
            stop.record()
            stop.synchronize()
            times.append(start.elapsed_time(stop))
    return float(np.median(times))


def time_torch(torch, q, k, v, causal, runs):
    args = [torch.from_numpy(a).cuda().unsqueeze(0) for a in (q, k, v)]
    return time_cuda(torch, lambda: torch_attention(torch, *args, causal),
                     runs)


def run_tfm(exe, inputs, out, runs):
    """Returns (median end-to-end ms, kernel ms per call or None)."""
    env = runtime_env(os.path.dirname(exe), TFM_GPU_PROFILE="1")
    stdout, stderr = runner.run_model(exe, inputs, [out],
                                      ["--bench", str(runs)], env=env,
                                      timeout=600)
    median = re.search(r"median ([0-9.]+) ms", stdout)
    kernels = re.search(r"gpu kernels: (\d+) launches, ([0-9.]+) ms",
                        stderr)
    # The executable calls the model once for its output, then N times.
    kernel_ms = float(kernels.group(2)) / (runs + 1) if kernels else None
    return float(median.group(1)), kernel_ms


def runtime_env(bin_dir, **extra):
    """The executables' environment: BIN_DIR/lib (the OpenMP runtime
    build.py bundled) first on LD_LIBRARY_PATH."""
    env = dict(os.environ, **extra)
    lib = os.path.join(os.path.abspath(bin_dir), "lib")
    if os.path.isdir(lib):
        env["LD_LIBRARY_PATH"] = os.pathsep.join(
            [lib] + [p for p in [env.get("LD_LIBRARY_PATH")] if p])
    return env


def check_models(bin_dir, work):
    """Runs and checks the models of BIN_DIR/models.json; returns the
    markdown lines of their table and the number of failures."""
    path = os.path.join(bin_dir, "models.json")
    if not os.path.exists(path):
        return [], 0
    with open(path) as f:
        models = json.load(f)
    lines = ["| model | max rel. error (tolerance 1e-4) | |", "|---|---|---|"]
    failures = 0
    for entry in models:
        out = os.path.join(work, entry["model"] + ".out.npy")
        inputs = [os.path.join(bin_dir, p) for p in entry["inputs"]]
        try:
            runner.run_model(os.path.join(bin_dir, entry["exe"]), inputs,
                             [out], env=runtime_env(bin_dir), timeout=300)
            check = subprocess.run(
                [sys.executable, os.path.join(ROOT, "test", "lib",
                                              "modelcheck.py"),
                 entry["model"], os.path.join(bin_dir, entry["weights"]),
                 out] + inputs, capture_output=True, text=True)
            verdict = (check.stdout + check.stderr).strip()
            ok = check.returncode == 0
        except (RuntimeError, subprocess.TimeoutExpired) as error:
            verdict, ok = "failed: %s" % error, False
        failures += not ok
        print("%-20s %s%s" % (entry["model"], verdict,
                              "" if ok else "  FAIL"), flush=True)
        error = re.search(r"error ([0-9.e+-]+)", verdict)
        lines.append("| %s | %s | %s |" % (
            entry["model"], error.group(1) if error else "-",
            "ok" if ok else "FAIL"))
    return lines, failures


def time_torchscript(torch, path, inputs, runs):
    """The median of RUNS calls of the TorchScript module at PATH on the
    GPU (float32, as it was traced), after one warm-up call."""
    module = torch.jit.load(path, map_location="cuda").eval()
    args = [torch.from_numpy(np.load(p)).cuda() for p in inputs]
    return time_cuda(torch, lambda: module(*args), runs)


def run_networks(bin_dir, work, torch, runs):
    """Runs, checks and times the networks of BIN_DIR/networks.json (next to
    their TorchScript trace on the GPU, where PyTorch is there); returns
    the markdown lines of their table and the number of failures."""
    path = os.path.join(bin_dir, "networks.json")
    if not os.path.exists(path):
        return [], 0
    with open(path) as f:
        networks = json.load(f)
    lines = ["| network | path | tfm end-to-end ms | tfm kernels ms "
             "| tfm TFLOP/s | PyTorch eager ms | PyTorch / tfm "
             "| max rel. error | |", "|---|---|---|---|---|---|---|---|---|"]
    failures = 0
    for entry in networks:
        inputs = [os.path.join(bin_dir, p) for p in entry["inputs"]]
        out = os.path.join(work, entry["network"] + ".out.npy")
        try:
            tfm_ms, kernel_ms = run_tfm(os.path.join(bin_dir, entry["exe"]),
                                        inputs, out, runs)
        except (RuntimeError, subprocess.TimeoutExpired) as error:
            print("%s (%s): failed: %s" % (entry["network"], entry["path"],
                                           error))
            failures += 1
            continue
        error = compare.relative_error(
            np.load(out).astype(np.float64),
            np.load(os.path.join(bin_dir, entry["expected"])))
        # TF32 rounds every product's operands to 10 bits of mantissa.
        tolerance = 1e-2 if entry["path"] == "tf32" else 1e-3
        ok = error <= tolerance
        failures += not ok
        torch_ms = None
        if torch:
            try:
                torch_ms = time_torchscript(
                    torch, os.path.join(bin_dir, entry["torchscript"]),
                    inputs, runs)
            except RuntimeError as error:  # a trace that will not move
                print("%s: PyTorch failed: %s" % (entry["network"], error))
        measured = kernel_ms or tfm_ms
        print("%-16s %-8s tfm %9.3f ms (kernels %s ms)  PyTorch %s ms  "
              "error %.2e%s" % (entry["network"], entry["path"], tfm_ms,
                                fmt(kernel_ms, ".3f"), fmt(torch_ms, ".3f"),
                                error, "" if ok else "  FAIL"), flush=True)
        lines.append("| %s | %s | %.3f | %s | %.2f | %s | %s | %.2e "
                     "(tolerance %g) | %s |" % (
                         entry["title"], entry["path"], tfm_ms,
                         fmt(kernel_ms, ".3f"),
                         entry["flops"] / measured / 1e9,
                         fmt(torch_ms, ".3f"),
                         fmt(torch_ms and torch_ms / measured, ".2f"),
                         error, tolerance, "ok" if ok else "FAIL"))
    return lines, failures


def fmt(value, spec):
    return "-" if value is None else format(value, spec)


def main(argv):
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    here = os.path.dirname(os.path.abspath(__file__))
    parser.add_argument("bin_dir", nargs="?", default=os.path.join(here, "out"))
    parser.add_argument("--budget", type=float, default=420)
    parser.add_argument("--check-max-s", type=int, default=2048)
    parser.add_argument("--runs", type=int, default=0,
                        help="timed runs per case (default: by size)")
    parser.add_argument("--markdown")
    parser.add_argument("--json")
    args = parser.parse_args(argv)

    with open(os.path.join(args.bin_dir, "manifest.json")) as f:
        cases = sorted(json.load(f), key=lambda c: (
            c["s"], c["d"], c["dtype"], c.get("path", "threads"),
            c["causal"]))
    torch, no_torch = load_torch()
    if no_torch:
        print("note: no PyTorch peer: " + no_torch)
    else:
        print("peer: PyTorch %s on %s" % (torch.__version__,
                                           torch.cuda.get_device_name(0)))
    print("tfm end-to-end includes host<->device copies; 'kernels' is the "
          "GPU time of tfm's kernels alone")

    work = tempfile.mkdtemp(prefix="tfm-gpu-bench-")
    model_lines, failures = check_models(args.bin_dir, work)
    network_lines, network_failures = run_networks(
        args.bin_dir, work, torch, args.runs or 10)
    failures += network_failures
    started = time.time()
    rows, skipped = [], []
    rng = np.random.default_rng(0)
    for case in cases:
        if time.time() - started > args.budget:
            skipped.append(case["name"])
            continue
        shape = (case["bh"], case["s"], case["d"])
        dtype = NUMPY_DTYPE[case["dtype"]]
        q, k, v = (rng.standard_normal(shape).astype(dtype) for _ in range(3))
        inputs = runner.save_arrays(work, zip("qkv", (q, k, v)))
        out = os.path.join(work, "out.npy")
        runs = args.runs or (20 if case["s"] <= 2048 else
                             5 if case["s"] <= 8192 else 3)
        row = dict(case)
        try:
            row["tfm_ms"], row["kernel_ms"] = run_tfm(
                os.path.join(args.bin_dir, case["name"]), inputs, out, runs)
        except (RuntimeError, subprocess.TimeoutExpired) as error:
            print("%s: failed: %s" % (case["name"], error))
            failures += 1
            continue
        result = np.load(out).astype(np.float64)
        if case["s"] <= args.check_max_s:
            reference, row["checked_by"] = numpy_reference(
                q, k, v, case["causal"]), "numpy"
        elif torch:
            reference, row["checked_by"] = torch_reference(
                torch, q, k, v, case["causal"]), "torch"
        else:
            reference = None
        if reference is not None:
            error = compare.relative_error(result, reference)
            row["error"] = error
            row["ok"] = error <= compare.TOLERANCES[case["dtype"]]
            failures += not row["ok"]
        if torch:
            row["torch_ms"] = time_torch(torch, q, k, v, case["causal"], runs)
        rows.append(row)
        measured = row.get("kernel_ms") or row["tfm_ms"]
        print("%-34s tfm %9.3f ms (kernels %s ms, %s TFLOP/s)  torch %s ms  "
              "error %s" % (case["name"], row["tfm_ms"],
                            fmt(row.get("kernel_ms"), ".3f"),
                            fmt(flops(case) / measured / 1e9, ".2f"),
                            fmt(row.get("torch_ms"), ".3f"),
                            fmt(row.get("error"), ".2e")), flush=True)

    lines = ["| dtype | path | S | d | causal | tfm end-to-end ms "
             "| tfm kernels ms | tfm TFLOP/s | torch ms | torch TFLOP/s "
             "| torch / tfm | max rel. error |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for row in rows:
        kernel = row.get("kernel_ms") or row["tfm_ms"]
        torch_ms = row.get("torch_ms")
        lines.append("| %s | %s | %d | %d | %s | %.3f | %s | %.2f | %s | %s "
                     "| %s | %s%s |" % (
                         row["dtype"], row.get("path", "threads"), row["s"],
                         row["d"],
                         "on" if row["causal"] else "off", row["tfm_ms"],
                         fmt(row.get("kernel_ms"), ".3f"),
                         flops(row) / kernel / 1e9, fmt(torch_ms, ".3f"),
                         fmt(torch_ms and flops(row) / torch_ms / 1e9, ".2f"),
                         fmt(torch_ms and torch_ms / kernel, ".3f"),
                         fmt(row.get("error"), ".2e"),
                         "" if row.get("ok", True) else " (FAIL)"))
    table = "\n".join(lines)
    if network_lines:
        table = "\n".join(network_lines) + "\n\n" + table
    if model_lines:
        table = "\n".join(model_lines) + "\n\n" + table
    print()
    print(table)
    if skipped:
        print("\nnot run (--budget %g s): %s" % (args.budget, ", ".join(skipped)))
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(table + "\n")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
