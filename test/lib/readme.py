"""Runs every shell command of the README's ```sh blocks, so that they stay
true.

    readme.py README.md --root REPO --bin BUILD/bin --work DIR

Each command runs with bash in WORK, which holds what a user's clone has
after the quick start: `build/bin` (the tools under test), a copy of
`examples/` (the commands write weights into it), `test/lib` and `python`.
Two placeholders of the README are real files there: `graph.mlir` (GRAPH
below: attention over its inputs) and `model.onnx` (PyTorch's
TransformerEncoderLayer, exported by test/lib/onnxcheck.py). Commands that set up the machine, run
this suite or run for minutes are not run (SKIPPED says why); a command that
fails stops the test with its output. Prints one line a command.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys

# Command prefix: why it is not run here.
SKIPPED = {
    "scripts/run.sh": "the main job; test/Examples/from-pytorch.test runs "
                      "its script (examples/from_pytorch.py)",
    "scripts/test.sh": "this suite",
    "/usr/lib/llvm-22/bin/lit": "this suite",
    "scripts/setup.sh": "installs packages; the suite runs after it",
    "scripts/build.sh": "builds what the suite tests",
    "scripts/fuzz.sh": "an ASan build and minutes of fuzzing "
                       "(test/Tools/fuzz-regressions.test replays the "
                       "fuzzers' findings)",
    "scripts/sanitize.sh": "the whole suite again, under ASan",
}

# The README's `graph.mlir`: a graph with no weights.
GRAPH = """\
func.func @main(%q: tensor<2x4x16x32xf32>, %k: tensor<2x4x16x32xf32>,
                %v: tensor<2x4x16x32xf32>) -> tensor<2x4x16x32xf32> {
  %0 = tfm.attention %q, %k, %v {causal} : (tensor<2x4x16x32xf32>, tensor<2x4x16x32xf32>, tensor<2x4x16x32xf32>) -> tensor<2x4x16x32xf32>
  return %0 : tensor<2x4x16x32xf32>
}
"""

# Commands run with a shorter budget than the README gives.
SHORTER = {"--seconds 60": "--seconds 3"}


def commands(readme):
    """The README's shell commands, continuation lines joined, comments
    after them dropped."""
    text = open(readme).read()
    for block in re.findall(r"^```sh\n(.*?)^```", text, re.S | re.M):
        joined = re.sub(r"\\\n\s*", " ", block)
        for line in joined.splitlines():
            line = re.sub(r"\s+#.*$", "", line).strip()
            if line and not line.startswith("#"):
                yield line


def mpi_env(env):
    """`env` for an mpirun: in the sanitizer run (ASAN_OPTIONS set, as
    test/lit.cfg.py sets it) without the leak check, whose reports inside
    Open MPI's plugins (unloaded before the check, so unnamed) no
    suppression can match."""
    if "ASAN_OPTIONS" not in env:
        return env
    return dict(env, ASAN_OPTIONS=env["ASAN_OPTIONS"] + ":detect_leaks=0")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("readme")
    parser.add_argument("--root", required=True)
    parser.add_argument("--bin", required=True)
    parser.add_argument("--work", required=True)
    args = parser.parse_args()

    work = args.work
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(os.path.join(work, "build"))
    os.makedirs(os.path.join(work, "test"))
    os.symlink(os.path.abspath(args.bin), os.path.join(work, "build", "bin"))
    shutil.copytree(os.path.join(args.root, "examples"),
                    os.path.join(work, "examples"),
                    ignore=shutil.ignore_patterns("weights", "__pycache__"))
    for path in ("test/lib", "python", "scripts"):
        os.symlink(os.path.join(args.root, path), os.path.join(work, path))
    with open(os.path.join(work, "graph.mlir"), "w") as f:
        f.write(GRAPH)
    # The README's `mpirun` as a user types it: CI runs as root, which Open
    # MPI refuses unless told (a root user adds --allow-run-as-root), and
    # its 2 ranks may exceed the machine's cores.
    env = dict(os.environ,
               PATH=os.path.abspath(args.bin) + os.pathsep +
               os.environ["PATH"],
               OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    export = subprocess.run(
        [sys.executable, os.path.join(args.root, "test", "lib",
                                      "onnxcheck.py"),
         "encoder", "--export-only", "--work", os.path.join(work, "onnx")],
        capture_output=True, text=True, env=env)
    if export.returncode != 0:
        sys.exit(f"error: cannot export model.onnx:\n{export.stderr}")
    shutil.copy(os.path.join(work, "onnx", "encoder.onnx"),
                os.path.join(work, "model.onnx"))

    count = 0
    for command in commands(args.readme):
        reason = next((why for prefix, why in SKIPPED.items()
                       if command.startswith(prefix)), None)
        if not reason and "ASAN_OPTIONS" in env and "tfm.load" in command:
            reason = ("the sanitizer run: CPython is not instrumented, so it "
                      "cannot load a sanitized library")
        if reason:
            print(f"skipped: {command}  ({reason})")
            continue
        for long, short in SHORTER.items():
            command = command.replace(long, short)
        proc = subprocess.run(["bash", "-c", "set -o pipefail; " + command],
                              cwd=work, capture_output=True, text=True,
                              env=mpi_env(env) if command.startswith("mpirun")
                              else env, timeout=600)
        if proc.returncode != 0:
            sys.exit(f"error: `{command}` exited with {proc.returncode}:\n"
                     f"{proc.stdout[-4000:]}{proc.stderr[-4000:]}")
        print(f"ok: {command}")
        count += 1
    print(f"{count} README commands ran")
    return 0


if __name__ == "__main__":
    sys.exit(main())
