#!/usr/bin/env bash
# Runs tfm's CPU benchmarks in one go and writes their tables.
#
#   bench/run.sh [--quick] [--no-setup]
#                [--attention-only | --vit-only | --ort-only | --no-ort]
#
# 1. Sets up: scripts/setup.sh (LLVM/MLIR 22, clang, NumPy, ...), then the
#    benchmarks' own packages with apt-get when missing: PyTorch and
#    torchvision (Debian's python3-torch, python3-torchvision), OpenBLAS
#    (libopenblas0-pthread, which Debian's torch then calls for its matmuls),
#    matplotlib (the plot), GNU time (the executables' peak RSS) and, for
#    bench/ort.py, Node.js and npm (nodejs, npm; only when `node` or `npm`
#    is missing); then ONNX Runtime: the onnxruntime-node that
#    bench/ort/package.json pins, with `npm ci --ignore-scripts` into
#    BUILD/bench/ort (a no-op when installed from the same lock file).
# 2. Builds tfm-compile and the runtime (scripts/build.sh, a no-op when up to
#    date).
# 3. Runs bench/attention.py (fused vs unfused attention vs PyTorch, the
#    SGEMM ceiling, peak memory, nn.MultiheadAttention), bench/vit.py
#    (ViT-Ti/16 and ViT-B/16 against torchvision), bench/ort.py (tfm,
#    ONNX Runtime and PyTorch on the same exported .onnx models, at 1 and 2
#    threads) and bench/generate.py (decoding with a key/value cache:
#    tokens per second of a GPT-2-small-size model on the three, next to
#    the measured memory bandwidth), printing their tables.
# 4. Writes the tables as Markdown to bench/results.md and the attention plot
#    to docs/benchmarks-attention.png.
#
# --quick is a smoke test of the same path with tiny sizes and a few runs; it
# writes to build/bench/quick/ (results.md, benchmarks-attention.png) and
# leaves bench/results.md and the docs alone. A full run takes about 35-45
# minutes on 2 cores (bench/ort.py alone 10-20, bench/generate.py about
# 15); the machine should be otherwise idle.
#
# Environment: TFM_BUILD_DIR (default build/), TFM_BENCH_THREADS (default 2;
# attention.py and vit.py), TFM_BENCH_ATTENTION_ARGS, TFM_BENCH_VIT_ARGS,
# TFM_BENCH_ORT_ARGS and TFM_BENCH_GENERATE_ARGS (more options for each
# script, e.g.
# TFM_BENCH_ATTENTION_ARGS="--sizes 1024,2048 --dims 64" or
# TFM_BENCH_ORT_ARGS="--models vit_b_16,gpt2_s1024 --threads 1").
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TFM_BUILD_DIR:-$root/build}
threads=${TFM_BENCH_THREADS:-2}
python=/usr/bin/python3

quick=()
setup=1
attention=1
vit=1
ort=1
while (($#)); do
  case $1 in
    --quick) quick=(--quick) ;;
    --no-setup) setup=0 ;;
    --attention-only) vit=0; ort=0 ;;
    --vit-only) attention=0; ort=0 ;;
    --ort-only) attention=0; vit=0 ;;
    --no-ort) ort=0 ;;
    -h|--help) sed -n '2,38p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
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
  # Any Node.js will do (a NodeSource nodejs brings its own npm, which
  # Debian's npm package would conflict with).
  if ((ort)) && ! { command -v node && command -v npm; } >/dev/null; then
    missing+=(nodejs npm)
  fi
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
  if ((ort)); then
    # ONNX Runtime from npm, exactly as bench/ort/package-lock.json pins it.
    # --ignore-scripts: its postinstall only downloads GPU providers; the
    # CPU provider and the native binding ship in the package.
    ortdir=$build/bench/ort
    if ! cmp -s "$root/bench/ort/package-lock.json" \
           "$ortdir/package-lock.json" ||
       [[ ! -d $ortdir/node_modules/onnxruntime-node ]]; then
      echo "bench: installing onnxruntime-node into $ortdir"
      mkdir -p "$ortdir"
      cp "$root/bench/ort/package.json" "$root/bench/ort/package-lock.json" \
         "$ortdir/"
      (cd "$ortdir" && npm ci --ignore-scripts --no-audit --no-fund)
    fi
    node -e "require(require.resolve('onnxruntime-node',
                                     {paths: [process.argv[1]]}))" \
      "$ortdir" || {
      echo "bench: onnxruntime-node in $ortdir does not load" >&2
      exit 1
    }
  fi
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
if ((ort)); then
  echo "== bench/ort.py ${quick[*]}"
  "$python" "$root/bench/ort.py" "${quick[@]}" \
    --compiler "$build/bin/tfm-compile" --work "$build/bench" \
    --ort "$build/bench/ort" --markdown "$work/ort.md" \
    ${TFM_BENCH_ORT_ARGS:-}
  parts+=("$work/ort.md")
  # Generation needs ONNX Runtime too: the same with-past model step by step.
  echo "== bench/generate.py ${quick[*]}"
  "$python" "$root/bench/generate.py" "${quick[@]}" \
    --compiler "$build/bin/tfm-compile" --ort "$build/bench/ort" \
    --markdown "$work/generate.md" ${TFM_BENCH_GENERATE_ARGS:-}
  parts+=("$work/generate.md")
fi

cat "${parts[@]}" > "$results"
echo "== wrote $results$( ((attention)) && echo " and $plot") in" \
     "$((SECONDS - start)) s"
