"""A library that a Python process has loaded is recompiled under it, to a
different model and then to the same: tfm-compile replaces the file (a new
inode, renamed over it) instead of writing into it, so the loaded model
keeps computing its own result; a fresh load of the path gets the new one.
Each compile also writes the header the same way.

    recompile.py WORK     (PYTHONPATH holds python/; TFM_COMPILE tfm-compile)
"""

import os
import sys

import numpy as np

import tfm

work = sys.argv[1]
os.makedirs(work, exist_ok=True)
double = os.path.join(work, "double.mlir")
with open(double, "w") as f:
    f.write("""
func.func @main(%x: tensor<?x4xf32> {tfm.name = "x", tfm.dims = ["n", ""]})
    -> (tensor<?x4xf32> {tfm.name = "y"}) {
  %y = arith.addf %x, %x : tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}
""")
square = os.path.join(work, "square.mlir")
with open(square, "w") as f:
    f.write("""
func.func @main(%x: tensor<3xf32> {tfm.name = "a"}, %z: tensor<3xf32> {tfm.name = "b"})
    -> (tensor<3xf32> {tfm.name = "c"}) {
  %y = arith.mulf %x, %z : tensor<3xf32>
  return %y : tensor<3xf32>
}
""")
library = os.path.join(work, "libmodel.so")
header = os.path.join(work, "libmodel.h")
model = tfm.load(tfm.compile(double, library))
x = np.arange(8, dtype=np.float32).reshape(2, 4)
assert (model(x) == 2 * x).all()
inode = os.stat(library).st_ino
header_text = open(header).read()

# Another model, with another signature, at the same path.
tfm.compile(square, library)
print("replaced:", os.stat(library).st_ino != inode)
print("header replaced:", open(header).read() != header_text)
y = model(x)
print("loaded model after a recompile to another:", bool((y == 2 * x).all()))
fresh = tfm.load(library)
print("fresh load:", fresh.signature.inputs)
a = np.array([1, 2, 3], np.float32)
assert (fresh(a, a) == a * a).all()

# The same model again, while the first process's copy is still in use;
# many calls touch every page of the old mapping.
tfm.compile(double, library)
for i in range(50):
    x = np.random.default_rng(i).standard_normal((i + 1, 4)).astype(np.float32)
    assert (model(x) == 2 * x).all()
print("after recompiling the same: 50 calls match NumPy")
again = tfm.load(library)
print("load after the second recompile:", again.signature.inputs)
assert (again(x) == 2 * x).all()
assert tfm.load(library)._lib is again._lib
print("no temporary files left:",
      sorted(f for f in os.listdir(work) if ".tmp" in f) == [])
print("ok")
