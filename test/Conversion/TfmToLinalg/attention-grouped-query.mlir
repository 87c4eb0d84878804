// RUN: tfm-opt %s --convert-tfm-to-linalg=decode-path -canonicalize -split-input-file | FileCheck %s

// Grouped-query attention: 8 query heads share 2 key/value heads. The
// attention runs on the key/value heads, with the 4 query heads of each
// group interleaved as rows ([1, 2, 5 * 4, 16]): the keys and values are
// collapsed as they are, never repeated, and the online attention's causal
// mask compares the rows' positions (row / 4). The result is laid back out
// as [1, 8, 5, 16].
// CHECK-LABEL: func.func @prefill(
//  CHECK-SAME:   %[[Q:[^:]*]]: tensor<1x8x5x16xf32>, %[[K:[^:]*]]: tensor<1x2x5x16xf32>, %[[V:[^:]*]]: tensor<1x2x5x16xf32>)
//       CHECK:   %[[QE:.*]] = tensor.expand_shape %[[Q]] {{\[}}[0], [1, 2], [3], [4]] output_shape [1, 2, 4, 5, 16]
//       CHECK:   %[[QT:.*]] = linalg.generic {{.*}} ins(%[[QE]] : tensor<1x2x4x5x16xf32>) outs(%{{.*}} : tensor<1x2x5x4x16xf32>)
//       CHECK:   %[[QR:.*]] = tensor.collapse_shape %[[QT]] {{\[}}[0, 1], [2, 3], [4]] : tensor<1x2x5x4x16xf32> into tensor<2x20x16xf32>
//       CHECK:   %[[K3:.*]] = tensor.collapse_shape %[[K]] {{\[}}[0, 1], [2], [3]] : tensor<1x2x5x16xf32> into tensor<2x5x16xf32>
//       CHECK:   %[[V3:.*]] = tensor.collapse_shape %[[V]] {{\[}}[0, 1], [2], [3]] : tensor<1x2x5x16xf32> into tensor<2x5x16xf32>
//       CHECK:   %[[KT:.*]] = linalg.transpose ins(%[[K3]] : tensor<2x5x16xf32>)
//       CHECK:   tfm.online_attention %[[QR]], %[[KT]], %[[V3]] {causal, query_group = 4 : i64}
//  CHECK-SAME:     : tensor<2x20x16xf32>, tensor<2x16x5xf32>, tensor<2x5x16xf32>
//       CHECK:   tensor.expand_shape %{{.*}} {{\[}}[0, 1], [2, 3], [4]] output_shape [1, 2, 5, 4, 16]
//       CHECK:   linalg.generic {{.*}} outs(%{{.*}} : tensor<1x2x4x5x16xf32>)
//       CHECK:   tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2], [3], [4]] : tensor<1x2x4x5x16xf32> into tensor<1x8x5x16xf32>
func.func @prefill(%q: tensor<1x8x5x16xf32>, %k: tensor<1x2x5x16xf32>, %v: tensor<1x2x5x16xf32>) -> tensor<1x8x5x16xf32> {
  %0 = tfm.attention %q, %k, %v {causal} : (tensor<1x8x5x16xf32>, tensor<1x2x5x16xf32>, tensor<1x2x5x16xf32>) -> tensor<1x8x5x16xf32>
  return %0 : tensor<1x8x5x16xf32>
}

// -----

// A decoding step: the one position's 4 query heads of a group are already
// rows ([2, 4, 16], a reshape, no copy), one matrix of scores per
// key/value head reads the cache once for its group, the causal mask
// compares (row + offset · 4) / 4 with the key, and the values are read once
// by a batch_matmul of 4 rows; each key/value head's attention is one
// iteration of an scf.forall.
// CHECK-LABEL: func.func @decode(
//  CHECK-SAME:   %[[Q:[^:]*]]: tensor<1x8x1x16xf32>, %[[K:[^:]*]]: tensor<1x2x?x16xf32>, %[[V:[^:]*]]: tensor<1x2x?x16xf32>, %[[P:[^:]*]]: index)
//   CHECK-NOT:   linalg.transpose
//       CHECK:   %[[QE:.*]] = tensor.expand_shape %[[Q]] {{\[}}[0], [1, 2], [3], [4]] output_shape [1, 2, 4, 1, 16]
//       CHECK:   %[[ROWS:.*]] = arith.muli %[[P]], %c4
//       CHECK:   %[[QR:.*]] = tensor.collapse_shape %[[QE]] {{\[}}[0, 1], [2, 3], [4]] : tensor<1x2x4x1x16xf32> into tensor<2x4x16xf32>
//       CHECK:   %[[K3:.*]] = tensor.collapse_shape %[[K]]
//       CHECK:   %[[V3:.*]] = tensor.collapse_shape %[[V]]
//       CHECK:   %[[ALL:.*]] = scf.forall (%[[H:.*]]) in (2)
//       CHECK:     %[[QH:.*]] = tensor.extract_slice %[[QR]][%[[H]], 0, 0] [1, 4, 16]
//       CHECK:     %[[KH:.*]] = tensor.extract_slice %[[K3]][%[[H]], 0, 0]
//       CHECK:     %[[VH:.*]] = tensor.extract_slice %[[V3]][%[[H]], 0, 0]
//       CHECK:     linalg.generic {{.*}} ins(%[[QH]], %[[KH]] : tensor<1x4x16xf32>, tensor<1x?x16xf32>)
//       CHECK:     linalg.generic
//       CHECK:       %[[ROW:.*]] = linalg.index 1
//       CHECK:       %[[KEY:.*]] = linalg.index 2
//       CHECK:       %[[R:.*]] = arith.addi %[[ROW]], %[[ROWS]]
//       CHECK:       %[[POS:.*]] = arith.divui %[[R]], %c4
//       CHECK:       arith.cmpi sgt, %[[KEY]], %[[POS]]
//       CHECK:     linalg.batch_matmul ins(%{{.*}}, %[[VH]] : tensor<1x4x?xf32>, tensor<1x?x16xf32>)
//       CHECK:   %[[OUT:.*]] = tensor.expand_shape %[[ALL]] {{\[}}[0, 1], [2, 3], [4]] output_shape [1, 2, 4, 1, 16]
//       CHECK:   tensor.collapse_shape %[[OUT]] {{\[}}[0], [1, 2], [3], [4]] : tensor<1x2x4x1x16xf32> into tensor<1x8x1x16xf32>
//   CHECK-NOT:   tfm.online_attention
func.func @decode(%q: tensor<1x8x1x16xf32>, %k: tensor<1x2x?x16xf32>, %v: tensor<1x2x?x16xf32>, %p: index) -> tensor<1x8x1x16xf32> {
  %0 = tfm.attention %q, %k, %v query_offset(%p) {causal} : (tensor<1x8x1x16xf32>, tensor<1x2x?x16xf32>, tensor<1x2x?x16xf32>, index) -> tensor<1x8x1x16xf32>
  return %0 : tensor<1x8x1x16xf32>
}
