// RUN: tfm-opt %s --convert-tfm-to-linalg -split-input-file | FileCheck %s

// tfm.attention lowers to tfm.online_attention, the structured op that code
// generation tiles, and the division acc / sum. K is transposed once; the
// state starts at acc = 0, max = -inf, sum = 0.

// CHECK-LABEL: func.func @attention
//  CHECK-SAME:   %[[Q:.*]]: tensor<2x7x8xf32>, %[[K:.*]]: tensor<2x6x8xf32>, %[[V:.*]]: tensor<2x6x3xf32>
//       CHECK:   %[[KT:.*]] = linalg.transpose ins(%[[K]] : tensor<2x6x8xf32>) outs(%{{.*}} : tensor<2x8x6xf32>) permutation = [0, 2, 1]
//       CHECK:   %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
//       CHECK:   %[[ACC:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<2x7x3xf32>)
//       CHECK:   %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
//       CHECK:   %[[MAX:.*]] = linalg.fill ins(%[[NEGINF]] : f32) outs(%{{.*}} : tensor<2x7xf32>)
//       CHECK:   %[[SUM:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2x7xf32>)
//       CHECK:   %[[RACC:.*]], %{{.*}}, %[[RSUM:.*]] = tfm.online_attention %[[Q]], %[[KT]], %[[V]] outs(%[[ACC]], %[[MAX]], %[[SUM]] :
//       CHECK:   %[[OUT:.*]] = linalg.generic {{.*}} ins(%[[RACC]], %[[RSUM]] : tensor<2x7x3xf32>, tensor<2x7xf32>)
//       CHECK:     arith.divf
//       CHECK:   return %[[OUT]]
func.func @attention(%q: tensor<2x7x8xf32>, %k: tensor<2x6x8xf32>, %v: tensor<2x6x3xf32>) -> tensor<2x7x3xf32> {
  %0 = tfm.attention %q, %k, %v : (tensor<2x7x8xf32>, tensor<2x6x8xf32>, tensor<2x6x3xf32>) -> tensor<2x7x3xf32>
  return %0 : tensor<2x7x3xf32>
}

// -----

// The masks and the scale pass through; a [Sq, Sk] mask gets a unit batch
// dimension (shared by every batch) rather than a copy per batch.

// CHECK-LABEL: func.func @attention_masks
//  CHECK-SAME:   %[[LENS:[a-z0-9]*]]: tensor<2xi32>, %[[MASK:[a-z0-9]*]]: tensor<7x7xf32>
//       CHECK:   %[[MASK3:.*]] = tensor.expand_shape %[[MASK]] {{\[}}[0, 1], [2]] output_shape [1, 7, 7] : tensor<7x7xf32> into tensor<1x7x7xf32>
//       CHECK:   tfm.online_attention %{{.*}}, %{{.*}}, %{{.*}} valid_lens(%[[LENS]] : tensor<2xi32>) mask(%[[MASK3]] : tensor<1x7x7xf32>) {causal, scale = 5.000000e-01 : f64}
func.func @attention_masks(%q: tensor<2x7x8xf32>, %k: tensor<2x7x8xf32>, %v: tensor<2x7x3xf32>, %lens: tensor<2xi32>, %mask: tensor<7x7xf32>) -> tensor<2x7x3xf32> {
  %0 = tfm.attention %q, %k, %v valid_lens(%lens) mask(%mask) {causal, scale = 0.5 : f64} : (tensor<2x7x8xf32>, tensor<2x7x8xf32>, tensor<2x7x3xf32>, tensor<2xi32>, tensor<7x7xf32>) -> tensor<2x7x3xf32>
  return %0 : tensor<2x7x3xf32>
}

// -----

// Rank 2 (no batch): a unit batch dimension, dropped again at the end.

// CHECK-LABEL: func.func @attention_rank2
//       CHECK:   tensor.expand_shape %{{.*}} {{\[}}[0, 1], [2]] output_shape [1, 7, 8] : tensor<7x8xf32> into tensor<1x7x8xf32>
//       CHECK:   tfm.online_attention {{.*}} : tensor<1x7x8xf32>, tensor<1x8x6xf32>, tensor<1x6x3xf32>
//       CHECK:   tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2]] : tensor<1x7x3xf32> into tensor<7x3xf32>
func.func @attention_rank2(%q: tensor<7x8xf32>, %k: tensor<6x8xf32>, %v: tensor<6x3xf32>) -> tensor<7x3xf32> {
  %0 = tfm.attention %q, %k, %v : (tensor<7x8xf32>, tensor<6x8xf32>, tensor<6x3xf32>) -> tensor<7x3xf32>
  return %0 : tensor<7x3xf32>
}

// -----

// PyTorch's [B, H, S, D] layout: the batch dimensions are collapsed into one.
// A mask shared along H but not B ([B, 1, 1, Sk]) cannot be collapsed with
// them, so it is broadcast to [B, H, Sq, Sk] first.

// CHECK-LABEL: func.func @attention_4d
//  CHECK-SAME:   %[[Q:[a-z0-9]*]]: tensor<2x3x7x8xf32>
//       CHECK:   %[[Q3:.*]] = tensor.collapse_shape %[[Q]] {{\[}}[0, 1], [2], [3]] : tensor<2x3x7x8xf32> into tensor<6x7x8xf32>
//       CHECK:   %[[M:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<2x3x7x5xf32>)
//       CHECK:   %[[M3:.*]] = tensor.collapse_shape %[[M]] {{\[}}[0, 1], [2], [3]] : tensor<2x3x7x5xf32> into tensor<6x7x5xf32>
//       CHECK:   tfm.online_attention %[[Q3]], %{{.*}}, %{{.*}} valid_lens(%{{.*}} : tensor<6xi32>) mask(%[[M3]] : tensor<6x7x5xf32>)
//       CHECK:   %[[OUT:.*]] = linalg.generic
//       CHECK:   %[[RES:.*]] = tensor.expand_shape %[[OUT]] {{\[}}[0, 1], [2], [3]] output_shape [2, 3, 7, 4] : tensor<6x7x4xf32> into tensor<2x3x7x4xf32>
//       CHECK:   return %[[RES]]
func.func @attention_4d(%q: tensor<2x3x7x8xf32>, %k: tensor<2x3x5x8xf32>, %v: tensor<2x3x5x4xf32>, %lens: tensor<2x3xi32>, %mask: tensor<2x1x1x5xf32>) -> tensor<2x3x7x4xf32> {
  %0 = tfm.attention %q, %k, %v valid_lens(%lens) mask(%mask) : (tensor<2x3x7x8xf32>, tensor<2x3x5x8xf32>, tensor<2x3x5x4xf32>, tensor<2x3xi32>, tensor<2x1x1x5xf32>) -> tensor<2x3x7x4xf32>
  return %0 : tensor<2x3x7x4xf32>
}

// -----

// Two dynamic batch dimensions are not collapsed (expanding them back would
// need two dynamic sizes in one group): the online attention keeps both, and
// the mask stays shared along the dimension where it is 1.

// CHECK-LABEL: func.func @attention_dynamic_batches
//   CHECK-NOT:   tensor.collapse_shape
//       CHECK:   tfm.online_attention {{.*}} mask(%{{.*}} : tensor<?x1x7x5xf32>)
//  CHECK-SAME:   : tensor<?x?x7x8xf32>, tensor<?x?x8x5xf32>, tensor<?x?x5x4xf32>
func.func @attention_dynamic_batches(%q: tensor<?x?x7x8xf32>, %k: tensor<?x?x5x8xf32>, %v: tensor<?x?x5x4xf32>, %mask: tensor<?x1x7x5xf32>) -> tensor<?x?x7x4xf32> {
  %0 = tfm.attention %q, %k, %v mask(%mask) : (tensor<?x?x7x8xf32>, tensor<?x?x5x8xf32>, tensor<?x?x5x4xf32>, tensor<?x1x7x5xf32>) -> tensor<?x?x7x4xf32>
  return %0 : tensor<?x?x7x4xf32>
}

// -----

// A dynamic mask dimension may be 1 at run time (numpy broadcasting): the
// mask is broadcast into [1, Sq, Sk] by a generic that reads it with
// tensor.extract at index 0 in that dimension when its size is 1.

// CHECK-LABEL: func.func @attention_dynamic_mask
//  CHECK-SAME:   %[[MASK:[a-z0-9]*]]: tensor<?x6xf32>
//   CHECK-DAG:   %[[ROWS:.*]] = tensor.dim %[[MASK]], %c0
//       CHECK:   %[[BCAST:.*]] = arith.cmpi eq, %[[ROWS]], %{{.*}} : index
//       CHECK:   %[[M:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<1x7x6xf32>)
//       CHECK:     arith.select %[[BCAST]]
//       CHECK:     tensor.extract %[[MASK]]
//       CHECK:   tfm.online_attention {{.*}} mask(%[[M]] : tensor<1x7x6xf32>)
func.func @attention_dynamic_mask(%q: tensor<2x7x8xf32>, %k: tensor<2x6x8xf32>, %v: tensor<2x6x3xf32>, %mask: tensor<?x6xf32>) -> tensor<2x7x3xf32> {
  %0 = tfm.attention %q, %k, %v mask(%mask) : (tensor<2x7x8xf32>, tensor<2x6x8xf32>, tensor<2x6x3xf32>, tensor<?x6xf32>) -> tensor<2x7x3xf32>
  return %0 : tensor<2x7x3xf32>
}

// -----

// f16 attention: the operands stay f16 (the products accumulate in f32), the
// state is f32, and the division rounds to f16 once. A declared result type
// more static than the operands gets a cast.

// CHECK-LABEL: func.func @attention_f16
//       CHECK:   tfm.online_attention {{.*}} : tensor<?x7x8xf16>, tensor<?x8x6xf16>, tensor<?x6x3xf16> -> tensor<?x7x3xf32>, tensor<?x7xf32>, tensor<?x7xf32>
//       CHECK:   %[[OUT:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<?x7x3xf16>)
//       CHECK:     arith.divf
//       CHECK:     arith.truncf
//       CHECK:   %[[CAST:.*]] = tensor.cast %[[OUT]] : tensor<?x7x3xf16> to tensor<2x7x3xf16>
//       CHECK:   return %[[CAST]]
func.func @attention_f16(%q: tensor<?x7x8xf16>, %k: tensor<?x6x8xf16>, %v: tensor<?x6x3xf16>) -> tensor<2x7x3xf16> {
  %0 = tfm.attention %q, %k, %v : (tensor<?x7x8xf16>, tensor<?x6x8xf16>, tensor<?x6x3xf16>) -> tensor<2x7x3xf16>
  return %0 : tensor<2x7x3xf16>
}

// -----

// A causal mask shifted by query_offset: the online attention's queries
// start there among the keys, which start at 0.
// CHECK-LABEL: func.func @attention_query_offset(
//  CHECK-SAME:   %{{.*}}: tensor<4x1x16xf32>, %{{.*}}: tensor<4x?x16xf32>, %{{.*}}: tensor<4x?x16xf32>, %[[P:.*]]: index)
//       CHECK:   %[[C0:.*]] = arith.constant 0 : index
//       CHECK:   tfm.online_attention %{{.*}}, %{{.*}}, %{{.*}} offsets(%[[P]], %[[C0]]) {causal}
func.func @attention_query_offset(%q: tensor<4x1x16xf32>, %k: tensor<4x?x16xf32>, %v: tensor<4x?x16xf32>, %p: index) -> tensor<4x1x16xf32> {
  %r = tfm.attention %q, %k, %v query_offset(%p) {causal} : (tensor<4x1x16xf32>, tensor<4x?x16xf32>, tensor<4x?x16xf32>, index) -> tensor<4x1x16xf32>
  return %r : tensor<4x1x16xf32>
}
