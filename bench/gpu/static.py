#!/usr/bin/env python3
"""The GPU kernels' static figures, measurable without a GPU: what ptxas
says of each kernel (registers a thread, spilled bytes, shared memory) and
what the PTX holds (launches, tensor-core and staging instructions, 64-bit
integer arithmetic), for a few kernels that matter, on each architecture.

    bench/gpu/static.py [--arch sm_80,sm_90a] [--work DIR] [--json FILE]
                        [--quick] [--ptxas PATH]

Cases (all with --gpu-tensor-cores; the example models as TF32):

  attention d64     one tfm.attention, float16 [16, 4096, 64]
  attention d128 c  the same at d = 128, causal
  linear 256        tfm.linear + bias + GELU, float16, 256 x 768 -> 3072
                    (64 x 64 block tiles, the epilogue fused)
  linear 197        the same on 197 rows (ViT-B's first FFN product: the
                    accumulator in global memory, the epilogue apart)
  encoder_block, vit  examples/*.mlir with examples/make_weights.py's weights

Each row sums over a case's kernels; `max regs` is its largest kernel's.
Needs tfm-compile (build/bin, or $TFM_COMPILE) and ptxas (on PATH, or
under $CUDA_HOME / /usr/local/cuda). --quick: the attention at S = 1024.
The figures are proxies: a kernel's speed is for bench/gpu/run.py to
measure on a GPU.
"""

import argparse
import json
import os
import re
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "bench"))
sys.path.insert(0, os.path.join(ROOT, "examples"))
from attention import fused_graph  # noqa: E402
from tfm_tools import graph, runner  # noqa: E402
import make_weights  # noqa: E402

# PTX instructions counted per case: (column, pattern).
INSTRUCTIONS = [
    ("mma", r"\bmma\.sync\."),
    ("ldmatrix", r"\bldmatrix\."),
    ("cp.async", r"\bcp\.async\.c[ag]\."),
    ("shfl", r"\bshfl\.sync\."),
    ("64-bit int", r"\b(?:add|sub|mul|mad|shl|shr|cvt)\.[a-z.]*[su]64\b"),
]


def linear_graph(rows, k, n):
    """tfm.linear with bias and GELU on float16 [rows, k] x [n, k]ᵀ."""
    f = graph.Function("main", comment=f"linear {rows} x {k} -> {n}, GELU")
    x = f.input("input", graph.tensor((rows, k), "f16"))
    w = f.input("weight", graph.tensor((n, k), "f16"))
    b = f.input("bias", graph.tensor((n,), "f16"))
    y = f.op("tfm.linear", [x, w, b], graph.tensor((rows, n), "f16"),
             attrs={"activation": graph.enum("tfm.activation", "gelu")},
             name="result")
    f.ret(y, names="result")
    return f.text()


def find_ptxas():
    found = shutil.which("ptxas")
    if found:
        return found
    for root in (os.environ.get("CUDA_HOME"), "/usr/local/cuda"):
        if root and os.access(os.path.join(root, "bin", "ptxas"), os.X_OK):
            return os.path.join(root, "bin", "ptxas")
    return None


def cases(work, quick):
    """(name, graph path, extra flags, weights or None)."""
    s = 1024 if quick else 4096
    out = []
    for name, d, causal in (("attention d64", 64, False),
                            ("attention d128 c", 128, True)):
        path = runner.write_text(
            os.path.join(work, name.replace(" ", "_") + ".mlir"),
            fused_graph(16, s, d, causal, "f16"))
        out.append((f"{name} (S={s})", path, [], None))
    for rows in (256, 197):
        path = runner.write_text(os.path.join(work, f"linear{rows}.mlir"),
                                 linear_graph(rows, 768, 3072))
        out.append((f"linear {rows}", path, [], None))
    for model in ("encoder_block", "vit"):
        make_weights.write(model, work)
        out.append((model, os.path.join(ROOT, "examples", model + ".mlir"),
                    ["--gpu-tf32"],
                    os.path.join(work, model + ".safetensors")))
    return out


def measure(compiler, ptxas, graph_path, flags, weights, arch, ptx):
    options = ["--target=nvptx", f"--gpu-arch={arch}",
               "--gpu-tensor-cores"] + flags
    if weights:
        options += ["--weights", weights]
    runner.run([compiler, graph_path, "--emit=ptx", "-o", ptx] + options)
    text = open(ptx).read()
    # A launch's shared memory is dynamic: its size is on the host's
    # launch, seen at --stage=gpu.
    launches = runner.emit(compiler, graph_path,
                           options + ["--emit=mlir", "--stage=gpu"])
    shared = [int(b) for b in re.findall(
        r"dynamic_shared_memory_size %c(\d+)_i32", launches)]
    _, err = runner.run([ptxas, "-v", f"-arch={arch}", ptx, "-o",
                         os.devnull])
    registers = [int(r) for r in re.findall(r"Used (\d+) registers", err)]
    spills = sum(int(b) for b in re.findall(r"(\d+) bytes spill stores", err))
    row = {"kernels": len(re.findall(r"^\.visible \.entry", text, re.M)),
           "regs": sum(registers), "max regs": max(registers, default=0),
           "spill bytes": spills,
           "max shared KiB": round(max(shared, default=0) / 1024, 1)}
    for column, pattern in INSTRUCTIONS:
        row[column] = len(re.findall(pattern, text))
    return row


def main(argv):
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--arch", default="sm_80,sm_90a")
    parser.add_argument("--work", help="keep the graphs and the PTX here")
    parser.add_argument("--json", help="write the rows to this file")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--ptxas", help="the ptxas to run (default: PATH, "
                        "then $CUDA_HOME/bin, /usr/local/cuda/bin)")
    args = parser.parse_args(argv)
    compiler = os.environ.get(
        "TFM_COMPILE", os.path.join(ROOT, "build", "bin", "tfm-compile"))
    if not os.access(compiler, os.X_OK):
        sys.exit(f"error: {compiler} not found (run scripts/build.sh)")
    ptxas = args.ptxas or find_ptxas()
    if not ptxas:
        sys.exit("error: no ptxas (install CUDA, or set CUDA_HOME)")
    work = args.work or tempfile.mkdtemp(prefix="tfm-gpu-static-")
    os.makedirs(work, exist_ok=True)
    rows = []
    try:
        for name, path, flags, weights in cases(work, args.quick):
            for arch in args.arch.split(","):
                ptx = os.path.join(
                    work, re.sub(r"\W+", "_", name) + f"-{arch}.ptx")
                row = {"case": name, "arch": arch}
                row.update(measure(compiler, ptxas, path, flags, weights,
                                   arch, ptx))
                rows.append(row)
    except runner.ToolError as e:
        sys.exit(f"error: {e}")
    finally:
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)
    columns = list(rows[0].keys())
    print("| " + " | ".join(columns) + " |")
    print("|" + "---|" * len(columns))
    for row in rows:
        print("| " + " | ".join(str(row[c]) for c in columns) + " |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
