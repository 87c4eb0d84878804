"""Helpers shared by the fused-against-unfused numeric checks."""

import re
import subprocess
import sys


def signature(graph):
    """The (shape, dtype) of every argument of @main."""
    text = open(graph).read()
    args = text[text.index("func.func @main("):]
    args = args[:args.index("->")]
    types = re.findall(r"tensor<((?:\d+x)*)(f32|i32)>", args)
    return [(tuple(int(d) for d in dims.split("x") if d), dtype)
            for dims, dtype in types]


def run(cmd):
    """Runs `cmd`, returns its stdout, and exits with 2 if it fails."""
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.stderr.write("failed: {}\n{}{}".format(" ".join(cmd), proc.stdout,
                                                   proc.stderr))
        sys.exit(2)
    return proc.stdout
