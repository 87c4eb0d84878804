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
