#!/usr/bin/env bash
# The main job: sets up, builds, and takes a PyTorch model to a native
# binary (examples/from_pytorch.py): torchvision's ViT-Ti/16 with random
# weights exported to ONNX, compiled by tfm-compile, run on an image next to
# PyTorch; prints their agreement and both latencies.
#   scripts/run.sh [examples/from_pytorch.py options, e.g. --model encoder]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TFM_BUILD_DIR:-$root/build}

"$root/scripts/setup.sh"
# Every tool the README mentions, and both runtimes.
"$root/scripts/build.sh" tfm-compile tfm-opt tfm-translate tfm_runtime \
  tfm_gpu_runtime
/usr/bin/python3 "$root/examples/from_pytorch.py" \
  --compiler "$build/bin/tfm-compile" --work "$build/from-pytorch" "$@"
