// RUN: tfm-opt %s -split-input-file --tfm-fuse-layer-norm | FileCheck %s

// RMSNorm as torch.onnx.export writes Llama's `x * rsqrt(mean(x²) + eps) *
// w` and tfm's importer reads it: Pow, ReduceMean with keep-dims (a reduce,
// a division by D, a unit-dimension expand), Add of eps, Sqrt, Reciprocal
// (1 / ...), the broadcast back to [..., D], Mul by x, Mul by the weight
// broadcast along the rows.

// CHECK-LABEL: func.func @rms_norm_onnx
// CHECK-SAME:    (%[[X:.*]]: tensor<2x3x8xf32>, %[[W:.*]]: tensor<8xf32>)
// CHECK:         %[[R:.*]] = tfm.rms_norm %[[X]], %[[W]] {epsilon = 9.9999999747524271E-7 : f64}
// CHECK-NEXT:    return %[[R]]
func.func @rms_norm_onnx(%x: tensor<2x3x8xf32>, %w: tensor<8xf32>) -> tensor<2x3x8xf32> {
  %two = arith.constant dense<2.0> : tensor<2x3x8xf32>
  %zero = arith.constant dense<0.0> : tensor<2x3xf32>
  %d = arith.constant dense<8.0> : tensor<2x3xf32>
  %eps = arith.constant dense<9.99999997E-7> : tensor<2x3x1xf32>
  %one = arith.constant dense<1.0> : tensor<2x3x1xf32>
  %e = tensor.empty() : tensor<2x3x8xf32>
  %sq = math.powf %x, %two : tensor<2x3x8xf32>
  %sum = linalg.reduce { arith.addf } ins(%sq : tensor<2x3x8xf32>)
      outs(%zero : tensor<2x3xf32>) dimensions = [2]
  %mean = arith.divf %sum, %d : tensor<2x3xf32>
  %kept = tensor.expand_shape %mean [[0], [1, 2]] output_shape [2, 3, 1]
      : tensor<2x3xf32> into tensor<2x3x1xf32>
  %ve = arith.addf %kept, %eps : tensor<2x3x1xf32>
  %rms = math.sqrt %ve : tensor<2x3x1xf32>
  %inv = arith.divf %one, %rms : tensor<2x3x1xf32>
  %inv2 = tensor.collapse_shape %inv [[0], [1, 2]]
      : tensor<2x3x1xf32> into tensor<2x3xf32>
  %inv_b = linalg.broadcast ins(%inv2 : tensor<2x3xf32>)
      outs(%e : tensor<2x3x8xf32>) dimensions = [2]
  %n = arith.mulf %x, %inv_b : tensor<2x3x8xf32>
  %w_b = linalg.broadcast ins(%w : tensor<8xf32>)
      outs(%e : tensor<2x3x8xf32>) dimensions = [0, 1]
  %y = arith.mulf %w_b, %n : tensor<2x3x8xf32>
  return %y : tensor<2x3x8xf32>
}

// -----

// `rsqrt` of the mean square times 1/D, no weight: gamma is ones.

// CHECK-LABEL: func.func @rms_norm_rsqrt
// CHECK-SAME:    (%[[X:.*]]: tensor<4x16xf32>)
// CHECK:         %[[ONES:.*]] = arith.constant dense<1.000000e+00> : tensor<16xf32>
// CHECK:         %[[R:.*]] = tfm.rms_norm %[[X]], %[[ONES]] {epsilon = 9.9999997473787516E-6 : f64}
// CHECK-NEXT:    return %[[R]]
func.func @rms_norm_rsqrt(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %zero = arith.constant dense<0.0> : tensor<4xf32>
  %inv_d = arith.constant dense<0.0625> : tensor<4xf32>
  %eps = arith.constant dense<1.0e-5> : tensor<4xf32>
  %e = tensor.empty() : tensor<4x16xf32>
  %sq = arith.mulf %x, %x : tensor<4x16xf32>
  %sum = linalg.reduce { arith.addf } ins(%sq : tensor<4x16xf32>)
      outs(%zero : tensor<4xf32>) dimensions = [1]
  %ms = arith.mulf %sum, %inv_d : tensor<4xf32>
  %ve = arith.addf %eps, %ms : tensor<4xf32>
  %r = math.rsqrt %ve : tensor<4xf32>
  %r_b = linalg.broadcast ins(%r : tensor<4xf32>)
      outs(%e : tensor<4x16xf32>) dimensions = [1]
  %y = arith.mulf %r_b, %x : tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// x / sqrt(mean(x²) + eps) · γ, and a `+ β` after it, which an RMS norm
// does not take in.

// CHECK-LABEL: func.func @rms_norm_divide_then_add
// CHECK-SAME:    (%[[X:.*]]: tensor<4x16xf32>, %[[G:.*]]: tensor<16xf32>, %[[B:.*]]: tensor<16xf32>)
// CHECK:         %[[R:.*]] = tfm.rms_norm %[[X]], %[[G]] {epsilon = 9.9999999747524271E-7 : f64}
// CHECK:         arith.addf %[[R]], %{{.*}} : tensor<4x16xf32>
func.func @rms_norm_divide_then_add(%x: tensor<4x16xf32>, %g: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<4x16xf32> {
  %zero = arith.constant dense<0.0> : tensor<4xf32>
  %d = arith.constant dense<16.0> : tensor<4xf32>
  %eps = arith.constant dense<1.0e-6> : tensor<4xf32>
  %e = tensor.empty() : tensor<4x16xf32>
  %sq = arith.mulf %x, %x : tensor<4x16xf32>
  %sum = linalg.reduce { arith.addf } ins(%sq : tensor<4x16xf32>)
      outs(%zero : tensor<4xf32>) dimensions = [1]
  %ms = arith.divf %sum, %d : tensor<4xf32>
  %ve = arith.addf %ms, %eps : tensor<4xf32>
  %rms = math.sqrt %ve : tensor<4xf32>
  %rms_b = linalg.broadcast ins(%rms : tensor<4xf32>)
      outs(%e : tensor<4x16xf32>) dimensions = [1]
  %n = arith.divf %x, %rms_b : tensor<4x16xf32>
  %g_b = linalg.broadcast ins(%g : tensor<16xf32>)
      outs(%e : tensor<4x16xf32>) dimensions = [0]
  %s = arith.mulf %n, %g_b : tensor<4x16xf32>
  %b_b = linalg.broadcast ins(%b : tensor<16xf32>)
      outs(%e : tensor<4x16xf32>) dimensions = [0]
  %y = arith.addf %s, %b_b : tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// Not an RMS norm: the mean square divides by D - 1.

// CHECK-LABEL: func.func @neg_rms_norm_count
// CHECK-NOT:     tfm.rms_norm
// CHECK:         return
func.func @neg_rms_norm_count(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %zero = arith.constant dense<0.0> : tensor<4xf32>
  %d = arith.constant dense<15.0> : tensor<4xf32>
  %eps = arith.constant dense<1.0e-6> : tensor<4xf32>
  %e = tensor.empty() : tensor<4x16xf32>
  %sq = arith.mulf %x, %x : tensor<4x16xf32>
  %sum = linalg.reduce { arith.addf } ins(%sq : tensor<4x16xf32>)
      outs(%zero : tensor<4xf32>) dimensions = [1]
  %ms = arith.divf %sum, %d : tensor<4xf32>
  %ve = arith.addf %ms, %eps : tensor<4xf32>
  %r = math.rsqrt %ve : tensor<4xf32>
  %r_b = linalg.broadcast ins(%r : tensor<4xf32>)
      outs(%e : tensor<4x16xf32>) dimensions = [1]
  %y = arith.mulf %x, %r_b : tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// Not an RMS norm: x scaled by the mean square of another tensor.

// CHECK-LABEL: func.func @neg_rms_norm_of_other
// CHECK-NOT:     tfm.rms_norm
// CHECK:         return
func.func @neg_rms_norm_of_other(%x: tensor<4x16xf32>, %z: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %zero = arith.constant dense<0.0> : tensor<4xf32>
  %d = arith.constant dense<16.0> : tensor<4xf32>
  %eps = arith.constant dense<1.0e-6> : tensor<4xf32>
  %e = tensor.empty() : tensor<4x16xf32>
  %sq = arith.mulf %z, %z : tensor<4x16xf32>
  %sum = linalg.reduce { arith.addf } ins(%sq : tensor<4x16xf32>)
      outs(%zero : tensor<4xf32>) dimensions = [1]
  %ms = arith.divf %sum, %d : tensor<4xf32>
  %ve = arith.addf %ms, %eps : tensor<4xf32>
  %r = math.rsqrt %ve : tensor<4xf32>
  %r_b = linalg.broadcast ins(%r : tensor<4xf32>)
      outs(%e : tensor<4x16xf32>) dimensions = [1]
  %y = arith.mulf %x, %r_b : tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// Not fused: the reciprocal RMS is also returned, and an epsilon that is
// not a constant.

// CHECK-LABEL: func.func @neg_rms_norm_outside_user
// CHECK-NOT:     tfm.rms_norm
// CHECK:         return
func.func @neg_rms_norm_outside_user(%x: tensor<4x16xf32>, %eps: tensor<4xf32>)
    -> (tensor<4x16xf32>, tensor<4xf32>, tensor<4x16xf32>) {
  %zero = arith.constant dense<0.0> : tensor<4xf32>
  %d = arith.constant dense<16.0> : tensor<4xf32>
  %c = arith.constant dense<1.0e-6> : tensor<4xf32>
  %e = tensor.empty() : tensor<4x16xf32>
  %sq = arith.mulf %x, %x : tensor<4x16xf32>
  %sum = linalg.reduce { arith.addf } ins(%sq : tensor<4x16xf32>)
      outs(%zero : tensor<4xf32>) dimensions = [1]
  %ms = arith.divf %sum, %d : tensor<4xf32>
  %ve = arith.addf %ms, %c : tensor<4xf32>
  %r = math.rsqrt %ve : tensor<4xf32>
  %r_b = linalg.broadcast ins(%r : tensor<4xf32>)
      outs(%e : tensor<4x16xf32>) dimensions = [1]
  %y = arith.mulf %x, %r_b : tensor<4x16xf32>
  %sum2 = linalg.reduce { arith.addf } ins(%sq : tensor<4x16xf32>)
      outs(%zero : tensor<4xf32>) dimensions = [1]
  %ms2 = arith.divf %sum2, %d : tensor<4xf32>
  %ve2 = arith.addf %ms2, %eps : tensor<4xf32>
  %r2 = math.rsqrt %ve2 : tensor<4xf32>
  %r2_b = linalg.broadcast ins(%r2 : tensor<4xf32>)
      outs(%e : tensor<4x16xf32>) dimensions = [1]
  %y2 = arith.mulf %x, %r2_b : tensor<4x16xf32>
  return %y, %r, %y2 : tensor<4x16xf32>, tensor<4xf32>, tensor<4x16xf32>
}
