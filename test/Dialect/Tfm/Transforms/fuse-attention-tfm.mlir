// RUN: tfm-opt %s -split-input-file --tfm-fuse-attention \
// RUN:   | tfm-opt -split-input-file | FileCheck %s

// tfm-fuse-attention on attention written with tfm ops: tfm.batch_matmul
// for Q·Kᵀ (transpose_rhs, an explicit linalg.transpose of K, or no
// transpose at all) and for the product with V, tfm.masked_softmax with and
// without valid_lens, and tfm.dropout on the weights. The second tfm-opt
// checks that the output parses back.

// d2l's DotProductAttention, verbatim: bmm(Q, Kᵀ) / sqrt(d), masked_softmax
// with valid_lens, dropout, bmm with V. Everything but the operands goes.

// CHECK-LABEL: func.func @d2l_dot_product_attention
// CHECK-SAME:    %[[Q:[^:]*]]: tensor<2x3x4xf32>, %[[K:[^:]*]]: tensor<2x5x4xf32>, %[[V:[^:]*]]: tensor<2x5x6xf32>, %[[L:[^:]*]]: tensor<2xi32>
// CHECK-NEXT:    %[[A:.*]] = tfm.attention %[[Q]], %[[K]], %[[V]] valid_lens(%[[L]])
// CHECK-SAME:      dropout = 1.000000e-01 : f64
// CHECK-SAME:      scale = 5.000000e-01 : f64
// CHECK-NOT:       causal
// CHECK-SAME:      -> tensor<2x3x6xf32>
// CHECK-NEXT:    return %[[A]]
func.func @d2l_dot_product_attention(%q: tensor<2x3x4xf32>, %k: tensor<2x5x4xf32>,
                                     %v: tensor<2x5x6xf32>, %lens: tensor<2xi32>)
    -> tensor<2x3x6xf32> {
  %s = tfm.batch_matmul %q, %k {transpose_rhs}
      : (tensor<2x3x4xf32>, tensor<2x5x4xf32>) -> tensor<2x3x5xf32>
  %sqrt_d = arith.constant dense<2.0> : tensor<2x3x5xf32>
  %scaled = arith.divf %s, %sqrt_d : tensor<2x3x5xf32>
  %w = tfm.masked_softmax %scaled valid_lens(%lens)
      : (tensor<2x3x5xf32>, tensor<2xi32>) -> tensor<2x3x5xf32>
  %d = tfm.dropout %w {rate = 1.0e-01 : f64} : tensor<2x3x5xf32>
  %o = tfm.batch_matmul %d, %v
      : (tensor<2x3x5xf32>, tensor<2x5x6xf32>) -> tensor<2x3x6xf32>
  return %o : tensor<2x3x6xf32>
}

// -----

// valid_lens per query ([batch, queries], i64) carry over unchanged.

// CHECK-LABEL: func.func @valid_lens_per_query
// CHECK-SAME:    %[[Q:[^:]*]]: tensor<2x3x4xf32>, %[[K:[^:]*]]: tensor<2x5x4xf32>, %[[V:[^:]*]]: tensor<2x5x6xf32>, %[[L:[^:]*]]: tensor<2x3xi64>
// CHECK:         tfm.attention %[[Q]], %[[K]], %[[V]] valid_lens(%[[L]])
// CHECK-SAME:      scale = 5.000000e-01 : f64
// CHECK-SAME:      (tensor<2x3x4xf32>, tensor<2x5x4xf32>, tensor<2x5x6xf32>, tensor<2x3xi64>) -> tensor<2x3x6xf32>
// CHECK-NOT:     tfm.batch_matmul
// CHECK-NOT:     tfm.masked_softmax
func.func @valid_lens_per_query(%q: tensor<2x3x4xf32>, %k: tensor<2x5x4xf32>,
                                %v: tensor<2x5x6xf32>, %lens: tensor<2x3xi64>)
    -> tensor<2x3x6xf32> {
  %s = tfm.batch_matmul %q, %k {transpose_rhs}
      : (tensor<2x3x4xf32>, tensor<2x5x4xf32>) -> tensor<2x3x5xf32>
  %c = arith.constant dense<0.5> : tensor<2x3x5xf32>
  %scaled = arith.mulf %s, %c : tensor<2x3x5xf32>
  %w = tfm.masked_softmax %scaled valid_lens(%lens)
      : (tensor<2x3x5xf32>, tensor<2x3xi64>) -> tensor<2x3x5xf32>
  %o = tfm.batch_matmul %w, %v
      : (tensor<2x3x5xf32>, tensor<2x5x6xf32>) -> tensor<2x3x6xf32>
  return %o : tensor<2x3x6xf32>
}

// -----

// keys.transpose(1, 2) as an explicit linalg.transpose: K is the
// transpose's input, and the transpose goes.

// CHECK-LABEL: func.func @explicit_key_transpose
// CHECK-SAME:    %[[Q:[^:]*]]: tensor<2x3x4xf32>, %[[K:[^:]*]]: tensor<2x5x4xf32>, %[[V:[^:]*]]: tensor<2x5x6xf32>
// CHECK-NEXT:    %[[A:.*]] = tfm.attention %[[Q]], %[[K]], %[[V]] {scale = 5.000000e-01 : f64}
// CHECK-NEXT:    return %[[A]]
func.func @explicit_key_transpose(%q: tensor<2x3x4xf32>, %k: tensor<2x5x4xf32>,
                                  %v: tensor<2x5x6xf32>) -> tensor<2x3x6xf32> {
  %e = tensor.empty() : tensor<2x4x5xf32>
  %kt = linalg.transpose ins(%k : tensor<2x5x4xf32>) outs(%e : tensor<2x4x5xf32>)
      permutation = [0, 2, 1]
  %s = tfm.batch_matmul %q, %kt
      : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  %c = arith.constant dense<2.0> : tensor<2x3x5xf32>
  %scaled = arith.divf %s, %c : tensor<2x3x5xf32>
  %w = tfm.masked_softmax %scaled : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %o = tfm.batch_matmul %w, %v
      : (tensor<2x3x5xf32>, tensor<2x5x6xf32>) -> tensor<2x3x6xf32>
  return %o : tensor<2x3x6xf32>
}

// -----

// Q · X with X already laid out as [batch, D, keys]: attention with K = Xᵀ.
// The pass transposes X.

// CHECK-LABEL: func.func @key_laid_out_transposed
// CHECK-SAME:    %[[Q:[^:]*]]: tensor<2x3x4xf32>, %[[X:[^:]*]]: tensor<2x4x5xf32>, %[[V:[^:]*]]: tensor<2x5x6xf32>
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<2x5x4xf32>
// CHECK:         %[[K:.*]] = linalg.transpose ins(%[[X]] : tensor<2x4x5xf32>) outs(%[[E]] : tensor<2x5x4xf32>) permutation = [0, 2, 1]
// CHECK:         tfm.attention %[[Q]], %[[K]], %[[V]] {scale = 1.000000e+00 : f64}
// CHECK-NOT:     tfm.batch_matmul
func.func @key_laid_out_transposed(%q: tensor<2x3x4xf32>, %x: tensor<2x4x5xf32>,
                                   %v: tensor<2x5x6xf32>) -> tensor<2x3x6xf32> {
  %s = tfm.batch_matmul %q, %x
      : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  %w = tfm.masked_softmax %s : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %o = tfm.batch_matmul %w, %v
      : (tensor<2x3x5xf32>, tensor<2x5x6xf32>) -> tensor<2x3x6xf32>
  return %o : tensor<2x3x6xf32>
}

// -----

// V laid out as [batch, Dv, keys], multiplied with transpose_rhs: the
// explicit transpose of V is looked through, and V is its input.

// CHECK-LABEL: func.func @value_transposed
// CHECK-SAME:    %[[Q:[^:]*]]: tensor<2x3x4xf32>, %[[K:[^:]*]]: tensor<2x5x4xf32>, %[[V:[^:]*]]: tensor<2x5x6xf32>
// CHECK-NEXT:    %[[A:.*]] = tfm.attention %[[Q]], %[[K]], %[[V]] {scale = 1.000000e+00 : f64}
// CHECK-NEXT:    return %[[A]]
func.func @value_transposed(%q: tensor<2x3x4xf32>, %k: tensor<2x5x4xf32>,
                            %v: tensor<2x5x6xf32>) -> tensor<2x3x6xf32> {
  %e = tensor.empty() : tensor<2x6x5xf32>
  %vt = linalg.transpose ins(%v : tensor<2x5x6xf32>) outs(%e : tensor<2x6x5xf32>)
      permutation = [0, 2, 1]
  %s = tfm.batch_matmul %q, %k {transpose_rhs}
      : (tensor<2x3x4xf32>, tensor<2x5x4xf32>) -> tensor<2x3x5xf32>
  %w = tfm.masked_softmax %s : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %o = tfm.batch_matmul %w, %vt {transpose_rhs}
      : (tensor<2x3x5xf32>, tensor<2x6x5xf32>) -> tensor<2x3x6xf32>
  return %o : tensor<2x3x6xf32>
}

// -----

// PyTorch's layout [batch, heads, S, D]: rank-4 tfm.batch_matmul.

// CHECK-LABEL: func.func @rank4
// CHECK-SAME:    %[[Q:[^:]*]]: tensor<2x4x3x8xf32>, %[[K:[^:]*]]: tensor<2x4x5x8xf32>, %[[V:[^:]*]]: tensor<2x4x5x8xf32>
// CHECK-NEXT:    %[[A:.*]] = tfm.attention %[[Q]], %[[K]], %[[V]] {scale = 1.250000e-01 : f64} : (tensor<2x4x3x8xf32>, tensor<2x4x5x8xf32>, tensor<2x4x5x8xf32>) -> tensor<2x4x3x8xf32>
// CHECK-NEXT:    return %[[A]]
func.func @rank4(%q: tensor<2x4x3x8xf32>, %k: tensor<2x4x5x8xf32>,
                 %v: tensor<2x4x5x8xf32>) -> tensor<2x4x3x8xf32> {
  %s = tfm.batch_matmul %q, %k {transpose_rhs}
      : (tensor<2x4x3x8xf32>, tensor<2x4x5x8xf32>) -> tensor<2x4x3x5xf32>
  %c = arith.constant dense<0.125> : tensor<2x4x3x5xf32>
  %scaled = arith.mulf %c, %s : tensor<2x4x3x5xf32>
  %w = tfm.masked_softmax %scaled : (tensor<2x4x3x5xf32>) -> tensor<2x4x3x5xf32>
  %o = tfm.batch_matmul %w, %v
      : (tensor<2x4x3x5xf32>, tensor<2x4x5x8xf32>) -> tensor<2x4x3x8xf32>
  return %o : tensor<2x4x3x8xf32>
}

// -----

// Dropout between the scores and the softmax is the identity too; it does
// not become the attention's dropout (which is on the weights).

// CHECK-LABEL: func.func @dropout_on_scores
// CHECK:         tfm.attention
// CHECK-NOT:       dropout
// CHECK-SAME:      scale = 5.000000e-01 : f64
// CHECK-NOT:     tfm.dropout
func.func @dropout_on_scores(%q: tensor<2x3x4xf32>, %k: tensor<2x5x4xf32>,
                             %v: tensor<2x5x6xf32>) -> tensor<2x3x6xf32> {
  %s = tfm.batch_matmul %q, %k {transpose_rhs}
      : (tensor<2x3x4xf32>, tensor<2x5x4xf32>) -> tensor<2x3x5xf32>
  %d = tfm.dropout %s {rate = 2.0e-01 : f64} : tensor<2x3x5xf32>
  %c = arith.constant dense<0.5> : tensor<2x3x5xf32>
  %scaled = arith.mulf %d, %c : tensor<2x3x5xf32>
  %w = tfm.masked_softmax %scaled : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %o = tfm.batch_matmul %w, %v
      : (tensor<2x3x5xf32>, tensor<2x5x6xf32>) -> tensor<2x3x6xf32>
  return %o : tensor<2x3x6xf32>
}

// -----

// Two attentions in a row (the output of the first is the query of the
// second), and self-attention (Q = K = V): both fuse.

// CHECK-LABEL: func.func @chained
// CHECK-SAME:    %[[X:[^:]*]]: tensor<2x5x4xf32>
// CHECK:         %[[A:.*]] = tfm.attention %[[X]], %[[X]], %[[X]] {scale = 5.000000e-01 : f64}
// CHECK:         %[[B:.*]] = tfm.attention %[[A]], %[[X]], %[[X]] {scale = 5.000000e-01 : f64}
// CHECK:         return %[[B]]
// CHECK-NOT:     tfm.batch_matmul
func.func @chained(%x: tensor<2x5x4xf32>) -> tensor<2x5x4xf32> {
  %c = arith.constant dense<0.5> : tensor<2x5x5xf32>
  %s1 = tfm.batch_matmul %x, %x {transpose_rhs}
      : (tensor<2x5x4xf32>, tensor<2x5x4xf32>) -> tensor<2x5x5xf32>
  %t1 = arith.mulf %s1, %c : tensor<2x5x5xf32>
  %w1 = tfm.masked_softmax %t1 : (tensor<2x5x5xf32>) -> tensor<2x5x5xf32>
  %a = tfm.batch_matmul %w1, %x
      : (tensor<2x5x5xf32>, tensor<2x5x4xf32>) -> tensor<2x5x4xf32>
  %s2 = tfm.batch_matmul %a, %x {transpose_rhs}
      : (tensor<2x5x4xf32>, tensor<2x5x4xf32>) -> tensor<2x5x5xf32>
  %t2 = arith.mulf %s2, %c : tensor<2x5x5xf32>
  %w2 = tfm.masked_softmax %t2 : (tensor<2x5x5xf32>) -> tensor<2x5x5xf32>
  %b = tfm.batch_matmul %w2, %x
      : (tensor<2x5x5xf32>, tensor<2x5x4xf32>) -> tensor<2x5x4xf32>
  return %b : tensor<2x5x4xf32>
}

// -----

// Dynamic shapes without reshapes: the fused op takes the operands as they
// are.

// CHECK-LABEL: func.func @dynamic
// CHECK-SAME:    %[[Q:[^:]*]]: tensor<?x?x4xf32>, %[[K:[^:]*]]: tensor<?x?x4xf32>, %[[V:[^:]*]]: tensor<?x?x6xf32>
// CHECK-NEXT:    %[[A:.*]] = tfm.attention %[[Q]], %[[K]], %[[V]] {scale = 1.000000e+00 : f64} : (tensor<?x?x4xf32>, tensor<?x?x4xf32>, tensor<?x?x6xf32>) -> tensor<?x?x6xf32>
// CHECK-NEXT:    return %[[A]]
func.func @dynamic(%q: tensor<?x?x4xf32>, %k: tensor<?x?x4xf32>,
                   %v: tensor<?x?x6xf32>) -> tensor<?x?x6xf32> {
  %s = tfm.batch_matmul %q, %k {transpose_rhs}
      : (tensor<?x?x4xf32>, tensor<?x?x4xf32>) -> tensor<?x?x?xf32>
  %w = tfm.masked_softmax %s : (tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %o = tfm.batch_matmul %w, %v
      : (tensor<?x?x?xf32>, tensor<?x?x6xf32>) -> tensor<?x?x6xf32>
  return %o : tensor<?x?x6xf32>
}
