"""Prints a graph that uses every form tfm_tools.graph writes: tfm ops with
operands, keyword groups and attributes of each kind, same-type ops, the
upstream ops with a syntax of their own, and a call of a private function.
Then checks that the builder refuses an SSA name defined twice."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "python"))
from tfm_tools.graph import Module, enum, tensor  # noqa: E402

t, ts = tensor((2, 4, 8)), tensor((2, 4, 4))
module = Module(comment="every form of tfm_tools.graph")
main = module.func("main")
block = module.func("block", private=True, comment="a private function")
x = block.arg("x", t)
block.ret(block.op("tfm.gelu", [x], same_type=True,
                   attrs={"approximate": enum("tfm.gelu_approximation",
                                              "tanh")}))

q = main.input("query", t, arg="q")
k, v = main.input("k", t), main.input("v", t)
lens = main.input("lens", tensor((2,), "i32"))
w = main.weight("w", tensor((8, 8)), "proj.weight")
a = main.op("tfm.attention", [q, k, v], t,
            groups={"valid_lens": lens, "mask": None},
            attrs={"causal": True, "scale": 0.25, "unused": None})
s = main.op("tfm.batch_matmul", [q, k], ts, attrs={"transpose_rhs": True})
c = main.constant(0.5, ts, name="half")
m = main.op("arith.mulf", [s, c], same_type=True)
sm = main.linalg_softmax(m, main.empty(ts), 2)
o = main.op("tfm.batch_matmul", [sm, v], t)
y = main.op("arith.addf", [a, o], same_type=True)
y = main.op("tfm.linear", [y, w], t,
            attrs={"activation": enum("tfm.activation", "relu")})
y = main.op("tfm.split_heads", [main.call(block, [y])], tensor((4, 4, 4)),
            attrs={"num_heads": 2})
row = main.extract_slice(y, [0, 1, 0], [4, 1, 4])
flat = main.collapse_shape(row, [[0, 1], [2]], name="flat")
main.ret(flat, names="out")
print(module.text(), end="")

try:
    main.input("q", t)
    sys.exit("error: %q defined twice without an error")
except ValueError as e:
    print(f"// {e}", file=sys.stderr)
