// RUN: tfm-opt %s -split-input-file --tfm-fuse-attention \
// RUN:   | tfm-opt -split-input-file | FileCheck %s

// What tfm-fuse-attention must not fuse, because the fused op would compute
// something else (or would have to compute something twice): each case
// keeps its ops. The reasons, as remarks, are in fuse-attention-remarks.mlir.
//
// (A head dimension of K that differs from Q's, or a sequence length of V
// that differs from K's, cannot be written with ops that verify; the pass
// checks them anyway. Shapes that do not line up are written here as
// reshapes and element types.)

// Softmax over the queries (dimension 1), not over the keys.

// CHECK-LABEL: func.func @softmax_over_queries
// CHECK:         tfm.batch_matmul
// CHECK:         linalg.softmax dimension(1)
// CHECK:         tfm.batch_matmul
// CHECK-NOT:     tfm.attention
func.func @softmax_over_queries(%q: tensor<2x3x4xf32>, %k: tensor<2x5x4xf32>,
                                %v: tensor<2x5x6xf32>) -> tensor<2x3x6xf32> {
  %s = tfm.batch_matmul %q, %k {transpose_rhs}
      : (tensor<2x3x4xf32>, tensor<2x5x4xf32>) -> tensor<2x3x5xf32>
  %e = tensor.empty() : tensor<2x3x5xf32>
  %w = linalg.softmax dimension(1) ins(%s : tensor<2x3x5xf32>)
      outs(%e : tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %o = tfm.batch_matmul %w, %v
      : (tensor<2x3x5xf32>, tensor<2x5x6xf32>) -> tensor<2x3x6xf32>
  return %o : tensor<2x3x6xf32>
}

// -----

// A scale that is a tensor argument.

// CHECK-LABEL: func.func @scale_by_argument
// CHECK:         arith.mulf
// CHECK:         tfm.masked_softmax
// CHECK-NOT:     tfm.attention
func.func @scale_by_argument(%q: tensor<2x3x4xf32>, %k: tensor<2x5x4xf32>,
                             %v: tensor<2x5x6xf32>, %t: tensor<2x3x5xf32>)
    -> tensor<2x3x6xf32> {
  %s = tfm.batch_matmul %q, %k {transpose_rhs}
      : (tensor<2x3x4xf32>, tensor<2x5x4xf32>) -> tensor<2x3x5xf32>
  %scaled = arith.mulf %s, %t : tensor<2x3x5xf32>
  %w = tfm.masked_softmax %scaled : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %o = tfm.batch_matmul %w, %v
      : (tensor<2x3x5xf32>, tensor<2x5x6xf32>) -> tensor<2x3x6xf32>
  return %o : tensor<2x3x6xf32>
}

// -----

// A scale that is a constant but not a splat.

// CHECK-LABEL: func.func @scale_by_non_splat
// CHECK:         arith.divf
// CHECK:         tfm.masked_softmax
// CHECK-NOT:     tfm.attention
func.func @scale_by_non_splat(%q: tensor<2x3x4xf32>, %k: tensor<2x5x4xf32>,
                              %v: tensor<2x5x6xf32>) -> tensor<2x3x6xf32> {
  %s = tfm.batch_matmul %q, %k {transpose_rhs}
      : (tensor<2x3x4xf32>, tensor<2x5x4xf32>) -> tensor<2x3x5xf32>
  %c = arith.constant dense<[[[1.0, 2.0, 3.0, 4.0, 5.0], [1.0, 2.0, 3.0, 4.0, 5.0],
                              [1.0, 2.0, 3.0, 4.0, 5.0]],
                             [[1.0, 2.0, 3.0, 4.0, 5.0], [1.0, 2.0, 3.0, 4.0, 5.0],
                              [1.0, 2.0, 3.0, 4.0, 5.0]]]> : tensor<2x3x5xf32>
  %scaled = arith.divf %s, %c : tensor<2x3x5xf32>
  %w = tfm.masked_softmax %scaled : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %o = tfm.batch_matmul %w, %v
      : (tensor<2x3x5xf32>, tensor<2x5x6xf32>) -> tensor<2x3x6xf32>
  return %o : tensor<2x3x6xf32>
}

// -----

#id3 = affine_map<(b, i, j) -> (b, i, j)>

// A linalg.generic scale by a tensor input that is not a constant.

// CHECK-LABEL: func.func @generic_scale_by_argument
// CHECK:         linalg.generic
// CHECK:           arith.mulf
// CHECK:         tfm.masked_softmax
// CHECK-NOT:     tfm.attention
func.func @generic_scale_by_argument(%q: tensor<2x3x4xf32>, %k: tensor<2x5x4xf32>,
                                     %v: tensor<2x5x6xf32>, %t: tensor<2x3x5xf32>)
    -> tensor<2x3x6xf32> {
  %s = tfm.batch_matmul %q, %k {transpose_rhs}
      : (tensor<2x3x4xf32>, tensor<2x5x4xf32>) -> tensor<2x3x5xf32>
  %e = tensor.empty() : tensor<2x3x5xf32>
  %scaled = linalg.generic {indexing_maps = [#id3, #id3, #id3],
                            iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s, %t : tensor<2x3x5xf32>, tensor<2x3x5xf32>)
      outs(%e : tensor<2x3x5xf32>) {
  ^bb0(%x: f32, %c: f32, %out: f32):
    %y = arith.mulf %x, %c : f32
    linalg.yield %y : f32
  } -> tensor<2x3x5xf32>
  %w = tfm.masked_softmax %scaled : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %o = tfm.batch_matmul %w, %v
      : (tensor<2x3x5xf32>, tensor<2x5x6xf32>) -> tensor<2x3x6xf32>
  return %o : tensor<2x3x6xf32>
}

// -----

// The scores as the divisor: c / (Q·Kᵀ) is no scale.

// CHECK-LABEL: func.func @scores_as_divisor
// CHECK:         arith.divf %{{.*}}, %{{.*}} : tensor<2x3x5xf32>
// CHECK-NOT:     tfm.attention
func.func @scores_as_divisor(%q: tensor<2x3x4xf32>, %k: tensor<2x5x4xf32>,
                             %v: tensor<2x5x6xf32>) -> tensor<2x3x6xf32> {
  %s = tfm.batch_matmul %q, %k {transpose_rhs}
      : (tensor<2x3x4xf32>, tensor<2x5x4xf32>) -> tensor<2x3x5xf32>
  %c = arith.constant dense<2.0> : tensor<2x3x5xf32>
  %scaled = arith.divf %c, %s : tensor<2x3x5xf32>
  %w = tfm.masked_softmax %scaled : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %o = tfm.batch_matmul %w, %v
      : (tensor<2x3x5xf32>, tensor<2x5x6xf32>) -> tensor<2x3x6xf32>
  return %o : tensor<2x3x6xf32>
}

// -----

// The scores have another user.

// CHECK-LABEL: func.func @scores_used_twice
// CHECK:         %[[S:.*]] = tfm.batch_matmul
// CHECK:         tfm.masked_softmax
// CHECK:         %[[O:.*]] = tfm.batch_matmul
// CHECK:         return %[[O]], %[[S]]
// CHECK-NOT:     tfm.attention
func.func @scores_used_twice(%q: tensor<2x3x4xf32>, %k: tensor<2x5x4xf32>,
                             %v: tensor<2x5x6xf32>)
    -> (tensor<2x3x6xf32>, tensor<2x3x5xf32>) {
  %s = tfm.batch_matmul %q, %k {transpose_rhs}
      : (tensor<2x3x4xf32>, tensor<2x5x4xf32>) -> tensor<2x3x5xf32>
  %w = tfm.masked_softmax %s : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %o = tfm.batch_matmul %w, %v
      : (tensor<2x3x5xf32>, tensor<2x5x6xf32>) -> tensor<2x3x6xf32>
  return %o, %s : tensor<2x3x6xf32>, tensor<2x3x5xf32>
}

// -----

// The attention weights have another user, as d2l keeps them in
// `self.attention_weights`.

// CHECK-LABEL: func.func @weights_used_twice
// CHECK:         tfm.batch_matmul
// CHECK:         %[[W:.*]] = tfm.masked_softmax
// CHECK:         %[[O:.*]] = tfm.batch_matmul %[[W]]
// CHECK:         return %[[O]], %[[W]]
// CHECK-NOT:     tfm.attention
func.func @weights_used_twice(%q: tensor<2x3x4xf32>, %k: tensor<2x5x4xf32>,
                              %v: tensor<2x5x6xf32>)
    -> (tensor<2x3x6xf32>, tensor<2x3x5xf32>) {
  %s = tfm.batch_matmul %q, %k {transpose_rhs}
      : (tensor<2x3x4xf32>, tensor<2x5x4xf32>) -> tensor<2x3x5xf32>
  %w = tfm.masked_softmax %s : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %o = tfm.batch_matmul %w, %v
      : (tensor<2x3x5xf32>, tensor<2x5x6xf32>) -> tensor<2x3x6xf32>
  return %o, %w : tensor<2x3x6xf32>, tensor<2x3x5xf32>
}

// -----

// An intermediate between them (the scaled scores) has another user.

// CHECK-LABEL: func.func @scaled_scores_used_twice
// CHECK:         %[[T:.*]] = arith.mulf
// CHECK:         tfm.masked_softmax %[[T]]
// CHECK:         return %{{.*}}, %[[T]]
// CHECK-NOT:     tfm.attention
func.func @scaled_scores_used_twice(%q: tensor<2x3x4xf32>, %k: tensor<2x5x4xf32>,
                                    %v: tensor<2x5x6xf32>)
    -> (tensor<2x3x6xf32>, tensor<2x3x5xf32>) {
  %s = tfm.batch_matmul %q, %k {transpose_rhs}
      : (tensor<2x3x4xf32>, tensor<2x5x4xf32>) -> tensor<2x3x5xf32>
  %c = arith.constant dense<0.5> : tensor<2x3x5xf32>
  %scaled = arith.mulf %s, %c : tensor<2x3x5xf32>
  %w = tfm.masked_softmax %scaled : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %o = tfm.batch_matmul %w, %v
      : (tensor<2x3x5xf32>, tensor<2x5x6xf32>) -> tensor<2x3x6xf32>
  return %o, %scaled : tensor<2x3x6xf32>, tensor<2x3x5xf32>
}

// -----

// Masking by select on a boolean mask (masked_fill) that is not a constant
// causal triangle (here an argument) is not fused: it would have to become an
// additive mask the size of the scores. fuse-attention-masks.mlir has the
// causal triangles that are.

// CHECK-LABEL: func.func @select_on_bool_mask
// CHECK:         arith.select
// CHECK:         linalg.softmax
// CHECK-NOT:     tfm.attention
func.func @select_on_bool_mask(%q: tensor<2x3x4xf32>, %k: tensor<2x5x4xf32>,
                               %v: tensor<2x5x6xf32>, %keep: tensor<2x3x5xi1>)
    -> tensor<2x3x6xf32> {
  %s = tfm.batch_matmul %q, %k {transpose_rhs}
      : (tensor<2x3x4xf32>, tensor<2x5x4xf32>) -> tensor<2x3x5xf32>
  %ninf = arith.constant dense<0xFF800000> : tensor<2x3x5xf32>
  %masked = arith.select %keep, %s, %ninf : tensor<2x3x5xi1>, tensor<2x3x5xf32>
  %e = tensor.empty() : tensor<2x3x5xf32>
  %w = linalg.softmax dimension(2) ins(%masked : tensor<2x3x5xf32>)
      outs(%e : tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %o = tfm.batch_matmul %w, %v
      : (tensor<2x3x5xf32>, tensor<2x5x6xf32>) -> tensor<2x3x6xf32>
  return %o : tensor<2x3x6xf32>
}

// -----

#id3 = affine_map<(b, i, j) -> (b, i, j)>

// The same select, inside a linalg.generic.

// CHECK-LABEL: func.func @select_in_generic
// CHECK:         linalg.generic
// CHECK:           arith.select
// CHECK:         linalg.softmax
// CHECK-NOT:     tfm.attention
func.func @select_in_generic(%q: tensor<2x3x4xf32>, %k: tensor<2x5x4xf32>,
                             %v: tensor<2x5x6xf32>, %keep: tensor<2x3x5xi1>)
    -> tensor<2x3x6xf32> {
  %s = tfm.batch_matmul %q, %k {transpose_rhs}
      : (tensor<2x3x4xf32>, tensor<2x5x4xf32>) -> tensor<2x3x5xf32>
  %e = tensor.empty() : tensor<2x3x5xf32>
  %masked = linalg.generic {indexing_maps = [#id3, #id3, #id3],
                            iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s, %keep : tensor<2x3x5xf32>, tensor<2x3x5xi1>)
      outs(%e : tensor<2x3x5xf32>) {
  ^bb0(%x: f32, %b: i1, %out: f32):
    %ninf = arith.constant 0xFF800000 : f32
    %y = arith.select %b, %x, %ninf : f32
    linalg.yield %y : f32
  } -> tensor<2x3x5xf32>
  %e1 = tensor.empty() : tensor<2x3x5xf32>
  %w = linalg.softmax dimension(2) ins(%masked : tensor<2x3x5xf32>)
      outs(%e1 : tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %o = tfm.batch_matmul %w, %v
      : (tensor<2x3x5xf32>, tensor<2x5x6xf32>) -> tensor<2x3x6xf32>
  return %o : tensor<2x3x6xf32>
}

// -----

// An additive mask added before the scale: tfm.attention scales first, so
// the mask would be scaled too.

// CHECK-LABEL: func.func @mask_before_scale
// CHECK:         arith.addf
// CHECK:         arith.mulf
// CHECK-NOT:     tfm.attention
func.func @mask_before_scale(%q: tensor<2x3x4xf32>, %k: tensor<2x5x4xf32>,
                             %v: tensor<2x5x6xf32>, %m: tensor<2x3x5xf32>)
    -> tensor<2x3x6xf32> {
  %s = tfm.batch_matmul %q, %k {transpose_rhs}
      : (tensor<2x3x4xf32>, tensor<2x5x4xf32>) -> tensor<2x3x5xf32>
  %masked = arith.addf %s, %m : tensor<2x3x5xf32>
  %c = arith.constant dense<0.5> : tensor<2x3x5xf32>
  %scaled = arith.mulf %masked, %c : tensor<2x3x5xf32>
  %e = tensor.empty() : tensor<2x3x5xf32>
  %w = linalg.softmax dimension(2) ins(%scaled : tensor<2x3x5xf32>)
      outs(%e : tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %o = tfm.batch_matmul %w, %v
      : (tensor<2x3x5xf32>, tensor<2x5x6xf32>) -> tensor<2x3x6xf32>
  return %o : tensor<2x3x6xf32>
}

// -----

// Two additive masks: tfm.attention has room for one.

// CHECK-LABEL: func.func @two_masks
// CHECK-COUNT-2: arith.addf
// CHECK-NOT:     tfm.attention
func.func @two_masks(%q: tensor<2x3x4xf32>, %k: tensor<2x5x4xf32>,
                     %v: tensor<2x5x6xf32>, %m1: tensor<2x3x5xf32>,
                     %m2: tensor<2x3x5xf32>) -> tensor<2x3x6xf32> {
  %s = tfm.batch_matmul %q, %k {transpose_rhs}
      : (tensor<2x3x4xf32>, tensor<2x5x4xf32>) -> tensor<2x3x5xf32>
  %a = arith.addf %s, %m1 : tensor<2x3x5xf32>
  %b = arith.addf %a, %m2 : tensor<2x3x5xf32>
  %e = tensor.empty() : tensor<2x3x5xf32>
  %w = linalg.softmax dimension(2) ins(%b : tensor<2x3x5xf32>)
      outs(%e : tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %o = tfm.batch_matmul %w, %v
      : (tensor<2x3x5xf32>, tensor<2x5x6xf32>) -> tensor<2x3x6xf32>
  return %o : tensor<2x3x6xf32>
}

// -----

// A causal mask before a masked_softmax with valid_lens: the softmax masks
// by length after the causal mask, tfm.attention before it, which differs
// for a row of length 0.

// CHECK-LABEL: func.func @causal_then_valid_lens
// CHECK:         arith.addf
// CHECK:         tfm.masked_softmax %{{.*}} valid_lens
// CHECK-NOT:     tfm.attention
func.func @causal_then_valid_lens(%q: tensor<2x3x4xf32>, %k: tensor<2x3x4xf32>,
                                  %v: tensor<2x3x6xf32>, %lens: tensor<2xi32>)
    -> tensor<2x3x6xf32> {
  %s = tfm.batch_matmul %q, %k {transpose_rhs}
      : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x3xf32>
  %tri = arith.constant dense<[[[0.0, -1.0e9, -1.0e9], [0.0, 0.0, -1.0e9],
                                [0.0, 0.0, 0.0]],
                               [[0.0, -1.0e9, -1.0e9], [0.0, 0.0, -1.0e9],
                                [0.0, 0.0, 0.0]]]> : tensor<2x3x3xf32>
  %masked = arith.addf %s, %tri : tensor<2x3x3xf32>
  %w = tfm.masked_softmax %masked valid_lens(%lens)
      : (tensor<2x3x3xf32>, tensor<2xi32>) -> tensor<2x3x3xf32>
  %o = tfm.batch_matmul %w, %v
      : (tensor<2x3x3xf32>, tensor<2x3x6xf32>) -> tensor<2x3x6xf32>
  return %o : tensor<2x3x6xf32>
}

// -----

// Q·Kᵀ accumulating into a bias: not a plain product.

// CHECK-LABEL: func.func @scores_accumulate_into_bias
// CHECK:         linalg.batch_matmul
// CHECK:         linalg.softmax
// CHECK-NOT:     tfm.attention
func.func @scores_accumulate_into_bias(%q: tensor<2x3x4xf32>, %k: tensor<2x5x4xf32>,
                                       %v: tensor<2x5x6xf32>, %bias: tensor<2x3x5xf32>)
    -> tensor<2x3x6xf32> {
  %s = linalg.batch_matmul
      indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>,
                       affine_map<(b, m, n, k) -> (b, n, k)>,
                       affine_map<(b, m, n, k) -> (b, m, n)>]
      ins(%q, %k : tensor<2x3x4xf32>, tensor<2x5x4xf32>)
      outs(%bias : tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %e = tensor.empty() : tensor<2x3x5xf32>
  %w = linalg.softmax dimension(2) ins(%s : tensor<2x3x5xf32>)
      outs(%e : tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %o = tfm.batch_matmul %w, %v
      : (tensor<2x3x5xf32>, tensor<2x5x6xf32>) -> tensor<2x3x6xf32>
  return %o : tensor<2x3x6xf32>
}

// -----

// A reshape that splits the queries (6 = 2 x 3) is not a reshape of batch
// dimensions.

// CHECK-LABEL: func.func @reshape_splits_queries
// CHECK:         tensor.expand_shape
// CHECK:         linalg.softmax
// CHECK-NOT:     tfm.attention
func.func @reshape_splits_queries(%q: tensor<2x6x4xf32>, %k: tensor<2x5x4xf32>,
                                  %v: tensor<2x2x5x6xf32>) -> tensor<2x2x3x6xf32> {
  %s = tfm.batch_matmul %q, %k {transpose_rhs}
      : (tensor<2x6x4xf32>, tensor<2x5x4xf32>) -> tensor<2x6x5xf32>
  %s4 = tensor.expand_shape %s [[0], [1, 2], [3]] output_shape [2, 2, 3, 5]
      : tensor<2x6x5xf32> into tensor<2x2x3x5xf32>
  %e = tensor.empty() : tensor<2x2x3x5xf32>
  %w = linalg.softmax dimension(3) ins(%s4 : tensor<2x2x3x5xf32>)
      outs(%e : tensor<2x2x3x5xf32>) -> tensor<2x2x3x5xf32>
  %o = tfm.batch_matmul %w, %v
      : (tensor<2x2x3x5xf32>, tensor<2x2x5x6xf32>) -> tensor<2x2x3x6xf32>
  return %o : tensor<2x2x3x6xf32>
}

// -----

// f16 Q and K with f32 scores (an upstream matmul accumulating in f32):
// tfm.attention has one element type.

// CHECK-LABEL: func.func @mixed_element_types
// CHECK:         linalg.batch_matmul
// CHECK:         linalg.softmax
// CHECK-NOT:     tfm.attention
func.func @mixed_element_types(%q: tensor<2x3x4xf16>, %k: tensor<2x5x4xf16>,
                               %v: tensor<2x5x6xf32>) -> tensor<2x3x6xf32> {
  %z = arith.constant dense<0.0> : tensor<2x3x5xf32>
  %s = linalg.batch_matmul
      indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>,
                       affine_map<(b, m, n, k) -> (b, n, k)>,
                       affine_map<(b, m, n, k) -> (b, m, n)>]
      ins(%q, %k : tensor<2x3x4xf16>, tensor<2x5x4xf16>)
      outs(%z : tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %e = tensor.empty() : tensor<2x3x5xf32>
  %w = linalg.softmax dimension(2) ins(%s : tensor<2x3x5xf32>)
      outs(%e : tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %o = tfm.batch_matmul %w, %v
      : (tensor<2x3x5xf32>, tensor<2x5x6xf32>) -> tensor<2x3x6xf32>
  return %o : tensor<2x3x6xf32>
}

// -----

// A mask with batch dimensions of its own in a layout with a dynamic batch:
// Q, K and V ([?, S, D]) cannot be split to the mask's [?, 2].

// CHECK-LABEL: func.func @dynamic_batch_regroup
// CHECK:         tensor.expand_shape
// CHECK:         tensor.collapse_shape
// CHECK-NOT:     tfm.attention
func.func @dynamic_batch_regroup(%q: tensor<?x4x8xf32>, %k: tensor<?x4x8xf32>,
                                 %v: tensor<?x4x8xf32>, %m: tensor<?x2x4x4xf32>,
                                 %b: index) -> tensor<?x4x8xf32> {
  %s = tfm.batch_matmul %q, %k {transpose_rhs}
      : (tensor<?x4x8xf32>, tensor<?x4x8xf32>) -> tensor<?x4x4xf32>
  %s4 = tensor.expand_shape %s [[0, 1], [2], [3]] output_shape [%b, 2, 4, 4]
      : tensor<?x4x4xf32> into tensor<?x2x4x4xf32>
  %masked = arith.addf %s4, %m : tensor<?x2x4x4xf32>
  %s3 = tensor.collapse_shape %masked [[0, 1], [2], [3]]
      : tensor<?x2x4x4xf32> into tensor<?x4x4xf32>
  %w = tfm.masked_softmax %s3 : (tensor<?x4x4xf32>) -> tensor<?x4x4xf32>
  %o = tfm.batch_matmul %w, %v
      : (tensor<?x4x4xf32>, tensor<?x4x8xf32>) -> tensor<?x4x8xf32>
  return %o : tensor<?x4x8xf32>
}

// -----

// Q·Kᵀ with K shared by the whole batch (a broadcasting indexing map): not
// a form of tfm.attention, whose K has the batch dimensions of Q.

// CHECK-LABEL: func.func @key_broadcast_by_map
// CHECK:         linalg.batch_matmul
// CHECK-NOT:     tfm.attention
func.func @key_broadcast_by_map(%q: tensor<2x3x4xf32>, %kt: tensor<4x5xf32>,
                                %v: tensor<2x5x6xf32>) -> tensor<2x3x6xf32> {
  %z = arith.constant dense<0.0> : tensor<2x3x5xf32>
  %s = linalg.batch_matmul
      indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>,
                       affine_map<(b, m, n, k) -> (k, n)>,
                       affine_map<(b, m, n, k) -> (b, m, n)>]
      ins(%q, %kt : tensor<2x3x4xf32>, tensor<4x5xf32>)
      outs(%z : tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %w = tfm.masked_softmax %s : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %o = tfm.batch_matmul %w, %v
      : (tensor<2x3x5xf32>, tensor<2x5x6xf32>) -> tensor<2x3x6xf32>
  return %o : tensor<2x3x6xf32>
}

// -----

// Not candidates at all: a softmax of an argument times V (no Q·Kᵀ), and
// the transposed weights times V.

// CHECK-LABEL: func.func @not_candidates
// CHECK:         tfm.masked_softmax
// CHECK:         tfm.batch_matmul
// CHECK:         tfm.batch_matmul
// CHECK:         tfm.masked_softmax
// CHECK:         linalg.batch_matmul
// CHECK-NOT:     tfm.attention
func.func @not_candidates(%x: tensor<2x3x5xf32>, %q: tensor<2x3x4xf32>,
                          %k: tensor<2x5x4xf32>, %v: tensor<2x5x6xf32>,
                          %v3: tensor<2x3x6xf32>)
    -> (tensor<2x3x6xf32>, tensor<2x5x6xf32>) {
  %w1 = tfm.masked_softmax %x : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %o1 = tfm.batch_matmul %w1, %v
      : (tensor<2x3x5xf32>, tensor<2x5x6xf32>) -> tensor<2x3x6xf32>
  %s = tfm.batch_matmul %q, %k {transpose_rhs}
      : (tensor<2x3x4xf32>, tensor<2x5x4xf32>) -> tensor<2x3x5xf32>
  %w2 = tfm.masked_softmax %s : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %z = arith.constant dense<0.0> : tensor<2x5x6xf32>
  %o2 = linalg.batch_matmul
      indexing_maps = [affine_map<(b, m, n, k) -> (b, k, m)>,
                       affine_map<(b, m, n, k) -> (b, k, n)>,
                       affine_map<(b, m, n, k) -> (b, m, n)>]
      ins(%w2, %v3 : tensor<2x3x5xf32>, tensor<2x3x6xf32>)
      outs(%z : tensor<2x5x6xf32>) -> tensor<2x5x6xf32>
  return %o1, %o2 : tensor<2x3x6xf32>, tensor<2x5x6xf32>
}
