// RUN: tfm-opt %s -split-input-file --tfm-fuse-attention | FileCheck %s

// Hugging Face's repeat_kv in front of an attention, as the ONNX importer
// brings it (Unsqueeze, Expand, Reshape): each of the 2 key/value heads
// broadcast along a new dimension of 4 after the heads, merged into 8
// heads. The fused attention reads the 2 heads as they are: a grouped-query
// attention, and the repeats are erased.

// CHECK-LABEL: func.func @repeat_kv
//  CHECK-SAME:   (%[[Q:.*]]: tensor<1x8x5x16xf32>, %[[K:.*]]: tensor<1x2x5x16xf32>, %[[V:.*]]: tensor<1x2x5x16xf32>)
//   CHECK-NOT:   linalg.broadcast
//       CHECK:   %[[O:.*]] = tfm.attention %[[Q]], %[[K]], %[[V]] {{.*}}: (tensor<1x8x5x16xf32>, tensor<1x2x5x16xf32>, tensor<1x2x5x16xf32>) -> tensor<1x8x5x16xf32>
//   CHECK-NOT:   linalg.broadcast
//       CHECK:   return %[[O]]
func.func @repeat_kv(%q: tensor<1x8x5x16xf32>, %k: tensor<1x2x5x16xf32>, %v: tensor<1x2x5x16xf32>) -> tensor<1x8x5x16xf32> {
  %e = tensor.empty() : tensor<1x2x4x5x16xf32>
  %kb = linalg.broadcast ins(%k : tensor<1x2x5x16xf32>) outs(%e : tensor<1x2x4x5x16xf32>) dimensions = [2]
  %kr = tensor.collapse_shape %kb [[0], [1, 2], [3], [4]] : tensor<1x2x4x5x16xf32> into tensor<1x8x5x16xf32>
  %vb = linalg.broadcast ins(%v : tensor<1x2x5x16xf32>) outs(%e : tensor<1x2x4x5x16xf32>) dimensions = [2]
  %vr = tensor.collapse_shape %vb [[0], [1, 2], [3], [4]] : tensor<1x2x4x5x16xf32> into tensor<1x8x5x16xf32>
  %s = tfm.batch_matmul %q, %kr {transpose_rhs} : (tensor<1x8x5x16xf32>, tensor<1x8x5x16xf32>) -> tensor<1x8x5x5xf32>
  %c = arith.constant dense<0.25> : tensor<1x8x5x5xf32>
  %ss = arith.mulf %s, %c : tensor<1x8x5x5xf32>
  %init = tensor.empty() : tensor<1x8x5x5xf32>
  %p = linalg.softmax dimension(3) ins(%ss : tensor<1x8x5x5xf32>) outs(%init : tensor<1x8x5x5xf32>) -> tensor<1x8x5x5xf32>
  %o = tfm.batch_matmul %p, %vr : (tensor<1x8x5x5xf32>, tensor<1x8x5x16xf32>) -> tensor<1x8x5x16xf32>
  return %o : tensor<1x8x5x16xf32>
}

// -----

// An attention written in tfm IR on repeated heads, with a cache's dynamic
// length: the same fold.

// CHECK-LABEL: func.func @repeated_cache
//  CHECK-SAME:   (%[[Q:.*]]: tensor<?x8x1x16xf32>, %[[K:.*]]: tensor<?x2x?x16xf32>, %[[V:.*]]: tensor<?x2x?x16xf32>, %[[P:.*]]: index)
//       CHECK:   tfm.attention %[[Q]], %[[K]], %[[V]] query_offset(%[[P]]) {causal} : (tensor<?x8x1x16xf32>, tensor<?x2x?x16xf32>, tensor<?x2x?x16xf32>, index)
func.func @repeated_cache(%q: tensor<?x8x1x16xf32>, %k: tensor<?x2x?x16xf32>, %v: tensor<?x2x?x16xf32>, %p: index) -> tensor<?x8x1x16xf32> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %b = tensor.dim %k, %c0 : tensor<?x2x?x16xf32>
  %n = tensor.dim %k, %c2 : tensor<?x2x?x16xf32>
  %e = tensor.empty(%b, %n) : tensor<?x2x4x?x16xf32>
  %kb = linalg.broadcast ins(%k : tensor<?x2x?x16xf32>) outs(%e : tensor<?x2x4x?x16xf32>) dimensions = [2]
  %kr = tensor.collapse_shape %kb [[0], [1, 2], [3], [4]] : tensor<?x2x4x?x16xf32> into tensor<?x8x?x16xf32>
  %vb = linalg.broadcast ins(%v : tensor<?x2x?x16xf32>) outs(%e : tensor<?x2x4x?x16xf32>) dimensions = [2]
  %vr = tensor.collapse_shape %vb [[0], [1, 2], [3], [4]] : tensor<?x2x4x?x16xf32> into tensor<?x8x?x16xf32>
  %o = tfm.attention %q, %kr, %vr query_offset(%p) {causal} : (tensor<?x8x1x16xf32>, tensor<?x8x?x16xf32>, tensor<?x8x?x16xf32>, index) -> tensor<?x8x1x16xf32>
  return %o : tensor<?x8x1x16xf32>
}

// -----

// Not grouped-query attention, left as they are:
// - @tiled: the heads repeated as a whole (torch's repeat: head h reads
//   key/value head h mod 2), a new dimension before the heads;
// - @keys_only: the keys repeated, the values not;
// - @different_groups: keys repeated 4 times from 2 heads, values twice
//   from 4.

// CHECK-LABEL: func.func @tiled
//       CHECK:   %[[KR:.*]] = tensor.collapse_shape
//       CHECK:   %[[VR:.*]] = tensor.collapse_shape
//       CHECK:   tfm.attention %{{.*}}, %[[KR]], %[[VR]]
func.func @tiled(%q: tensor<1x8x5x16xf32>, %k: tensor<1x2x5x16xf32>, %v: tensor<1x2x5x16xf32>) -> tensor<1x8x5x16xf32> {
  %e = tensor.empty() : tensor<1x4x2x5x16xf32>
  %kb = linalg.broadcast ins(%k : tensor<1x2x5x16xf32>) outs(%e : tensor<1x4x2x5x16xf32>) dimensions = [1]
  %kr = tensor.collapse_shape %kb [[0], [1, 2], [3], [4]] : tensor<1x4x2x5x16xf32> into tensor<1x8x5x16xf32>
  %vb = linalg.broadcast ins(%v : tensor<1x2x5x16xf32>) outs(%e : tensor<1x4x2x5x16xf32>) dimensions = [1]
  %vr = tensor.collapse_shape %vb [[0], [1, 2], [3], [4]] : tensor<1x4x2x5x16xf32> into tensor<1x8x5x16xf32>
  %o = tfm.attention %q, %kr, %vr : (tensor<1x8x5x16xf32>, tensor<1x8x5x16xf32>, tensor<1x8x5x16xf32>) -> tensor<1x8x5x16xf32>
  return %o : tensor<1x8x5x16xf32>
}

// CHECK-LABEL: func.func @keys_only
//       CHECK:   %[[KR:.*]] = tensor.collapse_shape
//       CHECK:   tfm.attention %{{.*}}, %[[KR]], %{{.*}} : (tensor<1x8x5x16xf32>, tensor<1x8x5x16xf32>, tensor<1x8x5x16xf32>)
func.func @keys_only(%q: tensor<1x8x5x16xf32>, %k: tensor<1x2x5x16xf32>, %v: tensor<1x8x5x16xf32>) -> tensor<1x8x5x16xf32> {
  %e = tensor.empty() : tensor<1x2x4x5x16xf32>
  %kb = linalg.broadcast ins(%k : tensor<1x2x5x16xf32>) outs(%e : tensor<1x2x4x5x16xf32>) dimensions = [2]
  %kr = tensor.collapse_shape %kb [[0], [1, 2], [3], [4]] : tensor<1x2x4x5x16xf32> into tensor<1x8x5x16xf32>
  %o = tfm.attention %q, %kr, %v : (tensor<1x8x5x16xf32>, tensor<1x8x5x16xf32>, tensor<1x8x5x16xf32>) -> tensor<1x8x5x16xf32>
  return %o : tensor<1x8x5x16xf32>
}

// CHECK-LABEL: func.func @different_groups
//       CHECK:   %[[KR:.*]] = tensor.collapse_shape
//       CHECK:   %[[VR:.*]] = tensor.collapse_shape
//       CHECK:   tfm.attention %{{.*}}, %[[KR]], %[[VR]]
func.func @different_groups(%q: tensor<1x8x5x16xf32>, %k: tensor<1x2x5x16xf32>, %v: tensor<1x4x5x16xf32>) -> tensor<1x8x5x16xf32> {
  %e = tensor.empty() : tensor<1x2x4x5x16xf32>
  %kb = linalg.broadcast ins(%k : tensor<1x2x5x16xf32>) outs(%e : tensor<1x2x4x5x16xf32>) dimensions = [2]
  %kr = tensor.collapse_shape %kb [[0], [1, 2], [3], [4]] : tensor<1x2x4x5x16xf32> into tensor<1x8x5x16xf32>
  %e2 = tensor.empty() : tensor<1x4x2x5x16xf32>
  %vb = linalg.broadcast ins(%v : tensor<1x4x5x16xf32>) outs(%e2 : tensor<1x4x2x5x16xf32>) dimensions = [2]
  %vr = tensor.collapse_shape %vb [[0], [1, 2], [3], [4]] : tensor<1x4x2x5x16xf32> into tensor<1x8x5x16xf32>
  %o = tfm.attention %q, %kr, %vr : (tensor<1x8x5x16xf32>, tensor<1x8x5x16xf32>, tensor<1x8x5x16xf32>) -> tensor<1x8x5x16xf32>
  return %o : tensor<1x8x5x16xf32>
}
