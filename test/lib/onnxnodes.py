"""Runs ONNX's own backend node tests of the ops tfm imports.

    onnxnodes.py --compiler PATH/tfm-compile --work DIR --expect FILE
    onnxnodes.py ... --record FILE     # writes the outcomes as expectations
    onnxnodes.py ... --filter REGEX    # only the tests whose name matches

The tests are the ones Debian's python3-onnx generates
(`onnx.backend.test.case.node`: each op's `export*` functions build a
one-node model, its inputs and its expected outputs, with NumPy); the
driver keeps those of the ops in the import table of docs/from-pytorch.md,
the one list of what tfm imports, with their `_expanded` variants (the
op's function body, made of other ops) and `_const_inputs` variants (the
shape operands that tfm needs at import time made initializers, see
CONSTANT_INPUTS). Each is compiled with
tfm-compile, run on its inputs and compared with the expected outputs:
float outputs elementwise within RTOL and ATOL below (NaN where the
expectation is NaN), integer and bool outputs exactly, and the shape and
element type exactly. Its outcome is one of

    pass      compiled, ran, and every output agrees
    refused   tfm-compile exited with 2 (valid ONNX that uses what tfm does
              not import), with an `error:` naming the op (or the graph
              input or output)
    invalid   tfm-compile exited with 1 (an error in the input)

and anything else is a failure, never recorded: a crash (a signal, an exit
code other than 0, 1 and 2, a timeout, "internal error", an LLVM
assertion or stack dump), an executable that fails, or a wrong answer.

FILE holds one line per test, `NAME OUTCOME [MESSAGE]`, MESSAGE a part of
tfm-compile's first error for a refusal. The driver prints each test whose
outcome differs from FILE's (or that FILE lacks, or that FILE has and the
generators no longer make), then

    onnx node tests: N run, P passed, R refused, I invalid, F failed, D differ from FILE

and exits with 1 when a test failed or differs, 0 otherwise.
"""

import argparse
import concurrent.futures
import contextlib
import importlib
import io
import os
import pkgutil
import re
import shutil
import subprocess
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "python"))
from tfm_tools import runner  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
DOCS = os.path.join(ROOT, "docs", "from-pytorch.md")

# Float outputs agree when |out - expected| <= ATOL + RTOL * |expected|
# elementwise: float32 rounding of one op's math, with room for libm's
# erf, tanh and exp.
RTOL, ATOL = 1e-4, 1e-5
# Seconds a compilation or a run may take before it counts as a hang.
TIMEOUT = 120

# What in tfm-compile's output is a crash, whatever its exit code.
CRASH_SIGNS = ("internal error", "Assertion", "Stack dump", "UNREACHABLE",
               "PLEASE submit a bug report", "Segmentation fault",
               "AddressSanitizer", "runtime error:")


def documented_ops(path=DOCS):
    """The op types of the import table of docs/from-pytorch.md (the table
    whose header is `| ONNX | imported as |`): every `Name` in its first
    column."""
    ops, in_table = [], False
    with open(path) as f:
        for line in f:
            if line.startswith("| ONNX | imported as |"):
                in_table = True
            elif in_table and not line.startswith("|"):
                break
            elif in_table:
                first = line.split("|")[1]
                ops += [op for op in re.findall(r"`([A-Za-z]+)`", first)
                        if op not in ops]
    if not ops:
        sys.exit(f"error: no import table in {path}")
    return ops


# The inputs of each op that tfm needs known at import time (shapes, axes,
# bounds, indices: docs/from-pytorch.md#limitations). The generators pass
# them as graph inputs, which tfm refuses; each such test is run a second
# time as NAME_const_inputs, with those inputs made initializers, as other
# static-shape compilers run these tests (onnx-mlir's CONSTANT_INPUT).
CONSTANT_INPUTS = {
    "ConstantOfShape": [0],
    "CumSum": [1],
    "Dropout": [1, 2],
    "Expand": [1],
    "Gather": [1],
    "Pad": [1, 2, 3],
    "Range": [0, 1, 2],
    "ReduceSum": [1],
    "Reshape": [1],
    "ScatterND": [0, 1, 2],
    "Slice": [1, 2, 3, 4],
    "Split": [1],
    "Squeeze": [1],
    "Tile": [1],
    "Trilu": [1],
    "Unsqueeze": [1],
}
CONST_SUFFIX = "_const_inputs"


class ConstTest:
    """A node test with some of its graph inputs made initializers."""

    def __init__(self, name, model, inputs, outputs):
        self.name = name
        self.model = model
        self.data_sets = [(inputs, outputs)]


def with_constant_inputs(case):
    """CASE with the inputs of CONSTANT_INPUTS made initializers, or None
    when it has none of them as graph inputs."""
    import onnx.numpy_helper
    node = case.model.graph.node[0]
    names = {node.input[i] for i in CONSTANT_INPUTS.get(node.op_type, [])
             if i < len(node.input) and node.input[i]}
    inputs, outputs = case.data_sets[0]
    graph_inputs = list(case.model.graph.input)
    if not names & {i.name for i in graph_inputs}:
        return None
    model = type(case.model)()
    model.CopyFrom(case.model)
    del model.graph.input[:]
    kept = []
    for info, array in zip(graph_inputs, inputs):
        if info.name in names:
            model.graph.initializer.append(
                onnx.numpy_helper.from_array(np.asarray(array), info.name))
        else:
            model.graph.input.append(info)
            kept.append(array)
    return ConstTest(case.name + CONST_SUFFIX, model, kept, outputs)


def collect(ops):
    """The node tests of OPS, as onnx.backend.test.case.TestCase, by name.

    Each op's module is imported on its own (its exporters run as it is
    imported): a module that fails to import under this NumPy (Debian's
    onnx 1.12 has a few that use NumPy aliases removed since) loses only
    its own tests, which the expectations then miss."""
    from onnx.backend.test.case import node
    warnings.filterwarnings("ignore")
    for module in pkgutil.iter_modules(node.__path__):
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                importlib.import_module(f"{node.__name__}.{module.name}")
        except Exception:  # noqa: BLE001 - another op's broken generator
            pass
    cases = {case.name: case for case in node._NodeTestCases}
    tests = {}
    for name, case in cases.items():
        base = cases.get(name[:-len("_expanded")]) \
            if name.endswith("_expanded") else case
        if base is not None and base.model.graph.node[0].op_type in ops:
            tests[name] = case
            variant = None if base is not case else with_constant_inputs(case)
            if variant:
                tests[variant.name] = variant
    return tests


def op_of(tests, name):
    """The op whose node test NAME is."""
    for suffix in ("_expanded", CONST_SUFFIX):
        if name.endswith(suffix):
            name = name[:-len(suffix)]
    return tests[name].model.graph.node[0].op_type


def compare(out, expected):
    """None when OUT agrees with EXPECTED, else what differs."""
    if out.dtype != expected.dtype or out.shape != expected.shape:
        return (f"got {out.dtype}{list(out.shape)}, expected "
                f"{expected.dtype}{list(expected.shape)}")
    if expected.dtype.kind == "f":
        ok = np.isclose(out, expected, rtol=RTOL, atol=ATOL, equal_nan=True)
    else:
        ok = out == expected
    if ok.all():
        return None
    where = np.unravel_index(np.argmin(ok), ok.shape)
    return (f"{int((~ok).sum())} of {ok.size} elements differ, first at "
            f"{list(where)}: got {out[where]}, expected {expected[where]}")


def first_error(output):
    """The first `error:` line of OUTPUT, from `error:` on."""
    for line in output.splitlines():
        if "error:" in line:
            return line[line.index("error:"):].strip()
    return ""


def run_test(compiler, work, name, case):
    """Compiles, runs and checks one test; returns (outcome, detail):
    ("pass", ""), ("refused" or "invalid", the first error) or ("failed",
    what went wrong)."""
    directory = os.path.join(work, name)
    shutil.rmtree(directory, ignore_errors=True)
    os.makedirs(directory)
    model = os.path.join(directory, "model.onnx")
    with open(model, "wb") as f:
        f.write(case.model.SerializeToString())
    inputs, expected = case.data_sets[0]
    exe = os.path.join(directory, "model")
    try:
        proc = subprocess.run([compiler, model, "-o", exe],
                              capture_output=True, text=True,
                              timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return "failed", f"tfm-compile ran for more than {TIMEOUT} s"
    output = proc.stdout + proc.stderr
    crash = next((s for s in CRASH_SIGNS if s in output), None)
    if proc.returncode not in (0, 1, 2) or crash:
        return "failed", (f"tfm-compile crashed (exit code "
                          f"{proc.returncode}): {crash or ''}\n{output}")
    if proc.returncode != 0:
        error = first_error(output)
        if not error:
            return "failed", (f"tfm-compile exited with {proc.returncode} "
                              f"without an error message:\n{output}")
        # The refusal is located: at an op, or at a graph input or output
        # (an unused input of a type tfm does not take).
        ops = {node.op_type for node in case.model.graph.node}
        ends = {f"graph {kind} '{value.name}'"
                for kind, values in (("input", case.model.graph.input),
                                     ("output", case.model.graph.output))
                for value in values}
        if not any(re.search(rf"\b{op}\b", error) for op in ops) and \
                not any(end in error for end in ends):
            return "failed", f"the refusal names none of the model's ops " \
                             f"or graph inputs and outputs: {error}"
        return ("refused" if proc.returncode == 2 else "invalid"), error

    paths = runner.save_arrays(
        directory, [(f"in{i}", np.asarray(x)) for i, x in enumerate(inputs)])
    outs = [os.path.join(directory, f"out{i}.npy")
            for i in range(len(expected))]
    try:
        runner.run_model(exe, paths, outs, timeout=TIMEOUT)
    except runner.ToolError as e:
        return "failed", f"the executable failed: {e}"
    except subprocess.TimeoutExpired:
        return "failed", f"the executable ran for more than {TIMEOUT} s"
    for i, (path, want) in enumerate(zip(outs, expected)):
        diff = compare(np.load(path), np.asarray(want))
        if diff:
            return "failed", f"wrong answer: output {i}: {diff}"
    shutil.rmtree(directory, ignore_errors=True)
    return "pass", ""


def read_expectations(path):
    """{name: (outcome, message)} from FILE's `NAME OUTCOME [MESSAGE]`
    lines (`#` starts a comment line)."""
    expected = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            name, outcome, *message = line.split(None, 2)
            expected[name] = (outcome, message[0] if message else "")
    return expected


def write_expectations(path, tests, results):
    """Writes RESULTS as expectations, grouped by op."""
    by_op = {}
    for name in sorted(results):
        by_op.setdefault(op_of(tests, name), []).append(name)
    with open(path, "w") as f:
        f.write("# The outcome of each ONNX backend node test of the ops "
                "tfm imports\n# (test/lib/onnxnodes.py): NAME pass, or NAME "
                "refused|invalid and a part\n# of tfm-compile's first "
                "error. Rewrite with onnxnodes.py --record.\n")
        for op in sorted(by_op):
            f.write(f"\n# {op}\n")
            for name in by_op[op]:
                outcome, detail = results[name]
                # The start of the message: enough to tell the reason.
                message = re.sub(r"^error: ", "", detail)
                if len(message) > 160:
                    message = message[:160].rsplit(" ", 1)[0]
                f.write(f"{name} {outcome}"
                        + (f" {message}" if message else "") + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--compiler", required=True)
    parser.add_argument("--work", required=True)
    expectations = parser.add_mutually_exclusive_group(required=True)
    expectations.add_argument("--expect", help="the recorded outcomes")
    expectations.add_argument("--record", help="write the outcomes here")
    parser.add_argument("--filter", default="",
                        help="only the tests whose name this matches")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()

    start = time.monotonic()
    tests = collect(documented_ops())
    names = sorted(n for n in tests if re.search(args.filter, n))
    os.makedirs(args.work, exist_ok=True)
    results = {}
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = {pool.submit(run_test, args.compiler, args.work, name,
                               tests[name]): name for name in names}
        for future in concurrent.futures.as_completed(futures):
            results[futures[future]] = future.result()

    failed = sorted(n for n, (outcome, _) in results.items()
                    if outcome == "failed")
    for name in failed:
        print(f"FAILED: {name}: {results[name][1]}")
    differ = []
    if args.record:
        # Failures are never recorded: a rerun must fail again.
        write_expectations(args.record, tests,
                           {n: r for n, r in results.items()
                            if r[0] != "failed"})
    else:
        expected = read_expectations(args.expect)
        for name in names:
            outcome, detail = results[name]
            if outcome == "failed":
                continue
            want = expected.get(name)
            if want is None:
                differ.append(name)
                print(f"NEW: {name}: {outcome} {detail}")
            elif want[0] != outcome or want[1] not in detail:
                differ.append(name)
                print(f"DIFFERS: {name}: expected {want[0]} {want[1]}, "
                      f"got {outcome} {detail}")
        if not args.filter:
            for name in sorted(set(expected) - set(tests)):
                differ.append(name)
                print(f"MISSING: {name}: recorded, but no generator made it")
    counts = {k: sum(1 for o, _ in results.values() if o == k)
              for k in ("pass", "refused", "invalid", "failed")}
    print(f"onnx node tests: {len(results)} run, {counts['pass']} passed, "
          f"{counts['refused']} refused, {counts['invalid']} invalid, "
          f"{counts['failed']} failed, {len(differ)} differ from "
          f"{'the record' if args.record else args.expect} "
          f"({time.monotonic() - start:.0f} s)")
    return 1 if failed or differ else 0


if __name__ == "__main__":
    sys.exit(main())
