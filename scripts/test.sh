#!/usr/bin/env bash
# Sets up, builds and runs the whole tfm test suite (lit + FileCheck).
#   scripts/test.sh [extra lit arguments...]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TFM_BUILD_DIR:-$root/build}

"$root/scripts/setup.sh"
"$root/scripts/build.sh"
/usr/lib/llvm-22/bin/lit -sv "$build/test" "$@"
