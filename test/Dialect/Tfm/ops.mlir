// RUN: tfm-opt %s | tfm-opt | FileCheck %s
// RUN: tfm-opt %s --mlir-print-op-generic | tfm-opt | FileCheck %s

// Every tfm op survives a round trip through its custom assembly format and
// through the generic form: operands, optional operand groups (valid_lens,
// mask, biases, optional biases of linear/ffn/patch_embed), attributes and
// types are printed back as they were written. Default-valued attributes
// (activation, approximate, dropout, epsilon, bandwidth) are elided.

//===----------------------------------------------------------------------===//
// batch_matmul
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @batch_matmul(
// CHECK-SAME:    %[[LHS:.*]]: tensor<2x3x4xf32>, %[[RHS:.*]]: tensor<2x4x6xf32>)
// CHECK:         %[[R:.*]] = tfm.batch_matmul %[[LHS]], %[[RHS]] :
// CHECK-SAME:      (tensor<2x3x4xf32>, tensor<2x4x6xf32>) -> tensor<2x3x6xf32>
// CHECK:         return %[[R]] : tensor<2x3x6xf32>
func.func @batch_matmul(%lhs: tensor<2x3x4xf32>, %rhs: tensor<2x4x6xf32>) -> tensor<2x3x6xf32> {
  %r = tfm.batch_matmul %lhs, %rhs : (tensor<2x3x4xf32>, tensor<2x4x6xf32>) -> tensor<2x3x6xf32>
  return %r : tensor<2x3x6xf32>
}

// CHECK-LABEL: func.func @batch_matmul_transpose_rhs(
// CHECK-SAME:    %[[Q:.*]]: tensor<2x3x4xf32>, %[[K:.*]]: tensor<2x6x4xf32>)
// CHECK:         %[[R:.*]] = tfm.batch_matmul %[[Q]], %[[K]] {transpose_rhs} :
// CHECK-SAME:      (tensor<2x3x4xf32>, tensor<2x6x4xf32>) -> tensor<2x3x6xf32>
// CHECK:         return %[[R]] : tensor<2x3x6xf32>
func.func @batch_matmul_transpose_rhs(%q: tensor<2x3x4xf32>, %k: tensor<2x6x4xf32>) -> tensor<2x3x6xf32> {
  %r = tfm.batch_matmul %q, %k {transpose_rhs} : (tensor<2x3x4xf32>, tensor<2x6x4xf32>) -> tensor<2x3x6xf32>
  return %r : tensor<2x3x6xf32>
}

// CHECK-LABEL: func.func @batch_matmul_4d_dynamic_f16(
// CHECK-SAME:    %[[LHS:.*]]: tensor<?x2x?x4xf16>, %[[RHS:.*]]: tensor<?x2x4x?xf16>)
// CHECK:         %[[R:.*]] = tfm.batch_matmul %[[LHS]], %[[RHS]] :
// CHECK-SAME:      (tensor<?x2x?x4xf16>, tensor<?x2x4x?xf16>) -> tensor<?x2x?x?xf16>
// CHECK:         return %[[R]] : tensor<?x2x?x?xf16>
func.func @batch_matmul_4d_dynamic_f16(%lhs: tensor<?x2x?x4xf16>, %rhs: tensor<?x2x4x?xf16>) -> tensor<?x2x?x?xf16> {
  %r = tfm.batch_matmul %lhs, %rhs : (tensor<?x2x?x4xf16>, tensor<?x2x4x?xf16>) -> tensor<?x2x?x?xf16>
  return %r : tensor<?x2x?x?xf16>
}

// A declared result may refine a dynamic inferred size (here the batch).
// CHECK-LABEL: func.func @batch_matmul_bf16_refined_result(
// CHECK-SAME:    %[[LHS:.*]]: tensor<?x3x4xbf16>, %[[RHS:.*]]: tensor<?x6x4xbf16>)
// CHECK:         %[[R:.*]] = tfm.batch_matmul %[[LHS]], %[[RHS]] {transpose_rhs} :
// CHECK-SAME:      (tensor<?x3x4xbf16>, tensor<?x6x4xbf16>) -> tensor<2x3x6xbf16>
// CHECK:         return %[[R]] : tensor<2x3x6xbf16>
func.func @batch_matmul_bf16_refined_result(%lhs: tensor<?x3x4xbf16>, %rhs: tensor<?x6x4xbf16>) -> tensor<2x3x6xbf16> {
  %r = tfm.batch_matmul %lhs, %rhs {transpose_rhs} : (tensor<?x3x4xbf16>, tensor<?x6x4xbf16>) -> tensor<2x3x6xbf16>
  return %r : tensor<2x3x6xbf16>
}

//===----------------------------------------------------------------------===//
// masked_softmax
//===----------------------------------------------------------------------===//

// Without valid_lens a rank-1 input is accepted.
// CHECK-LABEL: func.func @masked_softmax_no_valid_lens(
// CHECK-SAME:    %[[X:.*]]: tensor<4xf32>)
// CHECK:         %[[R:.*]] = tfm.masked_softmax %[[X]] :
// CHECK-SAME:      (tensor<4xf32>) -> tensor<4xf32>
// CHECK:         return %[[R]] : tensor<4xf32>
func.func @masked_softmax_no_valid_lens(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = tfm.masked_softmax %x : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// CHECK-LABEL: func.func @masked_softmax_per_batch_i32(
// CHECK-SAME:    %[[X:.*]]: tensor<2x2x4xf32>, %[[LENS:.*]]: tensor<2xi32>)
// CHECK:         %[[R:.*]] = tfm.masked_softmax %[[X]] valid_lens(%[[LENS]]) :
// CHECK-SAME:      (tensor<2x2x4xf32>, tensor<2xi32>) -> tensor<2x2x4xf32>
// CHECK:         return %[[R]] : tensor<2x2x4xf32>
func.func @masked_softmax_per_batch_i32(%x: tensor<2x2x4xf32>, %lens: tensor<2xi32>) -> tensor<2x2x4xf32> {
  %r = tfm.masked_softmax %x valid_lens(%lens) : (tensor<2x2x4xf32>, tensor<2xi32>) -> tensor<2x2x4xf32>
  return %r : tensor<2x2x4xf32>
}

// CHECK-LABEL: func.func @masked_softmax_per_query_i64(
// CHECK-SAME:    %[[X:.*]]: tensor<2x2x4xf32>, %[[LENS:.*]]: tensor<2x2xi64>)
// CHECK:         %[[R:.*]] = tfm.masked_softmax %[[X]] valid_lens(%[[LENS]]) :
// CHECK-SAME:      (tensor<2x2x4xf32>, tensor<2x2xi64>) -> tensor<2x2x4xf32>
// CHECK:         return %[[R]] : tensor<2x2x4xf32>
func.func @masked_softmax_per_query_i64(%x: tensor<2x2x4xf32>, %lens: tensor<2x2xi64>) -> tensor<2x2x4xf32> {
  %r = tfm.masked_softmax %x valid_lens(%lens) : (tensor<2x2x4xf32>, tensor<2x2xi64>) -> tensor<2x2x4xf32>
  return %r : tensor<2x2x4xf32>
}

// CHECK-LABEL: func.func @masked_softmax_4d_f16(
// CHECK-SAME:    %[[X:.*]]: tensor<2x8x3x5xf16>, %[[LENS:.*]]: tensor<2x8xi32>)
// CHECK:         %[[R:.*]] = tfm.masked_softmax %[[X]] valid_lens(%[[LENS]]) :
// CHECK-SAME:      (tensor<2x8x3x5xf16>, tensor<2x8xi32>) -> tensor<2x8x3x5xf16>
// CHECK:         return %[[R]] : tensor<2x8x3x5xf16>
func.func @masked_softmax_4d_f16(%x: tensor<2x8x3x5xf16>, %lens: tensor<2x8xi32>) -> tensor<2x8x3x5xf16> {
  %r = tfm.masked_softmax %x valid_lens(%lens) : (tensor<2x8x3x5xf16>, tensor<2x8xi32>) -> tensor<2x8x3x5xf16>
  return %r : tensor<2x8x3x5xf16>
}

// Scores without batch dimensions take a rank-0 (per batch) valid_lens.
// CHECK-LABEL: func.func @masked_softmax_rank2_scalar_lens_bf16(
// CHECK-SAME:    %[[X:.*]]: tensor<3x5xbf16>, %[[LENS:.*]]: tensor<i64>)
// CHECK:         %[[R:.*]] = tfm.masked_softmax %[[X]] valid_lens(%[[LENS]]) :
// CHECK-SAME:      (tensor<3x5xbf16>, tensor<i64>) -> tensor<3x5xbf16>
// CHECK:         return %[[R]] : tensor<3x5xbf16>
func.func @masked_softmax_rank2_scalar_lens_bf16(%x: tensor<3x5xbf16>, %lens: tensor<i64>) -> tensor<3x5xbf16> {
  %r = tfm.masked_softmax %x valid_lens(%lens) : (tensor<3x5xbf16>, tensor<i64>) -> tensor<3x5xbf16>
  return %r : tensor<3x5xbf16>
}

// CHECK-LABEL: func.func @masked_softmax_dynamic(
// CHECK-SAME:    %[[X:.*]]: tensor<?x?x?xf32>, %[[LENS:.*]]: tensor<?x?xi32>)
// CHECK:         %[[R:.*]] = tfm.masked_softmax %[[X]] valid_lens(%[[LENS]]) :
// CHECK-SAME:      (tensor<?x?x?xf32>, tensor<?x?xi32>) -> tensor<?x?x?xf32>
// CHECK:         return %[[R]] : tensor<?x?x?xf32>
func.func @masked_softmax_dynamic(%x: tensor<?x?x?xf32>, %lens: tensor<?x?xi32>) -> tensor<?x?x?xf32> {
  %r = tfm.masked_softmax %x valid_lens(%lens) : (tensor<?x?x?xf32>, tensor<?x?xi32>) -> tensor<?x?x?xf32>
  return %r : tensor<?x?x?xf32>
}

//===----------------------------------------------------------------------===//
// attention
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @attention(
// CHECK-SAME:    %[[Q:.*]]: tensor<8x10x16xf32>, %[[K:.*]]: tensor<8x12x16xf32>, %[[V:.*]]: tensor<8x12x32xf32>)
// CHECK:         %[[R:.*]] = tfm.attention %[[Q]], %[[K]], %[[V]] :
// CHECK-SAME:      (tensor<8x10x16xf32>, tensor<8x12x16xf32>, tensor<8x12x32xf32>) -> tensor<8x10x32xf32>
// CHECK:         return %[[R]] : tensor<8x10x32xf32>
func.func @attention(%q: tensor<8x10x16xf32>, %k: tensor<8x12x16xf32>, %v: tensor<8x12x32xf32>) -> tensor<8x10x32xf32> {
  %r = tfm.attention %q, %k, %v : (tensor<8x10x16xf32>, tensor<8x12x16xf32>, tensor<8x12x32xf32>) -> tensor<8x10x32xf32>
  return %r : tensor<8x10x32xf32>
}

// The minimum rank: no batch dimensions.
// CHECK-LABEL: func.func @attention_rank2(
// CHECK-SAME:    %[[Q:.*]]: tensor<10x16xf32>, %[[K:.*]]: tensor<12x16xf32>, %[[V:.*]]: tensor<12x4xf32>)
// CHECK:         %[[R:.*]] = tfm.attention %[[Q]], %[[K]], %[[V]] :
// CHECK-SAME:      (tensor<10x16xf32>, tensor<12x16xf32>, tensor<12x4xf32>) -> tensor<10x4xf32>
// CHECK:         return %[[R]] : tensor<10x4xf32>
func.func @attention_rank2(%q: tensor<10x16xf32>, %k: tensor<12x16xf32>, %v: tensor<12x4xf32>) -> tensor<10x4xf32> {
  %r = tfm.attention %q, %k, %v : (tensor<10x16xf32>, tensor<12x16xf32>, tensor<12x4xf32>) -> tensor<10x4xf32>
  return %r : tensor<10x4xf32>
}

// CHECK-LABEL: func.func @attention_attributes(
// CHECK-SAME:    %[[Q:.*]]: tensor<8x10x16xf32>, %[[K:.*]]: tensor<8x10x16xf32>, %[[V:.*]]: tensor<8x10x16xf32>)
// CHECK:         %[[R:.*]] = tfm.attention %[[Q]], %[[K]], %[[V]] {causal, dropout = 1.000000e-01 : f64, scale = 1.250000e-01 : f64} :
// CHECK-SAME:      (tensor<8x10x16xf32>, tensor<8x10x16xf32>, tensor<8x10x16xf32>) -> tensor<8x10x16xf32>
// CHECK:         return %[[R]] : tensor<8x10x16xf32>
func.func @attention_attributes(%q: tensor<8x10x16xf32>, %k: tensor<8x10x16xf32>, %v: tensor<8x10x16xf32>) -> tensor<8x10x16xf32> {
  %r = tfm.attention %q, %k, %v {causal, dropout = 1.000000e-01 : f64, scale = 1.250000e-01 : f64} : (tensor<8x10x16xf32>, tensor<8x10x16xf32>, tensor<8x10x16xf32>) -> tensor<8x10x16xf32>
  return %r : tensor<8x10x16xf32>
}

// CHECK-LABEL: func.func @attention_valid_lens_per_batch_i32(
// CHECK-SAME:    %[[Q:.*]]: tensor<8x10x16xf32>, %[[K:.*]]: tensor<8x10x16xf32>, %[[V:.*]]: tensor<8x10x16xf32>, %[[LENS:.*]]: tensor<8xi32>)
// CHECK:         %[[R:.*]] = tfm.attention %[[Q]], %[[K]], %[[V]] valid_lens(%[[LENS]]) {causal} :
// CHECK-SAME:      (tensor<8x10x16xf32>, tensor<8x10x16xf32>, tensor<8x10x16xf32>, tensor<8xi32>) -> tensor<8x10x16xf32>
// CHECK:         return %[[R]] : tensor<8x10x16xf32>
func.func @attention_valid_lens_per_batch_i32(%q: tensor<8x10x16xf32>, %k: tensor<8x10x16xf32>, %v: tensor<8x10x16xf32>, %lens: tensor<8xi32>) -> tensor<8x10x16xf32> {
  %r = tfm.attention %q, %k, %v valid_lens(%lens) {causal} : (tensor<8x10x16xf32>, tensor<8x10x16xf32>, tensor<8x10x16xf32>, tensor<8xi32>) -> tensor<8x10x16xf32>
  return %r : tensor<8x10x16xf32>
}

// CHECK-LABEL: func.func @attention_valid_lens_per_query_i64(
// CHECK-SAME:    %[[Q:.*]]: tensor<8x10x16xf32>, %[[K:.*]]: tensor<8x12x16xf32>, %[[V:.*]]: tensor<8x12x16xf32>, %[[LENS:.*]]: tensor<8x10xi64>)
// CHECK:         %[[R:.*]] = tfm.attention %[[Q]], %[[K]], %[[V]] valid_lens(%[[LENS]]) :
// CHECK-SAME:      (tensor<8x10x16xf32>, tensor<8x12x16xf32>, tensor<8x12x16xf32>, tensor<8x10xi64>) -> tensor<8x10x16xf32>
// CHECK:         return %[[R]] : tensor<8x10x16xf32>
func.func @attention_valid_lens_per_query_i64(%q: tensor<8x10x16xf32>, %k: tensor<8x12x16xf32>, %v: tensor<8x12x16xf32>, %lens: tensor<8x10xi64>) -> tensor<8x10x16xf32> {
  %r = tfm.attention %q, %k, %v valid_lens(%lens) : (tensor<8x10x16xf32>, tensor<8x12x16xf32>, tensor<8x12x16xf32>, tensor<8x10xi64>) -> tensor<8x10x16xf32>
  return %r : tensor<8x10x16xf32>
}

// PyTorch's [batch, heads, S, D] layout: valid_lens [batch, heads].
// CHECK-LABEL: func.func @attention_4d_valid_lens_rank2(
// CHECK-SAME:    %[[Q:.*]]: tensor<2x4x10x16xf32>, %[[K:.*]]: tensor<2x4x12x16xf32>, %[[V:.*]]: tensor<2x4x12x16xf32>, %[[LENS:.*]]: tensor<2x4xi32>)
// CHECK:         %[[R:.*]] = tfm.attention %[[Q]], %[[K]], %[[V]] valid_lens(%[[LENS]]) :
// CHECK-SAME:      (tensor<2x4x10x16xf32>, tensor<2x4x12x16xf32>, tensor<2x4x12x16xf32>, tensor<2x4xi32>) -> tensor<2x4x10x16xf32>
// CHECK:         return %[[R]] : tensor<2x4x10x16xf32>
func.func @attention_4d_valid_lens_rank2(%q: tensor<2x4x10x16xf32>, %k: tensor<2x4x12x16xf32>, %v: tensor<2x4x12x16xf32>, %lens: tensor<2x4xi32>) -> tensor<2x4x10x16xf32> {
  %r = tfm.attention %q, %k, %v valid_lens(%lens) : (tensor<2x4x10x16xf32>, tensor<2x4x12x16xf32>, tensor<2x4x12x16xf32>, tensor<2x4xi32>) -> tensor<2x4x10x16xf32>
  return %r : tensor<2x4x10x16xf32>
}

// PyTorch's layout with one length per query: [batch, heads, Sq].
// CHECK-LABEL: func.func @attention_4d_valid_lens_per_query(
// CHECK-SAME:    %[[Q:.*]]: tensor<2x4x10x16xf32>, %[[K:.*]]: tensor<2x4x12x16xf32>, %[[V:.*]]: tensor<2x4x12x16xf32>, %[[LENS:.*]]: tensor<2x4x10xi64>)
// CHECK:         %[[R:.*]] = tfm.attention %[[Q]], %[[K]], %[[V]] valid_lens(%[[LENS]]) :
// CHECK-SAME:      (tensor<2x4x10x16xf32>, tensor<2x4x12x16xf32>, tensor<2x4x12x16xf32>, tensor<2x4x10xi64>) -> tensor<2x4x10x16xf32>
// CHECK:         return %[[R]] : tensor<2x4x10x16xf32>
func.func @attention_4d_valid_lens_per_query(%q: tensor<2x4x10x16xf32>, %k: tensor<2x4x12x16xf32>, %v: tensor<2x4x12x16xf32>, %lens: tensor<2x4x10xi64>) -> tensor<2x4x10x16xf32> {
  %r = tfm.attention %q, %k, %v valid_lens(%lens) : (tensor<2x4x10x16xf32>, tensor<2x4x12x16xf32>, tensor<2x4x12x16xf32>, tensor<2x4x10xi64>) -> tensor<2x4x10x16xf32>
  return %r : tensor<2x4x10x16xf32>
}

// CHECK-LABEL: func.func @attention_mask_full(
// CHECK-SAME:    %[[Q:.*]]: tensor<2x4x10x16xf32>, %[[K:.*]]: tensor<2x4x12x16xf32>, %[[V:.*]]: tensor<2x4x12x16xf32>, %[[MASK:.*]]: tensor<2x4x10x12xf32>)
// CHECK:         %[[R:.*]] = tfm.attention %[[Q]], %[[K]], %[[V]] mask(%[[MASK]]) :
// CHECK-SAME:      (tensor<2x4x10x16xf32>, tensor<2x4x12x16xf32>, tensor<2x4x12x16xf32>, tensor<2x4x10x12xf32>) -> tensor<2x4x10x16xf32>
// CHECK:         return %[[R]] : tensor<2x4x10x16xf32>
func.func @attention_mask_full(%q: tensor<2x4x10x16xf32>, %k: tensor<2x4x12x16xf32>, %v: tensor<2x4x12x16xf32>, %mask: tensor<2x4x10x12xf32>) -> tensor<2x4x10x16xf32> {
  %r = tfm.attention %q, %k, %v mask(%mask) : (tensor<2x4x10x16xf32>, tensor<2x4x12x16xf32>, tensor<2x4x12x16xf32>, tensor<2x4x10x12xf32>) -> tensor<2x4x10x16xf32>
  return %r : tensor<2x4x10x16xf32>
}

// The mask broadcasts along its size-1 dimensions...
// CHECK-LABEL: func.func @attention_mask_broadcast_ones(
// CHECK-SAME:    %[[Q:.*]]: tensor<2x4x10x16xf32>, %[[K:.*]]: tensor<2x4x12x16xf32>, %[[V:.*]]: tensor<2x4x12x16xf32>, %[[MASK:.*]]: tensor<2x1x1x12xf32>)
// CHECK:         %[[R:.*]] = tfm.attention %[[Q]], %[[K]], %[[V]] mask(%[[MASK]]) :
// CHECK-SAME:      (tensor<2x4x10x16xf32>, tensor<2x4x12x16xf32>, tensor<2x4x12x16xf32>, tensor<2x1x1x12xf32>) -> tensor<2x4x10x16xf32>
// CHECK:         return %[[R]] : tensor<2x4x10x16xf32>
func.func @attention_mask_broadcast_ones(%q: tensor<2x4x10x16xf32>, %k: tensor<2x4x12x16xf32>, %v: tensor<2x4x12x16xf32>, %mask: tensor<2x1x1x12xf32>) -> tensor<2x4x10x16xf32> {
  %r = tfm.attention %q, %k, %v mask(%mask) : (tensor<2x4x10x16xf32>, tensor<2x4x12x16xf32>, tensor<2x4x12x16xf32>, tensor<2x1x1x12xf32>) -> tensor<2x4x10x16xf32>
  return %r : tensor<2x4x10x16xf32>
}

// ...and along missing leading dimensions (numpy rules).
// CHECK-LABEL: func.func @attention_mask_broadcast_lower_rank(
// CHECK-SAME:    %[[Q:.*]]: tensor<2x4x10x16xf32>, %[[K:.*]]: tensor<2x4x12x16xf32>, %[[V:.*]]: tensor<2x4x12x16xf32>, %[[MASK:.*]]: tensor<10x12xf32>)
// CHECK:         %[[R:.*]] = tfm.attention %[[Q]], %[[K]], %[[V]] mask(%[[MASK]]) :
// CHECK-SAME:      (tensor<2x4x10x16xf32>, tensor<2x4x12x16xf32>, tensor<2x4x12x16xf32>, tensor<10x12xf32>) -> tensor<2x4x10x16xf32>
// CHECK:         return %[[R]] : tensor<2x4x10x16xf32>
func.func @attention_mask_broadcast_lower_rank(%q: tensor<2x4x10x16xf32>, %k: tensor<2x4x12x16xf32>, %v: tensor<2x4x12x16xf32>, %mask: tensor<10x12xf32>) -> tensor<2x4x10x16xf32> {
  %r = tfm.attention %q, %k, %v mask(%mask) : (tensor<2x4x10x16xf32>, tensor<2x4x12x16xf32>, tensor<2x4x12x16xf32>, tensor<10x12xf32>) -> tensor<2x4x10x16xf32>
  return %r : tensor<2x4x10x16xf32>
}

// CHECK-LABEL: func.func @attention_mask_scalar(
// CHECK-SAME:    %[[Q:.*]]: tensor<8x10x16xf32>, %[[K:.*]]: tensor<8x12x16xf32>, %[[V:.*]]: tensor<8x12x16xf32>, %[[MASK:.*]]: tensor<f32>)
// CHECK:         %[[R:.*]] = tfm.attention %[[Q]], %[[K]], %[[V]] mask(%[[MASK]]) :
// CHECK-SAME:      (tensor<8x10x16xf32>, tensor<8x12x16xf32>, tensor<8x12x16xf32>, tensor<f32>) -> tensor<8x10x16xf32>
// CHECK:         return %[[R]] : tensor<8x10x16xf32>
func.func @attention_mask_scalar(%q: tensor<8x10x16xf32>, %k: tensor<8x12x16xf32>, %v: tensor<8x12x16xf32>, %mask: tensor<f32>) -> tensor<8x10x16xf32> {
  %r = tfm.attention %q, %k, %v mask(%mask) : (tensor<8x10x16xf32>, tensor<8x12x16xf32>, tensor<8x12x16xf32>, tensor<f32>) -> tensor<8x10x16xf32>
  return %r : tensor<8x10x16xf32>
}

// CHECK-LABEL: func.func @attention_valid_lens_and_mask(
// CHECK-SAME:    %[[Q:.*]]: tensor<8x10x16xf32>, %[[K:.*]]: tensor<8x12x16xf32>, %[[V:.*]]: tensor<8x12x16xf32>, %[[LENS:.*]]: tensor<8xi64>, %[[MASK:.*]]: tensor<1x10x12xf32>)
// CHECK:         %[[R:.*]] = tfm.attention %[[Q]], %[[K]], %[[V]] valid_lens(%[[LENS]]) mask(%[[MASK]]) {scale = 5.000000e-01 : f64} :
// CHECK-SAME:      (tensor<8x10x16xf32>, tensor<8x12x16xf32>, tensor<8x12x16xf32>, tensor<8xi64>, tensor<1x10x12xf32>) -> tensor<8x10x16xf32>
// CHECK:         return %[[R]] : tensor<8x10x16xf32>
func.func @attention_valid_lens_and_mask(%q: tensor<8x10x16xf32>, %k: tensor<8x12x16xf32>, %v: tensor<8x12x16xf32>, %lens: tensor<8xi64>, %mask: tensor<1x10x12xf32>) -> tensor<8x10x16xf32> {
  %r = tfm.attention %q, %k, %v valid_lens(%lens) mask(%mask) {scale = 5.000000e-01 : f64} : (tensor<8x10x16xf32>, tensor<8x12x16xf32>, tensor<8x12x16xf32>, tensor<8xi64>, tensor<1x10x12xf32>) -> tensor<8x10x16xf32>
  return %r : tensor<8x10x16xf32>
}

// CHECK-LABEL: func.func @attention_dynamic_f16(
// CHECK-SAME:    %[[Q:.*]]: tensor<?x?x64xf16>, %[[K:.*]]: tensor<?x?x64xf16>, %[[V:.*]]: tensor<?x?x64xf16>, %[[LENS:.*]]: tensor<?xi32>, %[[MASK:.*]]: tensor<?x?xf16>)
// CHECK:         %[[R:.*]] = tfm.attention %[[Q]], %[[K]], %[[V]] valid_lens(%[[LENS]]) mask(%[[MASK]]) :
// CHECK-SAME:      (tensor<?x?x64xf16>, tensor<?x?x64xf16>, tensor<?x?x64xf16>, tensor<?xi32>, tensor<?x?xf16>) -> tensor<?x?x64xf16>
// CHECK:         return %[[R]] : tensor<?x?x64xf16>
func.func @attention_dynamic_f16(%q: tensor<?x?x64xf16>, %k: tensor<?x?x64xf16>, %v: tensor<?x?x64xf16>, %lens: tensor<?xi32>, %mask: tensor<?x?xf16>) -> tensor<?x?x64xf16> {
  %r = tfm.attention %q, %k, %v valid_lens(%lens) mask(%mask) : (tensor<?x?x64xf16>, tensor<?x?x64xf16>, tensor<?x?x64xf16>, tensor<?xi32>, tensor<?x?xf16>) -> tensor<?x?x64xf16>
  return %r : tensor<?x?x64xf16>
}

// CHECK-LABEL: func.func @attention_4d_dynamic_bf16(
// CHECK-SAME:    %[[Q:.*]]: tensor<?x12x?x64xbf16>, %[[K:.*]]: tensor<?x12x?x64xbf16>, %[[V:.*]]: tensor<?x12x?x64xbf16>)
// CHECK:         %[[R:.*]] = tfm.attention %[[Q]], %[[K]], %[[V]] {causal} :
// CHECK-SAME:      (tensor<?x12x?x64xbf16>, tensor<?x12x?x64xbf16>, tensor<?x12x?x64xbf16>) -> tensor<?x12x?x64xbf16>
// CHECK:         return %[[R]] : tensor<?x12x?x64xbf16>
func.func @attention_4d_dynamic_bf16(%q: tensor<?x12x?x64xbf16>, %k: tensor<?x12x?x64xbf16>, %v: tensor<?x12x?x64xbf16>) -> tensor<?x12x?x64xbf16> {
  %r = tfm.attention %q, %k, %v {causal} : (tensor<?x12x?x64xbf16>, tensor<?x12x?x64xbf16>, tensor<?x12x?x64xbf16>) -> tensor<?x12x?x64xbf16>
  return %r : tensor<?x12x?x64xbf16>
}

// A step of a decoder with a key/value cache: the causal mask shifted by
// the cache's length.
// CHECK-LABEL: func.func @attention_query_offset(
// CHECK-SAME:    %[[Q:.*]]: tensor<1x4x1x16xf32>, %[[K:.*]]: tensor<1x4x?x16xf32>, %[[V:.*]]: tensor<1x4x?x16xf32>, %[[P:.*]]: index)
// CHECK:         %[[R:.*]] = tfm.attention %[[Q]], %[[K]], %[[V]] query_offset(%[[P]]) {causal} :
// CHECK-SAME:      (tensor<1x4x1x16xf32>, tensor<1x4x?x16xf32>, tensor<1x4x?x16xf32>, index) -> tensor<1x4x1x16xf32>
func.func @attention_query_offset(%q: tensor<1x4x1x16xf32>, %k: tensor<1x4x?x16xf32>, %v: tensor<1x4x?x16xf32>, %p: index) -> tensor<1x4x1x16xf32> {
  %r = tfm.attention %q, %k, %v query_offset(%p) {causal} : (tensor<1x4x1x16xf32>, tensor<1x4x?x16xf32>, tensor<1x4x?x16xf32>, index) -> tensor<1x4x1x16xf32>
  return %r : tensor<1x4x1x16xf32>
}

//===----------------------------------------------------------------------===//
// kv_cache_append
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @kv_cache_append(
// CHECK-SAME:    %[[C:.*]]: tensor<1x4x64x16xf32>, %[[U:.*]]: tensor<1x4x?x16xf32>, %[[P:.*]]: index)
// CHECK:         %[[UPD:.*]], %[[PRE:.*]] = tfm.kv_cache_append %[[C]], %[[U]] at %[[P]] :
// CHECK-SAME:      tensor<1x4x64x16xf32>, tensor<1x4x?x16xf32> -> tensor<1x4x64x16xf32>, tensor<1x4x?x16xf32>
// CHECK:         return %[[UPD]], %[[PRE]]
func.func @kv_cache_append(%cache: tensor<1x4x64x16xf32>, %k: tensor<1x4x?x16xf32>, %p: index) -> (tensor<1x4x64x16xf32>, tensor<1x4x?x16xf32>) {
  %updated, %prefix = tfm.kv_cache_append %cache, %k at %p : tensor<1x4x64x16xf32>, tensor<1x4x?x16xf32> -> tensor<1x4x64x16xf32>, tensor<1x4x?x16xf32>
  return %updated, %prefix : tensor<1x4x64x16xf32>, tensor<1x4x?x16xf32>
}

//===----------------------------------------------------------------------===//
// additive_attention
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @additive_attention(
// CHECK-SAME:    %[[Q:.*]]: tensor<2x1x20xf32>, %[[K:.*]]: tensor<2x10x2xf32>, %[[V:.*]]: tensor<2x10x4xf32>, %[[WQ:.*]]: tensor<8x20xf32>, %[[WK:.*]]: tensor<8x2xf32>, %[[WV:.*]]: tensor<1x8xf32>)
// CHECK:         %[[R:.*]] = tfm.additive_attention %[[Q]], %[[K]], %[[V]] weights(%[[WQ]], %[[WK]], %[[WV]]) :
// CHECK-SAME:      (tensor<2x1x20xf32>, tensor<2x10x2xf32>, tensor<2x10x4xf32>, tensor<8x20xf32>, tensor<8x2xf32>, tensor<1x8xf32>) -> tensor<2x1x4xf32>
// CHECK:         return %[[R]] : tensor<2x1x4xf32>
func.func @additive_attention(%q: tensor<2x1x20xf32>, %k: tensor<2x10x2xf32>, %v: tensor<2x10x4xf32>, %wq: tensor<8x20xf32>, %wk: tensor<8x2xf32>, %wv: tensor<1x8xf32>) -> tensor<2x1x4xf32> {
  %r = tfm.additive_attention %q, %k, %v weights(%wq, %wk, %wv) : (tensor<2x1x20xf32>, tensor<2x10x2xf32>, tensor<2x10x4xf32>, tensor<8x20xf32>, tensor<8x2xf32>, tensor<1x8xf32>) -> tensor<2x1x4xf32>
  return %r : tensor<2x1x4xf32>
}

// CHECK-LABEL: func.func @additive_attention_valid_lens_per_batch(
// CHECK-SAME:    %[[Q:.*]]: tensor<2x1x20xf32>, %[[K:.*]]: tensor<2x10x2xf32>, %[[V:.*]]: tensor<2x10x4xf32>, %[[WQ:.*]]: tensor<8x20xf32>, %[[WK:.*]]: tensor<8x2xf32>, %[[WV:.*]]: tensor<1x8xf32>, %[[LENS:.*]]: tensor<2xi32>)
// CHECK:         %[[R:.*]] = tfm.additive_attention %[[Q]], %[[K]], %[[V]] weights(%[[WQ]], %[[WK]], %[[WV]]) valid_lens(%[[LENS]]) {dropout = 1.000000e-01 : f64} :
// CHECK-SAME:      (tensor<2x1x20xf32>, tensor<2x10x2xf32>, tensor<2x10x4xf32>, tensor<8x20xf32>, tensor<8x2xf32>, tensor<1x8xf32>, tensor<2xi32>) -> tensor<2x1x4xf32>
// CHECK:         return %[[R]] : tensor<2x1x4xf32>
func.func @additive_attention_valid_lens_per_batch(%q: tensor<2x1x20xf32>, %k: tensor<2x10x2xf32>, %v: tensor<2x10x4xf32>, %wq: tensor<8x20xf32>, %wk: tensor<8x2xf32>, %wv: tensor<1x8xf32>, %lens: tensor<2xi32>) -> tensor<2x1x4xf32> {
  %r = tfm.additive_attention %q, %k, %v weights(%wq, %wk, %wv) valid_lens(%lens) {dropout = 1.000000e-01 : f64} : (tensor<2x1x20xf32>, tensor<2x10x2xf32>, tensor<2x10x4xf32>, tensor<8x20xf32>, tensor<8x2xf32>, tensor<1x8xf32>, tensor<2xi32>) -> tensor<2x1x4xf32>
  return %r : tensor<2x1x4xf32>
}

// CHECK-LABEL: func.func @additive_attention_valid_lens_per_query(
// CHECK-SAME:    %[[Q:.*]]: tensor<2x3x20xf32>, %[[K:.*]]: tensor<2x10x2xf32>, %[[V:.*]]: tensor<2x10x4xf32>, %[[WQ:.*]]: tensor<8x20xf32>, %[[WK:.*]]: tensor<8x2xf32>, %[[WV:.*]]: tensor<1x8xf32>, %[[LENS:.*]]: tensor<2x3xi64>)
// CHECK:         %[[R:.*]] = tfm.additive_attention %[[Q]], %[[K]], %[[V]] weights(%[[WQ]], %[[WK]], %[[WV]]) valid_lens(%[[LENS]]) :
// CHECK-SAME:      (tensor<2x3x20xf32>, tensor<2x10x2xf32>, tensor<2x10x4xf32>, tensor<8x20xf32>, tensor<8x2xf32>, tensor<1x8xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
// CHECK:         return %[[R]] : tensor<2x3x4xf32>
func.func @additive_attention_valid_lens_per_query(%q: tensor<2x3x20xf32>, %k: tensor<2x10x2xf32>, %v: tensor<2x10x4xf32>, %wq: tensor<8x20xf32>, %wk: tensor<8x2xf32>, %wv: tensor<1x8xf32>, %lens: tensor<2x3xi64>) -> tensor<2x3x4xf32> {
  %r = tfm.additive_attention %q, %k, %v weights(%wq, %wk, %wv) valid_lens(%lens) : (tensor<2x3x20xf32>, tensor<2x10x2xf32>, tensor<2x10x4xf32>, tensor<8x20xf32>, tensor<8x2xf32>, tensor<1x8xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
  return %r : tensor<2x3x4xf32>
}

// CHECK-LABEL: func.func @additive_attention_dynamic_bf16(
// CHECK-SAME:    %[[Q:.*]]: tensor<?x?x20xbf16>, %[[K:.*]]: tensor<?x?x2xbf16>, %[[V:.*]]: tensor<?x?x4xbf16>, %[[WQ:.*]]: tensor<8x20xbf16>, %[[WK:.*]]: tensor<8x2xbf16>, %[[WV:.*]]: tensor<1x8xbf16>)
// CHECK:         %[[R:.*]] = tfm.additive_attention %[[Q]], %[[K]], %[[V]] weights(%[[WQ]], %[[WK]], %[[WV]]) :
// CHECK-SAME:      (tensor<?x?x20xbf16>, tensor<?x?x2xbf16>, tensor<?x?x4xbf16>, tensor<8x20xbf16>, tensor<8x2xbf16>, tensor<1x8xbf16>) -> tensor<?x?x4xbf16>
// CHECK:         return %[[R]] : tensor<?x?x4xbf16>
func.func @additive_attention_dynamic_bf16(%q: tensor<?x?x20xbf16>, %k: tensor<?x?x2xbf16>, %v: tensor<?x?x4xbf16>, %wq: tensor<8x20xbf16>, %wk: tensor<8x2xbf16>, %wv: tensor<1x8xbf16>) -> tensor<?x?x4xbf16> {
  %r = tfm.additive_attention %q, %k, %v weights(%wq, %wk, %wv) : (tensor<?x?x20xbf16>, tensor<?x?x2xbf16>, tensor<?x?x4xbf16>, tensor<8x20xbf16>, tensor<8x2xbf16>, tensor<1x8xbf16>) -> tensor<?x?x4xbf16>
  return %r : tensor<?x?x4xbf16>
}

//===----------------------------------------------------------------------===//
// kernel_pooling
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @kernel_pooling_gaussian(
// CHECK-SAME:    %[[XQ:.*]]: tensor<40xf32>, %[[XK:.*]]: tensor<50xf32>, %[[Y:.*]]: tensor<50xf32>)
// CHECK:         %[[R:.*]] = tfm.kernel_pooling %[[XQ]], %[[XK]], %[[Y]] {kernel = #tfm.kernel<gaussian>} :
// CHECK-SAME:      (tensor<40xf32>, tensor<50xf32>, tensor<50xf32>) -> tensor<40xf32>
// CHECK:         return %[[R]] : tensor<40xf32>
func.func @kernel_pooling_gaussian(%xq: tensor<40xf32>, %xk: tensor<50xf32>, %y: tensor<50xf32>) -> tensor<40xf32> {
  %r = tfm.kernel_pooling %xq, %xk, %y {kernel = #tfm.kernel<gaussian>} : (tensor<40xf32>, tensor<50xf32>, tensor<50xf32>) -> tensor<40xf32>
  return %r : tensor<40xf32>
}

// CHECK-LABEL: func.func @kernel_pooling_boxcar(
// CHECK-SAME:    %[[XQ:.*]]: tensor<40xf32>, %[[XK:.*]]: tensor<50xf32>, %[[Y:.*]]: tensor<50xf32>)
// CHECK:         %[[R:.*]] = tfm.kernel_pooling %[[XQ]], %[[XK]], %[[Y]] {bandwidth = 5.000000e-01 : f64, kernel = #tfm.kernel<boxcar>} :
// CHECK-SAME:      (tensor<40xf32>, tensor<50xf32>, tensor<50xf32>) -> tensor<40xf32>
// CHECK:         return %[[R]] : tensor<40xf32>
func.func @kernel_pooling_boxcar(%xq: tensor<40xf32>, %xk: tensor<50xf32>, %y: tensor<50xf32>) -> tensor<40xf32> {
  %r = tfm.kernel_pooling %xq, %xk, %y {bandwidth = 5.000000e-01 : f64, kernel = #tfm.kernel<boxcar>} : (tensor<40xf32>, tensor<50xf32>, tensor<50xf32>) -> tensor<40xf32>
  return %r : tensor<40xf32>
}

// CHECK-LABEL: func.func @kernel_pooling_constant(
// CHECK-SAME:    %[[XQ:.*]]: tensor<40xf32>, %[[XK:.*]]: tensor<50xf32>, %[[Y:.*]]: tensor<50xf32>)
// CHECK:         %[[R:.*]] = tfm.kernel_pooling %[[XQ]], %[[XK]], %[[Y]] {kernel = #tfm.kernel<constant>} :
// CHECK-SAME:      (tensor<40xf32>, tensor<50xf32>, tensor<50xf32>) -> tensor<40xf32>
// CHECK:         return %[[R]] : tensor<40xf32>
func.func @kernel_pooling_constant(%xq: tensor<40xf32>, %xk: tensor<50xf32>, %y: tensor<50xf32>) -> tensor<40xf32> {
  %r = tfm.kernel_pooling %xq, %xk, %y {kernel = #tfm.kernel<constant>} : (tensor<40xf32>, tensor<50xf32>, tensor<50xf32>) -> tensor<40xf32>
  return %r : tensor<40xf32>
}

// CHECK-LABEL: func.func @kernel_pooling_epanechikov(
// CHECK-SAME:    %[[XQ:.*]]: tensor<40xf32>, %[[XK:.*]]: tensor<50xf32>, %[[Y:.*]]: tensor<50xf32>)
// CHECK:         %[[R:.*]] = tfm.kernel_pooling %[[XQ]], %[[XK]], %[[Y]] {bandwidth = 2.000000e+00 : f64, kernel = #tfm.kernel<epanechikov>} :
// CHECK-SAME:      (tensor<40xf32>, tensor<50xf32>, tensor<50xf32>) -> tensor<40xf32>
// CHECK:         return %[[R]] : tensor<40xf32>
func.func @kernel_pooling_epanechikov(%xq: tensor<40xf32>, %xk: tensor<50xf32>, %y: tensor<50xf32>) -> tensor<40xf32> {
  %r = tfm.kernel_pooling %xq, %xk, %y {bandwidth = 2.000000e+00 : f64, kernel = #tfm.kernel<epanechikov>} : (tensor<40xf32>, tensor<50xf32>, tensor<50xf32>) -> tensor<40xf32>
  return %r : tensor<40xf32>
}

// CHECK-LABEL: func.func @kernel_pooling_batched_vector_values_f16(
// CHECK-SAME:    %[[XQ:.*]]: tensor<3x40xf16>, %[[XK:.*]]: tensor<3x50xf16>, %[[Y:.*]]: tensor<3x50x7xf16>)
// CHECK:         %[[R:.*]] = tfm.kernel_pooling %[[XQ]], %[[XK]], %[[Y]] {kernel = #tfm.kernel<gaussian>} :
// CHECK-SAME:      (tensor<3x40xf16>, tensor<3x50xf16>, tensor<3x50x7xf16>) -> tensor<3x40x7xf16>
// CHECK:         return %[[R]] : tensor<3x40x7xf16>
func.func @kernel_pooling_batched_vector_values_f16(%xq: tensor<3x40xf16>, %xk: tensor<3x50xf16>, %y: tensor<3x50x7xf16>) -> tensor<3x40x7xf16> {
  %r = tfm.kernel_pooling %xq, %xk, %y {kernel = #tfm.kernel<gaussian>} : (tensor<3x40xf16>, tensor<3x50xf16>, tensor<3x50x7xf16>) -> tensor<3x40x7xf16>
  return %r : tensor<3x40x7xf16>
}

// CHECK-LABEL: func.func @kernel_pooling_dynamic_bf16(
// CHECK-SAME:    %[[XQ:.*]]: tensor<?x?xbf16>, %[[XK:.*]]: tensor<?x?xbf16>, %[[Y:.*]]: tensor<?x?xbf16>)
// CHECK:         %[[R:.*]] = tfm.kernel_pooling %[[XQ]], %[[XK]], %[[Y]] {kernel = #tfm.kernel<boxcar>} :
// CHECK-SAME:      (tensor<?x?xbf16>, tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16>
// CHECK:         return %[[R]] : tensor<?x?xbf16>
func.func @kernel_pooling_dynamic_bf16(%xq: tensor<?x?xbf16>, %xk: tensor<?x?xbf16>, %y: tensor<?x?xbf16>) -> tensor<?x?xbf16> {
  %r = tfm.kernel_pooling %xq, %xk, %y {kernel = #tfm.kernel<boxcar>} : (tensor<?x?xbf16>, tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16>
  return %r : tensor<?x?xbf16>
}

//===----------------------------------------------------------------------===//
// split_heads and merge_heads
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @split_heads(
// CHECK-SAME:    %[[X:.*]]: tensor<2x4x100xf32>)
// CHECK:         %[[R:.*]] = tfm.split_heads %[[X]] {num_heads = 5 : i64} :
// CHECK-SAME:      (tensor<2x4x100xf32>) -> tensor<10x4x20xf32>
// CHECK:         return %[[R]] : tensor<10x4x20xf32>
func.func @split_heads(%x: tensor<2x4x100xf32>) -> tensor<10x4x20xf32> {
  %r = tfm.split_heads %x {num_heads = 5 : i64} : (tensor<2x4x100xf32>) -> tensor<10x4x20xf32>
  return %r : tensor<10x4x20xf32>
}

// CHECK-LABEL: func.func @split_heads_dynamic_f16(
// CHECK-SAME:    %[[X:.*]]: tensor<?x?x64xf16>)
// CHECK:         %[[R:.*]] = tfm.split_heads %[[X]] {num_heads = 8 : i64} :
// CHECK-SAME:      (tensor<?x?x64xf16>) -> tensor<?x?x8xf16>
// CHECK:         return %[[R]] : tensor<?x?x8xf16>
func.func @split_heads_dynamic_f16(%x: tensor<?x?x64xf16>) -> tensor<?x?x8xf16> {
  %r = tfm.split_heads %x {num_heads = 8 : i64} : (tensor<?x?x64xf16>) -> tensor<?x?x8xf16>
  return %r : tensor<?x?x8xf16>
}

// CHECK-LABEL: func.func @split_heads_dynamic_model_dim_bf16(
// CHECK-SAME:    %[[X:.*]]: tensor<2x4x?xbf16>)
// CHECK:         %[[R:.*]] = tfm.split_heads %[[X]] {num_heads = 3 : i64} :
// CHECK-SAME:      (tensor<2x4x?xbf16>) -> tensor<6x4x?xbf16>
// CHECK:         return %[[R]] : tensor<6x4x?xbf16>
func.func @split_heads_dynamic_model_dim_bf16(%x: tensor<2x4x?xbf16>) -> tensor<6x4x?xbf16> {
  %r = tfm.split_heads %x {num_heads = 3 : i64} : (tensor<2x4x?xbf16>) -> tensor<6x4x?xbf16>
  return %r : tensor<6x4x?xbf16>
}

// CHECK-LABEL: func.func @merge_heads(
// CHECK-SAME:    %[[X:.*]]: tensor<10x4x20xf32>)
// CHECK:         %[[R:.*]] = tfm.merge_heads %[[X]] {num_heads = 5 : i64} :
// CHECK-SAME:      (tensor<10x4x20xf32>) -> tensor<2x4x100xf32>
// CHECK:         return %[[R]] : tensor<2x4x100xf32>
func.func @merge_heads(%x: tensor<10x4x20xf32>) -> tensor<2x4x100xf32> {
  %r = tfm.merge_heads %x {num_heads = 5 : i64} : (tensor<10x4x20xf32>) -> tensor<2x4x100xf32>
  return %r : tensor<2x4x100xf32>
}

// CHECK-LABEL: func.func @merge_heads_dynamic_bf16(
// CHECK-SAME:    %[[X:.*]]: tensor<?x?x8xbf16>)
// CHECK:         %[[R:.*]] = tfm.merge_heads %[[X]] {num_heads = 8 : i64} :
// CHECK-SAME:      (tensor<?x?x8xbf16>) -> tensor<?x?x64xbf16>
// CHECK:         return %[[R]] : tensor<?x?x64xbf16>
func.func @merge_heads_dynamic_bf16(%x: tensor<?x?x8xbf16>) -> tensor<?x?x64xbf16> {
  %r = tfm.merge_heads %x {num_heads = 8 : i64} : (tensor<?x?x8xbf16>) -> tensor<?x?x64xbf16>
  return %r : tensor<?x?x64xbf16>
}

// A declared result may refine a dynamic inferred size.
// CHECK-LABEL: func.func @merge_heads_refined_result_f16(
// CHECK-SAME:    %[[X:.*]]: tensor<?x4x20xf16>)
// CHECK:         %[[R:.*]] = tfm.merge_heads %[[X]] {num_heads = 5 : i64} :
// CHECK-SAME:      (tensor<?x4x20xf16>) -> tensor<2x4x100xf16>
// CHECK:         return %[[R]] : tensor<2x4x100xf16>
func.func @merge_heads_refined_result_f16(%x: tensor<?x4x20xf16>) -> tensor<2x4x100xf16> {
  %r = tfm.merge_heads %x {num_heads = 5 : i64} : (tensor<?x4x20xf16>) -> tensor<2x4x100xf16>
  return %r : tensor<2x4x100xf16>
}

//===----------------------------------------------------------------------===//
// multi_head_attention
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @multi_head_attention(
// CHECK-SAME:    %[[X:.*]]: tensor<2x4x32xf32>, %[[WQ:.*]]: tensor<32x32xf32>, %[[WK:.*]]: tensor<32x32xf32>, %[[WV:.*]]: tensor<32x32xf32>, %[[WO:.*]]: tensor<32x32xf32>)
// CHECK:         %[[R:.*]] = tfm.multi_head_attention %[[X]], %[[X]], %[[X]] weights(%[[WQ]], %[[WK]], %[[WV]], %[[WO]]) {num_heads = 4 : i64} :
// CHECK-SAME:      (tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<2x4x32xf32>
// CHECK:         return %[[R]] : tensor<2x4x32xf32>
func.func @multi_head_attention(%x: tensor<2x4x32xf32>, %wq: tensor<32x32xf32>, %wk: tensor<32x32xf32>, %wv: tensor<32x32xf32>, %wo: tensor<32x32xf32>) -> tensor<2x4x32xf32> {
  %r = tfm.multi_head_attention %x, %x, %x weights(%wq, %wk, %wv, %wo) {num_heads = 4 : i64} : (tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<2x4x32xf32>
  return %r : tensor<2x4x32xf32>
}

// CHECK-LABEL: func.func @multi_head_attention_biases_valid_lens(
// CHECK-SAME:    %[[X:.*]]: tensor<2x4x32xf32>, %[[WQ:.*]]: tensor<32x32xf32>, %[[WK:.*]]: tensor<32x32xf32>, %[[WV:.*]]: tensor<32x32xf32>, %[[WO:.*]]: tensor<32x32xf32>, %[[BQ:.*]]: tensor<32xf32>, %[[BK:.*]]: tensor<32xf32>, %[[BV:.*]]: tensor<32xf32>, %[[BO:.*]]: tensor<32xf32>, %[[LENS:.*]]: tensor<2xi32>)
// CHECK:         %[[R:.*]] = tfm.multi_head_attention %[[X]], %[[X]], %[[X]] weights(%[[WQ]], %[[WK]], %[[WV]], %[[WO]]) biases(%[[BQ]], %[[BK]], %[[BV]], %[[BO]]) valid_lens(%[[LENS]]) {num_heads = 4 : i64} :
// CHECK-SAME:      (tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<2xi32>) -> tensor<2x4x32xf32>
// CHECK:         return %[[R]] : tensor<2x4x32xf32>
func.func @multi_head_attention_biases_valid_lens(%x: tensor<2x4x32xf32>, %wq: tensor<32x32xf32>, %wk: tensor<32x32xf32>, %wv: tensor<32x32xf32>, %wo: tensor<32x32xf32>, %bq: tensor<32xf32>, %bk: tensor<32xf32>, %bv: tensor<32xf32>, %bo: tensor<32xf32>, %lens: tensor<2xi32>) -> tensor<2x4x32xf32> {
  %r = tfm.multi_head_attention %x, %x, %x weights(%wq, %wk, %wv, %wo) biases(%bq, %bk, %bv, %bo) valid_lens(%lens) {num_heads = 4 : i64} : (tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<2xi32>) -> tensor<2x4x32xf32>
  return %r : tensor<2x4x32xf32>
}

// Cross attention with distinct query/key/value/model/output sizes.
// CHECK-LABEL: func.func @multi_head_attention_cross_per_query_lens(
// CHECK-SAME:    %[[Q:.*]]: tensor<2x3x20xf32>, %[[K:.*]]: tensor<2x5x12xf32>, %[[V:.*]]: tensor<2x5x6xf32>, %[[WQ:.*]]: tensor<16x20xf32>, %[[WK:.*]]: tensor<16x12xf32>, %[[WV:.*]]: tensor<16x6xf32>, %[[WO:.*]]: tensor<10x16xf32>, %[[LENS:.*]]: tensor<2x3xi64>)
// CHECK:         %[[R:.*]] = tfm.multi_head_attention %[[Q]], %[[K]], %[[V]] weights(%[[WQ]], %[[WK]], %[[WV]], %[[WO]]) valid_lens(%[[LENS]]) {dropout = 1.000000e-01 : f64, num_heads = 2 : i64} :
// CHECK-SAME:      (tensor<2x3x20xf32>, tensor<2x5x12xf32>, tensor<2x5x6xf32>, tensor<16x20xf32>, tensor<16x12xf32>, tensor<16x6xf32>, tensor<10x16xf32>, tensor<2x3xi64>) -> tensor<2x3x10xf32>
// CHECK:         return %[[R]] : tensor<2x3x10xf32>
func.func @multi_head_attention_cross_per_query_lens(%q: tensor<2x3x20xf32>, %k: tensor<2x5x12xf32>, %v: tensor<2x5x6xf32>, %wq: tensor<16x20xf32>, %wk: tensor<16x12xf32>, %wv: tensor<16x6xf32>, %wo: tensor<10x16xf32>, %lens: tensor<2x3xi64>) -> tensor<2x3x10xf32> {
  %r = tfm.multi_head_attention %q, %k, %v weights(%wq, %wk, %wv, %wo) valid_lens(%lens) {dropout = 1.000000e-01 : f64, num_heads = 2 : i64} : (tensor<2x3x20xf32>, tensor<2x5x12xf32>, tensor<2x5x6xf32>, tensor<16x20xf32>, tensor<16x12xf32>, tensor<16x6xf32>, tensor<10x16xf32>, tensor<2x3xi64>) -> tensor<2x3x10xf32>
  return %r : tensor<2x3x10xf32>
}

// CHECK-LABEL: func.func @multi_head_attention_mask_causal_scale(
// CHECK-SAME:    %[[X:.*]]: tensor<2x4x32xf32>, %[[W:.*]]: tensor<32x32xf32>, %[[MASK:.*]]: tensor<1x4x4xf32>)
// CHECK:         %[[R:.*]] = tfm.multi_head_attention %[[X]], %[[X]], %[[X]] weights(%[[W]], %[[W]], %[[W]], %[[W]]) mask(%[[MASK]]) {causal, num_heads = 4 : i64, scale = 2.500000e-01 : f64} :
// CHECK-SAME:      (tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<1x4x4xf32>) -> tensor<2x4x32xf32>
// CHECK:         return %[[R]] : tensor<2x4x32xf32>
func.func @multi_head_attention_mask_causal_scale(%x: tensor<2x4x32xf32>, %w: tensor<32x32xf32>, %mask: tensor<1x4x4xf32>) -> tensor<2x4x32xf32> {
  %r = tfm.multi_head_attention %x, %x, %x weights(%w, %w, %w, %w) mask(%mask) {causal, num_heads = 4 : i64, scale = 2.500000e-01 : f64} : (tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<1x4x4xf32>) -> tensor<2x4x32xf32>
  return %r : tensor<2x4x32xf32>
}

// Every optional operand group at once; the mask is per head [B*H, Sq, Sk].
// CHECK-LABEL: func.func @multi_head_attention_all_optional_f16(
// CHECK-SAME:    %[[X:.*]]: tensor<2x4x32xf16>, %[[W:.*]]: tensor<32x32xf16>, %[[B:.*]]: tensor<32xf16>, %[[LENS:.*]]: tensor<2x4xi32>, %[[MASK:.*]]: tensor<8x4x4xf16>)
// CHECK:         %[[R:.*]] = tfm.multi_head_attention %[[X]], %[[X]], %[[X]] weights(%[[W]], %[[W]], %[[W]], %[[W]]) biases(%[[B]], %[[B]], %[[B]], %[[B]]) valid_lens(%[[LENS]]) mask(%[[MASK]]) {num_heads = 4 : i64} :
// CHECK-SAME:      (tensor<2x4x32xf16>, tensor<2x4x32xf16>, tensor<2x4x32xf16>, tensor<32x32xf16>, tensor<32x32xf16>, tensor<32x32xf16>, tensor<32x32xf16>, tensor<32xf16>, tensor<32xf16>, tensor<32xf16>, tensor<32xf16>, tensor<2x4xi32>, tensor<8x4x4xf16>) -> tensor<2x4x32xf16>
// CHECK:         return %[[R]] : tensor<2x4x32xf16>
func.func @multi_head_attention_all_optional_f16(%x: tensor<2x4x32xf16>, %w: tensor<32x32xf16>, %b: tensor<32xf16>, %lens: tensor<2x4xi32>, %mask: tensor<8x4x4xf16>) -> tensor<2x4x32xf16> {
  %r = tfm.multi_head_attention %x, %x, %x weights(%w, %w, %w, %w) biases(%b, %b, %b, %b) valid_lens(%lens) mask(%mask) {num_heads = 4 : i64} : (tensor<2x4x32xf16>, tensor<2x4x32xf16>, tensor<2x4x32xf16>, tensor<32x32xf16>, tensor<32x32xf16>, tensor<32x32xf16>, tensor<32x32xf16>, tensor<32xf16>, tensor<32xf16>, tensor<32xf16>, tensor<32xf16>, tensor<2x4xi32>, tensor<8x4x4xf16>) -> tensor<2x4x32xf16>
  return %r : tensor<2x4x32xf16>
}

// CHECK-LABEL: func.func @multi_head_attention_dynamic_bf16(
// CHECK-SAME:    %[[Q:.*]]: tensor<?x?x32xbf16>, %[[KV:.*]]: tensor<?x?x32xbf16>, %[[W:.*]]: tensor<32x32xbf16>, %[[LENS:.*]]: tensor<?xi64>)
// CHECK:         %[[R:.*]] = tfm.multi_head_attention %[[Q]], %[[KV]], %[[KV]] weights(%[[W]], %[[W]], %[[W]], %[[W]]) valid_lens(%[[LENS]]) {num_heads = 8 : i64} :
// CHECK-SAME:      (tensor<?x?x32xbf16>, tensor<?x?x32xbf16>, tensor<?x?x32xbf16>, tensor<32x32xbf16>, tensor<32x32xbf16>, tensor<32x32xbf16>, tensor<32x32xbf16>, tensor<?xi64>) -> tensor<?x?x32xbf16>
// CHECK:         return %[[R]] : tensor<?x?x32xbf16>
func.func @multi_head_attention_dynamic_bf16(%q: tensor<?x?x32xbf16>, %kv: tensor<?x?x32xbf16>, %w: tensor<32x32xbf16>, %lens: tensor<?xi64>) -> tensor<?x?x32xbf16> {
  %r = tfm.multi_head_attention %q, %kv, %kv weights(%w, %w, %w, %w) valid_lens(%lens) {num_heads = 8 : i64} : (tensor<?x?x32xbf16>, tensor<?x?x32xbf16>, tensor<?x?x32xbf16>, tensor<32x32xbf16>, tensor<32x32xbf16>, tensor<32x32xbf16>, tensor<32x32xbf16>, tensor<?xi64>) -> tensor<?x?x32xbf16>
  return %r : tensor<?x?x32xbf16>
}

//===----------------------------------------------------------------------===//
// linear
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @linear_no_bias(
// CHECK-SAME:    %[[X:.*]]: tensor<2x4x8xf32>, %[[W:.*]]: tensor<16x8xf32>)
// CHECK:         %[[R:.*]] = tfm.linear %[[X]], %[[W]] :
// CHECK-SAME:      (tensor<2x4x8xf32>, tensor<16x8xf32>) -> tensor<2x4x16xf32>
// CHECK:         return %[[R]] : tensor<2x4x16xf32>
func.func @linear_no_bias(%x: tensor<2x4x8xf32>, %w: tensor<16x8xf32>) -> tensor<2x4x16xf32> {
  %r = tfm.linear %x, %w : (tensor<2x4x8xf32>, tensor<16x8xf32>) -> tensor<2x4x16xf32>
  return %r : tensor<2x4x16xf32>
}

// activation = none is the default, hence elided.
// CHECK-LABEL: func.func @linear_bias_activation_none(
// CHECK-SAME:    %[[X:.*]]: tensor<8xf32>, %[[W:.*]]: tensor<16x8xf32>, %[[B:.*]]: tensor<16xf32>)
// CHECK:         %[[R:.*]] = tfm.linear %[[X]], %[[W]], %[[B]] :
// CHECK-SAME:      (tensor<8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<16xf32>
// CHECK:         return %[[R]] : tensor<16xf32>
func.func @linear_bias_activation_none(%x: tensor<8xf32>, %w: tensor<16x8xf32>, %b: tensor<16xf32>) -> tensor<16xf32> {
  %r = tfm.linear %x, %w, %b {activation = #tfm.activation<none>} : (tensor<8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<16xf32>
  return %r : tensor<16xf32>
}

// CHECK-LABEL: func.func @linear_relu(
// CHECK-SAME:    %[[X:.*]]: tensor<2x4x8xf32>, %[[W:.*]]: tensor<16x8xf32>, %[[B:.*]]: tensor<16xf32>)
// CHECK:         %[[R:.*]] = tfm.linear %[[X]], %[[W]], %[[B]] {activation = #tfm.activation<relu>} :
// CHECK-SAME:      (tensor<2x4x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<2x4x16xf32>
// CHECK:         return %[[R]] : tensor<2x4x16xf32>
func.func @linear_relu(%x: tensor<2x4x8xf32>, %w: tensor<16x8xf32>, %b: tensor<16xf32>) -> tensor<2x4x16xf32> {
  %r = tfm.linear %x, %w, %b {activation = #tfm.activation<relu>} : (tensor<2x4x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<2x4x16xf32>
  return %r : tensor<2x4x16xf32>
}

// CHECK-LABEL: func.func @linear_gelu_f16(
// CHECK-SAME:    %[[X:.*]]: tensor<2x4x8xf16>, %[[W:.*]]: tensor<16x8xf16>, %[[B:.*]]: tensor<16xf16>)
// CHECK:         %[[R:.*]] = tfm.linear %[[X]], %[[W]], %[[B]] {activation = #tfm.activation<gelu>} :
// CHECK-SAME:      (tensor<2x4x8xf16>, tensor<16x8xf16>, tensor<16xf16>) -> tensor<2x4x16xf16>
// CHECK:         return %[[R]] : tensor<2x4x16xf16>
func.func @linear_gelu_f16(%x: tensor<2x4x8xf16>, %w: tensor<16x8xf16>, %b: tensor<16xf16>) -> tensor<2x4x16xf16> {
  %r = tfm.linear %x, %w, %b {activation = #tfm.activation<gelu>} : (tensor<2x4x8xf16>, tensor<16x8xf16>, tensor<16xf16>) -> tensor<2x4x16xf16>
  return %r : tensor<2x4x16xf16>
}

// CHECK-LABEL: func.func @linear_gelu_tanh_dynamic_bf16(
// CHECK-SAME:    %[[X:.*]]: tensor<?x?x8xbf16>, %[[W:.*]]: tensor<16x8xbf16>)
// CHECK:         %[[R:.*]] = tfm.linear %[[X]], %[[W]] {activation = #tfm.activation<gelu_tanh>} :
// CHECK-SAME:      (tensor<?x?x8xbf16>, tensor<16x8xbf16>) -> tensor<?x?x16xbf16>
// CHECK:         return %[[R]] : tensor<?x?x16xbf16>
func.func @linear_gelu_tanh_dynamic_bf16(%x: tensor<?x?x8xbf16>, %w: tensor<16x8xbf16>) -> tensor<?x?x16xbf16> {
  %r = tfm.linear %x, %w {activation = #tfm.activation<gelu_tanh>} : (tensor<?x?x8xbf16>, tensor<16x8xbf16>) -> tensor<?x?x16xbf16>
  return %r : tensor<?x?x16xbf16>
}

//===----------------------------------------------------------------------===//
// ffn
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @ffn_default_relu(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3x4xf32>, %[[W1:.*]]: tensor<8x4xf32>, %[[B1:.*]]: tensor<8xf32>, %[[W2:.*]]: tensor<4x8xf32>, %[[B2:.*]]: tensor<4xf32>)
// CHECK:         %[[R:.*]] = tfm.ffn %[[X]] dense1(%[[W1]], %[[B1]]) dense2(%[[W2]], %[[B2]]) :
// CHECK-SAME:      (tensor<2x3x4xf32>, tensor<8x4xf32>, tensor<8xf32>, tensor<4x8xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
// CHECK:         return %[[R]] : tensor<2x3x4xf32>
func.func @ffn_default_relu(%x: tensor<2x3x4xf32>, %w1: tensor<8x4xf32>, %b1: tensor<8xf32>, %w2: tensor<4x8xf32>, %b2: tensor<4xf32>) -> tensor<2x3x4xf32> {
  %r = tfm.ffn %x dense1(%w1, %b1) dense2(%w2, %b2) : (tensor<2x3x4xf32>, tensor<8x4xf32>, tensor<8xf32>, tensor<4x8xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  return %r : tensor<2x3x4xf32>
}

// CHECK-LABEL: func.func @ffn_gated(
// CHECK:         tfm.ffn %{{.*}} gate(%{{.*}}) dense1(%{{.*}}) dense2(%{{.*}}) {activation = #tfm.activation<silu>} :
// CHECK-LABEL: func.func @ffn_gated_biases(
// CHECK:         tfm.ffn %{{.*}} gate(%{{.*}}, %{{.*}}) dense1(%{{.*}}, %{{.*}}) dense2(%{{.*}}) {activation = #tfm.activation<gelu>} :
func.func @ffn_gated(%x: tensor<2x3x4xf32>, %wg: tensor<8x4xf32>, %w1: tensor<8x4xf32>, %w2: tensor<4x8xf32>) -> tensor<2x3x4xf32> {
  %r = tfm.ffn %x gate(%wg) dense1(%w1) dense2(%w2) {activation = #tfm.activation<silu>} : (tensor<2x3x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<4x8xf32>) -> tensor<2x3x4xf32>
  return %r : tensor<2x3x4xf32>
}
func.func @ffn_gated_biases(%x: tensor<2x3x4xf32>, %wg: tensor<8x4xf32>, %bg: tensor<8xf32>, %w1: tensor<8x4xf32>, %b1: tensor<8xf32>, %w2: tensor<4x8xf32>) -> tensor<2x3x4xf32> {
  %r = tfm.ffn %x gate(%wg, %bg) dense1(%w1, %b1) dense2(%w2) {activation = #tfm.activation<gelu>} : (tensor<2x3x4xf32>, tensor<8x4xf32>, tensor<8xf32>, tensor<8x4xf32>, tensor<8xf32>, tensor<4x8xf32>) -> tensor<2x3x4xf32>
  return %r : tensor<2x3x4xf32>
}

// CHECK-LABEL: func.func @ffn_no_biases_gelu(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3x4xf32>, %[[W1:.*]]: tensor<8x4xf32>, %[[W2:.*]]: tensor<6x8xf32>)
// CHECK:         %[[R:.*]] = tfm.ffn %[[X]] dense1(%[[W1]]) dense2(%[[W2]]) {activation = #tfm.activation<gelu>} :
// CHECK-SAME:      (tensor<2x3x4xf32>, tensor<8x4xf32>, tensor<6x8xf32>) -> tensor<2x3x6xf32>
// CHECK:         return %[[R]] : tensor<2x3x6xf32>
func.func @ffn_no_biases_gelu(%x: tensor<2x3x4xf32>, %w1: tensor<8x4xf32>, %w2: tensor<6x8xf32>) -> tensor<2x3x6xf32> {
  %r = tfm.ffn %x dense1(%w1) dense2(%w2) {activation = #tfm.activation<gelu>} : (tensor<2x3x4xf32>, tensor<8x4xf32>, tensor<6x8xf32>) -> tensor<2x3x6xf32>
  return %r : tensor<2x3x6xf32>
}

// CHECK-LABEL: func.func @ffn_first_bias_only_gelu_tanh_f16(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3x4xf16>, %[[W1:.*]]: tensor<8x4xf16>, %[[B1:.*]]: tensor<8xf16>, %[[W2:.*]]: tensor<4x8xf16>)
// CHECK:         %[[R:.*]] = tfm.ffn %[[X]] dense1(%[[W1]], %[[B1]]) dense2(%[[W2]]) {activation = #tfm.activation<gelu_tanh>, dropout = 1.000000e-01 : f64} :
// CHECK-SAME:      (tensor<2x3x4xf16>, tensor<8x4xf16>, tensor<8xf16>, tensor<4x8xf16>) -> tensor<2x3x4xf16>
// CHECK:         return %[[R]] : tensor<2x3x4xf16>
func.func @ffn_first_bias_only_gelu_tanh_f16(%x: tensor<2x3x4xf16>, %w1: tensor<8x4xf16>, %b1: tensor<8xf16>, %w2: tensor<4x8xf16>) -> tensor<2x3x4xf16> {
  %r = tfm.ffn %x dense1(%w1, %b1) dense2(%w2) {activation = #tfm.activation<gelu_tanh>, dropout = 1.000000e-01 : f64} : (tensor<2x3x4xf16>, tensor<8x4xf16>, tensor<8xf16>, tensor<4x8xf16>) -> tensor<2x3x4xf16>
  return %r : tensor<2x3x4xf16>
}

// activation = relu is ffn's default, hence elided.
// CHECK-LABEL: func.func @ffn_second_bias_only_dynamic_bf16(
// CHECK-SAME:    %[[X:.*]]: tensor<?x?x4xbf16>, %[[W1:.*]]: tensor<8x4xbf16>, %[[W2:.*]]: tensor<4x8xbf16>, %[[B2:.*]]: tensor<4xbf16>)
// CHECK:         %[[R:.*]] = tfm.ffn %[[X]] dense1(%[[W1]]) dense2(%[[W2]], %[[B2]]) :
// CHECK-SAME:      (tensor<?x?x4xbf16>, tensor<8x4xbf16>, tensor<4x8xbf16>, tensor<4xbf16>) -> tensor<?x?x4xbf16>
// CHECK:         return %[[R]] : tensor<?x?x4xbf16>
func.func @ffn_second_bias_only_dynamic_bf16(%x: tensor<?x?x4xbf16>, %w1: tensor<8x4xbf16>, %w2: tensor<4x8xbf16>, %b2: tensor<4xbf16>) -> tensor<?x?x4xbf16> {
  %r = tfm.ffn %x dense1(%w1) dense2(%w2, %b2) {activation = #tfm.activation<relu>} : (tensor<?x?x4xbf16>, tensor<8x4xbf16>, tensor<4x8xbf16>, tensor<4xbf16>) -> tensor<?x?x4xbf16>
  return %r : tensor<?x?x4xbf16>
}

//===----------------------------------------------------------------------===//
// rms_norm
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @rms_norm(
// CHECK-SAME:    %[[X:.*]]: tensor<?x3x4xf16>, %[[GAMMA:.*]]: tensor<4xf16>)
// CHECK:         %[[R:.*]] = tfm.rms_norm %[[X]], %[[GAMMA]] {epsilon = 1.000000e-05 : f64} :
// CHECK-SAME:      (tensor<?x3x4xf16>, tensor<4xf16>) -> tensor<?x3x4xf16>
// CHECK:         tfm.rms_norm %[[X]], %[[GAMMA]] :
func.func @rms_norm(%x: tensor<?x3x4xf16>, %gamma: tensor<4xf16>) -> (tensor<?x3x4xf16>, tensor<?x3x4xf16>) {
  %r = tfm.rms_norm %x, %gamma {epsilon = 1.0e-5 : f64} : (tensor<?x3x4xf16>, tensor<4xf16>) -> tensor<?x3x4xf16>
  %d = tfm.rms_norm %x, %gamma : (tensor<?x3x4xf16>, tensor<4xf16>) -> tensor<?x3x4xf16>
  return %r, %d : tensor<?x3x4xf16>, tensor<?x3x4xf16>
}

//===----------------------------------------------------------------------===//
// layer_norm and add_norm
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @layer_norm(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3x4xf32>, %[[GAMMA:.*]]: tensor<4xf32>, %[[BETA:.*]]: tensor<4xf32>)
// CHECK:         %[[R:.*]] = tfm.layer_norm %[[X]], %[[GAMMA]], %[[BETA]] :
// CHECK-SAME:      (tensor<2x3x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
// CHECK:         return %[[R]] : tensor<2x3x4xf32>
func.func @layer_norm(%x: tensor<2x3x4xf32>, %gamma: tensor<4xf32>, %beta: tensor<4xf32>) -> tensor<2x3x4xf32> {
  %r = tfm.layer_norm %x, %gamma, %beta : (tensor<2x3x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  return %r : tensor<2x3x4xf32>
}

// CHECK-LABEL: func.func @layer_norm_epsilon_dynamic_f16(
// CHECK-SAME:    %[[X:.*]]: tensor<?x?x4xf16>, %[[GAMMA:.*]]: tensor<4xf16>, %[[BETA:.*]]: tensor<4xf16>)
// CHECK:         %[[R:.*]] = tfm.layer_norm %[[X]], %[[GAMMA]], %[[BETA]] {epsilon = 9.9999999999999995E-7 : f64} :
// CHECK-SAME:      (tensor<?x?x4xf16>, tensor<4xf16>, tensor<4xf16>) -> tensor<?x?x4xf16>
// CHECK:         return %[[R]] : tensor<?x?x4xf16>
func.func @layer_norm_epsilon_dynamic_f16(%x: tensor<?x?x4xf16>, %gamma: tensor<4xf16>, %beta: tensor<4xf16>) -> tensor<?x?x4xf16> {
  %r = tfm.layer_norm %x, %gamma, %beta {epsilon = 9.9999999999999995E-7 : f64} : (tensor<?x?x4xf16>, tensor<4xf16>, tensor<4xf16>) -> tensor<?x?x4xf16>
  return %r : tensor<?x?x4xf16>
}

// CHECK-LABEL: func.func @layer_norm_bf16_rank1(
// CHECK-SAME:    %[[X:.*]]: tensor<4xbf16>, %[[GAMMA:.*]]: tensor<4xbf16>, %[[BETA:.*]]: tensor<4xbf16>)
// CHECK:         %[[R:.*]] = tfm.layer_norm %[[X]], %[[GAMMA]], %[[BETA]] {epsilon = 0.000000e+00 : f64} :
// CHECK-SAME:      (tensor<4xbf16>, tensor<4xbf16>, tensor<4xbf16>) -> tensor<4xbf16>
// CHECK:         return %[[R]] : tensor<4xbf16>
func.func @layer_norm_bf16_rank1(%x: tensor<4xbf16>, %gamma: tensor<4xbf16>, %beta: tensor<4xbf16>) -> tensor<4xbf16> {
  %r = tfm.layer_norm %x, %gamma, %beta {epsilon = 0.000000e+00 : f64} : (tensor<4xbf16>, tensor<4xbf16>, tensor<4xbf16>) -> tensor<4xbf16>
  return %r : tensor<4xbf16>
}

// CHECK-LABEL: func.func @add_norm(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3x4xf32>, %[[Y:.*]]: tensor<2x3x4xf32>, %[[GAMMA:.*]]: tensor<4xf32>, %[[BETA:.*]]: tensor<4xf32>)
// CHECK:         %[[R:.*]] = tfm.add_norm %[[X]], %[[Y]], %[[GAMMA]], %[[BETA]] :
// CHECK-SAME:      (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
// CHECK:         return %[[R]] : tensor<2x3x4xf32>
func.func @add_norm(%x: tensor<2x3x4xf32>, %y: tensor<2x3x4xf32>, %gamma: tensor<4xf32>, %beta: tensor<4xf32>) -> tensor<2x3x4xf32> {
  %r = tfm.add_norm %x, %y, %gamma, %beta : (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  return %r : tensor<2x3x4xf32>
}

// CHECK-LABEL: func.func @add_norm_attributes_dynamic_bf16(
// CHECK-SAME:    %[[X:.*]]: tensor<?x?x4xbf16>, %[[Y:.*]]: tensor<?x?x4xbf16>, %[[GAMMA:.*]]: tensor<4xbf16>, %[[BETA:.*]]: tensor<4xbf16>)
// CHECK:         %[[R:.*]] = tfm.add_norm %[[X]], %[[Y]], %[[GAMMA]], %[[BETA]] {dropout = 1.000000e-01 : f64, epsilon = 9.9999999999999995E-7 : f64} :
// CHECK-SAME:      (tensor<?x?x4xbf16>, tensor<?x?x4xbf16>, tensor<4xbf16>, tensor<4xbf16>) -> tensor<?x?x4xbf16>
// CHECK:         return %[[R]] : tensor<?x?x4xbf16>
func.func @add_norm_attributes_dynamic_bf16(%x: tensor<?x?x4xbf16>, %y: tensor<?x?x4xbf16>, %gamma: tensor<4xbf16>, %beta: tensor<4xbf16>) -> tensor<?x?x4xbf16> {
  %r = tfm.add_norm %x, %y, %gamma, %beta {dropout = 1.000000e-01 : f64, epsilon = 9.9999999999999995E-7 : f64} : (tensor<?x?x4xbf16>, tensor<?x?x4xbf16>, tensor<4xbf16>, tensor<4xbf16>) -> tensor<?x?x4xbf16>
  return %r : tensor<?x?x4xbf16>
}

// CHECK-LABEL: func.func @add_norm_f16(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3x4xf16>, %[[Y:.*]]: tensor<2x3x4xf16>, %[[GAMMA:.*]]: tensor<4xf16>, %[[BETA:.*]]: tensor<4xf16>)
// CHECK:         %[[R:.*]] = tfm.add_norm %[[X]], %[[Y]], %[[GAMMA]], %[[BETA]] :
// CHECK-SAME:      (tensor<2x3x4xf16>, tensor<2x3x4xf16>, tensor<4xf16>, tensor<4xf16>) -> tensor<2x3x4xf16>
// CHECK:         return %[[R]] : tensor<2x3x4xf16>
func.func @add_norm_f16(%x: tensor<2x3x4xf16>, %y: tensor<2x3x4xf16>, %gamma: tensor<4xf16>, %beta: tensor<4xf16>) -> tensor<2x3x4xf16> {
  %r = tfm.add_norm %x, %y, %gamma, %beta : (tensor<2x3x4xf16>, tensor<2x3x4xf16>, tensor<4xf16>, tensor<4xf16>) -> tensor<2x3x4xf16>
  return %r : tensor<2x3x4xf16>
}

//===----------------------------------------------------------------------===//
// gelu and dropout
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @gelu(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3xf32>)
// CHECK:         %[[R:.*]] = tfm.gelu %[[X]] : tensor<2x3xf32>
// CHECK:         return %[[R]] : tensor<2x3xf32>
func.func @gelu(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = tfm.gelu %x : tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// approximate = none is the default, hence elided.
// CHECK-LABEL: func.func @gelu_none_is_default(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3xf32>)
// CHECK:         %[[R:.*]] = tfm.gelu %[[X]] : tensor<2x3xf32>
// CHECK:         return %[[R]] : tensor<2x3xf32>
func.func @gelu_none_is_default(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = tfm.gelu %x {approximate = #tfm.gelu_approximation<none>} : tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @gelu_tanh_f16(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3xf16>)
// CHECK:         %[[R:.*]] = tfm.gelu %[[X]] {approximate = #tfm.gelu_approximation<tanh>} : tensor<2x3xf16>
// CHECK:         return %[[R]] : tensor<2x3xf16>
func.func @gelu_tanh_f16(%x: tensor<2x3xf16>) -> tensor<2x3xf16> {
  %r = tfm.gelu %x {approximate = #tfm.gelu_approximation<tanh>} : tensor<2x3xf16>
  return %r : tensor<2x3xf16>
}

// CHECK-LABEL: func.func @gelu_dynamic_bf16(
// CHECK-SAME:    %[[X:.*]]: tensor<?x?xbf16>)
// CHECK:         %[[R:.*]] = tfm.gelu %[[X]] : tensor<?x?xbf16>
// CHECK:         return %[[R]] : tensor<?x?xbf16>
func.func @gelu_dynamic_bf16(%x: tensor<?x?xbf16>) -> tensor<?x?xbf16> {
  %r = tfm.gelu %x : tensor<?x?xbf16>
  return %r : tensor<?x?xbf16>
}

// CHECK-LABEL: func.func @dropout(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3xf32>)
// CHECK:         %[[R:.*]] = tfm.dropout %[[X]] {rate = 1.000000e-01 : f64} : tensor<2x3xf32>
// CHECK:         return %[[R]] : tensor<2x3xf32>
func.func @dropout(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = tfm.dropout %x {rate = 1.000000e-01 : f64} : tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @dropout_zero_rate_dynamic_f16(
// CHECK-SAME:    %[[X:.*]]: tensor<?x3xf16>)
// CHECK:         %[[R:.*]] = tfm.dropout %[[X]] {rate = 0.000000e+00 : f64} : tensor<?x3xf16>
// CHECK:         return %[[R]] : tensor<?x3xf16>
func.func @dropout_zero_rate_dynamic_f16(%x: tensor<?x3xf16>) -> tensor<?x3xf16> {
  %r = tfm.dropout %x {rate = 0.000000e+00 : f64} : tensor<?x3xf16>
  return %r : tensor<?x3xf16>
}

// CHECK-LABEL: func.func @dropout_bf16(
// CHECK-SAME:    %[[X:.*]]: tensor<4xbf16>)
// CHECK:         %[[R:.*]] = tfm.dropout %[[X]] {rate = 5.000000e-01 : f64} : tensor<4xbf16>
// CHECK:         return %[[R]] : tensor<4xbf16>
func.func @dropout_bf16(%x: tensor<4xbf16>) -> tensor<4xbf16> {
  %r = tfm.dropout %x {rate = 5.000000e-01 : f64} : tensor<4xbf16>
  return %r : tensor<4xbf16>
}

//===----------------------------------------------------------------------===//
// embedding, positional_encoding, patch_embed, prepend_class_token
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @embedding_i64_scaled(
// CHECK-SAME:    %[[IDS:.*]]: tensor<2x100xi64>, %[[TABLE:.*]]: tensor<200x24xf32>)
// CHECK:         %[[R:.*]] = tfm.embedding %[[IDS]], %[[TABLE]] {scale_by_sqrt_dim} :
// CHECK-SAME:      (tensor<2x100xi64>, tensor<200x24xf32>) -> tensor<2x100x24xf32>
// CHECK:         return %[[R]] : tensor<2x100x24xf32>
func.func @embedding_i64_scaled(%ids: tensor<2x100xi64>, %table: tensor<200x24xf32>) -> tensor<2x100x24xf32> {
  %r = tfm.embedding %ids, %table {scale_by_sqrt_dim} : (tensor<2x100xi64>, tensor<200x24xf32>) -> tensor<2x100x24xf32>
  return %r : tensor<2x100x24xf32>
}

// CHECK-LABEL: func.func @embedding_i32(
// CHECK-SAME:    %[[IDS:.*]]: tensor<7xi32>, %[[TABLE:.*]]: tensor<200x24xf32>)
// CHECK:         %[[R:.*]] = tfm.embedding %[[IDS]], %[[TABLE]] :
// CHECK-SAME:      (tensor<7xi32>, tensor<200x24xf32>) -> tensor<7x24xf32>
// CHECK:         return %[[R]] : tensor<7x24xf32>
func.func @embedding_i32(%ids: tensor<7xi32>, %table: tensor<200x24xf32>) -> tensor<7x24xf32> {
  %r = tfm.embedding %ids, %table : (tensor<7xi32>, tensor<200x24xf32>) -> tensor<7x24xf32>
  return %r : tensor<7x24xf32>
}

// A rank-0 index gathers one row.
// CHECK-LABEL: func.func @embedding_scalar_index_f16(
// CHECK-SAME:    %[[ID:.*]]: tensor<i32>, %[[TABLE:.*]]: tensor<200x24xf16>)
// CHECK:         %[[R:.*]] = tfm.embedding %[[ID]], %[[TABLE]] :
// CHECK-SAME:      (tensor<i32>, tensor<200x24xf16>) -> tensor<24xf16>
// CHECK:         return %[[R]] : tensor<24xf16>
func.func @embedding_scalar_index_f16(%id: tensor<i32>, %table: tensor<200x24xf16>) -> tensor<24xf16> {
  %r = tfm.embedding %id, %table : (tensor<i32>, tensor<200x24xf16>) -> tensor<24xf16>
  return %r : tensor<24xf16>
}

// CHECK-LABEL: func.func @embedding_dynamic_bf16(
// CHECK-SAME:    %[[IDS:.*]]: tensor<?x?xi64>, %[[TABLE:.*]]: tensor<?x24xbf16>)
// CHECK:         %[[R:.*]] = tfm.embedding %[[IDS]], %[[TABLE]] {scale_by_sqrt_dim} :
// CHECK-SAME:      (tensor<?x?xi64>, tensor<?x24xbf16>) -> tensor<?x?x24xbf16>
// CHECK:         return %[[R]] : tensor<?x?x24xbf16>
func.func @embedding_dynamic_bf16(%ids: tensor<?x?xi64>, %table: tensor<?x24xbf16>) -> tensor<?x?x24xbf16> {
  %r = tfm.embedding %ids, %table {scale_by_sqrt_dim} : (tensor<?x?xi64>, tensor<?x24xbf16>) -> tensor<?x?x24xbf16>
  return %r : tensor<?x?x24xbf16>
}

// CHECK-LABEL: func.func @rotary_embedding(
// CHECK-SAME:    %[[X:.*]]: tensor<?x8x1x64xf16>, %[[C:.*]]: tensor<2048x32xf16>, %[[S:.*]]: tensor<2048x32xf16>, %[[P:.*]]: index)
// CHECK:         tfm.rotary_embedding %[[X]], %[[C]], %[[S]] offset(%[[P]]) :
// CHECK-SAME:      (tensor<?x8x1x64xf16>, tensor<2048x32xf16>, tensor<2048x32xf16>, index) -> tensor<?x8x1x64xf16>
// CHECK:         tfm.rotary_embedding %[[X]], %[[C]], %[[S]] {interleaved} :
func.func @rotary_embedding(%x: tensor<?x8x1x64xf16>, %cos: tensor<2048x32xf16>, %sin: tensor<2048x32xf16>, %past: index)
    -> (tensor<?x8x1x64xf16>, tensor<?x8x1x64xf16>) {
  %r = tfm.rotary_embedding %x, %cos, %sin offset(%past) : (tensor<?x8x1x64xf16>, tensor<2048x32xf16>, tensor<2048x32xf16>, index) -> tensor<?x8x1x64xf16>
  %i = tfm.rotary_embedding %x, %cos, %sin {interleaved} : (tensor<?x8x1x64xf16>, tensor<2048x32xf16>, tensor<2048x32xf16>) -> tensor<?x8x1x64xf16>
  return %r, %i : tensor<?x8x1x64xf16>, tensor<?x8x1x64xf16>
}

// CHECK-LABEL: func.func @positional_encoding(
// CHECK-SAME:    %[[X:.*]]: tensor<1x60x32xf32>)
// CHECK:         %[[R:.*]] = tfm.positional_encoding %[[X]] : tensor<1x60x32xf32>
// CHECK:         return %[[R]] : tensor<1x60x32xf32>
func.func @positional_encoding(%x: tensor<1x60x32xf32>) -> tensor<1x60x32xf32> {
  %r = tfm.positional_encoding %x : tensor<1x60x32xf32>
  return %r : tensor<1x60x32xf32>
}

// CHECK-LABEL: func.func @positional_encoding_rank2_f16(
// CHECK-SAME:    %[[X:.*]]: tensor<60x32xf16>)
// CHECK:         %[[R:.*]] = tfm.positional_encoding %[[X]] : tensor<60x32xf16>
// CHECK:         return %[[R]] : tensor<60x32xf16>
func.func @positional_encoding_rank2_f16(%x: tensor<60x32xf16>) -> tensor<60x32xf16> {
  %r = tfm.positional_encoding %x : tensor<60x32xf16>
  return %r : tensor<60x32xf16>
}

// CHECK-LABEL: func.func @positional_encoding_dynamic_bf16(
// CHECK-SAME:    %[[X:.*]]: tensor<?x?x?xbf16>)
// CHECK:         %[[R:.*]] = tfm.positional_encoding %[[X]] : tensor<?x?x?xbf16>
// CHECK:         return %[[R]] : tensor<?x?x?xbf16>
func.func @positional_encoding_dynamic_bf16(%x: tensor<?x?x?xbf16>) -> tensor<?x?x?xbf16> {
  %r = tfm.positional_encoding %x : tensor<?x?x?xbf16>
  return %r : tensor<?x?x?xbf16>
}

// CHECK-LABEL: func.func @patch_embed(
// CHECK-SAME:    %[[IMG:.*]]: tensor<1x3x32x32xf32>, %[[W:.*]]: tensor<24x3x16x16xf32>, %[[B:.*]]: tensor<24xf32>)
// CHECK:         %[[R:.*]] = tfm.patch_embed %[[IMG]], %[[W]], %[[B]] :
// CHECK-SAME:      (tensor<1x3x32x32xf32>, tensor<24x3x16x16xf32>, tensor<24xf32>) -> tensor<1x4x24xf32>
// CHECK:         return %[[R]] : tensor<1x4x24xf32>
func.func @patch_embed(%img: tensor<1x3x32x32xf32>, %w: tensor<24x3x16x16xf32>, %b: tensor<24xf32>) -> tensor<1x4x24xf32> {
  %r = tfm.patch_embed %img, %w, %b : (tensor<1x3x32x32xf32>, tensor<24x3x16x16xf32>, tensor<24xf32>) -> tensor<1x4x24xf32>
  return %r : tensor<1x4x24xf32>
}

// Rectangular 7x5 patches: (28/7) * (30/5) = 24 patches.
// CHECK-LABEL: func.func @patch_embed_no_bias_rectangular_f16(
// CHECK-SAME:    %[[IMG:.*]]: tensor<2x1x28x30xf16>, %[[W:.*]]: tensor<8x1x7x5xf16>)
// CHECK:         %[[R:.*]] = tfm.patch_embed %[[IMG]], %[[W]] :
// CHECK-SAME:      (tensor<2x1x28x30xf16>, tensor<8x1x7x5xf16>) -> tensor<2x24x8xf16>
// CHECK:         return %[[R]] : tensor<2x24x8xf16>
func.func @patch_embed_no_bias_rectangular_f16(%img: tensor<2x1x28x30xf16>, %w: tensor<8x1x7x5xf16>) -> tensor<2x24x8xf16> {
  %r = tfm.patch_embed %img, %w : (tensor<2x1x28x30xf16>, tensor<8x1x7x5xf16>) -> tensor<2x24x8xf16>
  return %r : tensor<2x24x8xf16>
}

// CHECK-LABEL: func.func @patch_embed_dynamic_bf16(
// CHECK-SAME:    %[[IMG:.*]]: tensor<?x3x?x224xbf16>, %[[W:.*]]: tensor<768x3x16x16xbf16>, %[[B:.*]]: tensor<768xbf16>)
// CHECK:         %[[R:.*]] = tfm.patch_embed %[[IMG]], %[[W]], %[[B]] :
// CHECK-SAME:      (tensor<?x3x?x224xbf16>, tensor<768x3x16x16xbf16>, tensor<768xbf16>) -> tensor<?x?x768xbf16>
// CHECK:         return %[[R]] : tensor<?x?x768xbf16>
func.func @patch_embed_dynamic_bf16(%img: tensor<?x3x?x224xbf16>, %w: tensor<768x3x16x16xbf16>, %b: tensor<768xbf16>) -> tensor<?x?x768xbf16> {
  %r = tfm.patch_embed %img, %w, %b : (tensor<?x3x?x224xbf16>, tensor<768x3x16x16xbf16>, tensor<768xbf16>) -> tensor<?x?x768xbf16>
  return %r : tensor<?x?x768xbf16>
}

// CHECK-LABEL: func.func @prepend_class_token(
// CHECK-SAME:    %[[X:.*]]: tensor<1x196x768xf32>, %[[CLS:.*]]: tensor<1x1x768xf32>)
// CHECK:         %[[R:.*]] = tfm.prepend_class_token %[[X]], %[[CLS]] :
// CHECK-SAME:      (tensor<1x196x768xf32>, tensor<1x1x768xf32>) -> tensor<1x197x768xf32>
// CHECK:         return %[[R]] : tensor<1x197x768xf32>
func.func @prepend_class_token(%x: tensor<1x196x768xf32>, %cls: tensor<1x1x768xf32>) -> tensor<1x197x768xf32> {
  %r = tfm.prepend_class_token %x, %cls : (tensor<1x196x768xf32>, tensor<1x1x768xf32>) -> tensor<1x197x768xf32>
  return %r : tensor<1x197x768xf32>
}

// CHECK-LABEL: func.func @prepend_class_token_dynamic_f16(
// CHECK-SAME:    %[[X:.*]]: tensor<?x?x64xf16>, %[[CLS:.*]]: tensor<1x1x64xf16>)
// CHECK:         %[[R:.*]] = tfm.prepend_class_token %[[X]], %[[CLS]] :
// CHECK-SAME:      (tensor<?x?x64xf16>, tensor<1x1x64xf16>) -> tensor<?x?x64xf16>
// CHECK:         return %[[R]] : tensor<?x?x64xf16>
func.func @prepend_class_token_dynamic_f16(%x: tensor<?x?x64xf16>, %cls: tensor<1x1x64xf16>) -> tensor<?x?x64xf16> {
  %r = tfm.prepend_class_token %x, %cls : (tensor<?x?x64xf16>, tensor<1x1x64xf16>) -> tensor<?x?x64xf16>
  return %r : tensor<?x?x64xf16>
}

// CHECK-LABEL: func.func @prepend_class_token_bf16(
// CHECK-SAME:    %[[X:.*]]: tensor<4x16x64xbf16>, %[[CLS:.*]]: tensor<1x1x64xbf16>)
// CHECK:         %[[R:.*]] = tfm.prepend_class_token %[[X]], %[[CLS]] :
// CHECK-SAME:      (tensor<4x16x64xbf16>, tensor<1x1x64xbf16>) -> tensor<4x17x64xbf16>
// CHECK:         return %[[R]] : tensor<4x17x64xbf16>
func.func @prepend_class_token_bf16(%x: tensor<4x16x64xbf16>, %cls: tensor<1x1x64xbf16>) -> tensor<4x17x64xbf16> {
  %r = tfm.prepend_class_token %x, %cls : (tensor<4x16x64xbf16>, tensor<1x1x64xbf16>) -> tensor<4x17x64xbf16>
  return %r : tensor<4x17x64xbf16>
}

// A strategy that prefetches constant operands, with and without an
// interchange: the distance survives the round trip.

// CHECK-LABEL: func.func @lowering_config_prefetch()
//  CHECK-SAME:   a = #tfm.lowering_config<parallel = [0, 2, 0, 0], vector = [8, 1, 32, 0] interchange [0, 1, 2, 3], reduction = [0, 0, 0, 1], prefetch_distance = 128>
//  CHECK-SAME:   b = #tfm.lowering_config<parallel = [1, 32, 0], prefetch_distance = 16>
//  CHECK-SAME:   c = #tfm.lowering_config<parallel = [1, 32, 0]>
func.func @lowering_config_prefetch() attributes {
    a = #tfm.lowering_config<parallel = [0, 2, 0, 0], vector = [8, 1, 32, 0] interchange [0, 1, 2, 3], reduction = [0, 0, 0, 1], prefetch_distance = 128>,
    b = #tfm.lowering_config<parallel = [1, 32, 0], prefetch_distance = 16>,
    c = #tfm.lowering_config<parallel = [1, 32, 0], prefetch_distance = 0>} {
  return
}

// The structured attention of code generation, with every operand group,
// and a code generation strategy on it.

// CHECK-LABEL: func.func @online_attention
//       CHECK:   tfm.online_attention %{{.*}}, %{{.*}}, %{{.*}} valid_lens(%{{.*}} : tensor<2x7xi64>) mask(%{{.*}} : tensor<1x7x6xf32>) offsets(%{{.*}}, %{{.*}}) {causal, lowering_config = #tfm.lowering_config<parallel = [1, 4, 0] interchange [0, 1, 2], reduction = [0, 0, 2] interchange [0, 1, 2]>, scale = 2.500000e-01 : f64} outs(%{{.*}}, %{{.*}}, %{{.*}} : tensor<2x7x3xf32>, tensor<2x7xf32>, tensor<2x7xf32>) : tensor<2x7x8xf16>, tensor<2x8x6xf16>, tensor<2x6x3xf16> -> tensor<2x7x3xf32>, tensor<2x7xf32>, tensor<2x7xf32>
func.func @online_attention(%q: tensor<2x7x8xf16>, %kt: tensor<2x8x6xf16>, %v: tensor<2x6x3xf16>, %lens: tensor<2x7xi64>, %mask: tensor<1x7x6xf32>, %q0: index, %k0: index, %acc: tensor<2x7x3xf32>, %max: tensor<2x7xf32>, %sum: tensor<2x7xf32>) -> tensor<2x7x3xf32> {
  %r:3 = tfm.online_attention %q, %kt, %v valid_lens(%lens : tensor<2x7xi64>) mask(%mask : tensor<1x7x6xf32>) offsets(%q0, %k0)
      {causal, scale = 0.25 : f64, lowering_config = #tfm.lowering_config<parallel = [1, 4, 0] interchange [0, 1, 2], reduction = [0, 0, 2] interchange [0, 1, 2]>}
      outs(%acc, %max, %sum : tensor<2x7x3xf32>, tensor<2x7xf32>, tensor<2x7xf32>)
      : tensor<2x7x8xf16>, tensor<2x8x6xf16>, tensor<2x6x3xf16> -> tensor<2x7x3xf32>, tensor<2x7xf32>, tensor<2x7xf32>
  return %r#0 : tensor<2x7x3xf32>
}
