// RUN: tfm-opt %s -split-input-file --tfm-fuse-attention \
// RUN:   | tfm-opt -split-input-file | FileCheck %s

// The scale in tfm-fuse-attention: a multiplication by a constant scalar
// (scale = c) or a division by one (scale = 1/c), on the scores or on Q (or
// K) before the product, with arith on tensors (splat constants) or an
// elementwise linalg.generic (a captured or in-body scalar constant, or a
// splat or rank-0 constant input). Factors multiply. The fused op always
// says its scale: without any, scale = 1.0, since tfm.attention's default is
// 1/sqrt(D).

// CHECK-LABEL: func.func @mul_on_scores
// CHECK-SAME:    %[[Q:[^:]*]]: tensor<2x3x4xf32>, %[[K:[^:]*]]: tensor<2x5x4xf32>, %[[V:[^:]*]]: tensor<2x5x6xf32>
// CHECK-NEXT:    %[[A:.*]] = tfm.attention %[[Q]], %[[K]], %[[V]] {scale = 3.000000e+00 : f64}
// CHECK-NEXT:    return %[[A]]
func.func @mul_on_scores(%q: tensor<2x3x4xf32>, %k: tensor<2x5x4xf32>,
                         %v: tensor<2x5x6xf32>) -> tensor<2x3x6xf32> {
  %s = tfm.batch_matmul %q, %k {transpose_rhs}
      : (tensor<2x3x4xf32>, tensor<2x5x4xf32>) -> tensor<2x3x5xf32>
  %c = arith.constant dense<3.0> : tensor<2x3x5xf32>
  %scaled = arith.mulf %s, %c : tensor<2x3x5xf32>
  %w = tfm.masked_softmax %scaled : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %o = tfm.batch_matmul %w, %v
      : (tensor<2x3x5xf32>, tensor<2x5x6xf32>) -> tensor<2x3x6xf32>
  return %o : tensor<2x3x6xf32>
}

// -----

// CHECK-LABEL: func.func @div_on_scores
// CHECK-NEXT:    %[[A:.*]] = tfm.attention %{{.*}}, %{{.*}}, %{{.*}} {scale = 1.250000e-01 : f64}
// CHECK-NEXT:    return %[[A]]
func.func @div_on_scores(%q: tensor<2x3x4xf32>, %k: tensor<2x5x4xf32>,
                         %v: tensor<2x5x6xf32>) -> tensor<2x3x6xf32> {
  %s = tfm.batch_matmul %q, %k {transpose_rhs}
      : (tensor<2x3x4xf32>, tensor<2x5x4xf32>) -> tensor<2x3x5xf32>
  %c = arith.constant dense<8.0> : tensor<2x3x5xf32>
  %scaled = arith.divf %s, %c : tensor<2x3x5xf32>
  %w = tfm.masked_softmax %scaled : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %o = tfm.batch_matmul %w, %v
      : (tensor<2x3x5xf32>, tensor<2x5x6xf32>) -> tensor<2x3x6xf32>
  return %o : tensor<2x3x6xf32>
}

// -----

// No scale at all: scale = 1.0, stated.

// CHECK-LABEL: func.func @no_scale
// CHECK-NEXT:    %[[A:.*]] = tfm.attention %{{.*}}, %{{.*}}, %{{.*}} {scale = 1.000000e+00 : f64}
// CHECK-NEXT:    return %[[A]]
func.func @no_scale(%q: tensor<2x3x4xf32>, %k: tensor<2x5x4xf32>,
                    %v: tensor<2x5x6xf32>) -> tensor<2x3x6xf32> {
  %s = tfm.batch_matmul %q, %k {transpose_rhs}
      : (tensor<2x3x4xf32>, tensor<2x5x4xf32>) -> tensor<2x3x5xf32>
  %w = tfm.masked_softmax %s : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %o = tfm.batch_matmul %w, %v
      : (tensor<2x3x5xf32>, tensor<2x5x6xf32>) -> tensor<2x3x6xf32>
  return %o : tensor<2x3x6xf32>
}

// -----

// 1/sqrt(D) written out is kept as an explicit scale too.

// CHECK-LABEL: func.func @default_scale_written_out
// CHECK-NEXT:    tfm.attention %{{.*}}, %{{.*}}, %{{.*}} {scale = 5.000000e-01 : f64} : (tensor<2x3x4xf32>,
func.func @default_scale_written_out(%q: tensor<2x3x4xf32>, %k: tensor<2x5x4xf32>,
                                     %v: tensor<2x5x6xf32>) -> tensor<2x3x6xf32> {
  %s = tfm.batch_matmul %q, %k {transpose_rhs}
      : (tensor<2x3x4xf32>, tensor<2x5x4xf32>) -> tensor<2x3x5xf32>
  %c = arith.constant dense<0.5> : tensor<2x3x5xf32>
  %scaled = arith.mulf %c, %s : tensor<2x3x5xf32>
  %w = tfm.masked_softmax %scaled : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %o = tfm.batch_matmul %w, %v
      : (tensor<2x3x5xf32>, tensor<2x5x6xf32>) -> tensor<2x3x6xf32>
  return %o : tensor<2x3x6xf32>
}

// -----

// q' = q * c before the product: Q is q, the scale is c.

// CHECK-LABEL: func.func @mul_on_query
// CHECK-SAME:    %[[Q:[^:]*]]: tensor<2x3x4xf32>, %[[K:[^:]*]]: tensor<2x5x4xf32>, %[[V:[^:]*]]: tensor<2x5x6xf32>
// CHECK-NEXT:    %[[A:.*]] = tfm.attention %[[Q]], %[[K]], %[[V]] {scale = 1.250000e-01 : f64}
// CHECK-NEXT:    return %[[A]]
func.func @mul_on_query(%q: tensor<2x3x4xf32>, %k: tensor<2x5x4xf32>,
                        %v: tensor<2x5x6xf32>) -> tensor<2x3x6xf32> {
  %c = arith.constant dense<0.125> : tensor<2x3x4xf32>
  %qs = arith.mulf %q, %c : tensor<2x3x4xf32>
  %s = tfm.batch_matmul %qs, %k {transpose_rhs}
      : (tensor<2x3x4xf32>, tensor<2x5x4xf32>) -> tensor<2x3x5xf32>
  %w = tfm.masked_softmax %s : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %o = tfm.batch_matmul %w, %v
      : (tensor<2x3x5xf32>, tensor<2x5x6xf32>) -> tensor<2x3x6xf32>
  return %o : tensor<2x3x6xf32>
}

// -----

// q / 2 as a linalg.generic reading a rank-0 constant, and the scores
// divided by 2 as well: the factors multiply.

// CHECK-LABEL: func.func @div_on_query_and_scores
// CHECK-SAME:    %[[Q:[^:]*]]: tensor<2x3x4xf32>, %[[K:[^:]*]]: tensor<2x5x4xf32>, %[[V:[^:]*]]: tensor<2x5x6xf32>
// CHECK-NEXT:    %[[A:.*]] = tfm.attention %[[Q]], %[[K]], %[[V]] {scale = 2.500000e-01 : f64}
// CHECK-NEXT:    return %[[A]]
func.func @div_on_query_and_scores(%q: tensor<2x3x4xf32>, %k: tensor<2x5x4xf32>,
                                   %v: tensor<2x5x6xf32>) -> tensor<2x3x6xf32> {
  %two = arith.constant dense<2.0> : tensor<f32>
  %e = tensor.empty() : tensor<2x3x4xf32>
  %qs = linalg.generic
      {indexing_maps = [affine_map<(b, i, d) -> (b, i, d)>,
                        affine_map<(b, i, d) -> ()>,
                        affine_map<(b, i, d) -> (b, i, d)>],
       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%q, %two : tensor<2x3x4xf32>, tensor<f32>)
      outs(%e : tensor<2x3x4xf32>) {
  ^bb0(%x: f32, %c: f32, %out: f32):
    %y = arith.divf %x, %c : f32
    linalg.yield %y : f32
  } -> tensor<2x3x4xf32>
  %s = tfm.batch_matmul %qs, %k {transpose_rhs}
      : (tensor<2x3x4xf32>, tensor<2x5x4xf32>) -> tensor<2x3x5xf32>
  %c2 = arith.constant dense<2.0> : tensor<2x3x5xf32>
  %scaled = arith.divf %s, %c2 : tensor<2x3x5xf32>
  %w = tfm.masked_softmax %scaled : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %o = tfm.batch_matmul %w, %v
      : (tensor<2x3x5xf32>, tensor<2x5x6xf32>) -> tensor<2x3x6xf32>
  return %o : tensor<2x3x6xf32>
}

// -----

// A scale on K (k * 0.5, with K transposed by linalg.transpose after it).

// CHECK-LABEL: func.func @mul_on_key
// CHECK-SAME:    %[[Q:[^:]*]]: tensor<2x3x4xf32>, %[[K:[^:]*]]: tensor<2x5x4xf32>, %[[V:[^:]*]]: tensor<2x5x6xf32>
// CHECK-NEXT:    %[[A:.*]] = tfm.attention %[[Q]], %[[K]], %[[V]] {scale = 5.000000e-01 : f64}
// CHECK-NEXT:    return %[[A]]
func.func @mul_on_key(%q: tensor<2x3x4xf32>, %k: tensor<2x5x4xf32>,
                      %v: tensor<2x5x6xf32>) -> tensor<2x3x6xf32> {
  %c = arith.constant dense<0.5> : tensor<2x5x4xf32>
  %ks = arith.mulf %k, %c : tensor<2x5x4xf32>
  %e = tensor.empty() : tensor<2x4x5xf32>
  %kt = linalg.transpose ins(%ks : tensor<2x5x4xf32>) outs(%e : tensor<2x4x5xf32>)
      permutation = [0, 2, 1]
  %s = tfm.batch_matmul %q, %kt
      : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  %w = tfm.masked_softmax %s : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %o = tfm.batch_matmul %w, %v
      : (tensor<2x3x5xf32>, tensor<2x5x6xf32>) -> tensor<2x3x6xf32>
  return %o : tensor<2x3x6xf32>
}

// -----

// A scaled Q that something else uses too is kept as Q (the attention is
// the same, and nothing is computed twice); only the scores' scale folds.

// CHECK-LABEL: func.func @scaled_query_with_other_user
// CHECK-SAME:    %[[Q:[^:]*]]: tensor<2x3x4xf32>, %[[K:[^:]*]]: tensor<2x5x4xf32>, %[[V:[^:]*]]: tensor<2x5x6xf32>
// CHECK:         %[[QS:.*]] = arith.mulf %[[Q]], %{{.*}} : tensor<2x3x4xf32>
// CHECK-NEXT:    %[[A:.*]] = tfm.attention %[[QS]], %[[K]], %[[V]] {scale = 5.000000e-01 : f64}
// CHECK-NEXT:    return %[[A]], %[[QS]]
func.func @scaled_query_with_other_user(%q: tensor<2x3x4xf32>, %k: tensor<2x5x4xf32>,
                                        %v: tensor<2x5x6xf32>)
    -> (tensor<2x3x6xf32>, tensor<2x3x4xf32>) {
  %c = arith.constant dense<0.125> : tensor<2x3x4xf32>
  %qs = arith.mulf %q, %c : tensor<2x3x4xf32>
  %s = tfm.batch_matmul %qs, %k {transpose_rhs}
      : (tensor<2x3x4xf32>, tensor<2x5x4xf32>) -> tensor<2x3x5xf32>
  %c2 = arith.constant dense<0.5> : tensor<2x3x5xf32>
  %scaled = arith.mulf %s, %c2 : tensor<2x3x5xf32>
  %w = tfm.masked_softmax %scaled : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %o = tfm.batch_matmul %w, %v
      : (tensor<2x3x5xf32>, tensor<2x5x6xf32>) -> tensor<2x3x6xf32>
  return %o, %qs : tensor<2x3x6xf32>, tensor<2x3x4xf32>
}

// -----

#id3 = affine_map<(b, i, j) -> (b, i, j)>

// linalg.generic scales: an in-body constant, a splat constant input of
// the scores' shape, and a linalg.fill.

// CHECK-LABEL: func.func @generic_scales
// CHECK-NEXT:    %[[A:.*]] = tfm.attention %{{.*}}, %{{.*}}, %{{.*}} {scale = 1.250000e-01 : f64}
// CHECK-NEXT:    %[[B:.*]] = tfm.attention %{{.*}}, %{{.*}}, %{{.*}} {scale = 2.500000e-01 : f64}
// CHECK-NEXT:    %[[C:.*]] = tfm.attention %{{.*}}, %{{.*}}, %{{.*}} {scale = 2.000000e+00 : f64}
// CHECK-NEXT:    return %[[A]], %[[B]], %[[C]]
func.func @generic_scales(%q: tensor<2x3x4xf32>, %k: tensor<2x5x4xf32>,
                          %v: tensor<2x5x6xf32>)
    -> (tensor<2x3x6xf32>, tensor<2x3x6xf32>, tensor<2x3x6xf32>) {
  %e = tensor.empty() : tensor<2x3x5xf32>

  %s1 = tfm.batch_matmul %q, %k {transpose_rhs}
      : (tensor<2x3x4xf32>, tensor<2x5x4xf32>) -> tensor<2x3x5xf32>
  %t1 = linalg.generic {indexing_maps = [#id3, #id3],
                        iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s1 : tensor<2x3x5xf32>) outs(%e : tensor<2x3x5xf32>) {
  ^bb0(%x: f32, %out: f32):
    %c = arith.constant 8.0 : f32
    %y = arith.divf %x, %c : f32
    linalg.yield %y : f32
  } -> tensor<2x3x5xf32>
  %w1 = tfm.masked_softmax %t1 : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %o1 = tfm.batch_matmul %w1, %v
      : (tensor<2x3x5xf32>, tensor<2x5x6xf32>) -> tensor<2x3x6xf32>

  %s2 = tfm.batch_matmul %q, %k {transpose_rhs}
      : (tensor<2x3x4xf32>, tensor<2x5x4xf32>) -> tensor<2x3x5xf32>
  %quarter = arith.constant dense<0.25> : tensor<2x3x5xf32>
  %t2 = linalg.generic {indexing_maps = [#id3, #id3, #id3],
                        iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%quarter, %s2 : tensor<2x3x5xf32>, tensor<2x3x5xf32>)
      outs(%e : tensor<2x3x5xf32>) {
  ^bb0(%c: f32, %x: f32, %out: f32):
    %y = arith.mulf %c, %x : f32
    linalg.yield %y : f32
  } -> tensor<2x3x5xf32>
  %w2 = tfm.masked_softmax %t2 : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %o2 = tfm.batch_matmul %w2, %v
      : (tensor<2x3x5xf32>, tensor<2x5x6xf32>) -> tensor<2x3x6xf32>

  %s3 = tfm.batch_matmul %q, %k {transpose_rhs}
      : (tensor<2x3x4xf32>, tensor<2x5x4xf32>) -> tensor<2x3x5xf32>
  %two = arith.constant 2.0 : f32
  %filled = linalg.fill ins(%two : f32) outs(%e : tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %t3 = arith.mulf %s3, %filled : tensor<2x3x5xf32>
  %w3 = tfm.masked_softmax %t3 : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %o3 = tfm.batch_matmul %w3, %v
      : (tensor<2x3x5xf32>, tensor<2x5x6xf32>) -> tensor<2x3x6xf32>
  return %o1, %o2, %o3 : tensor<2x3x6xf32>, tensor<2x3x6xf32>, tensor<2x3x6xf32>
}
