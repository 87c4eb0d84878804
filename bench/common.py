"""Helpers shared by bench/attention.py, bench/vit.py and bench/ort.py.

Compiling graphs with tfm-compile only when they changed, running the
executables it makes in a fresh process each (so that the process's peak
RSS is the measurement's own), timing PyTorch, and printing tables as
Markdown. Writing graphs, running tools and comparing results is
tfm_tools' (python/tfm_tools).
"""

import ctypes
import hashlib
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
from tfm_tools import runner  # noqa: E402

DEFAULT_COMPILER = os.path.join(ROOT, "build", "bin", "tfm-compile")


def compile_graph(compiler, graph_text, work, name, flags=(), weights=None):
    """Writes `graph_text` to WORK/NAME.mlir and compiles it to WORK/NAME.

    Recompiles only when the graph, the flags or the weights changed (the
    graph text and the command are kept next to the executable). Returns the
    executable's path; raises runner.ToolError with tfm-compile's
    message."""
    os.makedirs(work, exist_ok=True)
    graph = os.path.join(work, name + ".mlir")
    exe = os.path.join(work, name)
    command = [compiler, graph, "-o", exe] + list(flags)
    if weights:
        command += ["--weights", weights]
    stamp_path = exe + ".cmd"
    stamp = " ".join(command) + "\n"
    if weights:
        st = os.stat(weights)
        stamp += f"{st.st_size} {st.st_mtime_ns}\n"
    stamp += f"{os.stat(compiler).st_mtime_ns}\n" + graph_text
    if (os.path.exists(exe) and os.path.exists(stamp_path)
            and open(stamp_path).read() == stamp):
        return exe
    runner.write_text(graph, graph_text)
    start = time.perf_counter()
    if os.path.exists(stamp_path):
        os.remove(stamp_path)
    runner.compile_graph(compiler, graph, exe, flags, weights)
    with open(stamp_path, "w") as f:
        f.write(stamp)
    print(f"  compiled {name} in {time.perf_counter() - start:.1f} s",
          file=sys.stderr)
    return exe


def compile_file(compiler, model, exe, flags=()):
    """tfm-compile MODEL -o EXE FLAGS... (a .mlir or .onnx file), only when
    MODEL's contents, the flags or the compiler changed since the last
    compile into EXE. Returns EXE; raises runner.ToolError with
    tfm-compile's message."""
    command = [compiler, model, "-o", exe] + list(flags)
    digest = hashlib.sha256()
    with open(model, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    stamp = (" ".join(command) + f"\n{digest.hexdigest()}\n"
             f"{os.stat(compiler).st_mtime_ns}\n")
    stamp_path = exe + ".cmd"
    if (os.path.exists(exe) and os.path.exists(stamp_path)
            and open(stamp_path).read() == stamp):
        return exe
    if os.path.exists(stamp_path):
        os.remove(stamp_path)
    start = time.perf_counter()
    runner.compile_graph(compiler, model, exe, flags)
    with open(stamp_path, "w") as f:
        f.write(stamp)
    print(f"  compiled {os.path.basename(model)} in "
          f"{time.perf_counter() - start:.1f} s", file=sys.stderr)
    return exe


class RunResult:
    def __init__(self, min_ms, median_ms, peak_rss, runs):
        self.min_ms = min_ms
        self.median_ms = median_ms
        self.peak_rss = peak_rss          # bytes
        self.runs = runs


TIME = "/usr/bin/time"


def run_measured(command):
    """Runs COMMAND like runner.run and measures its peak RSS; returns
    (stdout, stderr, peak RSS in bytes or None).

    The peak RSS is GNU time's %M (ru_maxrss) of the executable. It has to
    come from a small parent: Linux starts a forked child's high-water mark
    at its parent's RSS and keeps it across exec, so a child spawned
    straight from this Python process (with PyTorch loaded) would report
    Python's footprint. Without /usr/bin/time (Debian's `time` package) the
    peak RSS is None."""
    with tempfile.NamedTemporaryFile("r") as rss:
        prefix = ([TIME, "-f", "%M", "-o", rss.name]
                  if os.access(TIME, os.X_OK) else [])
        out, err = runner.run(prefix + list(command))
        peak = None
        if prefix:
            lines = rss.read().split()
            if lines and lines[-1].isdigit():
                peak = int(lines[-1]) * 1024
    return out, err, peak


def run_exe(exe, inputs, output, runs, threads):
    """Runs a tfm executable with --bench RUNS --threads THREADS in a fresh
    process (writing its result to OUTPUT, a path or a list of paths, one
    per result); returns its min and median latency and its peak RSS (see
    run_measured)."""
    outputs = [output] if isinstance(output, str) else list(output)
    command = [exe, "--bench", str(runs), "--threads", str(threads)]
    for path in outputs:
        command += ["-o", path]
    command += list(inputs)
    out, err, peak = run_measured(command)
    min_ms, median_ms = parse_latency(out + err, command)
    return RunResult(min_ms, median_ms, peak, runs)


def parse_latency(text, command):
    """(min, median) in ms from an executable's `--bench` line, `latency
    over N runs: min X ms, median Y ms`; COMMAND is for the error."""
    for line in text.splitlines():
        if line.startswith("latency over"):
            parts = line.replace(",", "").split()
            return (float(parts[parts.index("min") + 1]),
                    float(parts[parts.index("median") + 1]))
    raise RuntimeError(f"no latency line in the output of "
                       f"{' '.join(map(str, command))}:\n{text}")


def run_exe_adaptive(exe, inputs, output, threads, budget_s, lo, hi,
                     estimate_s=None):
    """run_exe with as many timed runs as fit in BUDGET_S (LO to HI).

    Without ESTIMATE_S (seconds per run), a first process with --bench 1
    measures it; when one run already takes more than half the budget, that
    first measurement is the result (1 run), so that pathologically slow
    cases cost two runs (warm-up and timed) rather than LO + 1."""
    first = None
    if estimate_s is None:
        first = run_exe(exe, inputs, output, 1, threads)
        estimate_s = first.median_ms / 1e3
        if estimate_s > budget_s / 2:
            return first
    result = run_exe(exe, inputs, output,
                     runs_for(estimate_s, budget_s, lo, hi), threads)
    if first is not None and first.peak_rss and result.peak_rss:
        result.peak_rss = max(result.peak_rss, first.peak_rss)
    return result


def time_torch(fn, runs, warmup=1):
    """Calls fn() WARMUP times, then RUNS timed times; returns
    (min_ms, median_ms)."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    return min(times), statistics.median(times)


def runs_for(seconds_per_run, budget_s, lo, hi):
    """How many timed runs fit in BUDGET_S, clamped to [LO, HI]."""
    if seconds_per_run <= 0:
        return hi
    return max(lo, min(hi, int(budget_s / seconds_per_run)))


def sgemm_rate(torch, n=2048, runs=7):
    """GFLOP/s of torch.mm on n x n float32 matrices, median of RUNS, at
    torch's current thread count: the machine's practical ceiling."""
    gen = torch.Generator().manual_seed(0)
    a = torch.randn(n, n, generator=gen)
    b = torch.randn(n, n, generator=gen)
    c = torch.empty(n, n)
    _, median_ms = time_torch(lambda: torch.mm(a, b, out=c), runs, warmup=2)
    return 2.0 * n ** 3 / (median_ms * 1e-3) / 1e9, median_ms


def redraw_dead_weights(torch, model, seed, stds=None):
    """Makes a freshly initialised MODEL compute something worth checking.

    PyTorch's and torchvision's initialisers leave biases, class tokens and
    some heads at zero and LayerNorm weights at one, which can make a whole
    output constant (torchvision's ViT: every logit 0) and leaves those
    paths untested. From a generator seeded with SEED, in the order of
    named_parameters(): a parameter named in STDS ~ N(0, STDS[name]²);
    LayerNorm weights 1 + N(0, 0.1²); any other all-zero parameter ~ N(0,
    0.02²). Returns MODEL."""
    norms = {(name + "." if name else "") + "weight"
             for name, m in model.named_modules()
             if isinstance(m, torch.nn.LayerNorm)}
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if stds and name in stds:
                p.normal_(0, stds[name], generator=gen)
            elif name in norms:
                p.add_(torch.randn(p.shape, generator=gen) * 0.1)
            elif not p.any():
                p.normal_(0, 0.02, generator=gen)
    return model


def set_threads(torch, threads):
    """torch.set_num_threads(THREADS), and the same for OpenBLAS's own
    thread pool when PyTorch calls OpenBLAS: Debian's torch hands its
    matmuls to libblas.so.3, and openblas-pthread sizes its pool from the
    core count (or OPENBLAS_NUM_THREADS), not from torch's setting, so
    without this a 1-thread PyTorch runs its matmuls on every core."""
    torch.set_num_threads(threads)
    for path in _loaded_libraries():
        if "openblas" not in os.path.basename(path):
            continue
        try:
            lib = ctypes.CDLL(path)
            lib.openblas_set_num_threads(ctypes.c_int(threads))
        except (OSError, AttributeError):
            pass


def _loaded_libraries():
    """The shared libraries mapped into this process."""
    paths = set()
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                path = line.split()[-1]
                if ".so" in os.path.basename(path):
                    paths.add(path)
    except OSError:
        pass
    return sorted(paths)


def machine_description(torch=None):
    """The CPU model, core count and (if given) torch's version and BLAS."""
    model = platform.processor() or "unknown"
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        for line in out.splitlines():
            if line.startswith("Model name:"):
                model = line.split(":", 1)[1].strip()
    except OSError:
        pass
    flags = ""
    try:
        with open("/proc/cpuinfo") as f:
            info = f.read()
        flags = "AVX-512" if "avx512f" in info else (
            "AVX2" if "avx2" in info else "")
    except OSError:
        pass
    text = f"{model}, {os.cpu_count()} logical cores"
    if flags:
        text += f", {flags}"
    if torch is not None:
        text += f"; PyTorch {torch.__version__} ({blas_library(torch)})"
    return text


def blas_library(torch):
    """The BLAS that torch.mm runs on: the shared library mapped into this
    process (Debian's torch calls libblas.so.3, which the alternatives system
    points at OpenBLAS when libopenblas0-pthread is installed)."""
    torch.mm(torch.ones(64, 64), torch.ones(64, 64))
    names = {os.path.realpath(path) for path in _loaded_libraries()
             if "blas" in os.path.basename(path)
             or "mkl" in os.path.basename(path)}
    if not names:
        return "BLAS unknown"
    return ", ".join(sorted(n.replace("/usr/lib/x86_64-linux-gnu/", "")
                            for n in names))


def markdown_table(headers, rows):
    """Rows of already formatted cells as a Markdown table."""
    widths = [max(len(str(h)), *(len(str(r[i])) for r in rows))
              if rows else len(str(h)) for i, h in enumerate(headers)]
    def line(cells):
        return "| " + " | ".join(str(c).ljust(w)
                                 for c, w in zip(cells, widths)) + " |"
    out = [line(headers), "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    out += [line(r) for r in rows]
    return "\n".join(out)


def fmt(value, digits=1):
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    return f"{value:.{digits}f}"


def mib(nbytes):
    return nbytes / 2 ** 20


def save_results(results, json_path):
    """Writes a bench's raw RESULTS to JSON_PATH (which --from-json reads
    back) and says so on stderr, with the seconds the run took."""
    with open(json_path, "w") as f:
        json.dump(results, f, indent=1)
    print(f"wrote {json_path} ({results['seconds']:.0f} s)", file=sys.stderr)


def print_report(text, markdown=None):
    """Prints a bench's tables, and writes them to MARKDOWN if given."""
    print(text)
    if markdown:
        with open(markdown, "w") as f:
            f.write(text)
