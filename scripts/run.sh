#!/usr/bin/env bash
# The main job: sets up, builds, compiles the example ViT (examples/vit.mlir)
# with deterministic weights into a native executable, runs it on a sample
# image, and prints the top classes and the latency.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TFM_BUILD_DIR:-$root/build}
work=${TFM_WORK_DIR:-$build/vit-example}
python=/usr/bin/python3

"$root/scripts/setup.sh"
# Every tool the README mentions, and both runtimes.
"$root/scripts/build.sh" tfm-compile tfm-opt tfm-translate tfm_runtime \
  tfm_gpu_runtime
mkdir -p "$work"

echo "== weights and a sample image: examples/make_weights.py"
"$python" "$root/examples/make_weights.py" vit -o "$work"

echo "== tfm-compile examples/vit.mlir"
"$build/bin/tfm-compile" "$root/examples/vit.mlir" \
  --weights "$work/vit.safetensors" -o "$work/vit"
"$build/bin/tfm-compile" "$root/examples/vit.mlir" \
  --weights "$work/vit.safetensors" --emit=mlir --stage=graph \
  -o "$work/vit.graph.mlir"
count() { grep -c "= $1 " "$work/vit.graph.mlir" || true; }
echo "   after the graph optimizer: $(count tfm.multi_head_attention)" \
  "multi_head_attention, $(count tfm.ffn) ffn, $(count tfm.layer_norm)" \
  "layer_norm (IR in $work/vit.graph.mlir)"

echo "== run: $work/vit -o logits.npy vit.image.npy"
"$work/vit" --bench 20 -o "$work/logits.npy" "$work/vit.image.npy"
"$python" - "$work/logits.npy" <<'PY'
import sys
import numpy as np

logits = np.load(sys.argv[1])[0]
probs = np.exp(logits - logits.max())
probs /= probs.sum()
print("top classes (untrained weights, so the classes mean nothing):")
for rank, c in enumerate(np.argsort(-probs)[:3], 1):
    print(f"  {rank}. class {c}: logit {logits[c]:+.4f}, p = {probs[c]:.3f}")
PY
