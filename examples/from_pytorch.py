"""The main job: a PyTorch model becomes a native binary that computes the
same numbers, and how fast each runs.

    /usr/bin/python3 examples/from_pytorch.py [--model vit_ti|encoder]
        [--compiler build/bin/tfm-compile] [--work DIR] [--runs N]

1. builds the model with live random weights from a fixed seed:
   `vit_ti`, torchvision's VisionTransformer at ViT-Ti/16's size (224x224
   images, 16x16 patches, 12 layers of width 192 with 3 heads, 1000
   classes), or `encoder`, the seed's d2l TransformerEncoder (2 blocks of
   width 32 with 4 heads over a vocabulary of 200, valid_lens masking);
2. exports it with torch.onnx.export (opset 17) to WORK/MODEL.onnx;
3. compiles that file with tfm-compile into the executable WORK/MODEL and
   prints what the graph optimizer made of it;
4. runs the executable and PyTorch on the same inputs and prints the
   largest difference relative to PyTorch's largest output;
5. times both: the executable's own --bench, and PyTorch's eager forward
   pass under torch.no_grad(), each at 1 and 2 threads, medians of RUNS.

It exits with 1 if the outputs differ by more than 1e-4.
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import time

import numpy as np
import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
from tfm_tools import d2l  # noqa: E402

TOLERANCE = 1e-4



def vector_isa():
    """The widest vector ISA of this machine's CPU, as tfm-compile's
    default (--cpu=native) uses it: AVX-512, AVX2 or neither."""
    try:
        with open("/proc/cpuinfo") as f:
            flags = f.read()
    except OSError:
        return "ISA unknown"
    return ("AVX-512" if " avx512f" in flags else
            "AVX2" if " avx2" in flags else "no AVX2")

def vit_ti():
    from torchvision.models.vision_transformer import VisionTransformer
    model = VisionTransformer(image_size=224, patch_size=16, num_layers=12,
                              num_heads=3, hidden_dim=192, mlp_dim=768)
    # torchvision zero-initializes the class token and the classifier, so
    # that every logit would be 0 whatever the body computes.
    with torch.no_grad():
        torch.nn.init.normal_(model.class_token, std=0.02)
        torch.nn.init.normal_(model.heads.head.weight, std=0.02)
    image = torch.randn(1, 3, 224, 224)
    return model, (image,), ["image"], "logits"


def encoder():
    model = d2l.build(torch, vocab=200, d=32, heads=4, ffn=64, blocks=2)
    tokens = torch.randint(0, 200, (2, 10))
    valid_lens = torch.tensor([10, 6])
    return model, (tokens, valid_lens), ["tokens", "valid_lens"], "hidden"


MODELS = {"vit_ti": vit_ti, "encoder": encoder}


def run(command):
    proc = subprocess.run(command, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"error: {' '.join(command)} exited with {proc.returncode}:"
                 f"\n{proc.stdout}{proc.stderr}")
    return proc.stdout + proc.stderr


def time_tfm(exe, inputs, output, runs, threads):
    """The median of the executable's --bench RUNS, in ms."""
    text = run([exe, "--bench", str(runs), "--threads", str(threads),
                "-o", output] + inputs)
    match = re.search(r"median ([0-9.]+) ms", text)
    if not match:
        sys.exit(f"error: no latency in the output of {exe}:\n{text}")
    return float(match.group(1))


def time_torch(model, inputs, runs, threads):
    torch.set_num_threads(threads)
    times = []
    with torch.no_grad():
        model(*inputs)  # warm-up
        for _ in range(runs):
            start = time.perf_counter()
            model(*inputs)
            times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--model", choices=sorted(MODELS), default="vit_ti")
    parser.add_argument("--compiler",
                        default=os.path.join(ROOT, "build", "bin",
                                             "tfm-compile"))
    parser.add_argument("--work", default=os.path.join(ROOT, "build",
                                                       "from-pytorch"))
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)

    torch.manual_seed(0)
    model, inputs, input_names, output_name = MODELS[args.model]()
    model.eval()
    onnx_path = os.path.join(args.work, args.model + ".onnx")
    exe = os.path.join(args.work, args.model)
    print(f"== torch.onnx.export: {args.model} -> {onnx_path}")
    # With gradients enabled: under no_grad, eval-mode encoder layers take
    # PyTorch's fused fast path, which the exporter cannot export.
    torch.onnx.export(model, inputs, onnx_path, opset_version=17,
                      input_names=input_names, output_names=[output_name])

    print(f"== tfm-compile {os.path.relpath(onnx_path)} -o "
          f"{os.path.relpath(exe)}")
    start = time.perf_counter()
    run([args.compiler, onnx_path, "-o", exe])
    print(f"   compiled in {time.perf_counter() - start:.1f} s")
    graph = run([args.compiler, onnx_path, "--emit=mlir", "--stage=graph",
                 "-o", "-", "--mlir-elide-elementsattrs-if-larger=16"])
    ops = {op: len(re.findall(rf"= {op}\b", graph))
           for op in ("tfm.attention", "tfm.linear", "tfm.layer_norm",
                      "linalg.softmax")}
    print("   after the graph optimizer: " +
          ", ".join(f"{n} {op}" for op, n in ops.items()))

    input_paths = []
    for name, tensor in zip(input_names, inputs):
        input_paths.append(os.path.join(args.work, f"{name}.npy"))
        np.save(input_paths[-1], tensor.numpy())
    output = os.path.join(args.work, f"{output_name}.npy")
    run([exe, "-o", output] + input_paths)
    with torch.no_grad():
        reference = model(*inputs).numpy()
    got = np.load(output)
    if got.shape != reference.shape:
        sys.exit(f"error: tfm's output has shape {got.shape}, PyTorch's "
                 f"{reference.shape}")
    error = float(np.abs(got.astype(np.float64) - reference).max() /
                  max(np.abs(reference).max(), 1e-30))
    agree = "agree" if error <= TOLERANCE else "DISAGREE"
    print(f"== {os.path.relpath(exe)} and PyTorch {agree}: max |tfm - torch| "
          f"/ max |torch| = {error:.1e} (tolerance {TOLERANCE:g})")
    if got.ndim == 2 and got.shape[1] > 1:
        print(f"   top class: tfm {got[0].argmax()}, PyTorch "
              f"{reference[0].argmax()}")

    print(f"== latency, medians of {args.runs} runs (this machine: "
          f"{os.cpu_count()} cores, {vector_isa()})")
    rows = []
    for threads in (1, 2):
        t = time_tfm(exe, input_paths, output, args.runs, threads)
        p = time_torch(model, inputs, args.runs, threads)
        rows.append((threads, t, p))
        print(f"   {threads} thread{'s' if threads > 1 else ' '}: tfm "
              f"{t:9.3f} ms   PyTorch {torch.__version__} {p:9.3f} ms")
    best_tfm = min(r[1] for r in rows)
    best_torch = min(r[2] for r in rows)
    print(f"   best of each: tfm {best_tfm:.3f} ms, PyTorch "
          f"{best_torch:.3f} ms: tfm is {best_torch / best_tfm:.2f}x "
          f"PyTorch's speed")
    return 0 if error <= TOLERANCE else 1


if __name__ == "__main__":
    sys.exit(main())
