// RUN: tfm-opt %s --tfm-fold-reshapes-into-transposes --split-input-file | FileCheck %s

// PyTorch's split into heads: a slice of the packed projection, [seq,
// batch, 32] with rows 96 apart, reshaped to [seq, 4 * batch, 8] and
// transposed to [4 * batch, seq, 8]. The transpose runs over the refined
// [seq, batch, 4, 8] (an expand_shape of the slice: free) and its fresh
// result is collapsed: no collapse of the strided slice is left to copy.

// CHECK-LABEL: func.func @split_heads
//  CHECK-SAME:   (%[[QKV:.*]]: tensor<?x?x96xf32>)
//       CHECK:   %[[Q:.*]] = tensor.extract_slice %[[QKV]]
//   CHECK-NOT:   tensor.collapse_shape %[[Q]]
//       CHECK:   %[[REFINED:.*]] = tensor.expand_shape %[[Q]] {{\[}}[0], [1], [2, 3]] output_shape [%{{.*}}, %{{.*}}, 4, 8] : tensor<?x?x32xf32> into tensor<?x?x4x8xf32>
//       CHECK:   %[[T:.*]] = linalg.transpose ins(%[[REFINED]] : tensor<?x?x4x8xf32>) outs(%{{.*}} : tensor<?x4x?x8xf32>) permutation = [1, 2, 0, 3]
//       CHECK:   %[[HEADS:.*]] = tensor.collapse_shape %[[T]] {{\[}}[0, 1], [2], [3]] : tensor<?x4x?x8xf32> into tensor<?x?x8xf32>
//       CHECK:   return %[[HEADS]]
func.func @split_heads(%qkv: tensor<?x?x96xf32>) -> tensor<?x?x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %s = tensor.dim %qkv, %c0 : tensor<?x?x96xf32>
  %b = tensor.dim %qkv, %c1 : tensor<?x?x96xf32>
  %q = tensor.extract_slice %qkv[0, 0, 0] [%s, %b, 32] [1, 1, 1] : tensor<?x?x96xf32> to tensor<?x?x32xf32>
  %rows = tensor.collapse_shape %q [[0], [1, 2]] : tensor<?x?x32xf32> into tensor<?x?xf32>
  %bh = arith.muli %b, %c4 : index
  %heads = tensor.expand_shape %rows [[0], [1, 2]] output_shape [%s, %bh, 8] : tensor<?x?xf32> into tensor<?x?x8xf32>
  %init = tensor.empty(%bh, %s) : tensor<?x?x8xf32>
  %t = linalg.transpose ins(%heads : tensor<?x?x8xf32>) outs(%init : tensor<?x?x8xf32>) permutation = [1, 0, 2]
  return %t : tensor<?x?x8xf32>
}

// -----

// A reshape whose groups do not refine ([4, 6] -> [3, 8]: 8 does not
// divide 6) is left alone.

// CHECK-LABEL: func.func @no_refinement
//       CHECK:   tensor.collapse_shape
//       CHECK:   tensor.expand_shape
//       CHECK:   linalg.transpose {{.*}} permutation = [1, 0]
func.func @no_refinement(%x: tensor<4x6xf32>) -> tensor<8x3xf32> {
  %flat = tensor.collapse_shape %x [[0, 1]] : tensor<4x6xf32> into tensor<24xf32>
  %y = tensor.expand_shape %flat [[0, 1]] output_shape [3, 8] : tensor<24xf32> into tensor<3x8xf32>
  %init = tensor.empty() : tensor<8x3xf32>
  %t = linalg.transpose ins(%y : tensor<3x8xf32>) outs(%init : tensor<8x3xf32>) permutation = [1, 0]
  return %t : tensor<8x3xf32>
}

// -----

// Moving only a dimension of size 1 (nn.MultiheadAttention's [S, 1, D] back
// to [1, S, D]) is a reshape: no transpose, no copy.

// CHECK-LABEL: func.func @unit_dim
//  CHECK-SAME:     (%[[X:[a-z0-9]+]]: tensor<197x1x192xf32>)
//       CHECK:   %[[FLAT:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0], [1, 2]] : tensor<197x1x192xf32> into tensor<197x192xf32>
//       CHECK:   %[[Y:.*]] = tensor.expand_shape %[[FLAT]] {{\[}}[0, 1], [2]] output_shape [1, 197, 192] : tensor<197x192xf32> into tensor<1x197x192xf32>
//   CHECK-NOT:   linalg.transpose
//       CHECK:   return %[[Y]]
func.func @unit_dim(%x: tensor<197x1x192xf32>) -> tensor<1x197x192xf32> {
  %init = tensor.empty() : tensor<1x197x192xf32>
  %t = linalg.transpose ins(%x : tensor<197x1x192xf32>) outs(%init : tensor<1x197x192xf32>) permutation = [1, 0, 2]
  return %t : tensor<1x197x192xf32>
}

// -----

// The same with a dynamic sequence: its size comes from the input.

// CHECK-LABEL: func.func @unit_dim_dynamic
//  CHECK-SAME:     (%[[X:[a-z0-9]+]]: tensor<1x?x8xf32>)
//       CHECK:   %[[FLAT:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1], [2]]
//       CHECK:   %[[S:.*]] = tensor.dim %[[X]], %c1
//       CHECK:   tensor.expand_shape %[[FLAT]] {{\[}}[0], [1, 2]] output_shape [%[[S]], 1, 8] : tensor<?x8xf32> into tensor<?x1x8xf32>
//   CHECK-NOT:   linalg.transpose
func.func @unit_dim_dynamic(%x: tensor<1x?x8xf32>) -> tensor<?x1x8xf32> {
  %c1 = arith.constant 1 : index
  %s = tensor.dim %x, %c1 : tensor<1x?x8xf32>
  %init = tensor.empty(%s) : tensor<?x1x8xf32>
  %t = linalg.transpose ins(%x : tensor<1x?x8xf32>) outs(%init : tensor<?x1x8xf32>) permutation = [1, 0, 2]
  return %t : tensor<?x1x8xf32>
}

// -----

// A transpose that also swaps two dimensions of size > 1 moves elements:
// left alone.

// CHECK-LABEL: func.func @unit_and_swap
//       CHECK:   linalg.transpose {{.*}} permutation = [2, 0, 1]
func.func @unit_and_swap(%x: tensor<1x4x6xf32>) -> tensor<6x1x4xf32> {
  %init = tensor.empty() : tensor<6x1x4xf32>
  %t = linalg.transpose ins(%x : tensor<1x4x6xf32>) outs(%init : tensor<6x1x4xf32>) permutation = [2, 0, 1]
  return %t : tensor<6x1x4xf32>
}
