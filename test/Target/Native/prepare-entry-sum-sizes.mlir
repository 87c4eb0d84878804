// RUN: tfm-opt %s --tfm-prepare-entry=entry=concat | FileCheck %s --check-prefix=CONCAT
// RUN: tfm-opt %s --tfm-prepare-entry=entry=cls | FileCheck %s --check-prefix=CLS
// RUN: not tfm-opt %s --tfm-prepare-entry="entry=concat max-sizes=x_dim0_plus_y_dim0=8" 2>&1 | FileCheck %s --check-prefix=BOUND

// The executables allocate such results at the sum of the sizes of their
// inputs, and the results are NumPy's concatenations, exactly.
// RUN: rm -rf %t && mkdir -p %t
// RUN: tfm-compile %s --entry concat -o %t/concat
// RUN: tfm-compile %s --entry cls -o %t/cls
// RUN: %python -c "import numpy as np; r = np.random.default_rng(0); np.save('%t/x.npy', r.standard_normal((3, 4), np.float32)); np.save('%t/y.npy', r.standard_normal((5, 4), np.float32)); np.save('%t/s.npy', r.standard_normal((2, 7, 8), np.float32)); np.save('%t/c.npy', r.standard_normal((1, 1, 8), np.float32))"
// RUN: %t/concat -o %t/xy.npy %t/x.npy %t/y.npy
// RUN: %t/cls -o %t/cs.npy %t/s.npy %t/c.npy
// RUN: %python -c "import numpy as np; l = lambda n: np.load('%t/' + n + '.npy'); xy = l('xy'); cs = l('cs'); print('concat', xy.shape, np.array_equal(xy, np.concatenate([l('x'), l('y')]))); print('cls', cs.shape, np.array_equal(cs, np.concatenate([np.broadcast_to(l('c'), (2, 1, 8)), l('s')], 1)))" | FileCheck %s --check-prefix=NUM
// NUM: concat (8, 4) True
// NUM: cls (2, 8, 8) True

// A result whose dynamic size is a sum of the inputs' (a concatenation's
// `past + seq`, a class token's `seq + 1`) gets a size of its own, after the
// inputs', recorded with its terms (symbolDim(i) = -2 - i for the i-th size,
// or a constant): the executable computes it, a library's caller passes it.

// CONCAT: dim_names = ["x_dim0", "y_dim0", "x_dim0_plus_y_dim0"], dim_sums = [array<i64>, array<i64>, array<i64: -2, -3>]
// CONCAT-SAME: outputs = [{dims = array<i64: -4, 4>, name = "result0", type = tensor<?x4xf32>}]
func.func @concat(%x: tensor<?x4xf32> {tfm.name = "x"}, %y: tensor<?x4xf32> {tfm.name = "y"}) -> tensor<?x4xf32> {
  %r = tensor.concat dim(0) %x, %y : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}

// CLS: dim_names = ["x_seq", "x_seq_plus_1"], dim_sums = [array<i64>, array<i64: -2, 1>]
// CLS-SAME: outputs = [{dims = array<i64: 2, -3, 8>, name = "result0", type = tensor<2x?x8xf32>}]
func.func @cls(%x: tensor<2x?x8xf32> {tfm.name = "x", tfm.dims = ["", "x_seq", ""]}, %cls: tensor<1x1x8xf32>) -> tensor<2x?x8xf32> {
  %r = tfm.prepend_class_token %x, %cls : (tensor<2x?x8xf32>, tensor<1x1x8xf32>) -> tensor<2x?x8xf32>
  return %r : tensor<2x?x8xf32>
}

// A bound is for the inputs' sizes: a sum is bounded by its terms'.
// BOUND: error: max size 'x_dim0_plus_y_dim0=8': x_dim0_plus_y_dim0 is a sum of other sizes; bound those
