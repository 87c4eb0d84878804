// RUN: tfm-opt %s -split-input-file --tfm-fuse-attention \
// RUN:   | tfm-opt -split-input-file | FileCheck %s

// Reshapes between the pieces of an attention in tfm-fuse-attention:
// tensor.expand_shape / tensor.collapse_shape that only split or merge the
// leading (batch, head) dimensions, as between d2l's [batch * heads, S, D]
// and PyTorch's [batch, heads, S, D]. The fused op is built at the batch
// dimensions of Q·Kᵀ, or of the mask when the mask has batch dimensions of
// its own; Q, K, V and valid_lens are reshaped to them and the result is
// reshaped back to the product's type.

// d2l's layout for Q, K, V and the product, with the mask added in the 4D
// layout: a [batch, keys] padding mask broadcast over heads and queries.
// The attention is built in 4D, where the mask is [batch, 1, 1, keys].

// CHECK-LABEL: func.func @mask_in_4d
// CHECK-SAME:    %[[Q:[^:]*]]: tensor<4x3x8xf32>, %[[K:[^:]*]]: tensor<4x5x8xf32>, %[[V:[^:]*]]: tensor<4x5x8xf32>, %[[M:[^:]*]]: tensor<2x5xf32>
// CHECK-DAG:     %[[Q4:.*]] = tensor.expand_shape %[[Q]] {{\[}}[0, 1], [2], [3]] output_shape [2, 2, 3, 8] : tensor<4x3x8xf32> into tensor<2x2x3x8xf32>
// CHECK-DAG:     %[[K4:.*]] = tensor.expand_shape %[[K]] {{\[}}[0, 1], [2], [3]] output_shape [2, 2, 5, 8] : tensor<4x5x8xf32> into tensor<2x2x5x8xf32>
// CHECK-DAG:     %[[V4:.*]] = tensor.expand_shape %[[V]] {{\[}}[0, 1], [2], [3]] output_shape [2, 2, 5, 8] : tensor<4x5x8xf32> into tensor<2x2x5x8xf32>
// CHECK-DAG:     %[[M4:.*]] = tensor.expand_shape %[[M]] {{\[}}[0, 1, 2], [3]] output_shape [2, 1, 1, 5] : tensor<2x5xf32> into tensor<2x1x1x5xf32>
// CHECK:         %[[A:.*]] = tfm.attention %[[Q4]], %[[K4]], %[[V4]] mask(%[[M4]]) {scale = 0.3535533{{[0-9]*}} : f64} : (tensor<2x2x3x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x8xf32>, tensor<2x1x1x5xf32>) -> tensor<2x2x3x8xf32>
// CHECK-NEXT:    %[[R:.*]] = tensor.collapse_shape %[[A]] {{\[}}[0, 1], [2], [3]] : tensor<2x2x3x8xf32> into tensor<4x3x8xf32>
// CHECK-NEXT:    return %[[R]]
func.func @mask_in_4d(%q: tensor<4x3x8xf32>, %k: tensor<4x5x8xf32>,
                      %v: tensor<4x5x8xf32>, %m: tensor<2x5xf32>)
    -> tensor<4x3x8xf32> {
  %s = tfm.batch_matmul %q, %k {transpose_rhs}
      : (tensor<4x3x8xf32>, tensor<4x5x8xf32>) -> tensor<4x3x5xf32>
  %c = arith.constant dense<0.353553385> : tensor<4x3x5xf32>
  %scaled = arith.mulf %s, %c : tensor<4x3x5xf32>
  %s4 = tensor.expand_shape %scaled [[0, 1], [2], [3]] output_shape [2, 2, 3, 5]
      : tensor<4x3x5xf32> into tensor<2x2x3x5xf32>
  %e = tensor.empty() : tensor<2x2x3x5xf32>
  %mb = linalg.broadcast ins(%m : tensor<2x5xf32>) outs(%e : tensor<2x2x3x5xf32>)
      dimensions = [1, 2]
  %masked = arith.addf %s4, %mb : tensor<2x2x3x5xf32>
  %m3 = tensor.collapse_shape %masked [[0, 1], [2], [3]]
      : tensor<2x2x3x5xf32> into tensor<4x3x5xf32>
  %w = tfm.masked_softmax %m3 : (tensor<4x3x5xf32>) -> tensor<4x3x5xf32>
  %o = tfm.batch_matmul %w, %v
      : (tensor<4x3x5xf32>, tensor<4x5x8xf32>) -> tensor<4x3x8xf32>
  return %o : tensor<4x3x8xf32>
}

// -----

// Scores and softmax in PyTorch's 4D layout, the weights merged into d2l's
// layout for the product with a 3D V. Without a mask, the attention is
// built at the batch dimensions of Q·Kᵀ: V is split, the result merged.

// CHECK-LABEL: func.func @weights_merged
// CHECK-SAME:    %[[Q:[^:]*]]: tensor<2x2x3x8xf32>, %[[K:[^:]*]]: tensor<2x2x5x8xf32>, %[[V:[^:]*]]: tensor<4x5x6xf32>
// CHECK-NEXT:    %[[V4:.*]] = tensor.expand_shape %[[V]] {{\[}}[0, 1], [2], [3]] output_shape [2, 2, 5, 6] : tensor<4x5x6xf32> into tensor<2x2x5x6xf32>
// CHECK-NEXT:    %[[A:.*]] = tfm.attention %[[Q]], %[[K]], %[[V4]] {scale = 1.000000e+00 : f64} : (tensor<2x2x3x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x6xf32>) -> tensor<2x2x3x6xf32>
// CHECK-NEXT:    %[[R:.*]] = tensor.collapse_shape %[[A]] {{\[}}[0, 1], [2], [3]] : tensor<2x2x3x6xf32> into tensor<4x3x6xf32>
// CHECK-NEXT:    return %[[R]]
func.func @weights_merged(%q: tensor<2x2x3x8xf32>, %k: tensor<2x2x5x8xf32>,
                          %v: tensor<4x5x6xf32>) -> tensor<4x3x6xf32> {
  %s = tfm.batch_matmul %q, %k {transpose_rhs}
      : (tensor<2x2x3x8xf32>, tensor<2x2x5x8xf32>) -> tensor<2x2x3x5xf32>
  %e = tensor.empty() : tensor<2x2x3x5xf32>
  %w = linalg.softmax dimension(3) ins(%s : tensor<2x2x3x5xf32>)
      outs(%e : tensor<2x2x3x5xf32>) -> tensor<2x2x3x5xf32>
  %w3 = tensor.collapse_shape %w [[0, 1], [2], [3]]
      : tensor<2x2x3x5xf32> into tensor<4x3x5xf32>
  %o = tfm.batch_matmul %w3, %v
      : (tensor<4x3x5xf32>, tensor<4x5x6xf32>) -> tensor<4x3x6xf32>
  return %o : tensor<4x3x6xf32>
}

// -----

// valid_lens of a masked_softmax in d2l's layout ([batch * heads]), scores
// computed in 4D: the lengths are split to [batch, heads].

// CHECK-LABEL: func.func @valid_lens_regrouped
// CHECK-SAME:    %[[Q:[^:]*]]: tensor<2x2x3x8xf32>, %[[K:[^:]*]]: tensor<2x2x5x8xf32>, %[[V:[^:]*]]: tensor<4x5x6xf32>, %[[L:[^:]*]]: tensor<4xi32>
// CHECK-DAG:     %[[V4:.*]] = tensor.expand_shape %[[V]] {{\[}}[0, 1], [2], [3]] output_shape [2, 2, 5, 6]
// CHECK-DAG:     %[[L2:.*]] = tensor.expand_shape %[[L]] {{\[}}[0, 1]] output_shape [2, 2] : tensor<4xi32> into tensor<2x2xi32>
// CHECK:         %[[A:.*]] = tfm.attention %[[Q]], %[[K]], %[[V4]] valid_lens(%[[L2]]) {scale = 1.000000e+00 : f64}
// CHECK-NEXT:    tensor.collapse_shape %[[A]] {{\[}}[0, 1], [2], [3]] : tensor<2x2x3x6xf32> into tensor<4x3x6xf32>
func.func @valid_lens_regrouped(%q: tensor<2x2x3x8xf32>, %k: tensor<2x2x5x8xf32>,
                                %v: tensor<4x5x6xf32>, %lens: tensor<4xi32>)
    -> tensor<4x3x6xf32> {
  %s = tfm.batch_matmul %q, %k {transpose_rhs}
      : (tensor<2x2x3x8xf32>, tensor<2x2x5x8xf32>) -> tensor<2x2x3x5xf32>
  %s3 = tensor.collapse_shape %s [[0, 1], [2], [3]]
      : tensor<2x2x3x5xf32> into tensor<4x3x5xf32>
  %w = tfm.masked_softmax %s3 valid_lens(%lens)
      : (tensor<4x3x5xf32>, tensor<4xi32>) -> tensor<4x3x5xf32>
  %o = tfm.batch_matmul %w, %v
      : (tensor<4x3x5xf32>, tensor<4x5x6xf32>) -> tensor<4x3x6xf32>
  return %o : tensor<4x3x6xf32>
}

// -----

// A mask without batch dimensions ([queries, keys]) added in 4D does not
// force the 4D layout: the attention stays in d2l's layout, with no reshape
// at all.

// CHECK-LABEL: func.func @rank2_mask_in_4d
// CHECK-SAME:    %[[Q:[^:]*]]: tensor<4x3x8xf32>, %[[K:[^:]*]]: tensor<4x5x8xf32>, %[[V:[^:]*]]: tensor<4x5x8xf32>, %[[M:[^:]*]]: tensor<3x5xf32>
// CHECK-NEXT:    %[[A:.*]] = tfm.attention %[[Q]], %[[K]], %[[V]] mask(%[[M]]) {scale = 1.000000e+00 : f64} : (tensor<4x3x8xf32>, tensor<4x5x8xf32>, tensor<4x5x8xf32>, tensor<3x5xf32>) -> tensor<4x3x8xf32>
// CHECK-NEXT:    return %[[A]]
func.func @rank2_mask_in_4d(%q: tensor<4x3x8xf32>, %k: tensor<4x5x8xf32>,
                            %v: tensor<4x5x8xf32>, %m: tensor<3x5xf32>)
    -> tensor<4x3x8xf32> {
  %s = tfm.batch_matmul %q, %k {transpose_rhs}
      : (tensor<4x3x8xf32>, tensor<4x5x8xf32>) -> tensor<4x3x5xf32>
  %s4 = tensor.expand_shape %s [[0, 1], [2], [3]] output_shape [2, 2, 3, 5]
      : tensor<4x3x5xf32> into tensor<2x2x3x5xf32>
  %e = tensor.empty() : tensor<2x2x3x5xf32>
  %mb = linalg.broadcast ins(%m : tensor<3x5xf32>) outs(%e : tensor<2x2x3x5xf32>)
      dimensions = [0, 1]
  %masked = arith.addf %s4, %mb : tensor<2x2x3x5xf32>
  %e1 = tensor.empty() : tensor<2x2x3x5xf32>
  %w = linalg.softmax dimension(3) ins(%masked : tensor<2x2x3x5xf32>)
      outs(%e1 : tensor<2x2x3x5xf32>) -> tensor<2x2x3x5xf32>
  %w3 = tensor.collapse_shape %w [[0, 1], [2], [3]]
      : tensor<2x2x3x5xf32> into tensor<4x3x5xf32>
  %o = tfm.batch_matmul %w3, %v
      : (tensor<4x3x5xf32>, tensor<4x5x8xf32>) -> tensor<4x3x8xf32>
  return %o : tensor<4x3x8xf32>
}

// -----

// A unit batch dimension dropped between a linalg.batch_matmul and a
// rank-2 linalg.matmul with V (the unit dimension merges into the queries):
// the attention is built at Q·Kᵀ's batch [1].

// CHECK-LABEL: func.func @unit_batch_dropped
// CHECK-SAME:    %[[Q:[^:]*]]: tensor<1x3x8xf32>, %[[K:[^:]*]]: tensor<1x5x8xf32>, %[[V:[^:]*]]: tensor<5x6xf32>
// CHECK-NEXT:    %[[V3:.*]] = tensor.expand_shape %[[V]] {{\[}}[0, 1], [2]] output_shape [1, 5, 6] : tensor<5x6xf32> into tensor<1x5x6xf32>
// CHECK-NEXT:    %[[A:.*]] = tfm.attention %[[Q]], %[[K]], %[[V3]] {scale = 1.000000e+00 : f64} : (tensor<1x3x8xf32>, tensor<1x5x8xf32>, tensor<1x5x6xf32>) -> tensor<1x3x6xf32>
// CHECK-NEXT:    %[[R:.*]] = tensor.collapse_shape %[[A]] {{\[}}[0, 1], [2]] : tensor<1x3x6xf32> into tensor<3x6xf32>
// CHECK-NEXT:    return %[[R]]
func.func @unit_batch_dropped(%q: tensor<1x3x8xf32>, %k: tensor<1x5x8xf32>,
                              %v: tensor<5x6xf32>) -> tensor<3x6xf32> {
  %z = arith.constant dense<0.0> : tensor<1x3x5xf32>
  %s = linalg.batch_matmul
      indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>,
                       affine_map<(b, m, n, k) -> (b, n, k)>,
                       affine_map<(b, m, n, k) -> (b, m, n)>]
      ins(%q, %k : tensor<1x3x8xf32>, tensor<1x5x8xf32>)
      outs(%z : tensor<1x3x5xf32>) -> tensor<1x3x5xf32>
  %s2 = tensor.collapse_shape %s [[0, 1], [2]] : tensor<1x3x5xf32> into tensor<3x5xf32>
  %e = tensor.empty() : tensor<3x5xf32>
  %w = linalg.softmax dimension(1) ins(%s2 : tensor<3x5xf32>)
      outs(%e : tensor<3x5xf32>) -> tensor<3x5xf32>
  %z2 = arith.constant dense<0.0> : tensor<3x6xf32>
  %o = linalg.matmul ins(%w, %v : tensor<3x5xf32>, tensor<5x6xf32>)
      outs(%z2 : tensor<3x6xf32>) -> tensor<3x6xf32>
  return %o : tensor<3x6xf32>
}
