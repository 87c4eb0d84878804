// RUN: tfm-opt %s -split-input-file --tfm-fuse-linear | FileCheck %s

// Tests of tfm-fuse-linear: a bias added after tfm.linear (or after a
// matmul with a transposed weight) and a ReLU or GELU after it become the
// bias and activation of one tfm.linear; intermediates with other users,
// linears that already have an activation (or a bias) and other operations
// are left alone.

//===----------------------------------------------------------------------===//
// Bias
//===----------------------------------------------------------------------===//

// linear + broadcast(b), then ReLU: both fuse.

// CHECK-LABEL: func.func @bias_then_relu
// CHECK-SAME:    %[[X:[^:]*]]: tensor<2x3x8xf32>, %[[W:[^:]*]]: tensor<16x8xf32>, %[[B:[^:]*]]: tensor<16xf32>
// CHECK-NEXT:    %[[Y:.*]] = tfm.linear %[[X]], %[[W]], %[[B]] {activation = #tfm.activation<relu>} : (tensor<2x3x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<2x3x16xf32>
// CHECK-NEXT:    return %[[Y]]
func.func @bias_then_relu(%x: tensor<2x3x8xf32>, %w: tensor<16x8xf32>,
                          %b: tensor<16xf32>) -> tensor<2x3x16xf32> {
  %zero = arith.constant dense<0.0> : tensor<2x3x16xf32>
  %e = tensor.empty() : tensor<2x3x16xf32>
  %0 = tfm.linear %x, %w : (tensor<2x3x8xf32>, tensor<16x8xf32>)
      -> tensor<2x3x16xf32>
  %bb = linalg.broadcast ins(%b : tensor<16xf32>)
      outs(%e : tensor<2x3x16xf32>) dimensions = [0, 1]
  %1 = arith.addf %0, %bb : tensor<2x3x16xf32>
  %2 = arith.maximumf %1, %zero : tensor<2x3x16xf32>
  return %2 : tensor<2x3x16xf32>
}

// -----

// The bias first in the sum, and ReLU as maxnumf with the zero first.

// CHECK-LABEL: func.func @bias_first_maxnumf
// CHECK-SAME:    %[[X:[^:]*]]: tensor<5x8xf32>, %[[W:[^:]*]]: tensor<4x8xf32>, %[[B:[^:]*]]: tensor<4xf32>
// CHECK-NEXT:    %[[Y:.*]] = tfm.linear %[[X]], %[[W]], %[[B]] {activation = #tfm.activation<relu>} : (tensor<5x8xf32>, tensor<4x8xf32>, tensor<4xf32>) -> tensor<5x4xf32>
// CHECK-NEXT:    return %[[Y]]
func.func @bias_first_maxnumf(%x: tensor<5x8xf32>, %w: tensor<4x8xf32>,
                              %b: tensor<4xf32>) -> tensor<5x4xf32> {
  %zero = arith.constant dense<0.0> : tensor<5x4xf32>
  %e = tensor.empty() : tensor<5x4xf32>
  %0 = tfm.linear %x, %w : (tensor<5x8xf32>, tensor<4x8xf32>) -> tensor<5x4xf32>
  %bb = linalg.broadcast ins(%b : tensor<4xf32>)
      outs(%e : tensor<5x4xf32>) dimensions = [0]
  %1 = arith.addf %bb, %0 : tensor<5x4xf32>
  %2 = arith.maxnumf %zero, %1 : tensor<5x4xf32>
  return %2 : tensor<5x4xf32>
}

// -----

// A splat constant bias becomes a constant vector.

// CHECK-LABEL: func.func @splat_bias
// CHECK-SAME:    %[[X:[^:]*]]: tensor<5x8xf32>, %[[W:[^:]*]]: tensor<4x8xf32>
// CHECK:         %[[B:.*]] = arith.constant dense<2.500000e-01> : tensor<4xf32>
// CHECK-NEXT:    %[[Y:.*]] = tfm.linear %[[X]], %[[W]], %[[B]] : (tensor<5x8xf32>, tensor<4x8xf32>, tensor<4xf32>) -> tensor<5x4xf32>
// CHECK-NEXT:    return %[[Y]]
func.func @splat_bias(%x: tensor<5x8xf32>, %w: tensor<4x8xf32>)
    -> tensor<5x4xf32> {
  %b = arith.constant dense<0.25> : tensor<5x4xf32>
  %0 = tfm.linear %x, %w : (tensor<5x8xf32>, tensor<4x8xf32>) -> tensor<5x4xf32>
  %1 = arith.addf %0, %b : tensor<5x4xf32>
  return %1 : tensor<5x4xf32>
}

// -----

// linalg.matmul with the indexing map that transposes the [N, K] weight,
// plus a bias.

// CHECK-LABEL: func.func @matmul_transpose_map_bias
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4x8xf32>, %[[W:[^:]*]]: tensor<16x8xf32>, %[[B:[^:]*]]: tensor<16xf32>
// CHECK-NEXT:    %[[Y:.*]] = tfm.linear %[[X]], %[[W]], %[[B]] : (tensor<4x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT:    return %[[Y]]
func.func @matmul_transpose_map_bias(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>,
                                     %b: tensor<16xf32>) -> tensor<4x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %0 = linalg.matmul
      indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                       affine_map<(m, n, k) -> (n, k)>,
                       affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<4x8xf32>, tensor<16x8xf32>)
      outs(%init : tensor<4x16xf32>) -> tensor<4x16xf32>
  %bb = linalg.broadcast ins(%b : tensor<16xf32>)
      outs(%e : tensor<4x16xf32>) dimensions = [0]
  %1 = arith.addf %0, %bb : tensor<4x16xf32>
  return %1 : tensor<4x16xf32>
}

// -----

// linalg.matmul(x, linalg.transpose(W)) plus a bias, then GELU.

// CHECK-LABEL: func.func @matmul_transpose_op_bias_gelu
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4x8xf32>, %[[W:[^:]*]]: tensor<16x8xf32>, %[[B:[^:]*]]: tensor<16xf32>
// CHECK-NEXT:    %[[Y:.*]] = tfm.linear %[[X]], %[[W]], %[[B]] {activation = #tfm.activation<gelu>} : (tensor<4x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT:    return %[[Y]]
func.func @matmul_transpose_op_bias_gelu(%x: tensor<4x8xf32>,
                                         %w: tensor<16x8xf32>,
                                         %b: tensor<16xf32>)
    -> tensor<4x16xf32> {
  %zero = arith.constant dense<0.0> : tensor<4x16xf32>
  %et = tensor.empty() : tensor<8x16xf32>
  %e = tensor.empty() : tensor<4x16xf32>
  %wt = linalg.transpose ins(%w : tensor<16x8xf32>)
      outs(%et : tensor<8x16xf32>) permutation = [1, 0]
  %0 = linalg.matmul ins(%x, %wt : tensor<4x8xf32>, tensor<8x16xf32>)
      outs(%zero : tensor<4x16xf32>) -> tensor<4x16xf32>
  %bb = linalg.broadcast ins(%b : tensor<16xf32>)
      outs(%e : tensor<4x16xf32>) dimensions = [0]
  %1 = arith.addf %bb, %0 : tensor<4x16xf32>
  %2 = tfm.gelu %1 : tensor<4x16xf32>
  return %2 : tensor<4x16xf32>
}

//===----------------------------------------------------------------------===//
// Activations
//===----------------------------------------------------------------------===//

// -----

// GELU after a linear that has a bias; its tanh form becomes gelu_tanh.

// CHECK-LABEL: func.func @gelu_and_gelu_tanh
// CHECK-SAME:    %[[X:[^:]*]]: tensor<2x8xf32>, %[[W:[^:]*]]: tensor<4x8xf32>, %[[B:[^:]*]]: tensor<4xf32>
// CHECK-NEXT:    %[[G:.*]] = tfm.linear %[[X]], %[[W]], %[[B]] {activation = #tfm.activation<gelu>} : (tensor<2x8xf32>, tensor<4x8xf32>, tensor<4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    %[[T:.*]] = tfm.linear %[[X]], %[[W]] {activation = #tfm.activation<gelu_tanh>} : (tensor<2x8xf32>, tensor<4x8xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    return %[[G]], %[[T]]
func.func @gelu_and_gelu_tanh(%x: tensor<2x8xf32>, %w: tensor<4x8xf32>,
                              %b: tensor<4xf32>)
    -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  %0 = tfm.linear %x, %w, %b : (tensor<2x8xf32>, tensor<4x8xf32>, tensor<4xf32>)
      -> tensor<2x4xf32>
  %1 = tfm.gelu %0 : tensor<2x4xf32>
  %2 = tfm.linear %x, %w : (tensor<2x8xf32>, tensor<4x8xf32>) -> tensor<2x4xf32>
  %3 = tfm.gelu %2 {approximate = #tfm.gelu_approximation<tanh>}
      : tensor<2x4xf32>
  return %1, %3 : tensor<2x4xf32>, tensor<2x4xf32>
}

//===----------------------------------------------------------------------===//
// Negative: not fused
//===----------------------------------------------------------------------===//

// -----

// The linear's result is also returned: neither the bias nor the ReLU fuse.

// CHECK-LABEL: func.func @neg_linear_has_other_user
// CHECK-SAME:    %[[X:[^:]*]]: tensor<5x8xf32>, %[[W:[^:]*]]: tensor<4x8xf32>, %[[B:[^:]*]]: tensor<4xf32>
// CHECK:         %[[L:.*]] = tfm.linear %[[X]], %[[W]] : (tensor<5x8xf32>, tensor<4x8xf32>) -> tensor<5x4xf32>
// CHECK:         %[[S:.*]] = arith.addf %[[L]]
// CHECK:         %[[L2:.*]] = tfm.linear %[[X]], %[[W]], %[[B]] : (tensor<5x8xf32>, tensor<4x8xf32>, tensor<4xf32>) -> tensor<5x4xf32>
// CHECK:         %[[R:.*]] = arith.maximumf %[[L2]]
// CHECK:         return %[[S]], %[[L]], %[[R]], %[[L2]]
func.func @neg_linear_has_other_user(%x: tensor<5x8xf32>, %w: tensor<4x8xf32>,
                                     %b: tensor<4xf32>)
    -> (tensor<5x4xf32>, tensor<5x4xf32>, tensor<5x4xf32>, tensor<5x4xf32>) {
  %zero = arith.constant dense<0.0> : tensor<5x4xf32>
  %e = tensor.empty() : tensor<5x4xf32>
  %0 = tfm.linear %x, %w : (tensor<5x8xf32>, tensor<4x8xf32>) -> tensor<5x4xf32>
  %bb = linalg.broadcast ins(%b : tensor<4xf32>)
      outs(%e : tensor<5x4xf32>) dimensions = [0]
  %1 = arith.addf %0, %bb : tensor<5x4xf32>
  %2 = tfm.linear %x, %w, %b : (tensor<5x8xf32>, tensor<4x8xf32>, tensor<4xf32>)
      -> tensor<5x4xf32>
  %3 = arith.maximumf %2, %zero : tensor<5x4xf32>
  return %1, %0, %3, %2
      : tensor<5x4xf32>, tensor<5x4xf32>, tensor<5x4xf32>, tensor<5x4xf32>
}

// -----

// A linear that already has an activation: no second activation, and no
// bias added after the activation.

// CHECK-LABEL: func.func @neg_linear_has_activation
// CHECK:         %[[L:.*]] = tfm.linear %{{.*}}, %{{.*}} {activation = #tfm.activation<relu>}
// CHECK-NEXT:    %[[G:.*]] = tfm.gelu %[[L]]
// CHECK:         %[[L2:.*]] = tfm.linear %{{.*}}, %{{.*}} {activation = #tfm.activation<gelu>}
// CHECK:         arith.addf %[[L2]]
func.func @neg_linear_has_activation(%x: tensor<5x8xf32>, %w: tensor<4x8xf32>,
                                     %b: tensor<4xf32>)
    -> (tensor<5x4xf32>, tensor<5x4xf32>) {
  %e = tensor.empty() : tensor<5x4xf32>
  %0 = tfm.linear %x, %w {activation = #tfm.activation<relu>}
      : (tensor<5x8xf32>, tensor<4x8xf32>) -> tensor<5x4xf32>
  %1 = tfm.gelu %0 : tensor<5x4xf32>
  %2 = tfm.linear %x, %w {activation = #tfm.activation<gelu>}
      : (tensor<5x8xf32>, tensor<4x8xf32>) -> tensor<5x4xf32>
  %bb = linalg.broadcast ins(%b : tensor<4xf32>)
      outs(%e : tensor<5x4xf32>) dimensions = [0]
  %3 = arith.addf %2, %bb : tensor<5x4xf32>
  return %1, %3 : tensor<5x4xf32>, tensor<5x4xf32>
}

// -----

// A second bias on a linear that has one, a bias broadcast along the rows
// instead of the columns, and a maximum with 0.1 (not a ReLU).

// CHECK-LABEL: func.func @neg_not_a_bias_or_relu
// CHECK-NOT:     activation
// CHECK-COUNT-3: arith.addf
// CHECK:         arith.maximumf
func.func @neg_not_a_bias_or_relu(%x: tensor<4x8xf32>, %w: tensor<4x8xf32>,
                                  %b: tensor<4xf32>)
    -> (tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) {
  %e = tensor.empty() : tensor<4x4xf32>
  %c = arith.constant dense<0.1> : tensor<4x4xf32>
  %bb = linalg.broadcast ins(%b : tensor<4xf32>)
      outs(%e : tensor<4x4xf32>) dimensions = [0]
  %rows = linalg.broadcast ins(%b : tensor<4xf32>)
      outs(%e : tensor<4x4xf32>) dimensions = [1]
  %0 = tfm.linear %x, %w, %b : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xf32>)
      -> tensor<4x4xf32>
  %1 = arith.addf %0, %bb : tensor<4x4xf32>
  %2 = tfm.linear %x, %w : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x4xf32>
  %3 = arith.addf %2, %rows : tensor<4x4xf32>
  %4 = tfm.linear %x, %w : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x4xf32>
  %5 = arith.addf %4, %4 : tensor<4x4xf32>
  %6 = arith.maximumf %5, %c : tensor<4x4xf32>
  return %1, %3, %6 : tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// Matmuls that are not x · Wᵀ into zeros: a plain x · W, and one that
// accumulates into a non-zero tensor.

// CHECK-LABEL: func.func @neg_matmul_not_linear
// CHECK-NOT:     tfm.linear
// CHECK:         linalg.matmul
// CHECK:         linalg.matmul
// CHECK-NOT:     tfm.linear
func.func @neg_matmul_not_linear(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>,
                                 %wt: tensor<16x8xf32>, %b: tensor<16xf32>,
                                 %acc: tensor<4x16xf32>)
    -> (tensor<4x16xf32>, tensor<4x16xf32>) {
  %zero = arith.constant dense<0.0> : tensor<4x16xf32>
  %e = tensor.empty() : tensor<4x16xf32>
  %bb = linalg.broadcast ins(%b : tensor<16xf32>)
      outs(%e : tensor<4x16xf32>) dimensions = [0]
  %0 = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x16xf32>)
      outs(%zero : tensor<4x16xf32>) -> tensor<4x16xf32>
  %1 = arith.addf %0, %bb : tensor<4x16xf32>
  %2 = linalg.matmul
      indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                       affine_map<(m, n, k) -> (n, k)>,
                       affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %wt : tensor<4x8xf32>, tensor<16x8xf32>)
      outs(%acc : tensor<4x16xf32>) -> tensor<4x16xf32>
  %3 = arith.addf %2, %bb : tensor<4x16xf32>
  return %1, %3 : tensor<4x16xf32>, tensor<4x16xf32>
}

// -----

// SiLU as the ONNX importer writes `Mul(y, Sigmoid(y))`: y · (1 / (1 +
// exp(-y))), after a biased linear; the sigmoid's pieces go with it.

// CHECK-LABEL: func.func @silu
// CHECK-SAME:    (%[[X:.*]]: tensor<2x4x8xf32>, %[[W:.*]]: tensor<16x8xf32>, %[[B:.*]]: tensor<16xf32>)
// CHECK:         %[[Y:.*]] = tfm.linear %[[X]], %[[W]], %[[B]] {activation = #tfm.activation<silu>}
// CHECK-NOT:     math.exp
// CHECK:         return %[[Y]]
func.func @silu(%x: tensor<2x4x8xf32>, %w: tensor<16x8xf32>, %b: tensor<16xf32>) -> tensor<2x4x16xf32> {
  %one = arith.constant dense<1.0> : tensor<2x4x16xf32>
  %y = tfm.linear %x, %w, %b : (tensor<2x4x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<2x4x16xf32>
  %n = arith.negf %y : tensor<2x4x16xf32>
  %e = math.exp %n : tensor<2x4x16xf32>
  %d = arith.addf %one, %e : tensor<2x4x16xf32>
  %s = arith.divf %one, %d : tensor<2x4x16xf32>
  %r = arith.mulf %s, %y : tensor<2x4x16xf32>
  return %r : tensor<2x4x16xf32>
}

// -----

// With dynamic sizes the importer's ones are a linalg.fill sized by
// tensor.dim of y: those read y's sizes, not its elements, and die with the
// sigmoid.

// CHECK-LABEL: func.func @silu_dynamic
// CHECK-SAME:    (%[[X:.*]]: tensor<?x?x8xf32>, %[[W:.*]]: tensor<16x8xf32>)
// CHECK:         %[[Y:.*]] = tfm.linear %[[X]], %[[W]] {activation = #tfm.activation<silu>}
// CHECK-NOT:     math.exp
// CHECK-NOT:     tfm.linear
// CHECK:         return %[[Y]]
func.func @silu_dynamic(%x: tensor<?x?x8xf32>, %w: tensor<16x8xf32>) -> tensor<?x?x16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cst = arith.constant 1.0 : f32
  %y = tfm.linear %x, %w : (tensor<?x?x8xf32>, tensor<16x8xf32>) -> tensor<?x?x16xf32>
  %d0 = tensor.dim %y, %c0 : tensor<?x?x16xf32>
  %d1 = tensor.dim %y, %c1 : tensor<?x?x16xf32>
  %empty = tensor.empty(%d0, %d1) : tensor<?x?x16xf32>
  %one = linalg.fill ins(%cst : f32) outs(%empty : tensor<?x?x16xf32>) -> tensor<?x?x16xf32>
  %n = arith.negf %y : tensor<?x?x16xf32>
  %e = math.exp %n : tensor<?x?x16xf32>
  %d = arith.addf %one, %e : tensor<?x?x16xf32>
  %s = arith.divf %one, %d : tensor<?x?x16xf32>
  %r = arith.mulf %y, %s : tensor<?x?x16xf32>
  return %r : tensor<?x?x16xf32>
}

// -----

// Not a SiLU: the sigmoid of another tensor, a sigmoid that is also
// returned, and 2 / (1 + exp(-y)).

// CHECK-LABEL: func.func @neg_silu
// CHECK-NOT:     activation = #tfm.activation<silu>
// CHECK:         return
func.func @neg_silu(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>, %z: tensor<4x16xf32>)
    -> (tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>) {
  %one = arith.constant dense<1.0> : tensor<4x16xf32>
  %two = arith.constant dense<2.0> : tensor<4x16xf32>
  %y = tfm.linear %x, %w : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
  %n = arith.negf %z : tensor<4x16xf32>
  %e = math.exp %n : tensor<4x16xf32>
  %d = arith.addf %one, %e : tensor<4x16xf32>
  %s = arith.divf %one, %d : tensor<4x16xf32>
  %r = arith.mulf %y, %s : tensor<4x16xf32>
  %y2 = tfm.linear %x, %w : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
  %n2 = arith.negf %y2 : tensor<4x16xf32>
  %e2 = math.exp %n2 : tensor<4x16xf32>
  %d2 = arith.addf %one, %e2 : tensor<4x16xf32>
  %s2 = arith.divf %one, %d2 : tensor<4x16xf32>
  %r2 = arith.mulf %y2, %s2 : tensor<4x16xf32>
  %y3 = tfm.linear %x, %w : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
  %n3 = arith.negf %y3 : tensor<4x16xf32>
  %e3 = math.exp %n3 : tensor<4x16xf32>
  %d3 = arith.addf %one, %e3 : tensor<4x16xf32>
  %s3 = arith.divf %two, %d3 : tensor<4x16xf32>
  %r3 = arith.mulf %y3, %s3 : tensor<4x16xf32>
  return %r, %r2, %s2, %r3 : tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>
}

// -----

// Llama's SwiGLU once its SiLU is in the gate's linear: down(silu(gate(x)) *
// up(x)) becomes the gated tfm.ffn (the product in either order).

// CHECK-LABEL: func.func @swiglu
// CHECK-SAME:    (%[[X:.*]]: tensor<?x8xf32>, %[[WG:.*]]: tensor<16x8xf32>, %[[WU:.*]]: tensor<16x8xf32>, %[[WD:.*]]: tensor<8x16xf32>)
// CHECK:         %[[Y:.*]] = tfm.ffn %[[X]] gate(%[[WG]]) dense1(%[[WU]]) dense2(%[[WD]]) {activation = #tfm.activation<silu>} : (tensor<?x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>, tensor<8x16xf32>) -> tensor<?x8xf32>
// CHECK-NOT:     tfm.linear
// CHECK:         return %[[Y]]
func.func @swiglu(%x: tensor<?x8xf32>, %wg: tensor<16x8xf32>, %wu: tensor<16x8xf32>, %wd: tensor<8x16xf32>) -> tensor<?x8xf32> {
  %g = tfm.linear %x, %wg {activation = #tfm.activation<silu>} : (tensor<?x8xf32>, tensor<16x8xf32>) -> tensor<?x16xf32>
  %u = tfm.linear %x, %wu : (tensor<?x8xf32>, tensor<16x8xf32>) -> tensor<?x16xf32>
  %h = arith.mulf %u, %g : tensor<?x16xf32>
  %y = tfm.linear %h, %wd : (tensor<?x16xf32>, tensor<8x16xf32>) -> tensor<?x8xf32>
  return %y : tensor<?x8xf32>
}

// -----

// GeGLU with biases everywhere: the gate's bias and activation, the up
// projection's and the down projection's biases go into the op.

// CHECK-LABEL: func.func @geglu_biases
// CHECK-SAME:    (%[[X:.*]]: tensor<4x8xf32>, %[[WG:.*]]: tensor<16x8xf32>, %[[BG:.*]]: tensor<16xf32>, %[[WU:.*]]: tensor<16x8xf32>, %[[BU:.*]]: tensor<16xf32>, %[[WD:.*]]: tensor<8x16xf32>, %[[BD:.*]]: tensor<8xf32>)
// CHECK:         tfm.ffn %[[X]] gate(%[[WG]], %[[BG]]) dense1(%[[WU]], %[[BU]]) dense2(%[[WD]], %[[BD]]) {activation = #tfm.activation<gelu>}
func.func @geglu_biases(%x: tensor<4x8xf32>, %wg: tensor<16x8xf32>, %bg: tensor<16xf32>, %wu: tensor<16x8xf32>, %bu: tensor<16xf32>, %wd: tensor<8x16xf32>, %bd: tensor<8xf32>) -> tensor<4x8xf32> {
  %g = tfm.linear %x, %wg, %bg {activation = #tfm.activation<gelu>} : (tensor<4x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %u = tfm.linear %x, %wu, %bu : (tensor<4x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %h = arith.mulf %g, %u : tensor<4x16xf32>
  %y = tfm.linear %h, %wd, %bd : (tensor<4x16xf32>, tensor<8x16xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// Not a gated feed-forward, left as linears:
// - @different_inputs: the gate and the up projection read different x;
// - @no_activation: neither projection has an activation;
// - @gate_used: the gate is also returned;
// - @down_activation: the down projection has an activation.

// CHECK-LABEL: func.func @different_inputs
// CHECK-NOT:     tfm.ffn
func.func @different_inputs(%x: tensor<4x8xf32>, %z: tensor<4x8xf32>, %wg: tensor<16x8xf32>, %wd: tensor<8x16xf32>) -> tensor<4x8xf32> {
  %g = tfm.linear %x, %wg {activation = #tfm.activation<silu>} : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
  %u = tfm.linear %z, %wg : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
  %h = arith.mulf %g, %u : tensor<4x16xf32>
  %y = tfm.linear %h, %wd : (tensor<4x16xf32>, tensor<8x16xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @no_activation
// CHECK-NOT:     tfm.ffn
func.func @no_activation(%x: tensor<4x8xf32>, %wg: tensor<16x8xf32>, %wu: tensor<16x8xf32>, %wd: tensor<8x16xf32>) -> tensor<4x8xf32> {
  %g = tfm.linear %x, %wg : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
  %u = tfm.linear %x, %wu : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
  %h = arith.mulf %g, %u : tensor<4x16xf32>
  %y = tfm.linear %h, %wd : (tensor<4x16xf32>, tensor<8x16xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @gate_used
// CHECK-NOT:     tfm.ffn
func.func @gate_used(%x: tensor<4x8xf32>, %wg: tensor<16x8xf32>, %wu: tensor<16x8xf32>, %wd: tensor<8x16xf32>) -> (tensor<4x8xf32>, tensor<4x16xf32>) {
  %g = tfm.linear %x, %wg {activation = #tfm.activation<silu>} : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
  %u = tfm.linear %x, %wu : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
  %h = arith.mulf %g, %u : tensor<4x16xf32>
  %y = tfm.linear %h, %wd : (tensor<4x16xf32>, tensor<8x16xf32>) -> tensor<4x8xf32>
  return %y, %g : tensor<4x8xf32>, tensor<4x16xf32>
}

// CHECK-LABEL: func.func @down_activation
// CHECK-NOT:     tfm.ffn
func.func @down_activation(%x: tensor<4x8xf32>, %wg: tensor<16x8xf32>, %wu: tensor<16x8xf32>, %wd: tensor<8x16xf32>) -> tensor<4x8xf32> {
  %g = tfm.linear %x, %wg {activation = #tfm.activation<silu>} : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
  %u = tfm.linear %x, %wu : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
  %h = arith.mulf %g, %u : tensor<4x16xf32>
  %y = tfm.linear %h, %wd {activation = #tfm.activation<relu>} : (tensor<4x16xf32>, tensor<8x16xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// Of any size: a ReLU whose zeros are a fill of the product's own sizes
// (`tensor.dim` of it, as dynamic exports write) is fused, and the sizes
// are asked of the fused product, so the unfused one goes.
// CHECK-LABEL: func.func @relu_dynamic(
//       CHECK:   %[[Y:.*]] = tfm.linear %{{.*}}, %{{.*}} {activation = #tfm.activation<relu>} : (tensor<?x?x4xf32>, tensor<6x4xf32>) -> tensor<?x?x6xf32>
//   CHECK-DAG:   tensor.dim %[[Y]], %c0
//   CHECK-DAG:   tensor.dim %[[Y]], %c1
//   CHECK-NOT:   tfm.linear
//   CHECK-NOT:   arith.maximumf
//       CHECK:   return %[[Y]]
func.func @relu_dynamic(%x: tensor<?x?x4xf32>) -> (tensor<?x?x6xf32>, index, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %w = arith.constant dense<0.5> : tensor<6x4xf32>
  %y = tfm.linear %x, %w : (tensor<?x?x4xf32>, tensor<6x4xf32>) -> tensor<?x?x6xf32>
  %d0 = tensor.dim %y, %c0 : tensor<?x?x6xf32>
  %d1 = tensor.dim %y, %c1 : tensor<?x?x6xf32>
  %e = tensor.empty(%d0, %d1) : tensor<?x?x6xf32>
  %zeros = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?x6xf32>) -> tensor<?x?x6xf32>
  %r = arith.maximumf %y, %zeros : tensor<?x?x6xf32>
  return %r, %d0, %d1 : tensor<?x?x6xf32>, index, index
}
