"""Runs `TOOL ARGS... FILE` on every file of DIR and fails if one crashes.

    replay.py DIR TOOL [ARGS...]

For the fuzzers' regression inputs (fuzz/regressions/DOOR/). An exit code
of 0 (accepted), 1 or 2 (an error, reported) is fine; anything else (a
signal, a sanitizer report, LLVM's crash handler) is reported and makes the
script exit with 1. A DIR that does not exist holds no inputs.
"""
import os
import subprocess
import sys

directory, command = sys.argv[1], sys.argv[2:]
files = sorted(os.listdir(directory)) if os.path.isdir(directory) else []
bad = 0
for name in files:
    path = os.path.join(directory, name)
    proc = subprocess.run(command + [path], capture_output=True, text=True)
    if proc.returncode not in (0, 1, 2):
        print(f"{name}: exit code {proc.returncode}\n{proc.stderr[-2000:]}")
        bad += 1
print(f"{len(files)} inputs, {bad} crashed")
sys.exit(1 if bad else 0)
