"""Runs tfm-compile and the executables it makes, and their .npy files.

A compiled model is an executable that takes its inputs as .npy files, in
the order of @main's runtime arguments, and writes each result to the file
of one `-o` (docs/tfm-compile.md):

    exe = compile_graph(compiler, "graph.mlir", "model", ["--no-fusion"])
    inputs = save_arrays(work, [("q", q), ("k", k), ("v", v)])
    run_model(exe, inputs, [os.path.join(work, "out.npy")])

Every function raises ToolError when a command fails; a test driver that
should stop there with exit code 2 runs its commands under
`with exit_on_failure():`.
"""

import contextlib
import os
import subprocess
import sys

import numpy as np


class ToolError(RuntimeError):
    """A command that exited with a non-zero code, with its output."""

    def __init__(self, command, returncode, output):
        self.command = [str(c) for c in command]
        self.returncode = returncode
        self.output = output
        super().__init__(f"{' '.join(self.command)} exited with "
                         f"{returncode}:\n{output}".rstrip())


def run(command, env=None, timeout=None):
    """Runs COMMAND; returns its (stdout, stderr) as text, or raises
    ToolError with both when it fails."""
    proc = subprocess.run([str(c) for c in command], capture_output=True,
                          text=True, env=env, timeout=timeout)
    if proc.returncode != 0:
        raise ToolError(command, proc.returncode, proc.stdout + proc.stderr)
    return proc.stdout, proc.stderr


@contextlib.contextmanager
def exit_on_failure():
    """For test drivers: a ToolError inside the block prints `error: COMMAND
    exited with N` and the command's output to stderr, and exits with code
    2 (a failure to compile or run, apart from a wrong result's 1)."""
    try:
        yield
    except ToolError as e:
        print(f"error: {e}", file=sys.stderr)
        sys.exit(2)


def compile_graph(compiler, graph, exe, flags=(), weights=None):
    """tfm-compile GRAPH -o EXE [--weights WEIGHTS] FLAGS...; returns EXE.

    GRAPH is a .mlir or .onnx file."""
    command = [compiler, graph, "-o", exe] + list(flags)
    if weights:
        command += ["--weights", weights]
    run(command)
    return exe


def emit(compiler, graph, flags=()):
    """The IR tfm-compile prints for GRAPH with FLAGS (`--emit=mlir` and a
    `--stage=`, for example)."""
    return run([compiler, graph, "-o", "-"] + list(flags))[0]


def run_model(exe, inputs, outputs, args=(), env=None, timeout=None):
    """Runs a compiled model on the .npy files INPUTS, writing one .npy per
    path of OUTPUTS; ARGS go before them (`--bench N`, `--threads T`).
    Returns the executable's (stdout, stderr)."""
    command = [exe] + list(args)
    for path in outputs:
        command += ["-o", path]
    return run(command + list(inputs), env=env, timeout=timeout)


def save_arrays(work, arrays, prefix=""):
    """Writes each (name, array) of ARRAYS (pairs or a dict) to
    WORK/PREFIXname.npy; returns the paths, in order."""
    os.makedirs(work, exist_ok=True)
    items = arrays.items() if hasattr(arrays, "items") else arrays
    paths = []
    for name, array in items:
        paths.append(os.path.join(work, f"{prefix}{name}.npy"))
        np.save(paths[-1], array)
    return paths


def write_text(path, text):
    """Writes TEXT (a graph, say) to PATH, making its directory; returns
    PATH."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    return path
