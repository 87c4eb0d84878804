#!/usr/bin/env bash
# The main job: sets up, builds, and runs tfm-opt on the example graphs,
# printing the verified IR of the ViT and the encoder block decomposed into
# primitive ops.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TFM_BUILD_DIR:-$root/build}

"$root/scripts/setup.sh"
"$root/scripts/build.sh" tfm-opt
tfm_opt=$build/bin/tfm-opt

echo "== examples/vit.mlir, parsed and verified"
"$tfm_opt" "$root/examples/vit.mlir"
echo
echo "== examples/encoder_block.mlir after --tfm-decompose --canonicalize --cse"
"$tfm_opt" "$root/examples/encoder_block.mlir" --tfm-decompose --canonicalize --cse
