"""Runs `TOOL ARGS... FILE` on every file of DIR and fails if one crashes.

    replay.py DIR TOOL [ARGS...]

An exit code of 0 (imported) or 1 (an error) is fine; anything else (a
signal, a sanitizer report, LLVM's crash handler) is reported and makes the
script exit with 1.
"""
import os
import subprocess
import sys

directory, command = sys.argv[1], sys.argv[2:]
files = sorted(os.listdir(directory))
bad = 0
for name in files:
    path = os.path.join(directory, name)
    proc = subprocess.run(command + [path], capture_output=True, text=True)
    if proc.returncode not in (0, 1, 2):
        print(f"{name}: exit code {proc.returncode}\n{proc.stderr[-2000:]}")
        bad += 1
print(f"{len(files)} inputs, {bad} crashed")
sys.exit(1 if bad or not files else 0)
