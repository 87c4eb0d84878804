// RUN: tfm-opt %s --convert-tfm-to-linalg -split-input-file | FileCheck %s

// batch_matmul accumulates into a zero-filled tensor.

// CHECK-LABEL: func.func @batch_matmul
//  CHECK-SAME:   %[[LHS:.*]]: tensor<2x7x5xf32>, %[[RHS:.*]]: tensor<2x5x3xf32>
//       CHECK:   %[[EMPTY:.*]] = tensor.empty() : tensor<2x7x3xf32>
//       CHECK:   %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
//       CHECK:   %[[FILL:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[EMPTY]] : tensor<2x7x3xf32>)
//       CHECK:   %[[MM:.*]] = linalg.batch_matmul ins(%[[LHS]], %[[RHS]] : tensor<2x7x5xf32>, tensor<2x5x3xf32>) outs(%[[FILL]] : tensor<2x7x3xf32>)
//       CHECK:   return %[[MM]]
func.func @batch_matmul(%lhs: tensor<2x7x5xf32>, %rhs: tensor<2x5x3xf32>) -> tensor<2x7x3xf32> {
  %0 = tfm.batch_matmul %lhs, %rhs : (tensor<2x7x5xf32>, tensor<2x5x3xf32>) -> tensor<2x7x3xf32>
  return %0 : tensor<2x7x3xf32>
}

// -----

// transpose_rhs transposes the right operand once, so that the product
// reads it by rows (what the CPU micro-kernel needs).

// CHECK-LABEL: func.func @batch_matmul_transpose_rhs
//  CHECK-SAME:   %{{.*}}: tensor<2x7x5xf32>, %[[RHS:.*]]: tensor<2x3x5xf32>
//       CHECK:   %[[T:.*]] = linalg.transpose ins(%[[RHS]] : tensor<2x3x5xf32>) outs(%{{.*}} : tensor<2x5x3xf32>) permutation = [0, 2, 1]
//       CHECK:   linalg.batch_matmul ins(%{{.*}}, %[[T]] : tensor<2x7x5xf32>, tensor<2x5x3xf32>)
func.func @batch_matmul_transpose_rhs(%lhs: tensor<2x7x5xf32>, %rhs: tensor<2x3x5xf32>) -> tensor<2x7x3xf32> {
  %0 = tfm.batch_matmul %lhs, %rhs {transpose_rhs} : (tensor<2x7x5xf32>, tensor<2x3x5xf32>) -> tensor<2x7x3xf32>
  return %0 : tensor<2x7x3xf32>
}

// -----

// f16 operands accumulate in f32; the result is truncated once.

// CHECK-LABEL: func.func @batch_matmul_f16
//       CHECK:   %[[FILL:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2x7x3xf32>)
//       CHECK:   %[[MM:.*]] = linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<2x7x5xf16>, tensor<2x5x3xf16>) outs(%[[FILL]] : tensor<2x7x3xf32>)
//       CHECK:   %[[TRUNC:.*]] = linalg.generic {{.*}} ins(%[[MM]] : tensor<2x7x3xf32>) outs(%{{.*}} : tensor<2x7x3xf16>)
//       CHECK:     arith.truncf %{{.*}} : f32 to f16
//       CHECK:   return %[[TRUNC]]
func.func @batch_matmul_f16(%lhs: tensor<2x7x5xf16>, %rhs: tensor<2x5x3xf16>) -> tensor<2x7x3xf16> {
  %0 = tfm.batch_matmul %lhs, %rhs : (tensor<2x7x5xf16>, tensor<2x5x3xf16>) -> tensor<2x7x3xf16>
  return %0 : tensor<2x7x3xf16>
}

// -----

// More than one batch dimension: collapsed into one around the named op,
// with the dynamic sizes taken from the operands.

// CHECK-LABEL: func.func @batch_matmul_4d_dynamic
//  CHECK-SAME:   %[[LHS:.*]]: tensor<?x3x?x5xf32>, %[[RHS:.*]]: tensor<?x3x5x?xf32>
//   CHECK-DAG:   %[[B:.*]] = tensor.dim %[[LHS]], %c0
//   CHECK-DAG:   %[[M:.*]] = tensor.dim %[[LHS]], %c2
//   CHECK-DAG:   %[[N:.*]] = tensor.dim %[[RHS]], %c3
//   CHECK-DAG:   %[[L3:.*]] = tensor.collapse_shape %[[LHS]] {{\[}}[0, 1], [2], [3]] : tensor<?x3x?x5xf32> into tensor<?x?x5xf32>
//   CHECK-DAG:   %[[R3:.*]] = tensor.collapse_shape %[[RHS]] {{\[}}[0, 1], [2], [3]] : tensor<?x3x5x?xf32> into tensor<?x5x?xf32>
//       CHECK:   %[[MM:.*]] = linalg.batch_matmul ins(%[[L3]], %[[R3]] : {{.*}}) outs(%{{.*}} : tensor<?x?x?xf32>)
//       CHECK:   %[[RES:.*]] = tensor.expand_shape %[[MM]] {{\[}}[0, 1], [2], [3]] output_shape [%[[B]], 3, %[[M]], %[[N]]] : tensor<?x?x?xf32> into tensor<?x3x?x?xf32>
//       CHECK:   return %[[RES]]
func.func @batch_matmul_4d_dynamic(%lhs: tensor<?x3x?x5xf32>, %rhs: tensor<?x3x5x?xf32>) -> tensor<?x3x?x?xf32> {
  %0 = tfm.batch_matmul %lhs, %rhs : (tensor<?x3x?x5xf32>, tensor<?x3x5x?xf32>) -> tensor<?x3x?x?xf32>
  return %0 : tensor<?x3x?x?xf32>
}

// -----

// Two dynamic batch dimensions cannot be collapsed and expanded back (LLVM
// 22's expand-strided-metadata crashes on the expand_shape): a contraction
// linalg.generic over the full rank instead.

//   CHECK-DAG: #[[$LHS_MAP:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
//   CHECK-DAG: #[[$RHS_MAP:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4, d3)>
//   CHECK-DAG: #[[$OUT_MAP:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @batch_matmul_two_dynamic_batch_dims
//   CHECK-NOT:   tensor.collapse_shape
//       CHECK:   linalg.generic {indexing_maps = [#[[$LHS_MAP]], #[[$RHS_MAP]], #[[$OUT_MAP]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
//       CHECK:     arith.mulf
//       CHECK:     arith.addf
//   CHECK-NOT:   tensor.expand_shape
func.func @batch_matmul_two_dynamic_batch_dims(%lhs: tensor<?x?x7x5xf32>, %rhs: tensor<?x?x3x5xf32>) -> tensor<?x?x7x3xf32> {
  %0 = tfm.batch_matmul %lhs, %rhs {transpose_rhs} : (tensor<?x?x7x5xf32>, tensor<?x?x3x5xf32>) -> tensor<?x?x7x3xf32>
  return %0 : tensor<?x?x7x3xf32>
}

// -----

// Without valid_lens, masked_softmax is a plain stable softmax: row max,
// exp(x - max), row sum, division.

// CHECK-LABEL: func.func @softmax
//   CHECK-NOT:   -1.000000e+06
//       CHECK:   arith.constant 0xFF800000 : f32
//       CHECK:   linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
//       CHECK:     arith.maxnumf
//       CHECK:   linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]
//       CHECK:     arith.subf
//       CHECK:     math.exp
//       CHECK:   linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
//       CHECK:     arith.addf
//       CHECK:   linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]
//       CHECK:     arith.divf
func.func @softmax(%x: tensor<2x7xf32>) -> tensor<2x7xf32> {
  %0 = tfm.masked_softmax %x : (tensor<2x7xf32>) -> tensor<2x7xf32>
  return %0 : tensor<2x7xf32>
}

// -----

// valid_lens per batch: keys at or past the length are replaced by -1e6
// before the softmax (d2l), the length read through a map on the batch dim.

//   CHECK-DAG: #[[$ID_MAP:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
//   CHECK-DAG: #[[$BATCH_MAP:.*]] = affine_map<(d0, d1, d2) -> (d0)>
// CHECK-LABEL: func.func @masked_softmax_per_batch
//  CHECK-SAME:   %[[X:.*]]: tensor<2x3x7xf32>, %[[LENS:.*]]: tensor<2xi32>
//       CHECK:   %[[MASKED:.*]] = linalg.generic {indexing_maps = [#[[$ID_MAP]], #[[$BATCH_MAP]], #[[$ID_MAP]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[X]], %[[LENS]] : tensor<2x3x7xf32>, tensor<2xi32>)
//       CHECK:   ^bb0(%[[S:.*]]: f32, %[[LEN:.*]]: i32, %{{.*}}: f32):
//       CHECK:     %[[KEY:.*]] = linalg.index 2 : index
//       CHECK:     %[[LENI:.*]] = arith.index_cast %[[LEN]] : i32 to index
//       CHECK:     %[[OUT:.*]] = arith.cmpi sge, %[[KEY]], %[[LENI]] : index
//       CHECK:     %[[FILL:.*]] = arith.constant -1.000000e+06 : f32
//       CHECK:     %[[SEL:.*]] = arith.select %[[OUT]], %[[FILL]], %[[S]] : f32
//       CHECK:     linalg.yield %[[SEL]]
//       CHECK:   linalg.generic {{.*}} ins(%[[MASKED]] : tensor<2x3x7xf32>)
//       CHECK:     arith.maxnumf
func.func @masked_softmax_per_batch(%x: tensor<2x3x7xf32>, %lens: tensor<2xi32>) -> tensor<2x3x7xf32> {
  %0 = tfm.masked_softmax %x valid_lens(%lens) : (tensor<2x3x7xf32>, tensor<2xi32>) -> tensor<2x3x7xf32>
  return %0 : tensor<2x3x7xf32>
}

// -----

// valid_lens per query, dynamic shapes: the masked scores take their sizes
// from the input.

//   CHECK-DAG: #[[$QUERY_MAP:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @masked_softmax_per_query_dynamic
//  CHECK-SAME:   %[[X:.*]]: tensor<?x?x?xf32>, %[[LENS:.*]]: tensor<?x?xi64>
//   CHECK-DAG:   %[[D0:.*]] = tensor.dim %[[X]], %c0
//   CHECK-DAG:   %[[D1:.*]] = tensor.dim %[[X]], %c1
//   CHECK-DAG:   %[[D2:.*]] = tensor.dim %[[X]], %c2
//       CHECK:   %[[EMPTY:.*]] = tensor.empty(%[[D0]], %[[D1]], %[[D2]]) : tensor<?x?x?xf32>
//       CHECK:   linalg.generic {indexing_maps = [#{{.*}}, #[[$QUERY_MAP]], #{{.*}}], {{.*}} ins(%[[X]], %[[LENS]] : tensor<?x?x?xf32>, tensor<?x?xi64>) outs(%[[EMPTY]] : tensor<?x?x?xf32>)
//       CHECK:     arith.index_cast %{{.*}} : i64 to index
//       CHECK:     arith.constant -1.000000e+06 : f32
func.func @masked_softmax_per_query_dynamic(%x: tensor<?x?x?xf32>, %lens: tensor<?x?xi64>) -> tensor<?x?x?xf32> {
  %0 = tfm.masked_softmax %x valid_lens(%lens) : (tensor<?x?x?xf32>, tensor<?x?xi64>) -> tensor<?x?x?xf32>
  return %0 : tensor<?x?x?xf32>
}

// -----

// f16: the masking and the softmax statistics are in f32 (where -1e6 is
// representable), the weights are truncated at the end.

// CHECK-LABEL: func.func @masked_softmax_f16
//       CHECK:   linalg.generic {{.*}} outs(%{{.*}} : tensor<2x3x7xf32>)
//       CHECK:     arith.extf %{{.*}} : f16 to f32
//       CHECK:     arith.constant -1.000000e+06 : f32
//       CHECK:   linalg.generic {{.*}} outs(%{{.*}} : tensor<2x3xf32>)
//       CHECK:   linalg.generic {{.*}} outs(%{{.*}} : tensor<2x3x7xf32>)
//       CHECK:   linalg.generic {{.*}} outs(%{{.*}} : tensor<2x3xf32>)
//       CHECK:   linalg.generic {{.*}} outs(%{{.*}} : tensor<2x3x7xf16>)
//       CHECK:     arith.divf
//       CHECK:     arith.truncf %{{.*}} : f32 to f16
func.func @masked_softmax_f16(%x: tensor<2x3x7xf16>, %lens: tensor<2x3xi32>) -> tensor<2x3x7xf16> {
  %0 = tfm.masked_softmax %x valid_lens(%lens) : (tensor<2x3x7xf16>, tensor<2x3xi32>) -> tensor<2x3x7xf16>
  return %0 : tensor<2x3x7xf16>
}

// -----

// additive_attention: both projections are linalg.matmuls with the weight
// transposed once; the scores w_v · tanh(q + k) are one generic reducing over the
// hidden size, without materialising the [B, Sq, Sk, H] features.

//   CHECK-DAG: #[[$Q_MAP:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
//   CHECK-DAG: #[[$K_MAP:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
//   CHECK-DAG: #[[$WV_MAP:.*]] = affine_map<(d0, d1, d2, d3) -> (d3)>
//   CHECK-DAG: #[[$S_MAP:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @additive_attention
//  CHECK-SAME:   %[[Q:[a-z0-9]*]]: tensor<2x3x5xf32>, %[[K:[a-z0-9]*]]: tensor<2x7x4xf32>, %[[V:[a-z0-9]*]]: tensor<2x7x6xf32>, %[[WQ:[a-z0-9]*]]: tensor<8x5xf32>, %[[WK:[a-z0-9]*]]: tensor<8x4xf32>, %[[WV:[a-z0-9]*]]: tensor<1x8xf32>
//       CHECK:   %[[QR:.*]] = tensor.collapse_shape %[[Q]] {{\[}}[0, 1], [2]] : tensor<2x3x5xf32> into tensor<6x5xf32>
//       CHECK:   %[[WQT:.*]] = linalg.transpose ins(%[[WQ]] : tensor<8x5xf32>)
//       CHECK:   %[[QP:.*]] = linalg.matmul ins(%[[QR]], %[[WQT]] : tensor<6x5xf32>, tensor<5x8xf32>) outs(%{{.*}} : tensor<6x8xf32>)
//       CHECK:   %[[QP3:.*]] = tensor.expand_shape %[[QP]] {{\[}}[0, 1], [2]] output_shape [2, 3, 8]
//       CHECK:   %[[KP:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<14x4xf32>, tensor<4x8xf32>)
//       CHECK:   %[[KP3:.*]] = tensor.expand_shape %[[KP]]
//       CHECK:   %[[WV1:.*]] = tensor.collapse_shape %[[WV]] {{\[}}[0, 1]] : tensor<1x8xf32> into tensor<8xf32>
//       CHECK:   %[[SCORES:.*]] = linalg.generic {indexing_maps = [#[[$Q_MAP]], #[[$K_MAP]], #[[$WV_MAP]], #[[$S_MAP]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[QP3]], %[[KP3]], %[[WV1]] : tensor<2x3x8xf32>, tensor<2x7x8xf32>, tensor<8xf32>) outs(%{{.*}} : tensor<2x3x7xf32>)
//       CHECK:     %[[SUM:.*]] = arith.addf
//       CHECK:     %[[TANH:.*]] = math.tanh %[[SUM]]
//       CHECK:     arith.mulf %{{.*}}, %[[TANH]]
//       CHECK:   linalg.generic {{.*}} ins(%[[SCORES]], %{{.*}} : tensor<2x3x7xf32>, tensor<2xi32>)
//       CHECK:     arith.constant -1.000000e+06 : f32
//       CHECK:     arith.maxnumf
//       CHECK:     math.exp
//       CHECK:     arith.addf
//       CHECK:   %[[W:.*]] = linalg.generic
//       CHECK:     arith.divf
//       CHECK:   linalg.batch_matmul ins(%[[W]], %[[V]] : tensor<2x3x7xf32>, tensor<2x7x6xf32>)
func.func @additive_attention(%q: tensor<2x3x5xf32>, %k: tensor<2x7x4xf32>, %v: tensor<2x7x6xf32>, %wq: tensor<8x5xf32>, %wk: tensor<8x4xf32>, %wv: tensor<1x8xf32>, %lens: tensor<2xi32>) -> tensor<2x3x6xf32> {
  %0 = tfm.additive_attention %q, %k, %v weights(%wq, %wk, %wv) valid_lens(%lens) : (tensor<2x3x5xf32>, tensor<2x7x4xf32>, tensor<2x7x6xf32>, tensor<8x5xf32>, tensor<8x4xf32>, tensor<1x8xf32>, tensor<2xi32>) -> tensor<2x3x6xf32>
  return %0 : tensor<2x3x6xf32>
}

// -----

// With dynamic batch and sequence the projections are contraction generics
// (collapsing two dynamic dims could not be expanded back, see above).

//   CHECK-DAG: #[[$X_MAP:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
//   CHECK-DAG: #[[$W_MAP:.*]] = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
//   CHECK-DAG: #[[$Y_MAP:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @additive_attention_dynamic
//   CHECK-NOT:   tensor.collapse_shape %arg0
//       CHECK:   linalg.generic {indexing_maps = [#[[$X_MAP]], #[[$W_MAP]], #[[$Y_MAP]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%arg0, %arg3 : tensor<?x?x5xf32>, tensor<8x5xf32>) outs(%{{.*}} : tensor<?x?x8xf32>)
//       CHECK:   linalg.generic {indexing_maps = [#[[$X_MAP]], #[[$W_MAP]], #[[$Y_MAP]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%arg1, %arg4 : tensor<?x?x4xf32>, tensor<8x4xf32>) outs(%{{.*}} : tensor<?x?x8xf32>)
//       CHECK:   math.tanh
//       CHECK:   linalg.batch_matmul
func.func @additive_attention_dynamic(%q: tensor<?x?x5xf32>, %k: tensor<?x?x4xf32>, %v: tensor<?x?x6xf32>, %wq: tensor<8x5xf32>, %wk: tensor<8x4xf32>, %wv: tensor<1x8xf32>) -> tensor<?x?x6xf32> {
  %0 = tfm.additive_attention %q, %k, %v weights(%wq, %wk, %wv) : (tensor<?x?x5xf32>, tensor<?x?x4xf32>, tensor<?x?x6xf32>, tensor<8x5xf32>, tensor<8x4xf32>, tensor<1x8xf32>) -> tensor<?x?x6xf32>
  return %0 : tensor<?x?x6xf32>
}

// -----

// kernel_pooling, gaussian: the weights are the softmax of -x²/2 over the
// keys (the kernel's normalisation, without underflow), then a reduction
// generic pools the scalar values.

//   CHECK-DAG: #[[$QUERIES_MAP:.*]] = affine_map<(d0, d1) -> (d0)>
//   CHECK-DAG: #[[$KEYS_MAP:.*]] = affine_map<(d0, d1) -> (d1)>
//   CHECK-DAG: #[[$ID_MAP:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @kernel_pooling_gaussian
//  CHECK-SAME:   %[[Q:[a-z0-9]*]]: tensor<7xf32>, %[[K:[a-z0-9]*]]: tensor<9xf32>, %[[V:[a-z0-9]*]]: tensor<9xf32>
//       CHECK:   linalg.generic {indexing_maps = [#[[$QUERIES_MAP]], #[[$KEYS_MAP]], #[[$ID_MAP]]], iterator_types = ["parallel", "parallel"]} ins(%[[Q]], %[[K]] : tensor<7xf32>, tensor<9xf32>) outs(%{{.*}} : tensor<7x9xf32>)
//       CHECK:     %[[DIFF:.*]] = arith.subf
//       CHECK:     %[[BW:.*]] = arith.constant 5.000000e-01 : f32
//       CHECK:     %[[X:.*]] = arith.divf %[[DIFF]], %[[BW]]
//       CHECK:     %[[X2:.*]] = arith.mulf %[[X]], %[[X]]
//       CHECK:     arith.constant -5.000000e-01 : f32
//       CHECK:     arith.mulf %[[X2]]
//       CHECK:     arith.maxnumf
//       CHECK:     math.exp
//       CHECK:     arith.divf
//       CHECK:   %[[OUT:.*]] = linalg.generic {indexing_maps = [#[[$ID_MAP]], #[[$KEYS_MAP]], #[[$QUERIES_MAP]]], iterator_types = ["parallel", "reduction"]} ins(%{{.*}}, %[[V]] : tensor<7x9xf32>, tensor<9xf32>) outs(%{{.*}} : tensor<7xf32>)
//       CHECK:   return %[[OUT]]
func.func @kernel_pooling_gaussian(%q: tensor<7xf32>, %k: tensor<9xf32>, %v: tensor<9xf32>) -> tensor<7xf32> {
  %0 = tfm.kernel_pooling %q, %k, %v {kernel = #tfm.kernel<gaussian>, bandwidth = 0.5 : f64} : (tensor<7xf32>, tensor<9xf32>, tensor<9xf32>) -> tensor<7xf32>
  return %0 : tensor<7xf32>
}

// -----

// Compact kernels are normalised by their row sum (0/0 stays NaN, as in
// d2l); vector values are pooled with batch_matmul. Dynamic sizes come from
// the queries and keys.

// CHECK-LABEL: func.func @kernel_pooling_boxcar_vector
//  CHECK-SAME:   %[[Q:[a-z0-9]*]]: tensor<?x?xf32>, %[[K:[a-z0-9]*]]: tensor<?x?xf32>
//   CHECK-DAG:   %[[B:.*]] = tensor.dim %[[Q]], %c0
//   CHECK-DAG:   %[[NQ:.*]] = tensor.dim %[[Q]], %c1
//   CHECK-DAG:   %[[NK:.*]] = tensor.dim %[[K]], %c1
//       CHECK:   tensor.empty(%[[B]], %[[NQ]], %[[NK]]) : tensor<?x?x?xf32>
//       CHECK:   linalg.generic
//       CHECK:     %[[ABS:.*]] = math.absf
//       CHECK:     %[[IN:.*]] = arith.cmpf olt, %[[ABS]]
//       CHECK:     arith.select %[[IN]]
//   CHECK-NOT:     math.exp
//       CHECK:     arith.addf
//       CHECK:     arith.divf
//       CHECK:   linalg.batch_matmul
func.func @kernel_pooling_boxcar_vector(%q: tensor<?x?xf32>, %k: tensor<?x?xf32>, %v: tensor<?x?x3xf32>) -> tensor<?x?x3xf32> {
  %0 = tfm.kernel_pooling %q, %k, %v {kernel = #tfm.kernel<boxcar>} : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?x3xf32>) -> tensor<?x?x3xf32>
  return %0 : tensor<?x?x3xf32>
}

// -----

// CHECK-LABEL: func.func @kernel_pooling_epanechikov
//       CHECK:   linalg.generic
//   CHECK-NOT:     arith.divf
//       CHECK:     %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
//       CHECK:     %[[ABS:.*]] = math.absf
//       CHECK:     %[[REST:.*]] = arith.subf %[[ONE]], %[[ABS]]
//       CHECK:     %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
//       CHECK:     arith.maximumf %[[REST]], %[[ZERO]]
func.func @kernel_pooling_epanechikov(%q: tensor<7xf32>, %k: tensor<9xf32>, %v: tensor<9xf32>) -> tensor<7xf32> {
  %0 = tfm.kernel_pooling %q, %k, %v {kernel = #tfm.kernel<epanechikov>} : (tensor<7xf32>, tensor<9xf32>, tensor<9xf32>) -> tensor<7xf32>
  return %0 : tensor<7xf32>
}

// -----

// split_heads: reshape, transpose [B, H, S, Dh], collapse.

// CHECK-LABEL: func.func @split_heads
//  CHECK-SAME:   %[[X:.*]]: tensor<2x7x12xf32>
//       CHECK:   %[[E:.*]] = tensor.expand_shape %[[X]] {{\[}}[0], [1], [2, 3]] output_shape [2, 7, 3, 4] : tensor<2x7x12xf32> into tensor<2x7x3x4xf32>
//       CHECK:   %[[INIT:.*]] = tensor.empty() : tensor<2x3x7x4xf32>
//       CHECK:   %[[T:.*]] = linalg.transpose ins(%[[E]] : tensor<2x7x3x4xf32>) outs(%[[INIT]] : tensor<2x3x7x4xf32>) permutation = [0, 2, 1, 3]
//       CHECK:   %[[C:.*]] = tensor.collapse_shape %[[T]] {{\[}}[0, 1], [2], [3]] : tensor<2x3x7x4xf32> into tensor<6x7x4xf32>
//       CHECK:   return %[[C]]
func.func @split_heads(%x: tensor<2x7x12xf32>) -> tensor<6x7x4xf32> {
  %0 = tfm.split_heads %x {num_heads = 3 : i64} : (tensor<2x7x12xf32>) -> tensor<6x7x4xf32>
  return %0 : tensor<6x7x4xf32>
}

// -----

// CHECK-LABEL: func.func @split_heads_dynamic
//  CHECK-SAME:   %[[X:.*]]: tensor<?x?x?xf32>
//   CHECK-DAG:   %[[B:.*]] = tensor.dim %[[X]], %c0
//   CHECK-DAG:   %[[S:.*]] = tensor.dim %[[X]], %c1
//   CHECK-DAG:   %[[D:.*]] = tensor.dim %[[X]], %c2
//   CHECK-DAG:   %[[H:.*]] = arith.constant 3 : index
//       CHECK:   %[[DH:.*]] = arith.divui %[[D]], %[[H]] : index
//       CHECK:   %[[E:.*]] = tensor.expand_shape %[[X]] {{\[}}[0], [1], [2, 3]] output_shape [%[[B]], %[[S]], 3, %[[DH]]] : tensor<?x?x?xf32> into tensor<?x?x3x?xf32>
//       CHECK:   linalg.transpose ins(%[[E]] : tensor<?x?x3x?xf32>) outs(%{{.*}} : tensor<?x3x?x?xf32>) permutation = [0, 2, 1, 3]
//       CHECK:   tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2], [3]] : tensor<?x3x?x?xf32> into tensor<?x?x?xf32>
func.func @split_heads_dynamic(%x: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %0 = tfm.split_heads %x {num_heads = 3 : i64} : (tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  return %0 : tensor<?x?x?xf32>
}

// -----

// merge_heads: reshape [B, H, S, Dh], transpose [B, S, H, Dh], collapse.

// CHECK-LABEL: func.func @merge_heads
//  CHECK-SAME:   %[[X:.*]]: tensor<6x7x4xf32>
//       CHECK:   %[[E:.*]] = tensor.expand_shape %[[X]] {{\[}}[0, 1], [2], [3]] output_shape [2, 3, 7, 4] : tensor<6x7x4xf32> into tensor<2x3x7x4xf32>
//       CHECK:   %[[T:.*]] = linalg.transpose ins(%[[E]] : tensor<2x3x7x4xf32>) outs(%{{.*}} : tensor<2x7x3x4xf32>) permutation = [0, 2, 1, 3]
//       CHECK:   %[[C:.*]] = tensor.collapse_shape %[[T]] {{\[}}[0], [1], [2, 3]] : tensor<2x7x3x4xf32> into tensor<2x7x12xf32>
//       CHECK:   return %[[C]]
func.func @merge_heads(%x: tensor<6x7x4xf32>) -> tensor<2x7x12xf32> {
  %0 = tfm.merge_heads %x {num_heads = 3 : i64} : (tensor<6x7x4xf32>) -> tensor<2x7x12xf32>
  return %0 : tensor<2x7x12xf32>
}

// -----

// CHECK-LABEL: func.func @merge_heads_dynamic
//  CHECK-SAME:   %[[X:.*]]: tensor<?x?x4xf32>
//   CHECK-DAG:   %[[BH:.*]] = tensor.dim %[[X]], %c0
//   CHECK-DAG:   %[[S:.*]] = tensor.dim %[[X]], %c1
//   CHECK-DAG:   %[[H:.*]] = arith.constant 3 : index
//       CHECK:   %[[B:.*]] = arith.divui %[[BH]], %[[H]] : index
//       CHECK:   tensor.expand_shape %[[X]] {{\[}}[0, 1], [2], [3]] output_shape [%[[B]], 3, %[[S]], 4] : tensor<?x?x4xf32> into tensor<?x3x?x4xf32>
//       CHECK:   linalg.transpose
//       CHECK:   tensor.collapse_shape %{{.*}} {{\[}}[0], [1], [2, 3]] : tensor<?x?x3x4xf32> into tensor<?x?x12xf32>
func.func @merge_heads_dynamic(%x: tensor<?x?x4xf32>) -> tensor<?x?x12xf32> {
  %0 = tfm.merge_heads %x {num_heads = 3 : i64} : (tensor<?x?x4xf32>) -> tensor<?x?x12xf32>
  return %0 : tensor<?x?x12xf32>
}

// -----

// kv_cache_append writes the update at row `position` of the cache in
// place (an insert_slice into the cache) and reads back the first position
// + S rows, after checking that they fit.
// CHECK-LABEL: func.func @kv_cache_append(
//  CHECK-SAME:   %[[C:.*]]: tensor<1x4x64x16xf32>, %[[U:.*]]: tensor<1x4x?x16xf32>, %[[P:.*]]: index)
//       CHECK:   %[[S:.*]] = tensor.dim %[[U]], %c2
//       CHECK:   %[[END:.*]] = arith.addi %[[P]], %[[S]]
//       CHECK:   %[[FITS:.*]] = arith.cmpi ule, %[[END]], %c64
//       CHECK:   cf.assert %[[FITS]], "the key/value cache is full
//       CHECK:   %[[UPD:.*]] = tensor.insert_slice %[[U]] into %[[C]][0, 0, %[[P]], 0] [1, 4, %[[S]], 16] [1, 1, 1, 1]
//       CHECK:   %[[PRE:.*]] = tensor.extract_slice %[[UPD]][0, 0, 0, 0] [1, 4, %[[END]], 16] [1, 1, 1, 1]
//       CHECK:   return %[[UPD]], %[[PRE]]
func.func @kv_cache_append(%cache: tensor<1x4x64x16xf32>, %k: tensor<1x4x?x16xf32>, %p: index) -> (tensor<1x4x64x16xf32>, tensor<1x4x?x16xf32>) {
  %updated, %prefix = tfm.kv_cache_append %cache, %k at %p : tensor<1x4x64x16xf32>, tensor<1x4x?x16xf32> -> tensor<1x4x64x16xf32>, tensor<1x4x?x16xf32>
  return %updated, %prefix : tensor<1x4x64x16xf32>, tensor<1x4x?x16xf32>
}
