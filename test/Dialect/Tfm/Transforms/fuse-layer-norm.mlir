// RUN: tfm-opt %s -split-input-file --tfm-fuse-layer-norm | FileCheck %s

// Tests of tfm-fuse-layer-norm: a layer normalization over the last
// dimension written with linalg.reduce, linalg.broadcast and elementwise
// arith/math ops on tensors becomes tfm.layer_norm; a reduction over another
// dimension, the unbiased variance, an epsilon that is not a constant and
// intermediates with other users are left alone.

//===----------------------------------------------------------------------===//
// Positive
//===----------------------------------------------------------------------===//

// The textbook form: mean and variance as sums divided by D on [2, 3],
// broadcast back to [2, 3, 8], (x - mean) · rsqrt(var + eps), then γ and β
// broadcast from [8].

// CHECK-LABEL: func.func @rsqrt_affine
// CHECK-SAME:    %[[X:[^:]*]]: tensor<2x3x8xf32>, %[[G:[^:]*]]: tensor<8xf32>, %[[B:[^:]*]]: tensor<8xf32>
// CHECK-NEXT:    %[[N:.*]] = tfm.layer_norm %[[X]], %[[G]], %[[B]] {epsilon = 9.9999997473787516E-6 : f64} : (tensor<2x3x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x3x8xf32>
// CHECK-NEXT:    return %[[N]]
func.func @rsqrt_affine(%x: tensor<2x3x8xf32>, %g: tensor<8xf32>,
                        %b: tensor<8xf32>) -> tensor<2x3x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<2x3xf32>
  %e3 = tensor.empty() : tensor<2x3x8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2x3xf32>) -> tensor<2x3xf32>
  %dim = arith.constant dense<8.0> : tensor<2x3xf32>
  %eps = arith.constant dense<1.0e-5> : tensor<2x3xf32>
  %sum = linalg.reduce { arith.addf } ins(%x : tensor<2x3x8xf32>)
      outs(%init : tensor<2x3xf32>) dimensions = [2]
  %mean = arith.divf %sum, %dim : tensor<2x3xf32>
  %mean_b = linalg.broadcast ins(%mean : tensor<2x3xf32>)
      outs(%e3 : tensor<2x3x8xf32>) dimensions = [2]
  %d = arith.subf %x, %mean_b : tensor<2x3x8xf32>
  %sq = arith.mulf %d, %d : tensor<2x3x8xf32>
  %sq_sum = linalg.reduce { arith.addf } ins(%sq : tensor<2x3x8xf32>)
      outs(%init : tensor<2x3xf32>) dimensions = [2]
  %var = arith.divf %sq_sum, %dim : tensor<2x3xf32>
  %var_eps = arith.addf %var, %eps : tensor<2x3xf32>
  %rstd = math.rsqrt %var_eps : tensor<2x3xf32>
  %rstd_b = linalg.broadcast ins(%rstd : tensor<2x3xf32>)
      outs(%e3 : tensor<2x3x8xf32>) dimensions = [2]
  %n = arith.mulf %d, %rstd_b : tensor<2x3x8xf32>
  %g_b = linalg.broadcast ins(%g : tensor<8xf32>)
      outs(%e3 : tensor<2x3x8xf32>) dimensions = [0, 1]
  %scaled = arith.mulf %n, %g_b : tensor<2x3x8xf32>
  %b_b = linalg.broadcast ins(%b : tensor<8xf32>)
      outs(%e3 : tensor<2x3x8xf32>) dimensions = [0, 1]
  %y = arith.addf %scaled, %b_b : tensor<2x3x8xf32>
  return %y : tensor<2x3x8xf32>
}

// -----

// No affine part: γ and β become constant ones and zeros. The mean is a
// sum multiplied by 1/D, kept as [2, 3, 1] (keep-dims) until it is
// broadcast; the variance uses math.powf(d, 2); the standard deviation
// divides d after its broadcast, with epsilon added on the broadcast side.

// CHECK-LABEL: func.func @sqrt_keepdims_no_affine
// CHECK-SAME:    %[[X:[^:]*]]: tensor<2x3x8xf32>
// CHECK-DAG:     %[[ONES:.*]] = arith.constant dense<1.000000e+00> : tensor<8xf32>
// CHECK-DAG:     %[[ZEROS:.*]] = arith.constant dense<0.000000e+00> : tensor<8xf32>
// CHECK:         %[[N:.*]] = tfm.layer_norm %[[X]], %[[ONES]], %[[ZEROS]] {epsilon = 9.9999999747524271E-7 : f64}
// CHECK-NOT:     linalg.reduce
// CHECK:         return %[[N]]
func.func @sqrt_keepdims_no_affine(%x: tensor<2x3x8xf32>) -> tensor<2x3x8xf32> {
  %zero = arith.constant dense<0.0> : tensor<2x3xf32>
  %e3 = tensor.empty() : tensor<2x3x8xf32>
  %inv = arith.constant dense<0.125> : tensor<2x3x1xf32>
  %inv3 = arith.constant dense<0.125> : tensor<2x3x8xf32>
  %two = arith.constant dense<2.0> : tensor<2x3x8xf32>
  %eps = arith.constant dense<1.0e-6> : tensor<2x3x8xf32>
  %sum = linalg.reduce { arith.addf } ins(%x : tensor<2x3x8xf32>)
      outs(%zero : tensor<2x3xf32>) dimensions = [2]
  %sum_k = tensor.expand_shape %sum [[0], [1, 2]] output_shape [2, 3, 1]
      : tensor<2x3xf32> into tensor<2x3x1xf32>
  %mean_k = arith.mulf %sum_k, %inv : tensor<2x3x1xf32>
  %mean = tensor.collapse_shape %mean_k [[0], [1, 2]]
      : tensor<2x3x1xf32> into tensor<2x3xf32>
  %mean_b = linalg.broadcast ins(%mean : tensor<2x3xf32>)
      outs(%e3 : tensor<2x3x8xf32>) dimensions = [2]
  %d = arith.subf %x, %mean_b : tensor<2x3x8xf32>
  %sq = math.powf %d, %two : tensor<2x3x8xf32>
  %sq_sum = linalg.reduce { arith.addf } ins(%sq : tensor<2x3x8xf32>)
      outs(%zero : tensor<2x3xf32>) dimensions = [2]
  %sq_sum_b = linalg.broadcast ins(%sq_sum : tensor<2x3xf32>)
      outs(%e3 : tensor<2x3x8xf32>) dimensions = [2]
  %var = arith.mulf %inv3, %sq_sum_b : tensor<2x3x8xf32>
  %var_eps = arith.addf %eps, %var : tensor<2x3x8xf32>
  %std = math.sqrt %var_eps : tensor<2x3x8xf32>
  %y = arith.divf %d, %std : tensor<2x3x8xf32>
  return %y : tensor<2x3x8xf32>
}

// -----

// Matrix input, γ as a splat constant and β a broadcast vector; γ comes
// first in the product and β first in the sum.

// CHECK-LABEL: func.func @matrix_constant_gamma
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4x16xf32>, %[[B:[^:]*]]: tensor<16xf32>
// CHECK:         %[[G:.*]] = arith.constant dense<2.000000e+00> : tensor<16xf32>
// CHECK:         %[[N:.*]] = tfm.layer_norm %[[X]], %[[G]], %[[B]] {epsilon = 9.9999997473787516E-6 : f64} : (tensor<4x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT:    return %[[N]]
func.func @matrix_constant_gamma(%x: tensor<4x16xf32>, %b: tensor<16xf32>)
    -> tensor<4x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<4xf32>
  %e2 = tensor.empty() : tensor<4x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
  %dim = arith.constant dense<16.0> : tensor<4xf32>
  %eps = arith.constant dense<1.0e-5> : tensor<4xf32>
  %gamma = arith.constant dense<2.0> : tensor<4x16xf32>
  %sum = linalg.reduce { arith.addf } ins(%x : tensor<4x16xf32>)
      outs(%init : tensor<4xf32>) dimensions = [1]
  %mean = arith.divf %sum, %dim : tensor<4xf32>
  %mean_b = linalg.broadcast ins(%mean : tensor<4xf32>)
      outs(%e2 : tensor<4x16xf32>) dimensions = [1]
  %d = arith.subf %x, %mean_b : tensor<4x16xf32>
  %sq = arith.mulf %d, %d : tensor<4x16xf32>
  %sq_sum = linalg.reduce { arith.addf } ins(%sq : tensor<4x16xf32>)
      outs(%init : tensor<4xf32>) dimensions = [1]
  %var = arith.divf %sq_sum, %dim : tensor<4xf32>
  %var_eps = arith.addf %var, %eps : tensor<4xf32>
  %std = math.sqrt %var_eps : tensor<4xf32>
  %std_b = linalg.broadcast ins(%std : tensor<4xf32>)
      outs(%e2 : tensor<4x16xf32>) dimensions = [1]
  %n = arith.divf %d, %std_b : tensor<4x16xf32>
  %scaled = arith.mulf %gamma, %n : tensor<4x16xf32>
  %b_b = linalg.broadcast ins(%b : tensor<16xf32>)
      outs(%e2 : tensor<4x16xf32>) dimensions = [0]
  %y = arith.addf %b_b, %scaled : tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// A residual added after the normalization is not a β: the layer norm is
// fused without affine part and the addition stays.

// CHECK-LABEL: func.func @residual_after
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4x16xf32>, %[[R:[^:]*]]: tensor<4x16xf32>
// CHECK:         %[[N:.*]] = tfm.layer_norm %[[X]]
// CHECK-NEXT:    %[[Y:.*]] = arith.addf %[[N]], %[[R]] : tensor<4x16xf32>
// CHECK-NEXT:    return %[[Y]]
func.func @residual_after(%x: tensor<4x16xf32>, %r: tensor<4x16xf32>)
    -> tensor<4x16xf32> {
  %zero = arith.constant dense<0.0> : tensor<4xf32>
  %e2 = tensor.empty() : tensor<4x16xf32>
  %dim = arith.constant dense<16.0> : tensor<4xf32>
  %eps = arith.constant dense<1.0e-5> : tensor<4xf32>
  %sum = linalg.reduce { arith.addf } ins(%x : tensor<4x16xf32>)
      outs(%zero : tensor<4xf32>) dimensions = [1]
  %mean = arith.divf %sum, %dim : tensor<4xf32>
  %mean_b = linalg.broadcast ins(%mean : tensor<4xf32>)
      outs(%e2 : tensor<4x16xf32>) dimensions = [1]
  %d = arith.subf %x, %mean_b : tensor<4x16xf32>
  %sq = arith.mulf %d, %d : tensor<4x16xf32>
  %sq_sum = linalg.reduce { arith.addf } ins(%sq : tensor<4x16xf32>)
      outs(%zero : tensor<4xf32>) dimensions = [1]
  %var = arith.divf %sq_sum, %dim : tensor<4xf32>
  %var_eps = arith.addf %var, %eps : tensor<4xf32>
  %rstd = math.rsqrt %var_eps : tensor<4xf32>
  %rstd_b = linalg.broadcast ins(%rstd : tensor<4xf32>)
      outs(%e2 : tensor<4x16xf32>) dimensions = [1]
  %n = arith.mulf %rstd_b, %d : tensor<4x16xf32>
  %y = arith.addf %n, %r : tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

//===----------------------------------------------------------------------===//
// Negative: not fused
//===----------------------------------------------------------------------===//

// -----

// The statistics are taken over dimension 1, not the last one.

// CHECK-LABEL: func.func @neg_other_dimension
// CHECK-NOT:     tfm.layer_norm
// CHECK:         linalg.reduce
// CHECK-NOT:     tfm.layer_norm
func.func @neg_other_dimension(%x: tensor<2x3x8xf32>) -> tensor<2x3x8xf32> {
  %zero = arith.constant dense<0.0> : tensor<2x8xf32>
  %e3 = tensor.empty() : tensor<2x3x8xf32>
  %dim = arith.constant dense<3.0> : tensor<2x8xf32>
  %eps = arith.constant dense<1.0e-5> : tensor<2x8xf32>
  %sum = linalg.reduce { arith.addf } ins(%x : tensor<2x3x8xf32>)
      outs(%zero : tensor<2x8xf32>) dimensions = [1]
  %mean = arith.divf %sum, %dim : tensor<2x8xf32>
  %mean_b = linalg.broadcast ins(%mean : tensor<2x8xf32>)
      outs(%e3 : tensor<2x3x8xf32>) dimensions = [1]
  %d = arith.subf %x, %mean_b : tensor<2x3x8xf32>
  %sq = arith.mulf %d, %d : tensor<2x3x8xf32>
  %sq_sum = linalg.reduce { arith.addf } ins(%sq : tensor<2x3x8xf32>)
      outs(%zero : tensor<2x8xf32>) dimensions = [1]
  %var = arith.divf %sq_sum, %dim : tensor<2x8xf32>
  %var_eps = arith.addf %var, %eps : tensor<2x8xf32>
  %rstd = math.rsqrt %var_eps : tensor<2x8xf32>
  %rstd_b = linalg.broadcast ins(%rstd : tensor<2x8xf32>)
      outs(%e3 : tensor<2x3x8xf32>) dimensions = [1]
  %n = arith.mulf %d, %rstd_b : tensor<2x3x8xf32>
  return %n : tensor<2x3x8xf32>
}

// -----

// The unbiased variance: the squares are divided by D - 1.

// CHECK-LABEL: func.func @neg_unbiased_variance
// CHECK-NOT:     tfm.layer_norm
// CHECK:         linalg.reduce
// CHECK-NOT:     tfm.layer_norm
func.func @neg_unbiased_variance(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %zero = arith.constant dense<0.0> : tensor<4xf32>
  %e2 = tensor.empty() : tensor<4x16xf32>
  %dim = arith.constant dense<16.0> : tensor<4xf32>
  %dim1 = arith.constant dense<15.0> : tensor<4xf32>
  %eps = arith.constant dense<1.0e-5> : tensor<4xf32>
  %sum = linalg.reduce { arith.addf } ins(%x : tensor<4x16xf32>)
      outs(%zero : tensor<4xf32>) dimensions = [1]
  %mean = arith.divf %sum, %dim : tensor<4xf32>
  %mean_b = linalg.broadcast ins(%mean : tensor<4xf32>)
      outs(%e2 : tensor<4x16xf32>) dimensions = [1]
  %d = arith.subf %x, %mean_b : tensor<4x16xf32>
  %sq = arith.mulf %d, %d : tensor<4x16xf32>
  %sq_sum = linalg.reduce { arith.addf } ins(%sq : tensor<4x16xf32>)
      outs(%zero : tensor<4xf32>) dimensions = [1]
  %var = arith.divf %sq_sum, %dim1 : tensor<4xf32>
  %var_eps = arith.addf %var, %eps : tensor<4xf32>
  %rstd = math.rsqrt %var_eps : tensor<4xf32>
  %rstd_b = linalg.broadcast ins(%rstd : tensor<4xf32>)
      outs(%e2 : tensor<4x16xf32>) dimensions = [1]
  %n = arith.mulf %d, %rstd_b : tensor<4x16xf32>
  return %n : tensor<4x16xf32>
}

// -----

// Epsilon is an argument, not a constant.

// CHECK-LABEL: func.func @neg_epsilon_not_constant
// CHECK-NOT:     tfm.layer_norm
// CHECK:         math.rsqrt
// CHECK-NOT:     tfm.layer_norm
func.func @neg_epsilon_not_constant(%x: tensor<4x16xf32>, %eps: tensor<4xf32>)
    -> tensor<4x16xf32> {
  %zero = arith.constant dense<0.0> : tensor<4xf32>
  %e2 = tensor.empty() : tensor<4x16xf32>
  %dim = arith.constant dense<16.0> : tensor<4xf32>
  %sum = linalg.reduce { arith.addf } ins(%x : tensor<4x16xf32>)
      outs(%zero : tensor<4xf32>) dimensions = [1]
  %mean = arith.divf %sum, %dim : tensor<4xf32>
  %mean_b = linalg.broadcast ins(%mean : tensor<4xf32>)
      outs(%e2 : tensor<4x16xf32>) dimensions = [1]
  %d = arith.subf %x, %mean_b : tensor<4x16xf32>
  %sq = arith.mulf %d, %d : tensor<4x16xf32>
  %sq_sum = linalg.reduce { arith.addf } ins(%sq : tensor<4x16xf32>)
      outs(%zero : tensor<4xf32>) dimensions = [1]
  %var = arith.divf %sq_sum, %dim : tensor<4xf32>
  %var_eps = arith.addf %var, %eps : tensor<4xf32>
  %rstd = math.rsqrt %var_eps : tensor<4xf32>
  %rstd_b = linalg.broadcast ins(%rstd : tensor<4xf32>)
      outs(%e2 : tensor<4x16xf32>) dimensions = [1]
  %n = arith.mulf %d, %rstd_b : tensor<4x16xf32>
  return %n : tensor<4x16xf32>
}

// -----

// The mean is also returned.

// CHECK-LABEL: func.func @neg_mean_has_other_user
// CHECK-NOT:     tfm.layer_norm
// CHECK:         %[[MEAN:.*]] = arith.divf
// CHECK-NOT:     tfm.layer_norm
// CHECK:         return %{{.*}}, %[[MEAN]]
func.func @neg_mean_has_other_user(%x: tensor<4x16xf32>)
    -> (tensor<4x16xf32>, tensor<4xf32>) {
  %zero = arith.constant dense<0.0> : tensor<4xf32>
  %e2 = tensor.empty() : tensor<4x16xf32>
  %dim = arith.constant dense<16.0> : tensor<4xf32>
  %eps = arith.constant dense<1.0e-5> : tensor<4xf32>
  %sum = linalg.reduce { arith.addf } ins(%x : tensor<4x16xf32>)
      outs(%zero : tensor<4xf32>) dimensions = [1]
  %mean = arith.divf %sum, %dim : tensor<4xf32>
  %mean_b = linalg.broadcast ins(%mean : tensor<4xf32>)
      outs(%e2 : tensor<4x16xf32>) dimensions = [1]
  %d = arith.subf %x, %mean_b : tensor<4x16xf32>
  %sq = arith.mulf %d, %d : tensor<4x16xf32>
  %sq_sum = linalg.reduce { arith.addf } ins(%sq : tensor<4x16xf32>)
      outs(%zero : tensor<4xf32>) dimensions = [1]
  %var = arith.divf %sq_sum, %dim : tensor<4xf32>
  %var_eps = arith.addf %var, %eps : tensor<4xf32>
  %rstd = math.rsqrt %var_eps : tensor<4xf32>
  %rstd_b = linalg.broadcast ins(%rstd : tensor<4xf32>)
      outs(%e2 : tensor<4x16xf32>) dimensions = [1]
  %n = arith.mulf %d, %rstd_b : tensor<4x16xf32>
  return %n, %mean : tensor<4x16xf32>, tensor<4xf32>
}

// -----

// The centred x - mean is also returned.

// CHECK-LABEL: func.func @neg_centered_has_other_user
// CHECK-NOT:     tfm.layer_norm
// CHECK:         return
func.func @neg_centered_has_other_user(%x: tensor<4x16xf32>)
    -> (tensor<4x16xf32>, tensor<4x16xf32>) {
  %zero = arith.constant dense<0.0> : tensor<4xf32>
  %e2 = tensor.empty() : tensor<4x16xf32>
  %dim = arith.constant dense<16.0> : tensor<4xf32>
  %eps = arith.constant dense<1.0e-5> : tensor<4xf32>
  %sum = linalg.reduce { arith.addf } ins(%x : tensor<4x16xf32>)
      outs(%zero : tensor<4xf32>) dimensions = [1]
  %mean = arith.divf %sum, %dim : tensor<4xf32>
  %mean_b = linalg.broadcast ins(%mean : tensor<4xf32>)
      outs(%e2 : tensor<4x16xf32>) dimensions = [1]
  %d = arith.subf %x, %mean_b : tensor<4x16xf32>
  %sq = arith.mulf %d, %d : tensor<4x16xf32>
  %sq_sum = linalg.reduce { arith.addf } ins(%sq : tensor<4x16xf32>)
      outs(%zero : tensor<4xf32>) dimensions = [1]
  %var = arith.divf %sq_sum, %dim : tensor<4xf32>
  %var_eps = arith.addf %var, %eps : tensor<4xf32>
  %rstd = math.rsqrt %var_eps : tensor<4xf32>
  %rstd_b = linalg.broadcast ins(%rstd : tensor<4xf32>)
      outs(%e2 : tensor<4x16xf32>) dimensions = [1]
  %n = arith.mulf %d, %rstd_b : tensor<4x16xf32>
  return %n, %d : tensor<4x16xf32>, tensor<4x16xf32>
}

// -----

// The variance of another tensor than the one centred: (x - mean(x)) /
// sqrt(var(y) + eps).

// CHECK-LABEL: func.func @neg_variance_of_other
// CHECK-NOT:     tfm.layer_norm
// CHECK:         return
func.func @neg_variance_of_other(%x: tensor<4x16xf32>, %y: tensor<4x16xf32>)
    -> tensor<4x16xf32> {
  %zero = arith.constant dense<0.0> : tensor<4xf32>
  %e2 = tensor.empty() : tensor<4x16xf32>
  %dim = arith.constant dense<16.0> : tensor<4xf32>
  %eps = arith.constant dense<1.0e-5> : tensor<4xf32>
  %sum = linalg.reduce { arith.addf } ins(%x : tensor<4x16xf32>)
      outs(%zero : tensor<4xf32>) dimensions = [1]
  %mean = arith.divf %sum, %dim : tensor<4xf32>
  %mean_b = linalg.broadcast ins(%mean : tensor<4xf32>)
      outs(%e2 : tensor<4x16xf32>) dimensions = [1]
  %d = arith.subf %x, %mean_b : tensor<4x16xf32>
  %ysum = linalg.reduce { arith.addf } ins(%y : tensor<4x16xf32>)
      outs(%zero : tensor<4xf32>) dimensions = [1]
  %ymean = arith.divf %ysum, %dim : tensor<4xf32>
  %ymean_b = linalg.broadcast ins(%ymean : tensor<4xf32>)
      outs(%e2 : tensor<4x16xf32>) dimensions = [1]
  %yd = arith.subf %y, %ymean_b : tensor<4x16xf32>
  %sq = arith.mulf %yd, %yd : tensor<4x16xf32>
  %sq_sum = linalg.reduce { arith.addf } ins(%sq : tensor<4x16xf32>)
      outs(%zero : tensor<4xf32>) dimensions = [1]
  %var = arith.divf %sq_sum, %dim : tensor<4xf32>
  %var_eps = arith.addf %var, %eps : tensor<4xf32>
  %rstd = math.rsqrt %var_eps : tensor<4xf32>
  %rstd_b = linalg.broadcast ins(%rstd : tensor<4xf32>)
      outs(%e2 : tensor<4x16xf32>) dimensions = [1]
  %n = arith.mulf %d, %rstd_b : tensor<4x16xf32>
  return %n : tensor<4x16xf32>
}

// -----

// Scalars (an ONNX ReduceMean over every axis, a Div of two scalars) have no
// last dimension to normalize: left alone, where the pattern once read one.
// CHECK-LABEL: func.func @neg_scalars
// CHECK-NOT:     tfm.layer_norm
// CHECK:         arith.divf %{{.*}}, %{{.*}} : tensor<f32>
// CHECK:         arith.mulf %{{.*}}, %{{.*}} : tensor<f32>
func.func @neg_scalars(%x: tensor<f32>, %y: tensor<f32>) -> tensor<f32> {
  %q = arith.divf %x, %y : tensor<f32>
  %p = arith.mulf %q, %y : tensor<f32>
  return %p : tensor<f32>
}
