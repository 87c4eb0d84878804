#!/usr/bin/env bash
# Runs tfm's CPU benchmarks in one go and writes their tables.
#
#   bench/run.sh [--quick] [--no-setup] [--attention-only | --vit-only]
#
# 1. Sets up: scripts/setup.sh (LLVM/MLIR 22, clang, NumPy, ...), then the
#    benchmarks' own packages with apt-get when missing: PyTorch and
#    torchvision (Debian's python3-torch, python3-torchvision), OpenBLAS
#    (libopenblas0-pthread, which Debian's torch then calls for its matmuls),
#    matplotlib (the plot) and GNU time (the executables' peak RSS).
# 2. Builds tfm-compile and the runtime (scripts/build.sh, a no-op when up to
#    date).
# 3. Runs bench/attention.py (fused vs unfused attention vs PyTorch, the
#    SGEMM ceiling, peak memory, nn.MultiheadAttention) and bench/vit.py
#    (ViT-Ti/16 and ViT-B/16 against torchvision), printing their tables.
# 4. Writes the tables as Markdown to bench/results.md and the attention plot
#    to docs/benchmarks-attention.png.
#
# --quick is a smoke test of the same path with tiny sizes and a few runs; it
# writes to build/bench/quick/ (results.md, benchmarks-attention.png) and
# leaves bench/results.md and the docs alone. A full run takes about 5-10
# minutes on 2 cores; the machine should be otherwise idle.
#
# Environment: TFM_BUILD_DIR (default build/), TFM_BENCH_THREADS (default 2),
# TFM_BENCH_ATTENTION_ARGS and TFM_BENCH_VIT_ARGS (more options for each
# script, e.g. TFM_BENCH_ATTENTION_ARGS="--sizes 1024,2048 --dims 64").
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TFM_BUILD_DIR:-$root/build}
threads=${TFM_BENCH_THREADS:-2}
python=/usr/bin/python3

quick=()
setup=1
attention=1
vit=1
while (($#)); do
  case $1 in
    --quick) quick=(--quick) ;;
    --no-setup) setup=0 ;;
    --attention-only) vit=0 ;;
    --vit-only) attention=0 ;;
    -h|--help) sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench/run.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done

if ((setup)); then
  "$root/scripts/setup.sh"
  packages=(python3-torch python3-torchvision libopenblas0-pthread
            python3-matplotlib time)
  missing=()
  for p in "${packages[@]}"; do
    status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
    [[ "$status" == "install ok installed" ]] || missing+=("$p")
  done
  if ((${#missing[@]})); then
    echo "bench: installing ${missing[*]}"
    sudo=""
    if [[ $(id -u) -ne 0 ]]; then
      command -v sudo >/dev/null || {
        echo "bench: need root to install ${missing[*]}" >&2
        exit 1
      }
      sudo=sudo
    fi
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
  fi
  TFM_BUILD_DIR=$build "$root/scripts/build.sh" tfm-compile tfm_runtime
fi

"$python" -c 'import torch, torchvision' || {
  echo "bench: PyTorch and torchvision are needed (run without --no-setup)" >&2
  exit 1
}

if ((${#quick[@]})); then
  work=$build/bench/quick
  results=$work/results.md
  plot=$work/benchmarks-attention.png
else
  work=$build/bench
  results=$root/bench/results.md
  plot=$root/docs/benchmarks-attention.png
fi
mkdir -p "$work"
common=(--compiler "$build/bin/tfm-compile" --threads "$threads"
        --work "$build/bench")

parts=()
start=$SECONDS
{
  echo "# tfm CPU benchmarks"
  echo
  commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')
  if [[ -n $(git -C "$root" status --porcelain -- lib include tools runtime \
             2>/dev/null) ]]; then
    commit+=" with local changes to the compiler"
  fi
  echo "Run by \`bench/run.sh${quick:+ ${quick[*]}}\` on" \
       "$(date -u '+%Y-%m-%d %H:%M UTC'), tfm at $commit."
  echo
} > "$work/results.head.md"
parts+=("$work/results.head.md")

if ((attention)); then
  echo "== bench/attention.py ${quick[*]}"
  "$python" "$root/bench/attention.py" "${quick[@]}" "${common[@]}" \
    --markdown "$work/attention.md" --plot "$plot" \
    ${TFM_BENCH_ATTENTION_ARGS:-}
  parts+=("$work/attention.md")
fi
if ((vit)); then
  echo "== bench/vit.py ${quick[*]}"
  "$python" "$root/bench/vit.py" "${quick[@]}" "${common[@]}" \
    --markdown "$work/vit.md" ${TFM_BENCH_VIT_ARGS:-}
  parts+=("$work/vit.md")
fi

cat "${parts[@]}" > "$results"
echo "== wrote $results$( ((attention)) && echo " and $plot") in" \
     "$((SECONDS - start)) s"
