// RUN: tfm-opt %s -split-input-file --tfm-tensor-parallel=ranks=4 -verify-diagnostics

// What tensor parallelism cannot split is an error at the op: fewer heads
// or hidden units than ranks (each rank holds at least one; more than one
// unevenly is tensor-parallel-uneven.mlir), a per-head mask, an op inside a
// block with no rule, and a graph with nothing to split.

func.func @few_heads(%x: tensor<2x3x6xf32>) -> tensor<2x3x6xf32> {
  %w = arith.constant dense<0.5> : tensor<6x6xf32>
  // expected-error @+1 {{cannot split 3 heads over 4 ranks: a rank would hold none}}
  %a = tfm.multi_head_attention %x, %x, %x weights(%w, %w, %w, %w) {num_heads = 3 : i64}
      : (tensor<2x3x6xf32>, tensor<2x3x6xf32>, tensor<2x3x6xf32>, tensor<6x6xf32>, tensor<6x6xf32>, tensor<6x6xf32>, tensor<6x6xf32>) -> tensor<2x3x6xf32>
  return %a : tensor<2x3x6xf32>
}

// -----

// 8 query heads in 2 groups that share a key/value head: a rank holds
// whole groups.
func.func @few_kv_heads(%x: tensor<2x3x8xf32>) -> tensor<2x3x8xf32> {
  %w = arith.constant dense<0.5> : tensor<8x8xf32>
  %wkv = arith.constant dense<0.5> : tensor<2x8xf32>
  // expected-error @+1 {{cannot split 2 key/value heads over 4 ranks: a rank would hold none}}
  %a = tfm.multi_head_attention %x, %x, %x weights(%w, %wkv, %wkv, %w) {num_heads = 8 : i64, num_kv_heads = 2 : i64}
      : (tensor<2x3x8xf32>, tensor<2x3x8xf32>, tensor<2x3x8xf32>, tensor<8x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<8x8xf32>) -> tensor<2x3x8xf32>
  return %a : tensor<2x3x8xf32>
}

// -----

func.func @few_hidden(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %w1 = arith.constant dense<0.5> : tensor<3x4xf32>
  %w2 = arith.constant dense<0.5> : tensor<4x3xf32>
  // expected-error @+1 {{cannot split 3 hidden units over 4 ranks: a rank would hold none}}
  %f = tfm.ffn %x dense1(%w1) dense2(%w2) : (tensor<2x3x4xf32>, tensor<3x4xf32>, tensor<4x3xf32>) -> tensor<2x3x4xf32>
  return %f : tensor<2x3x4xf32>
}

// -----

func.func @per_head_mask(%x: tensor<2x3x4xf32>, %mask: tensor<8x3x3xf32>) -> tensor<2x3x4xf32> {
  %w = arith.constant dense<0.5> : tensor<4x4xf32>
  // expected-error @+1 {{cannot split a multi-head attention whose mask has a leading dimension of 8 (per batch and head)}}
  %a = tfm.multi_head_attention %x, %x, %x weights(%w, %w, %w, %w) mask(%mask) {num_heads = 4 : i64}
      : (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<8x3x3xf32>) -> tensor<2x3x4xf32>
  return %a : tensor<2x3x4xf32>
}

// -----

// A softmax over the hidden units between the products: no rule takes a
// reduction over the divided dimension.
func.func @no_rule(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %w1 = arith.constant dense<0.5> : tensor<6x4xf32>
  %w2 = arith.constant dense<0.5> : tensor<4x6xf32>
  %h = tfm.linear %x, %w1 : (tensor<3x4xf32>, tensor<6x4xf32>) -> tensor<3x6xf32>
  %e = tensor.empty() : tensor<3x6xf32>
  // expected-error @+1 {{cannot split this op over 4 ranks: no tensor-parallel rule takes its operands divided as they are}}
  %s = linalg.softmax dimension(1) ins(%h : tensor<3x6xf32>) outs(%e : tensor<3x6xf32>) -> tensor<3x6xf32>
  %y = tfm.linear %s, %w2 : (tensor<3x6xf32>, tensor<4x6xf32>) -> tensor<3x4xf32>
  return %y : tensor<3x4xf32>
}

// -----

// expected-error @+1 {{found no attention or feed-forward block to split over 4 ranks}}
func.func @nothing(%x: tensor<3x4xf32>) -> tensor<3x2xf32> {
  %w = arith.constant dense<0.5> : tensor<2x4xf32>
  %y = tfm.linear %x, %w : (tensor<3x4xf32>, tensor<2x4xf32>) -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

// Fewer output features of a product than ranks, in a chain that would
// otherwise split.
func.func @few_features(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %w1 = arith.constant dense<0.5> : tensor<3x4xf32>
  %w2 = arith.constant dense<0.5> : tensor<4x3xf32>
  // expected-error @+1 {{cannot split 3 output features over 4 ranks: a rank would hold none}}
  %h = tfm.linear %x, %w1 {activation = #tfm.activation<relu>} : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x3xf32>
  %y = tfm.linear %h, %w2 : (tensor<3x3xf32>, tensor<4x3xf32>) -> tensor<3x4xf32>
  return %y : tensor<3x4xf32>
}

// -----

// d2l's heads: 6 features, but 3 heads, which the chain's ranks hold
// whole (the message is at the chain's first product).
func.func @few_split_heads(%x: tensor<2x4x6xf32>) -> tensor<2x4x6xf32> {
  %w = arith.constant dense<0.5> : tensor<6x6xf32>
  // expected-error @+1 {{cannot split 3 heads over 4 ranks: a rank would hold none}}
  %q = tfm.linear %x, %w : (tensor<2x4x6xf32>, tensor<6x6xf32>) -> tensor<2x4x6xf32>
  %h = tfm.split_heads %q {num_heads = 3 : i64} : (tensor<2x4x6xf32>) -> tensor<6x4x2xf32>
  %o = tfm.attention %h, %h, %h : (tensor<6x4x2xf32>, tensor<6x4x2xf32>, tensor<6x4x2xf32>) -> tensor<6x4x2xf32>
  %m = tfm.merge_heads %o {num_heads = 3 : i64} : (tensor<6x4x2xf32>) -> tensor<2x4x6xf32>
  %y = tfm.linear %m, %w : (tensor<2x4x6xf32>, tensor<6x6xf32>) -> tensor<2x4x6xf32>
  return %y : tensor<2x4x6xf32>
}

// -----

// PyTorch's heads, as a reshape of the projection: 3 heads of 2.
func.func @few_reshape_heads(%x: tensor<4x6xf32>) -> tensor<4x6xf32> {
  %w = arith.constant dense<0.5> : tensor<6x6xf32>
  // expected-error @+1 {{cannot split 3 heads over 4 ranks: a rank would hold none}}
  %q = tfm.linear %x, %w : (tensor<4x6xf32>, tensor<6x6xf32>) -> tensor<4x6xf32>
  %h = tensor.expand_shape %q [[0], [1, 2]] output_shape [4, 3, 2] : tensor<4x6xf32> into tensor<4x3x2xf32>
  %e = tensor.empty() : tensor<3x4x2xf32>
  %t = linalg.transpose ins(%h : tensor<4x3x2xf32>) outs(%e : tensor<3x4x2xf32>) permutation = [1, 0, 2]
  %o = tfm.attention %t, %t, %t : (tensor<3x4x2xf32>, tensor<3x4x2xf32>, tensor<3x4x2xf32>) -> tensor<3x4x2xf32>
  %e2 = tensor.empty() : tensor<4x3x2xf32>
  %b = linalg.transpose ins(%o : tensor<3x4x2xf32>) outs(%e2 : tensor<4x3x2xf32>) permutation = [1, 0, 2]
  %m = tensor.collapse_shape %b [[0], [1, 2]] : tensor<4x3x2xf32> into tensor<4x6xf32>
  %y = tfm.linear %m, %w : (tensor<4x6xf32>, tensor<6x6xf32>) -> tensor<4x6xf32>
  return %y : tensor<4x6xf32>
}
