// RUN: tfm-opt %s -split-input-file --tfm-fuse-attention \
// RUN:   | tfm-opt -split-input-file | FileCheck %s

// tfm-fuse-attention on attention written with upstream ops, as importers
// write it: linalg.batch_matmul (3D) and linalg.matmul (2D) with a
// transposing indexing map on K or a linalg.transpose of K, linalg.softmax
// over the last dimension, and the product with V, accumulating into a
// zero-filled (or empty) tensor.

#bmm_q = affine_map<(b, m, n, k) -> (b, m, k)>
#bmm_kt = affine_map<(b, m, n, k) -> (b, n, k)>
#bmm_out = affine_map<(b, m, n, k) -> (b, m, n)>

// linalg.batch_matmul with K transposed by its indexing map.

// CHECK-LABEL: func.func @batch_matmul_transposed_map
// CHECK-SAME:    %[[Q:[^:]*]]: tensor<2x3x8xf32>, %[[K:[^:]*]]: tensor<2x5x8xf32>, %[[V:[^:]*]]: tensor<2x5x6xf32>
// CHECK-NEXT:    %[[A:.*]] = tfm.attention %[[Q]], %[[K]], %[[V]] {scale = 1.250000e-01 : f64} : (tensor<2x3x8xf32>, tensor<2x5x8xf32>, tensor<2x5x6xf32>) -> tensor<2x3x6xf32>
// CHECK-NEXT:    return %[[A]]
func.func @batch_matmul_transposed_map(%q: tensor<2x3x8xf32>, %k: tensor<2x5x8xf32>,
                                       %v: tensor<2x5x6xf32>) -> tensor<2x3x6xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<2x3x5xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %s = linalg.batch_matmul indexing_maps = [#bmm_q, #bmm_kt, #bmm_out]
      ins(%q, %k : tensor<2x3x8xf32>, tensor<2x5x8xf32>)
      outs(%f0 : tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %c = arith.constant dense<0.125> : tensor<2x3x5xf32>
  %scaled = arith.mulf %s, %c : tensor<2x3x5xf32>
  %e1 = tensor.empty() : tensor<2x3x5xf32>
  %w = linalg.softmax dimension(2) ins(%scaled : tensor<2x3x5xf32>)
      outs(%e1 : tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %e2 = tensor.empty() : tensor<2x3x6xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2x3x6xf32>) -> tensor<2x3x6xf32>
  %o = linalg.batch_matmul ins(%w, %v : tensor<2x3x5xf32>, tensor<2x5x6xf32>)
      outs(%f2 : tensor<2x3x6xf32>) -> tensor<2x3x6xf32>
  return %o : tensor<2x3x6xf32>
}

// -----

// linalg.batch_matmul with a linalg.transpose of K, accumulating into a
// zero constant and into tensor.empty.

// CHECK-LABEL: func.func @batch_matmul_transpose_op
// CHECK-SAME:    %[[Q:[^:]*]]: tensor<2x3x8xf32>, %[[K:[^:]*]]: tensor<2x5x8xf32>, %[[V:[^:]*]]: tensor<2x5x6xf32>
// CHECK-NEXT:    %[[A:.*]] = tfm.attention %[[Q]], %[[K]], %[[V]] {scale = 1.000000e+00 : f64}
// CHECK-NEXT:    return %[[A]]
func.func @batch_matmul_transpose_op(%q: tensor<2x3x8xf32>, %k: tensor<2x5x8xf32>,
                                     %v: tensor<2x5x6xf32>) -> tensor<2x3x6xf32> {
  %et = tensor.empty() : tensor<2x8x5xf32>
  %kt = linalg.transpose ins(%k : tensor<2x5x8xf32>) outs(%et : tensor<2x8x5xf32>)
      permutation = [0, 2, 1]
  %z = arith.constant dense<0.0> : tensor<2x3x5xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<2x3x8xf32>, tensor<2x8x5xf32>)
      outs(%z : tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %e1 = tensor.empty() : tensor<2x3x5xf32>
  %w = linalg.softmax dimension(2) ins(%s : tensor<2x3x5xf32>)
      outs(%e1 : tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %e2 = tensor.empty() : tensor<2x3x6xf32>
  %o = linalg.batch_matmul ins(%w, %v : tensor<2x3x5xf32>, tensor<2x5x6xf32>)
      outs(%e2 : tensor<2x3x6xf32>) -> tensor<2x3x6xf32>
  return %o : tensor<2x3x6xf32>
}

// -----

#mm_q = affine_map<(m, n, k) -> (m, k)>
#mm_kt = affine_map<(m, n, k) -> (n, k)>
#mm_out = affine_map<(m, n, k) -> (m, n)>
#id2 = affine_map<(i, j) -> (i, j)>

// Rank-2 attention with linalg.matmul (K transposed by its map), a scale
// written as a linalg.generic with a captured constant, linalg.softmax
// over dimension 1.

// CHECK-LABEL: func.func @matmul_transposed_map
// CHECK-SAME:    %[[Q:[^:]*]]: tensor<3x8xf32>, %[[K:[^:]*]]: tensor<5x8xf32>, %[[V:[^:]*]]: tensor<5x6xf32>
// CHECK-NEXT:    %[[A:.*]] = tfm.attention %[[Q]], %[[K]], %[[V]] {scale = 0.3535533{{[0-9]+}} : f64} : (tensor<3x8xf32>, tensor<5x8xf32>, tensor<5x6xf32>) -> tensor<3x6xf32>
// CHECK-NEXT:    return %[[A]]
func.func @matmul_transposed_map(%q: tensor<3x8xf32>, %k: tensor<5x8xf32>,
                                 %v: tensor<5x6xf32>) -> tensor<3x6xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<3x5xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<3x5xf32>) -> tensor<3x5xf32>
  %s = linalg.matmul indexing_maps = [#mm_q, #mm_kt, #mm_out]
      ins(%q, %k : tensor<3x8xf32>, tensor<5x8xf32>)
      outs(%f0 : tensor<3x5xf32>) -> tensor<3x5xf32>
  %rsqrt_d = arith.constant 0.353553385 : f32
  %e1 = tensor.empty() : tensor<3x5xf32>
  %scaled = linalg.generic {indexing_maps = [#id2, #id2],
                            iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<3x5xf32>) outs(%e1 : tensor<3x5xf32>) {
  ^bb0(%x: f32, %out: f32):
    %y = arith.mulf %x, %rsqrt_d : f32
    linalg.yield %y : f32
  } -> tensor<3x5xf32>
  %e2 = tensor.empty() : tensor<3x5xf32>
  %w = linalg.softmax dimension(1) ins(%scaled : tensor<3x5xf32>)
      outs(%e2 : tensor<3x5xf32>) -> tensor<3x5xf32>
  %e3 = tensor.empty() : tensor<3x6xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<3x6xf32>) -> tensor<3x6xf32>
  %o = linalg.matmul ins(%w, %v : tensor<3x5xf32>, tensor<5x6xf32>)
      outs(%f3 : tensor<3x6xf32>) -> tensor<3x6xf32>
  return %o : tensor<3x6xf32>
}

// -----

// Rank-2 attention with linalg.matmul and a linalg.transpose of K.

// CHECK-LABEL: func.func @matmul_transpose_op
// CHECK-SAME:    %[[Q:[^:]*]]: tensor<3x8xf32>, %[[K:[^:]*]]: tensor<5x8xf32>, %[[V:[^:]*]]: tensor<5x6xf32>
// CHECK-NEXT:    %[[A:.*]] = tfm.attention %[[Q]], %[[K]], %[[V]] {scale = 2.500000e-01 : f64}
// CHECK-NEXT:    return %[[A]]
func.func @matmul_transpose_op(%q: tensor<3x8xf32>, %k: tensor<5x8xf32>,
                               %v: tensor<5x6xf32>) -> tensor<3x6xf32> {
  %zero = arith.constant 0.0 : f32
  %et = tensor.empty() : tensor<8x5xf32>
  %kt = linalg.transpose ins(%k : tensor<5x8xf32>) outs(%et : tensor<8x5xf32>)
      permutation = [1, 0]
  %e0 = tensor.empty() : tensor<3x5xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<3x5xf32>) -> tensor<3x5xf32>
  %s = linalg.matmul ins(%q, %kt : tensor<3x8xf32>, tensor<8x5xf32>)
      outs(%f0 : tensor<3x5xf32>) -> tensor<3x5xf32>
  %c = arith.constant dense<4.0> : tensor<3x5xf32>
  %scaled = arith.divf %s, %c : tensor<3x5xf32>
  %e2 = tensor.empty() : tensor<3x5xf32>
  %w = linalg.softmax dimension(1) ins(%scaled : tensor<3x5xf32>)
      outs(%e2 : tensor<3x5xf32>) -> tensor<3x5xf32>
  %e3 = tensor.empty() : tensor<3x6xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<3x6xf32>) -> tensor<3x6xf32>
  %o = linalg.matmul ins(%w, %v : tensor<3x5xf32>, tensor<5x6xf32>)
      outs(%f3 : tensor<3x6xf32>) -> tensor<3x6xf32>
  return %o : tensor<3x6xf32>
}

// -----

// Upstream and tfm ops mixed: tfm.batch_matmul for Q·Kᵀ, linalg.softmax,
// linalg.batch_matmul with V; and the reverse.

// CHECK-LABEL: func.func @mixed_tfm_scores
// CHECK-SAME:    %[[Q:[^:]*]]: tensor<2x3x8xf32>, %[[K:[^:]*]]: tensor<2x5x8xf32>, %[[V:[^:]*]]: tensor<2x5x6xf32>
// CHECK-NEXT:    tfm.attention %[[Q]], %[[K]], %[[V]] {scale = 1.000000e+00 : f64}
func.func @mixed_tfm_scores(%q: tensor<2x3x8xf32>, %k: tensor<2x5x8xf32>,
                            %v: tensor<2x5x6xf32>) -> tensor<2x3x6xf32> {
  %s = tfm.batch_matmul %q, %k {transpose_rhs}
      : (tensor<2x3x8xf32>, tensor<2x5x8xf32>) -> tensor<2x3x5xf32>
  %e1 = tensor.empty() : tensor<2x3x5xf32>
  %w = linalg.softmax dimension(2) ins(%s : tensor<2x3x5xf32>)
      outs(%e1 : tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %z = arith.constant dense<0.0> : tensor<2x3x6xf32>
  %o = linalg.batch_matmul ins(%w, %v : tensor<2x3x5xf32>, tensor<2x5x6xf32>)
      outs(%z : tensor<2x3x6xf32>) -> tensor<2x3x6xf32>
  return %o : tensor<2x3x6xf32>
}

// CHECK-LABEL: func.func @mixed_linalg_scores
// CHECK-SAME:    %[[Q:[^:]*]]: tensor<2x3x8xf32>, %[[K:[^:]*]]: tensor<2x5x8xf32>, %[[V:[^:]*]]: tensor<2x5x6xf32>
// CHECK-NEXT:    tfm.attention %[[Q]], %[[K]], %[[V]] {scale = 1.000000e+00 : f64}
func.func @mixed_linalg_scores(%q: tensor<2x3x8xf32>, %k: tensor<2x5x8xf32>,
                               %v: tensor<2x5x6xf32>) -> tensor<2x3x6xf32> {
  %z = arith.constant dense<0.0> : tensor<2x3x5xf32>
  %s = linalg.batch_matmul
      indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>,
                       affine_map<(b, m, n, k) -> (b, n, k)>,
                       affine_map<(b, m, n, k) -> (b, m, n)>]
      ins(%q, %k : tensor<2x3x8xf32>, tensor<2x5x8xf32>)
      outs(%z : tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %w = tfm.masked_softmax %s : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %o = tfm.batch_matmul %w, %v
      : (tensor<2x3x5xf32>, tensor<2x5x6xf32>) -> tensor<2x3x6xf32>
  return %o : tensor<2x3x6xf32>
}

// -----

// Q transposed by its indexing map ([batch, D, queries]), and V laid out
// as [batch, Dv, keys] and transposed by the map of the product with V: the
// pass transposes both.

// CHECK-LABEL: func.func @query_and_value_transposed_by_maps
// CHECK-SAME:    %[[QT:[^:]*]]: tensor<2x8x3xf32>, %[[K:[^:]*]]: tensor<2x5x8xf32>, %[[VT:[^:]*]]: tensor<2x6x5xf32>
// CHECK-DAG:     %[[Q:.*]] = linalg.transpose ins(%[[QT]] : tensor<2x8x3xf32>) outs(%{{.*}} : tensor<2x3x8xf32>) permutation = [0, 2, 1]
// CHECK-DAG:     %[[V:.*]] = linalg.transpose ins(%[[VT]] : tensor<2x6x5xf32>) outs(%{{.*}} : tensor<2x5x6xf32>) permutation = [0, 2, 1]
// CHECK:         %[[A:.*]] = tfm.attention %[[Q]], %[[K]], %[[V]] {scale = 1.000000e+00 : f64} : (tensor<2x3x8xf32>, tensor<2x5x8xf32>, tensor<2x5x6xf32>) -> tensor<2x3x6xf32>
// CHECK-NEXT:    return %[[A]]
func.func @query_and_value_transposed_by_maps(%qt: tensor<2x8x3xf32>,
                                              %k: tensor<2x5x8xf32>,
                                              %vt: tensor<2x6x5xf32>)
    -> tensor<2x3x6xf32> {
  %z = arith.constant dense<0.0> : tensor<2x3x5xf32>
  %s = linalg.batch_matmul
      indexing_maps = [affine_map<(b, m, n, k) -> (b, k, m)>,
                       affine_map<(b, m, n, k) -> (b, n, k)>,
                       affine_map<(b, m, n, k) -> (b, m, n)>]
      ins(%qt, %k : tensor<2x8x3xf32>, tensor<2x5x8xf32>)
      outs(%z : tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %e = tensor.empty() : tensor<2x3x5xf32>
  %w = linalg.softmax dimension(2) ins(%s : tensor<2x3x5xf32>)
      outs(%e : tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %z2 = arith.constant dense<0.0> : tensor<2x3x6xf32>
  %o = linalg.batch_matmul
      indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>,
                       affine_map<(b, m, n, k) -> (b, n, k)>,
                       affine_map<(b, m, n, k) -> (b, m, n)>]
      ins(%w, %vt : tensor<2x3x5xf32>, tensor<2x6x5xf32>)
      outs(%z2 : tensor<2x3x6xf32>) -> tensor<2x3x6xf32>
  return %o : tensor<2x3x6xf32>
}

// -----

// A linalg.matmul that is not fed by a softmax is not a candidate.

// CHECK-LABEL: func.func @plain_matmul
// CHECK:         linalg.matmul
// CHECK-NOT:     tfm.attention
func.func @plain_matmul(%a: tensor<3x5xf32>, %b: tensor<5x6xf32>) -> tensor<3x6xf32> {
  %z = arith.constant dense<0.0> : tensor<3x6xf32>
  %o = linalg.matmul ins(%a, %b : tensor<3x5xf32>, tensor<5x6xf32>)
      outs(%z : tensor<3x6xf32>) -> tensor<3x6xf32>
  return %o : tensor<3x6xf32>
}
