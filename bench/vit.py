#!/usr/bin/env python3
"""End-to-end ViT on the CPU: tfm against torchvision, in one run.

    bench/vit.py [--quick] [--models vit_ti_16,vit_b_16] [--threads 2]
                 [--runs N] [--markdown FILE] [--json FILE] [--work DIR]

For ViT-Ti/16 (hidden 192, 3 heads, 12 layers, MLP 768) and ViT-B/16
(hidden 768, 12 heads, 12 layers, MLP 3072), image 224, batch 1, 1000
classes, it

1. builds torchvision.models.VisionTransformer with torch.manual_seed(0),
   in eval mode. torchvision initialises the class token, the classifier
   head and the biases to zeros (the logits would all be 0), so those are
   redrawn from the same seed: zero tensors ~ N(0, 0.02²), the head's
   weight ~ N(0, 1/hidden), LayerNorm weights 1 + N(0, 0.1²);
2. writes its state_dict to a safetensors file under the names that the
   graph of bench/vit_graph.py binds (the packed in_proj_weight/bias split
   into q, k, v);
3. compiles that graph with tfm-compile --weights (default options);
4. runs the executable on a fixed random image with --bench N --threads T,
   and torchvision's model on the same image with torch.set_num_threads(T)
   under torch.no_grad(), the median of N runs after a warm-up, where N
   fits --budget seconds (5 to 30 runs; a first --bench 1 process sizes
   tfm's; a model slower than half the budget per run gets 1 run);
5. prints both latencies, the speedup (torchvision's latency / tfm's) and
   the maximum relative error of tfm's logits against torchvision's
   (max |tfm - torch| / max |torch|).

--quick smoke-tests the same path on a 64x64 image with 2 layers.
"""

import argparse
import json
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
sys.path.insert(0, HERE)
import common  # noqa: E402
import vit_graph  # noqa: E402
from common import fmt, mib  # noqa: E402
from tfm_tools import compare, runner, safetensors  # noqa: E402

MODELS = {
    "vit_ti_16": ("ViT-Ti/16", vit_graph.VIT_TI_16),
    "vit_b_16": ("ViT-B/16", vit_graph.VIT_B_16),
}


def build_model(torch, config, image, classes, seed=0):
    from torchvision.models import VisionTransformer
    torch.manual_seed(seed)
    model = VisionTransformer(
        image_size=image, patch_size=config["patch"],
        num_layers=config["layers"], num_heads=config["heads"],
        hidden_dim=config["hidden"], mlp_dim=config["mlp"],
        num_classes=classes)
    common.redraw_dead_weights(
        torch, model, seed + 1,
        stds={"heads.head.weight": config["hidden"] ** -0.5})
    return model.eval()


def flops(config, image, classes):
    """Multiply-adds x 2 of one forward pass (matmuls, convolution and
    attention; the elementwise work is left out)."""
    n = (image // config["patch"]) ** 2
    s, d, f = n + 1, config["hidden"], config["mlp"]
    patch = 2 * n * d * 3 * config["patch"] ** 2
    layer = 2 * s * d * 4 * d + 4 * s * s * d + 2 * 2 * s * d * f
    return patch + config["layers"] * layer + 2 * d * classes


def bench_model(args, torch, key):
    title, config = MODELS[key]
    config = dict(config)
    image = 64 if args.quick else 224
    if args.quick:
        config["layers"] = 2
    classes = 1000
    work = os.path.join(args.work, "vit")
    os.makedirs(work, exist_ok=True)
    tag = f"{key}_{image}_{config['layers']}"
    row = {"model": title, "key": key, "image": image, **config,
           "gflops": flops(config, image, classes) / 1e9}

    model = build_model(torch, config, image, classes)
    row["params_m"] = sum(p.numel() for p in model.parameters()) / 1e6
    graph_config = dict(image=image, classes=classes, **config)
    tensors = vit_graph.weights_from_state_dict(model.state_dict(),
                                                **graph_config)
    weights = os.path.join(work, tag + ".safetensors")
    safetensors.save(weights, tensors)
    x = torch.randn(1, 3, image, image,
                    generator=torch.Generator().manual_seed(2))
    image_path = os.path.join(work, tag + ".image.npy")
    np.save(image_path, x.numpy())

    # torchvision.
    with torch.no_grad():
        start = time.perf_counter()
        ref = model(x)
        once = time.perf_counter() - start
        runs = args.runs or common.runs_for(
            once, 0.6 if args.quick else args.budget,
            2 if args.quick else 5, 3 if args.quick else 30)
        tmin, tmed = common.time_torch(lambda: model(x), runs, warmup=1)
    ref = ref.numpy()
    row["torch"] = {"min_ms": tmin, "median_ms": tmed, "runs": runs}
    print(f"  {title}: torchvision {tmed:.2f} ms ({runs} runs)",
          file=sys.stderr)

    # tfm.
    start = time.perf_counter()
    try:
        exe = common.compile_graph(args.compiler,
                                   vit_graph.vit_graph(**graph_config),
                                   work, tag, weights=weights)
    except runner.ToolError as e:
        row["tfm"] = {"error": str(e)}
        print(f"  error: {e}", file=sys.stderr)
        return row
    row["compile_s"] = time.perf_counter() - start
    out = os.path.join(work, tag + ".logits.npy")
    if args.runs:
        r = common.run_exe(exe, [image_path], out, args.runs, args.threads)
    else:
        r = common.run_exe_adaptive(
            exe, [image_path], out, args.threads,
            0.6 if args.quick else args.budget, 2 if args.quick else 5,
            3 if args.quick else 30)
    logits = np.load(out)
    err = compare.relative_error(logits, ref)
    row["tfm"] = {"min_ms": r.min_ms, "median_ms": r.median_ms,
                  "runs": r.runs, "peak_rss": r.peak_rss, "rel_err": err,
                  "top1_agrees": bool(np.argmax(logits) == np.argmax(ref))}
    print(f"  {title}: tfm {r.median_ms:.2f} ms ({r.runs} runs), max rel. "
          f"err. {err:.1e}", file=sys.stderr)
    return row


def report(results):
    images = sorted({r["image"] for r in results["models"]})
    out = [f"## End-to-end ViT (image {', '.join(map(str, images))}, "
           f"batch 1, float32)\n"]
    load = results.get("load_average")
    out.append(f"Machine: {results['machine']}. Threads: "
               f"{results['threads']}."
               + (f" Load average at start / end: {load[0]:.2f} / "
                  f"{load[-1]:.2f}." if load else "") + "\n")
    out.append("torchvision `VisionTransformer` (seeded random weights, eval,"
               " `torch.no_grad()`) against the graph of `bench/vit_graph.py`"
               " compiled by `tfm-compile --weights` with default options. "
               "Latencies are medians; speedup = torchvision / tfm; error ="
               " max |tfm − torch| / max |torch| over the 1000 logits.\n")
    headers = ["model", "image", "params (M)", "GFLOP", "tfm ms",
               "torchvision ms", "speedup", "max rel. err", "top-1 agrees",
               "tfm peak RSS MiB", "compile s", "runs tfm/tv"]
    rows = []
    for r in results["models"]:
        t = r["tfm"]
        ok = "error" not in t
        rows.append([
            r["model"] + ("" if r["layers"] == 12 else
                          f" ({r['layers']} layers)"),
            r["image"], fmt(r["params_m"]), fmt(r["gflops"], 2),
            fmt(t["median_ms"], 2) if ok else "error",
            fmt(r["torch"]["median_ms"], 2),
            fmt(r["torch"]["median_ms"] / t["median_ms"], 2) if ok else "—",
            f"{t['rel_err']:.1e}" if ok else "—",
            ("yes" if t["top1_agrees"] else "no") if ok else "—",
            fmt(mib(t["peak_rss"])) if ok and t["peak_rss"] else "—",
            fmt(r.get("compile_s"), 1) if ok else "—",
            f"{t.get('runs', '—')}/{r['torch']['runs']}"])
    out.append(common.markdown_table(headers, rows) + "\n")
    out.append("### Targets\n")
    for r in results["models"]:
        t = r["tfm"]
        if "error" in t:
            out.append(f"- {r['model']}: does not compile")
            continue
        speedup = r["torch"]["median_ms"] / t["median_ms"]
        out.append(f"- {r['model']}: {speedup:.2f}× torchvision (target "
                   f"≥ 2×): {'PASS' if speedup >= 2 else 'FAIL'}; max rel. "
                   f"err. {t['rel_err']:.1e} (expected ~1e-5): "
                   f"{'PASS' if t['rel_err'] < 1e-4 else 'FAIL'}")
    for r in results["models"]:
        if "error" in r["tfm"]:
            out.append(f"\n```\n{r['tfm']['error']}\n```")
    return "\n".join(out) + "\n"


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--quick", action="store_true",
                        help="a smoke test: 64x64 images, 2 layers")
    parser.add_argument("--models", default="vit_ti_16,vit_b_16",
                        help="of " + ", ".join(MODELS))
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--runs", type=int,
                        help="timed runs of each (default: by --budget)")
    parser.add_argument("--budget", type=float, default=4.0,
                        help="seconds of timed runs per measurement "
                        "(5 to 30 runs; default 4)")
    parser.add_argument("--compiler", default=common.DEFAULT_COMPILER)
    parser.add_argument("--work", default=os.path.join(
        common.ROOT, "build", "bench"))
    parser.add_argument("--markdown", help="write the table here too")
    parser.add_argument("--json", help="the raw results (default "
                        "WORK/vit.json)")
    parser.add_argument("--from-json", help="report these raw results "
                        "instead of measuring")
    args = parser.parse_args()
    if args.quick:
        args.work = os.path.join(args.work, "quick")
    json_path = args.json or os.path.join(args.work, "vit.json")

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
        keys = [k for k in args.models.split(",") if k]
        for k in keys:
            if k not in MODELS:
                sys.exit(f"error: unknown model {k}; expected one of "
                         + ", ".join(MODELS))
        start = time.perf_counter()
        load_start = os.getloadavg()[0]
        if load_start > 0.5:
            print(f"warning: load average {load_start:.2f}: the machine is "
                  "busy, timings will be noisy", file=sys.stderr)
        results = {"machine": common.machine_description(torch),
                   "threads": args.threads,
                   "models": [bench_model(args, torch, k) for k in keys]}
        results["load_average"] = [load_start, os.getloadavg()[0]]
        results["seconds"] = time.perf_counter() - start
        common.save_results(results, json_path)

    common.print_report(report(results), args.markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
