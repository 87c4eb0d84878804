// RUN: tfm-opt %s -split-input-file -verify-diagnostics

// Every diagnostic of the tfm verifiers, of the shared checks in
// VerifyUtils.cpp, of type inference and of the ODS constraints (element
// types, attributes), op by op.

//===----------------------------------------------------------------------===//
// batch_matmul
//===----------------------------------------------------------------------===//

func.func @batch_matmul_lhs_rank(%a: tensor<3x4xf32>, %b: tensor<4x6xf32>) {
  // expected-error @+1 {{'tfm.batch_matmul' op expected lhs of rank at least 3 [batch..., M, K], found 'tensor<3x4xf32>'}}
  %0 = tfm.batch_matmul %a, %b : (tensor<3x4xf32>, tensor<4x6xf32>) -> tensor<3x6xf32>
  return
}

// -----

func.func @batch_matmul_rhs_rank(%a: tensor<2x3x4xf32>, %b: tensor<1x2x4x6xf32>) {
  // expected-error @+1 {{expected rhs of rank 3 (the rank of lhs), found 'tensor<1x2x4x6xf32>'}}
  %0 = tfm.batch_matmul %a, %b : (tensor<2x3x4xf32>, tensor<1x2x4x6xf32>) -> tensor<2x3x6xf32>
  return
}

// -----

func.func @batch_matmul_element_type(%a: tensor<2x3x4xf32>, %b: tensor<2x4x6xf16>) {
  // expected-error @+1 {{expected rhs to have element type 'f32' like lhs, found 'tensor<2x4x6xf16>'}}
  %0 = tfm.batch_matmul %a, %b : (tensor<2x3x4xf32>, tensor<2x4x6xf16>) -> tensor<2x3x6xf32>
  return
}

// -----

func.func @batch_matmul_batch_dim(%a: tensor<2x3x4xf32>, %b: tensor<5x4x6xf32>) {
  // expected-error @+1 {{expected dimension 0 of rhs to be 2 (batch dimension of lhs), found 'tensor<5x4x6xf32>'}}
  %0 = tfm.batch_matmul %a, %b : (tensor<2x3x4xf32>, tensor<5x4x6xf32>) -> tensor<2x3x6xf32>
  return
}

// -----

func.func @batch_matmul_contraction(%a: tensor<2x3x4xf32>, %b: tensor<2x5x6xf32>) {
  // expected-error @+1 {{expected dimension 1 of rhs to be 4 (the contraction dimension, lhs's last), found 'tensor<2x5x6xf32>'}}
  %0 = tfm.batch_matmul %a, %b : (tensor<2x3x4xf32>, tensor<2x5x6xf32>) -> tensor<2x3x6xf32>
  return
}

// -----

// With transpose_rhs the contraction is rhs's last dimension.
func.func @batch_matmul_contraction_transposed(%a: tensor<2x3x4xf32>, %b: tensor<2x4x6xf32>) {
  // expected-error @+1 {{expected dimension 2 of rhs to be 4 (the contraction dimension, lhs's last), found 'tensor<2x4x6xf32>'}}
  %0 = tfm.batch_matmul %a, %b {transpose_rhs} : (tensor<2x3x4xf32>, tensor<2x4x6xf32>) -> tensor<2x3x4xf32>
  return
}

// -----

func.func @batch_matmul_result_shape(%a: tensor<2x3x4xf32>, %b: tensor<2x4x6xf32>) {
  // expected-error @+2 {{'tfm.batch_matmul' op inferred type(s) 'tensor<2x3x6xf32>' are incompatible with return type(s) of operation 'tensor<2x3x7xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tfm.batch_matmul %a, %b : (tensor<2x3x4xf32>, tensor<2x4x6xf32>) -> tensor<2x3x7xf32>
  return
}

// -----

func.func @batch_matmul_result_element_type(%a: tensor<2x3x4xf32>, %b: tensor<2x4x6xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<2x3x6xf32>' are incompatible with return type(s) of operation 'tensor<2x3x6xbf16>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tfm.batch_matmul %a, %b : (tensor<2x3x4xf32>, tensor<2x4x6xf32>) -> tensor<2x3x6xbf16>
  return
}

// -----

// A declared result may refine a dynamic inferred size, but not change a
// static one.
func.func @batch_matmul_result_rank(%a: tensor<?x3x4xf32>, %b: tensor<?x4x6xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<?x3x6xf32>' are incompatible with return type(s) of operation 'tensor<2x3x6x1xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tfm.batch_matmul %a, %b : (tensor<?x3x4xf32>, tensor<?x4x6xf32>) -> tensor<2x3x6x1xf32>
  return
}

// -----

func.func @batch_matmul_integer_operand(%a: tensor<2x3x4xi32>, %b: tensor<2x4x6xf32>) {
  // expected-error @+1 {{'tfm.batch_matmul' op operand #0 must be ranked tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<2x3x4xi32>'}}
  %0 = tfm.batch_matmul %a, %b : (tensor<2x3x4xi32>, tensor<2x4x6xf32>) -> tensor<2x3x6xf32>
  return
}

// -----

func.func @batch_matmul_f64_operand(%a: tensor<2x3x4xf64>, %b: tensor<2x4x6xf64>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<2x3x4xf64>'}}
  %0 = tfm.batch_matmul %a, %b : (tensor<2x3x4xf64>, tensor<2x4x6xf64>) -> tensor<2x3x6xf64>
  return
}

// -----

//===----------------------------------------------------------------------===//
// masked_softmax
//===----------------------------------------------------------------------===//

func.func @masked_softmax_input_rank(%x: tensor<f32>) {
  // expected-error @+1 {{'tfm.masked_softmax' op expected input of rank at least 1 [..., keys], found 'tensor<f32>'}}
  %0 = tfm.masked_softmax %x : (tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func @masked_softmax_unranked(%x: tensor<*xf32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<*xf32>'}}
  %0 = tfm.masked_softmax %x : (tensor<*xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @masked_softmax_valid_lens_needs_queries(%x: tensor<4xf32>, %lens: tensor<i32>) {
  // expected-error @+1 {{expected input of rank at least 2 [batch..., queries, keys] when valid_lens is given, found 'tensor<4xf32>'}}
  %0 = tfm.masked_softmax %x valid_lens(%lens) : (tensor<4xf32>, tensor<i32>) -> tensor<4xf32>
  return
}

// -----

func.func @masked_softmax_valid_lens_rank(%x: tensor<2x3x4xf32>, %lens: tensor<2x3x4xi32>) {
  // expected-error @+1 {{expected valid_lens of rank 1 (one length per batch) or 2 (one length per query), found 'tensor<2x3x4xi32>'}}
  %0 = tfm.masked_softmax %x valid_lens(%lens) : (tensor<2x3x4xf32>, tensor<2x3x4xi32>) -> tensor<2x3x4xf32>
  return
}

// -----

func.func @masked_softmax_valid_lens_rank_too_small(%x: tensor<2x2x3x4xf32>, %lens: tensor<2xi64>) {
  // expected-error @+1 {{expected valid_lens of rank 2 (one length per batch) or 3 (one length per query), found 'tensor<2xi64>'}}
  %0 = tfm.masked_softmax %x valid_lens(%lens) : (tensor<2x2x3x4xf32>, tensor<2xi64>) -> tensor<2x2x3x4xf32>
  return
}

// -----

func.func @masked_softmax_valid_lens_batch(%x: tensor<2x3x4xf32>, %lens: tensor<5xi32>) {
  // expected-error @+1 {{expected dimension 0 of valid_lens to be 2 (batch dimension of the scores), found 'tensor<5xi32>'}}
  %0 = tfm.masked_softmax %x valid_lens(%lens) : (tensor<2x3x4xf32>, tensor<5xi32>) -> tensor<2x3x4xf32>
  return
}

// -----

func.func @masked_softmax_valid_lens_queries(%x: tensor<2x3x4xf32>, %lens: tensor<2x4xi32>) {
  // expected-error @+1 {{expected dimension 1 of valid_lens to be 3 (number of queries), found 'tensor<2x4xi32>'}}
  %0 = tfm.masked_softmax %x valid_lens(%lens) : (tensor<2x3x4xf32>, tensor<2x4xi32>) -> tensor<2x3x4xf32>
  return
}

// -----

func.func @masked_softmax_valid_lens_f32(%x: tensor<2x3x4xf32>, %lens: tensor<2xf32>) {
  // expected-error @+1 {{'tfm.masked_softmax' op operand #1 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<2xf32>'}}
  %0 = tfm.masked_softmax %x valid_lens(%lens) : (tensor<2x3x4xf32>, tensor<2xf32>) -> tensor<2x3x4xf32>
  return
}

// -----

func.func @masked_softmax_valid_lens_i16(%x: tensor<2x3x4xf32>, %lens: tensor<2xi16>) {
  // expected-error @+1 {{operand #1 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<2xi16>'}}
  %0 = tfm.masked_softmax %x valid_lens(%lens) : (tensor<2x3x4xf32>, tensor<2xi16>) -> tensor<2x3x4xf32>
  return
}

// -----

func.func @masked_softmax_valid_lens_unsigned(%x: tensor<2x3x4xf32>, %lens: tensor<2xui32>) {
  // expected-error @+1 {{operand #1 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<2xui32>'}}
  %0 = tfm.masked_softmax %x valid_lens(%lens) : (tensor<2x3x4xf32>, tensor<2xui32>) -> tensor<2x3x4xf32>
  return
}

// -----

func.func @masked_softmax_result(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{'tfm.masked_softmax' op inferred type(s) 'tensor<2x3x4xf32>' are incompatible with return type(s) of operation 'tensor<2x3x5xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tfm.masked_softmax %x : (tensor<2x3x4xf32>) -> tensor<2x3x5xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// attention
//===----------------------------------------------------------------------===//

func.func @attention_query_rank(%q: tensor<16xf32>) {
  // expected-error @+1 {{'tfm.attention' op expected query of rank at least 2 [batch..., queries, head_dim], found 'tensor<16xf32>'}}
  %0 = tfm.attention %q, %q, %q : (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  return
}

// -----

func.func @attention_key_rank(%q: tensor<8x10x16xf32>, %k: tensor<2x4x10x16xf32>, %v: tensor<8x10x16xf32>) {
  // expected-error @+1 {{expected key of rank 3 (the rank of query), found 'tensor<2x4x10x16xf32>'}}
  %0 = tfm.attention %q, %k, %v : (tensor<8x10x16xf32>, tensor<2x4x10x16xf32>, tensor<8x10x16xf32>) -> tensor<8x10x16xf32>
  return
}

// -----

func.func @attention_value_rank(%q: tensor<8x10x16xf32>, %k: tensor<8x10x16xf32>, %v: tensor<10x16xf32>) {
  // expected-error @+1 {{expected value of rank 3 (the rank of query), found 'tensor<10x16xf32>'}}
  %0 = tfm.attention %q, %k, %v : (tensor<8x10x16xf32>, tensor<8x10x16xf32>, tensor<10x16xf32>) -> tensor<8x10x16xf32>
  return
}

// -----

func.func @attention_key_element_type(%q: tensor<8x10x16xf32>, %k: tensor<8x10x16xf16>) {
  // expected-error @+1 {{expected key to have element type 'f32' like query, found 'tensor<8x10x16xf16>'}}
  %0 = tfm.attention %q, %k, %q : (tensor<8x10x16xf32>, tensor<8x10x16xf16>, tensor<8x10x16xf32>) -> tensor<8x10x16xf32>
  return
}

// -----

func.func @attention_value_element_type(%q: tensor<8x10x16xf16>, %v: tensor<8x10x16xbf16>) {
  // expected-error @+1 {{expected value to have element type 'f16' like query, found 'tensor<8x10x16xbf16>'}}
  %0 = tfm.attention %q, %q, %v : (tensor<8x10x16xf16>, tensor<8x10x16xf16>, tensor<8x10x16xbf16>) -> tensor<8x10x16xf16>
  return
}

// -----

func.func @attention_mask_element_type(%q: tensor<8x10x16xf32>, %mask: tensor<10x10xf16>) {
  // expected-error @+1 {{expected mask to have element type 'f32' like query, found 'tensor<10x10xf16>'}}
  %0 = tfm.attention %q, %q, %q mask(%mask) : (tensor<8x10x16xf32>, tensor<8x10x16xf32>, tensor<8x10x16xf32>, tensor<10x10xf16>) -> tensor<8x10x16xf32>
  return
}

// -----

func.func @attention_key_batch(%q: tensor<2x4x10x16xf32>, %k: tensor<2x8x10x16xf32>, %v: tensor<2x4x10x16xf32>) {
  // expected-error @+1 {{expected dimension 1 of key (its heads) to be 4 (query's) or a divisor of it (grouped-query attention), found 'tensor<2x8x10x16xf32>'}}
  %0 = tfm.attention %q, %k, %v : (tensor<2x4x10x16xf32>, tensor<2x8x10x16xf32>, tensor<2x4x10x16xf32>) -> tensor<2x4x10x16xf32>
  return
}

// -----

func.func @attention_value_batch(%q: tensor<8x10x16xf32>, %v: tensor<4x10x16xf32>) {
  // expected-error @+1 {{expected dimension 0 of value to be 8 (batch dimension of key), found 'tensor<4x10x16xf32>'}}
  %0 = tfm.attention %q, %q, %v : (tensor<8x10x16xf32>, tensor<8x10x16xf32>, tensor<4x10x16xf32>) -> tensor<8x10x16xf32>
  return
}

// -----

// Grouped-query attention: key and value share their heads.
func.func @attention_grouped_value_heads(%q: tensor<1x8x10x16xf32>, %k: tensor<1x2x10x16xf32>, %v: tensor<1x4x10x16xf32>) {
  // expected-error @+1 {{expected dimension 1 of value to be 2 (batch dimension of key), found 'tensor<1x4x10x16xf32>'}}
  %0 = tfm.attention %q, %k, %v : (tensor<1x8x10x16xf32>, tensor<1x2x10x16xf32>, tensor<1x4x10x16xf32>) -> tensor<1x8x10x16xf32>
  return
}

// -----

func.func @attention_grouped_batch(%q: tensor<2x8x10x16xf32>, %k: tensor<1x2x10x16xf32>) {
  // expected-error @+1 {{expected dimension 0 of key to be 2 (batch dimension of query), found 'tensor<1x2x10x16xf32>'}}
  %0 = tfm.attention %q, %k, %k : (tensor<2x8x10x16xf32>, tensor<1x2x10x16xf32>, tensor<1x2x10x16xf32>) -> tensor<2x8x10x16xf32>
  return
}

// -----

func.func @attention_grouped_not_divisor(%q: tensor<1x8x10x16xf32>, %k: tensor<1x3x10x16xf32>) {
  // expected-error @+1 {{expected dimension 1 of key (its heads) to be 8 (query's) or a divisor of it (grouped-query attention), found 'tensor<1x3x10x16xf32>'}}
  %0 = tfm.attention %q, %k, %k : (tensor<1x8x10x16xf32>, tensor<1x3x10x16xf32>, tensor<1x3x10x16xf32>) -> tensor<1x8x10x16xf32>
  return
}

// -----

func.func @attention_head_dim(%q: tensor<8x10x16xf32>, %k: tensor<8x10x32xf32>, %v: tensor<8x10x16xf32>) {
  // expected-error @+1 {{expected dimension 2 of key to be 16 (query's head dimension), found 'tensor<8x10x32xf32>'}}
  %0 = tfm.attention %q, %k, %v : (tensor<8x10x16xf32>, tensor<8x10x32xf32>, tensor<8x10x16xf32>) -> tensor<8x10x16xf32>
  return
}

// -----

func.func @attention_value_seq_len(%q: tensor<8x10x16xf32>, %k: tensor<8x12x16xf32>, %v: tensor<8x10x16xf32>) {
  // expected-error @+1 {{expected dimension 1 of value to be 12 (key's sequence length), found 'tensor<8x10x16xf32>'}}
  %0 = tfm.attention %q, %k, %v : (tensor<8x10x16xf32>, tensor<8x12x16xf32>, tensor<8x10x16xf32>) -> tensor<8x10x16xf32>
  return
}

// -----

func.func @attention_valid_lens_rank(%q: tensor<8x10x16xf32>, %lens: tensor<8x10x1xi32>) {
  // expected-error @+1 {{expected valid_lens of rank 1 (one length per batch) or 2 (one length per query), found 'tensor<8x10x1xi32>'}}
  %0 = tfm.attention %q, %q, %q valid_lens(%lens) : (tensor<8x10x16xf32>, tensor<8x10x16xf32>, tensor<8x10x16xf32>, tensor<8x10x1xi32>) -> tensor<8x10x16xf32>
  return
}

// -----

func.func @attention_4d_valid_lens_rank(%q: tensor<2x4x10x16xf32>, %lens: tensor<2xi32>) {
  // expected-error @+1 {{expected valid_lens of rank 2 (one length per batch) or 3 (one length per query), found 'tensor<2xi32>'}}
  %0 = tfm.attention %q, %q, %q valid_lens(%lens) : (tensor<2x4x10x16xf32>, tensor<2x4x10x16xf32>, tensor<2x4x10x16xf32>, tensor<2xi32>) -> tensor<2x4x10x16xf32>
  return
}

// -----

func.func @attention_valid_lens_batch(%q: tensor<2x4x10x16xf32>, %lens: tensor<2x8xi64>) {
  // expected-error @+1 {{expected dimension 1 of valid_lens to be 4 (batch dimension of the scores), found 'tensor<2x8xi64>'}}
  %0 = tfm.attention %q, %q, %q valid_lens(%lens) : (tensor<2x4x10x16xf32>, tensor<2x4x10x16xf32>, tensor<2x4x10x16xf32>, tensor<2x8xi64>) -> tensor<2x4x10x16xf32>
  return
}

// -----

// A per-query valid_lens has one length per query, not per key.
func.func @attention_valid_lens_queries(%q: tensor<8x10x16xf32>, %k: tensor<8x12x16xf32>, %lens: tensor<8x12xi32>) {
  // expected-error @+1 {{expected dimension 1 of valid_lens to be 10 (number of queries), found 'tensor<8x12xi32>'}}
  %0 = tfm.attention %q, %k, %k valid_lens(%lens) : (tensor<8x10x16xf32>, tensor<8x12x16xf32>, tensor<8x12x16xf32>, tensor<8x12xi32>) -> tensor<8x10x16xf32>
  return
}

// -----

func.func @attention_valid_lens_float(%q: tensor<8x10x16xf32>, %lens: tensor<8xf32>) {
  // expected-error @+1 {{'tfm.attention' op operand #3 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<8xf32>'}}
  %0 = tfm.attention %q, %q, %q valid_lens(%lens) : (tensor<8x10x16xf32>, tensor<8x10x16xf32>, tensor<8x10x16xf32>, tensor<8xf32>) -> tensor<8x10x16xf32>
  return
}

// -----

func.func @attention_valid_lens_i16(%q: tensor<8x10x16xf32>, %lens: tensor<8xi16>) {
  // expected-error @+1 {{operand #3 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<8xi16>'}}
  %0 = tfm.attention %q, %q, %q valid_lens(%lens) : (tensor<8x10x16xf32>, tensor<8x10x16xf32>, tensor<8x10x16xf32>, tensor<8xi16>) -> tensor<8x10x16xf32>
  return
}

// -----

func.func @attention_mask_integer(%q: tensor<8x10x16xf32>, %mask: tensor<10x10xi1>) {
  // expected-error @+1 {{operand #3 must be ranked tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<10x10xi1>'}}
  %0 = tfm.attention %q, %q, %q mask(%mask) : (tensor<8x10x16xf32>, tensor<8x10x16xf32>, tensor<8x10x16xf32>, tensor<10x10xi1>) -> tensor<8x10x16xf32>
  return
}

// -----

func.func @attention_mask_rank(%q: tensor<8x10x16xf32>, %mask: tensor<1x8x10x10xf32>) {
  // expected-error @+1 {{expected mask of rank at most 3 to broadcast to the scores, found 'tensor<1x8x10x10xf32>'}}
  %0 = tfm.attention %q, %q, %q mask(%mask) : (tensor<8x10x16xf32>, tensor<8x10x16xf32>, tensor<8x10x16xf32>, tensor<1x8x10x10xf32>) -> tensor<8x10x16xf32>
  return
}

// -----

// The scores are [8, 10, 12]; the mask is aligned on the right, so its
// last dimension is matched against the 12 keys.
func.func @attention_mask_keys(%q: tensor<8x10x16xf32>, %k: tensor<8x12x16xf32>, %mask: tensor<10x10xf32>) {
  // expected-error @+1 {{expected dimension 1 of mask to be 1 or 12 to broadcast to the scores, found 'tensor<10x10xf32>'}}
  %0 = tfm.attention %q, %k, %k mask(%mask) : (tensor<8x10x16xf32>, tensor<8x12x16xf32>, tensor<8x12x16xf32>, tensor<10x10xf32>) -> tensor<8x10x16xf32>
  return
}

// -----

func.func @attention_mask_batch(%q: tensor<2x4x10x16xf32>, %mask: tensor<2x3x1x10xf32>) {
  // expected-error @+1 {{expected dimension 1 of mask to be 1 or 4 to broadcast to the scores, found 'tensor<2x3x1x10xf32>'}}
  %0 = tfm.attention %q, %q, %q mask(%mask) : (tensor<2x4x10x16xf32>, tensor<2x4x10x16xf32>, tensor<2x4x10x16xf32>, tensor<2x3x1x10xf32>) -> tensor<2x4x10x16xf32>
  return
}

// -----

func.func @attention_scale_inf(%q: tensor<8x10x16xf32>) {
  // expected-error @+1 {{'tfm.attention' op expected a finite scale, found INF}}
  %0 = tfm.attention %q, %q, %q {scale = 0x7FF0000000000000 : f64} : (tensor<8x10x16xf32>, tensor<8x10x16xf32>, tensor<8x10x16xf32>) -> tensor<8x10x16xf32>
  return
}

// -----

func.func @attention_scale_nan(%q: tensor<8x10x16xf32>) {
  // expected-error @+1 {{expected a finite scale, found nan}}
  %0 = tfm.attention %q, %q, %q {scale = 0x7FF8000000000000 : f64} : (tensor<8x10x16xf32>, tensor<8x10x16xf32>, tensor<8x10x16xf32>) -> tensor<8x10x16xf32>
  return
}

// -----

func.func @attention_scale_f32(%q: tensor<8x10x16xf32>) {
  // expected-error @+1 {{attribute 'scale' failed to satisfy constraint: 64-bit float attribute}}
  %0 = tfm.attention %q, %q, %q {scale = 1.0 : f32} : (tensor<8x10x16xf32>, tensor<8x10x16xf32>, tensor<8x10x16xf32>) -> tensor<8x10x16xf32>
  return
}

// -----

func.func @attention_dropout_one(%q: tensor<8x10x16xf32>) {
  // expected-error @+1 {{'tfm.attention' op expected dropout in [0, 1), found 1.000000e+00}}
  %0 = tfm.attention %q, %q, %q {dropout = 1.0 : f64} : (tensor<8x10x16xf32>, tensor<8x10x16xf32>, tensor<8x10x16xf32>) -> tensor<8x10x16xf32>
  return
}

// -----

func.func @attention_dropout_negative(%q: tensor<8x10x16xf32>) {
  // expected-error @+1 {{expected dropout in [0, 1), found -5.000000e-01}}
  %0 = tfm.attention %q, %q, %q {dropout = -0.5 : f64} : (tensor<8x10x16xf32>, tensor<8x10x16xf32>, tensor<8x10x16xf32>) -> tensor<8x10x16xf32>
  return
}

// -----

func.func @attention_result(%q: tensor<8x10x16xf32>, %v: tensor<8x10x32xf32>) {
  // expected-error @+2 {{'tfm.attention' op inferred type(s) 'tensor<8x10x32xf32>' are incompatible with return type(s) of operation 'tensor<8x10x16xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tfm.attention %q, %q, %v : (tensor<8x10x16xf32>, tensor<8x10x16xf32>, tensor<8x10x32xf32>) -> tensor<8x10x16xf32>
  return
}

// -----

func.func @attention_query_offset_without_causal(%q: tensor<1x1x16xf32>, %k: tensor<1x8x16xf32>, %p: index) {
  // expected-error @+1 {{'tfm.attention' op query_offset is the queries' position for the causal mask: it needs 'causal'}}
  %r = tfm.attention %q, %k, %k query_offset(%p) : (tensor<1x1x16xf32>, tensor<1x8x16xf32>, tensor<1x8x16xf32>, index) -> tensor<1x1x16xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// kv_cache_append
//===----------------------------------------------------------------------===//

func.func @kv_cache_append_head_dim(%c: tensor<1x4x64x16xf32>, %u: tensor<1x4x1x8xf32>, %p: index) {
  // expected-error @+1 {{'tfm.kv_cache_append' op expected dimension 3 of update to be 16 (the cache's last dimension), found 'tensor<1x4x1x8xf32>'}}
  %a, %b = tfm.kv_cache_append %c, %u at %p : tensor<1x4x64x16xf32>, tensor<1x4x1x8xf32> -> tensor<1x4x64x16xf32>, tensor<1x4x?x16xf32>
  return
}

// -----

func.func @kv_cache_append_heads(%c: tensor<1x4x64x16xf32>, %u: tensor<1x2x1x16xf32>, %p: index) {
  // expected-error @+1 {{'tfm.kv_cache_append' op}}
  %a, %b = tfm.kv_cache_append %c, %u at %p : tensor<1x4x64x16xf32>, tensor<1x2x1x16xf32> -> tensor<1x4x64x16xf32>, tensor<1x4x?x16xf32>
  return
}

// -----

func.func @kv_cache_append_updated_type(%c: tensor<1x4x64x16xf32>, %u: tensor<1x4x1x16xf32>, %p: index) {
  // expected-error @+1 {{'tfm.kv_cache_append' op updated has type 'tensor<1x4x32x16xf32>'; expected the cache's, 'tensor<1x4x64x16xf32>'}}
  %a, %b = tfm.kv_cache_append %c, %u at %p : tensor<1x4x64x16xf32>, tensor<1x4x1x16xf32> -> tensor<1x4x32x16xf32>, tensor<1x4x?x16xf32>
  return
}

// -----

func.func @kv_cache_append_too_many(%c: tensor<1x4x8x16xf32>, %u: tensor<1x4x9x16xf32>, %p: index) {
  // expected-error @+1 {{'tfm.kv_cache_append' op writes 9 positions into a cache of 8}}
  %a, %b = tfm.kv_cache_append %c, %u at %p : tensor<1x4x8x16xf32>, tensor<1x4x9x16xf32> -> tensor<1x4x8x16xf32>, tensor<1x4x?x16xf32>
  return
}

// -----

func.func @kv_cache_append_prefix(%c: tensor<1x4x8x16xf32>, %u: tensor<1x4x1x16xf32>, %p: index) {
  // expected-error @+1 {{'tfm.kv_cache_append' op prefix has 9 positions, more than the cache's 8}}
  %a, %b = tfm.kv_cache_append %c, %u at %p : tensor<1x4x8x16xf32>, tensor<1x4x1x16xf32> -> tensor<1x4x8x16xf32>, tensor<1x4x9x16xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// additive_attention
//===----------------------------------------------------------------------===//

func.func @additive_attention_query_rank(%q: tensor<20xf32>, %wq: tensor<8x20xf32>, %wv: tensor<1x8xf32>) {
  // expected-error @+1 {{'tfm.additive_attention' op expected query of rank at least 2 [batch..., queries, query_dim], found 'tensor<20xf32>'}}
  %0 = tfm.additive_attention %q, %q, %q weights(%wq, %wq, %wv) : (tensor<20xf32>, tensor<20xf32>, tensor<20xf32>, tensor<8x20xf32>, tensor<8x20xf32>, tensor<1x8xf32>) -> tensor<20xf32>
  return
}

// -----

func.func @additive_attention_key_rank(%q: tensor<2x1x20xf32>, %k: tensor<10x2xf32>, %v: tensor<2x10x4xf32>, %wq: tensor<8x20xf32>, %wk: tensor<8x2xf32>, %wv: tensor<1x8xf32>) {
  // expected-error @+1 {{expected key of rank 3 (the rank of query), found 'tensor<10x2xf32>'}}
  %0 = tfm.additive_attention %q, %k, %v weights(%wq, %wk, %wv) : (tensor<2x1x20xf32>, tensor<10x2xf32>, tensor<2x10x4xf32>, tensor<8x20xf32>, tensor<8x2xf32>, tensor<1x8xf32>) -> tensor<2x1x4xf32>
  return
}

// -----

func.func @additive_attention_value_rank(%q: tensor<2x1x20xf32>, %k: tensor<2x10x2xf32>, %v: tensor<2x10x4x1xf32>, %wq: tensor<8x20xf32>, %wk: tensor<8x2xf32>, %wv: tensor<1x8xf32>) {
  // expected-error @+1 {{expected value of rank 3 (the rank of query), found 'tensor<2x10x4x1xf32>'}}
  %0 = tfm.additive_attention %q, %k, %v weights(%wq, %wk, %wv) : (tensor<2x1x20xf32>, tensor<2x10x2xf32>, tensor<2x10x4x1xf32>, tensor<8x20xf32>, tensor<8x2xf32>, tensor<1x8xf32>) -> tensor<2x1x1xf32>
  return
}

// -----

func.func @additive_attention_weight_element_type(%q: tensor<2x1x20xf32>, %k: tensor<2x10x2xf32>, %v: tensor<2x10x4xf32>, %wq: tensor<8x20xf32>, %wk: tensor<8x2xbf16>, %wv: tensor<1x8xf32>) {
  // expected-error @+1 {{expected w_k to have element type 'f32' like query, found 'tensor<8x2xbf16>'}}
  %0 = tfm.additive_attention %q, %k, %v weights(%wq, %wk, %wv) : (tensor<2x1x20xf32>, tensor<2x10x2xf32>, tensor<2x10x4xf32>, tensor<8x20xf32>, tensor<8x2xbf16>, tensor<1x8xf32>) -> tensor<2x1x4xf32>
  return
}

// -----

func.func @additive_attention_key_batch(%q: tensor<2x1x20xf32>, %k: tensor<3x10x2xf32>, %v: tensor<2x10x4xf32>, %wq: tensor<8x20xf32>, %wk: tensor<8x2xf32>, %wv: tensor<1x8xf32>) {
  // expected-error @+1 {{expected dimension 0 of key to be 2 (batch dimension of query), found 'tensor<3x10x2xf32>'}}
  %0 = tfm.additive_attention %q, %k, %v weights(%wq, %wk, %wv) : (tensor<2x1x20xf32>, tensor<3x10x2xf32>, tensor<2x10x4xf32>, tensor<8x20xf32>, tensor<8x2xf32>, tensor<1x8xf32>) -> tensor<2x1x4xf32>
  return
}

// -----

func.func @additive_attention_value_batch(%q: tensor<2x1x20xf32>, %k: tensor<2x10x2xf32>, %v: tensor<3x10x4xf32>, %wq: tensor<8x20xf32>, %wk: tensor<8x2xf32>, %wv: tensor<1x8xf32>) {
  // expected-error @+1 {{expected dimension 0 of value to be 2 (batch dimension of query), found 'tensor<3x10x4xf32>'}}
  %0 = tfm.additive_attention %q, %k, %v weights(%wq, %wk, %wv) : (tensor<2x1x20xf32>, tensor<2x10x2xf32>, tensor<3x10x4xf32>, tensor<8x20xf32>, tensor<8x2xf32>, tensor<1x8xf32>) -> tensor<2x1x4xf32>
  return
}

// -----

func.func @additive_attention_value_seq_len(%q: tensor<2x1x20xf32>, %k: tensor<2x10x2xf32>, %v: tensor<2x9x4xf32>, %wq: tensor<8x20xf32>, %wk: tensor<8x2xf32>, %wv: tensor<1x8xf32>) {
  // expected-error @+1 {{expected dimension 1 of value to be 10 (key's sequence length), found 'tensor<2x9x4xf32>'}}
  %0 = tfm.additive_attention %q, %k, %v weights(%wq, %wk, %wv) : (tensor<2x1x20xf32>, tensor<2x10x2xf32>, tensor<2x9x4xf32>, tensor<8x20xf32>, tensor<8x2xf32>, tensor<1x8xf32>) -> tensor<2x1x4xf32>
  return
}

// -----

func.func @additive_attention_w_q_rank(%q: tensor<2x1x20xf32>, %k: tensor<2x10x2xf32>, %v: tensor<2x10x4xf32>, %wq: tensor<20xf32>, %wk: tensor<8x2xf32>, %wv: tensor<1x8xf32>) {
  // expected-error @+1 {{expected w_q of rank 2 [hidden, query_dim], found 'tensor<20xf32>'}}
  %0 = tfm.additive_attention %q, %k, %v weights(%wq, %wk, %wv) : (tensor<2x1x20xf32>, tensor<2x10x2xf32>, tensor<2x10x4xf32>, tensor<20xf32>, tensor<8x2xf32>, tensor<1x8xf32>) -> tensor<2x1x4xf32>
  return
}

// -----

func.func @additive_attention_w_k_rank(%q: tensor<2x1x20xf32>, %k: tensor<2x10x2xf32>, %v: tensor<2x10x4xf32>, %wq: tensor<8x20xf32>, %wk: tensor<1x8x2xf32>, %wv: tensor<1x8xf32>) {
  // expected-error @+1 {{expected w_k of rank 2 [hidden, key_dim], found 'tensor<1x8x2xf32>'}}
  %0 = tfm.additive_attention %q, %k, %v weights(%wq, %wk, %wv) : (tensor<2x1x20xf32>, tensor<2x10x2xf32>, tensor<2x10x4xf32>, tensor<8x20xf32>, tensor<1x8x2xf32>, tensor<1x8xf32>) -> tensor<2x1x4xf32>
  return
}

// -----

// w_v is nn.Linear(hidden, 1)'s weight, [1, hidden], not a vector.
func.func @additive_attention_w_v_rank(%q: tensor<2x1x20xf32>, %k: tensor<2x10x2xf32>, %v: tensor<2x10x4xf32>, %wq: tensor<8x20xf32>, %wk: tensor<8x2xf32>, %wv: tensor<8xf32>) {
  // expected-error @+1 {{expected w_v of rank 2 [1, hidden], found 'tensor<8xf32>'}}
  %0 = tfm.additive_attention %q, %k, %v weights(%wq, %wk, %wv) : (tensor<2x1x20xf32>, tensor<2x10x2xf32>, tensor<2x10x4xf32>, tensor<8x20xf32>, tensor<8x2xf32>, tensor<8xf32>) -> tensor<2x1x4xf32>
  return
}

// -----

// nn.Linear layout: w_q is [hidden, query_dim], not its transpose.
func.func @additive_attention_w_q_features(%q: tensor<2x1x20xf32>, %k: tensor<2x10x2xf32>, %v: tensor<2x10x4xf32>, %wq: tensor<20x8xf32>, %wk: tensor<8x2xf32>, %wv: tensor<1x8xf32>) {
  // expected-error @+1 {{expected dimension 1 of w_q to be 20 (query's feature size), found 'tensor<20x8xf32>'}}
  %0 = tfm.additive_attention %q, %k, %v weights(%wq, %wk, %wv) : (tensor<2x1x20xf32>, tensor<2x10x2xf32>, tensor<2x10x4xf32>, tensor<20x8xf32>, tensor<8x2xf32>, tensor<1x8xf32>) -> tensor<2x1x4xf32>
  return
}

// -----

func.func @additive_attention_w_k_features(%q: tensor<2x1x20xf32>, %k: tensor<2x10x2xf32>, %v: tensor<2x10x4xf32>, %wq: tensor<8x20xf32>, %wk: tensor<8x3xf32>, %wv: tensor<1x8xf32>) {
  // expected-error @+1 {{expected dimension 1 of w_k to be 2 (key's feature size), found 'tensor<8x3xf32>'}}
  %0 = tfm.additive_attention %q, %k, %v weights(%wq, %wk, %wv) : (tensor<2x1x20xf32>, tensor<2x10x2xf32>, tensor<2x10x4xf32>, tensor<8x20xf32>, tensor<8x3xf32>, tensor<1x8xf32>) -> tensor<2x1x4xf32>
  return
}

// -----

func.func @additive_attention_w_k_hidden(%q: tensor<2x1x20xf32>, %k: tensor<2x10x2xf32>, %v: tensor<2x10x4xf32>, %wq: tensor<8x20xf32>, %wk: tensor<6x2xf32>, %wv: tensor<1x8xf32>) {
  // expected-error @+1 {{expected dimension 0 of w_k to be 8 (w_q's hidden size), found 'tensor<6x2xf32>'}}
  %0 = tfm.additive_attention %q, %k, %v weights(%wq, %wk, %wv) : (tensor<2x1x20xf32>, tensor<2x10x2xf32>, tensor<2x10x4xf32>, tensor<8x20xf32>, tensor<6x2xf32>, tensor<1x8xf32>) -> tensor<2x1x4xf32>
  return
}

// -----

func.func @additive_attention_w_v_one_score(%q: tensor<2x1x20xf32>, %k: tensor<2x10x2xf32>, %v: tensor<2x10x4xf32>, %wq: tensor<8x20xf32>, %wk: tensor<8x2xf32>, %wv: tensor<8x1xf32>) {
  // expected-error @+1 {{expected dimension 0 of w_v to be 1 (one score per key), found 'tensor<8x1xf32>'}}
  %0 = tfm.additive_attention %q, %k, %v weights(%wq, %wk, %wv) : (tensor<2x1x20xf32>, tensor<2x10x2xf32>, tensor<2x10x4xf32>, tensor<8x20xf32>, tensor<8x2xf32>, tensor<8x1xf32>) -> tensor<2x1x4xf32>
  return
}

// -----

func.func @additive_attention_w_v_hidden(%q: tensor<2x1x20xf32>, %k: tensor<2x10x2xf32>, %v: tensor<2x10x4xf32>, %wq: tensor<8x20xf32>, %wk: tensor<8x2xf32>, %wv: tensor<1x6xf32>) {
  // expected-error @+1 {{expected dimension 1 of w_v to be 8 (w_q's hidden size), found 'tensor<1x6xf32>'}}
  %0 = tfm.additive_attention %q, %k, %v weights(%wq, %wk, %wv) : (tensor<2x1x20xf32>, tensor<2x10x2xf32>, tensor<2x10x4xf32>, tensor<8x20xf32>, tensor<8x2xf32>, tensor<1x6xf32>) -> tensor<2x1x4xf32>
  return
}

// -----

func.func @additive_attention_valid_lens_rank(%q: tensor<2x1x20xf32>, %k: tensor<2x10x2xf32>, %v: tensor<2x10x4xf32>, %wq: tensor<8x20xf32>, %wk: tensor<8x2xf32>, %wv: tensor<1x8xf32>, %lens: tensor<i32>) {
  // expected-error @+1 {{expected valid_lens of rank 1 (one length per batch) or 2 (one length per query), found 'tensor<i32>'}}
  %0 = tfm.additive_attention %q, %k, %v weights(%wq, %wk, %wv) valid_lens(%lens) : (tensor<2x1x20xf32>, tensor<2x10x2xf32>, tensor<2x10x4xf32>, tensor<8x20xf32>, tensor<8x2xf32>, tensor<1x8xf32>, tensor<i32>) -> tensor<2x1x4xf32>
  return
}

// -----

func.func @additive_attention_valid_lens_queries(%q: tensor<2x1x20xf32>, %k: tensor<2x10x2xf32>, %v: tensor<2x10x4xf32>, %wq: tensor<8x20xf32>, %wk: tensor<8x2xf32>, %wv: tensor<1x8xf32>, %lens: tensor<2x10xi64>) {
  // expected-error @+1 {{expected dimension 1 of valid_lens to be 1 (number of queries), found 'tensor<2x10xi64>'}}
  %0 = tfm.additive_attention %q, %k, %v weights(%wq, %wk, %wv) valid_lens(%lens) : (tensor<2x1x20xf32>, tensor<2x10x2xf32>, tensor<2x10x4xf32>, tensor<8x20xf32>, tensor<8x2xf32>, tensor<1x8xf32>, tensor<2x10xi64>) -> tensor<2x1x4xf32>
  return
}

// -----

func.func @additive_attention_valid_lens_float(%q: tensor<2x1x20xf32>, %k: tensor<2x10x2xf32>, %v: tensor<2x10x4xf32>, %wq: tensor<8x20xf32>, %wk: tensor<8x2xf32>, %wv: tensor<1x8xf32>, %lens: tensor<2xf32>) {
  // expected-error @+1 {{operand #6 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<2xf32>'}}
  %0 = tfm.additive_attention %q, %k, %v weights(%wq, %wk, %wv) valid_lens(%lens) : (tensor<2x1x20xf32>, tensor<2x10x2xf32>, tensor<2x10x4xf32>, tensor<8x20xf32>, tensor<8x2xf32>, tensor<1x8xf32>, tensor<2xf32>) -> tensor<2x1x4xf32>
  return
}

// -----

func.func @additive_attention_dropout(%q: tensor<2x1x20xf32>, %k: tensor<2x10x2xf32>, %v: tensor<2x10x4xf32>, %wq: tensor<8x20xf32>, %wk: tensor<8x2xf32>, %wv: tensor<1x8xf32>) {
  // expected-error @+1 {{'tfm.additive_attention' op expected dropout in [0, 1), found 1.500000e+00}}
  %0 = tfm.additive_attention %q, %k, %v weights(%wq, %wk, %wv) {dropout = 1.5 : f64} : (tensor<2x1x20xf32>, tensor<2x10x2xf32>, tensor<2x10x4xf32>, tensor<8x20xf32>, tensor<8x2xf32>, tensor<1x8xf32>) -> tensor<2x1x4xf32>
  return
}

// -----

func.func @additive_attention_result(%q: tensor<2x1x20xf32>, %k: tensor<2x10x2xf32>, %v: tensor<2x10x4xf32>, %wq: tensor<8x20xf32>, %wk: tensor<8x2xf32>, %wv: tensor<1x8xf32>) {
  // expected-error @+2 {{'tfm.additive_attention' op inferred type(s) 'tensor<2x1x4xf32>' are incompatible with return type(s) of operation 'tensor<2x1x8xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tfm.additive_attention %q, %k, %v weights(%wq, %wk, %wv) : (tensor<2x1x20xf32>, tensor<2x10x2xf32>, tensor<2x10x4xf32>, tensor<8x20xf32>, tensor<8x2xf32>, tensor<1x8xf32>) -> tensor<2x1x8xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// kernel_pooling
//===----------------------------------------------------------------------===//

func.func @kernel_pooling_queries_rank(%x: tensor<f32>) {
  // expected-error @+1 {{'tfm.kernel_pooling' op expected queries of rank at least 1 [batch..., queries], found 'tensor<f32>'}}
  %0 = tfm.kernel_pooling %x, %x, %x {kernel = #tfm.kernel<gaussian>} : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func @kernel_pooling_keys_rank(%q: tensor<40xf32>, %k: tensor<1x50xf32>, %v: tensor<50xf32>) {
  // expected-error @+1 {{expected keys of rank 1 (the rank of queries), found 'tensor<1x50xf32>'}}
  %0 = tfm.kernel_pooling %q, %k, %v {kernel = #tfm.kernel<gaussian>} : (tensor<40xf32>, tensor<1x50xf32>, tensor<50xf32>) -> tensor<40xf32>
  return
}

// -----

func.func @kernel_pooling_element_type(%q: tensor<40xf32>, %k: tensor<50xf32>, %v: tensor<50xf16>) {
  // expected-error @+1 {{expected values to have element type 'f32' like queries, found 'tensor<50xf16>'}}
  %0 = tfm.kernel_pooling %q, %k, %v {kernel = #tfm.kernel<gaussian>} : (tensor<40xf32>, tensor<50xf32>, tensor<50xf16>) -> tensor<40xf32>
  return
}

// -----

func.func @kernel_pooling_keys_batch(%q: tensor<3x40xf32>, %k: tensor<4x50xf32>, %v: tensor<3x50xf32>) {
  // expected-error @+1 {{expected dimension 0 of keys to be 3 (batch dimension of queries), found 'tensor<4x50xf32>'}}
  %0 = tfm.kernel_pooling %q, %k, %v {kernel = #tfm.kernel<gaussian>} : (tensor<3x40xf32>, tensor<4x50xf32>, tensor<3x50xf32>) -> tensor<3x40xf32>
  return
}

// -----

func.func @kernel_pooling_values_rank(%q: tensor<40xf32>, %k: tensor<50xf32>, %v: tensor<50x2x2xf32>) {
  // expected-error @+1 {{'tfm.kernel_pooling' op expected values of rank 1 (scalar values) or 2 (vector values), found 'tensor<50x2x2xf32>'}}
  %0 = tfm.kernel_pooling %q, %k, %v {kernel = #tfm.kernel<gaussian>} : (tensor<40xf32>, tensor<50xf32>, tensor<50x2x2xf32>) -> tensor<40x2xf32>
  return
}

// -----

func.func @kernel_pooling_values_batch(%q: tensor<3x40xf32>, %k: tensor<3x50xf32>, %v: tensor<2x50x7xf32>) {
  // expected-error @+1 {{expected dimension 0 of values to be 3 (batch dimension of queries), found 'tensor<2x50x7xf32>'}}
  %0 = tfm.kernel_pooling %q, %k, %v {kernel = #tfm.kernel<gaussian>} : (tensor<3x40xf32>, tensor<3x50xf32>, tensor<2x50x7xf32>) -> tensor<3x40x7xf32>
  return
}

// -----

func.func @kernel_pooling_values_keys(%q: tensor<40xf32>, %k: tensor<50xf32>, %v: tensor<40xf32>) {
  // expected-error @+1 {{expected dimension 0 of values to be 50 (number of keys), found 'tensor<40xf32>'}}
  %0 = tfm.kernel_pooling %q, %k, %v {kernel = #tfm.kernel<gaussian>} : (tensor<40xf32>, tensor<50xf32>, tensor<40xf32>) -> tensor<40xf32>
  return
}

// -----

func.func @kernel_pooling_vector_values_keys(%q: tensor<3x40xf32>, %k: tensor<3x50xf32>, %v: tensor<3x49x7xf32>) {
  // expected-error @+1 {{expected dimension 1 of values to be 50 (number of keys), found 'tensor<3x49x7xf32>'}}
  %0 = tfm.kernel_pooling %q, %k, %v {kernel = #tfm.kernel<gaussian>} : (tensor<3x40xf32>, tensor<3x50xf32>, tensor<3x49x7xf32>) -> tensor<3x40x7xf32>
  return
}

// -----

func.func @kernel_pooling_bandwidth_zero(%q: tensor<40xf32>, %k: tensor<50xf32>) {
  // expected-error @+1 {{'tfm.kernel_pooling' op expected a positive finite bandwidth, found 0.000000e+00}}
  %0 = tfm.kernel_pooling %q, %k, %k {bandwidth = 0.0 : f64, kernel = #tfm.kernel<boxcar>} : (tensor<40xf32>, tensor<50xf32>, tensor<50xf32>) -> tensor<40xf32>
  return
}

// -----

func.func @kernel_pooling_bandwidth_negative(%q: tensor<40xf32>, %k: tensor<50xf32>) {
  // expected-error @+1 {{expected a positive finite bandwidth, found -1.000000e+00}}
  %0 = tfm.kernel_pooling %q, %k, %k {bandwidth = -1.0 : f64, kernel = #tfm.kernel<gaussian>} : (tensor<40xf32>, tensor<50xf32>, tensor<50xf32>) -> tensor<40xf32>
  return
}

// -----

func.func @kernel_pooling_bandwidth_inf(%q: tensor<40xf32>, %k: tensor<50xf32>) {
  // expected-error @+1 {{expected a positive finite bandwidth, found INF}}
  %0 = tfm.kernel_pooling %q, %k, %k {bandwidth = 0x7FF0000000000000 : f64, kernel = #tfm.kernel<constant>} : (tensor<40xf32>, tensor<50xf32>, tensor<50xf32>) -> tensor<40xf32>
  return
}

// -----

func.func @kernel_pooling_bandwidth_nan(%q: tensor<40xf32>, %k: tensor<50xf32>) {
  // expected-error @+1 {{expected a positive finite bandwidth, found nan}}
  %0 = tfm.kernel_pooling %q, %k, %k {bandwidth = 0x7FF8000000000000 : f64, kernel = #tfm.kernel<epanechikov>} : (tensor<40xf32>, tensor<50xf32>, tensor<50xf32>) -> tensor<40xf32>
  return
}

// -----

func.func @kernel_pooling_missing_kernel(%q: tensor<40xf32>, %k: tensor<50xf32>) {
  // expected-error @+1 {{'tfm.kernel_pooling' op requires attribute 'kernel'}}
  %0 = tfm.kernel_pooling %q, %k, %k : (tensor<40xf32>, tensor<50xf32>, tensor<50xf32>) -> tensor<40xf32>
  return
}

// -----

func.func @kernel_pooling_unknown_kernel(%q: tensor<40xf32>, %k: tensor<50xf32>) {
  // expected-error @+2 {{expected ::mlir::tfm::PoolingKernel to be one of: gaussian, boxcar, constant, epanechikov}}
  // expected-error @+1 {{failed to parse Tfm_PoolingKernelAttr parameter 'value'}}
  %0 = tfm.kernel_pooling %q, %k, %k {kernel = #tfm.kernel<triangle>} : (tensor<40xf32>, tensor<50xf32>, tensor<50xf32>) -> tensor<40xf32>
  return
}

// -----

func.func @kernel_pooling_result(%q: tensor<40xf32>, %k: tensor<50xf32>, %v: tensor<50x7xf32>) {
  // expected-error @+2 {{'tfm.kernel_pooling' op inferred type(s) 'tensor<40x7xf32>' are incompatible with return type(s) of operation 'tensor<40xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tfm.kernel_pooling %q, %k, %v {kernel = #tfm.kernel<gaussian>} : (tensor<40xf32>, tensor<50xf32>, tensor<50x7xf32>) -> tensor<40xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// split_heads and merge_heads
//===----------------------------------------------------------------------===//

func.func @split_heads_rank(%x: tensor<4x100xf32>) {
  // expected-error @+1 {{'tfm.split_heads' op expected input of rank 3 [batch, seq, model_dim], found 'tensor<4x100xf32>'}}
  %0 = tfm.split_heads %x {num_heads = 5 : i64} : (tensor<4x100xf32>) -> tensor<20x4x20xf32>
  return
}

// -----

func.func @split_heads_not_divisible(%x: tensor<2x4x100xf32>) {
  // expected-error @+1 {{'tfm.split_heads' op expected num_heads (3) to divide the model dimension (100) of input, found 'tensor<2x4x100xf32>'}}
  %0 = tfm.split_heads %x {num_heads = 3 : i64} : (tensor<2x4x100xf32>) -> tensor<6x4x33xf32>
  return
}

// -----

func.func @split_heads_zero_heads(%x: tensor<2x4x100xf32>) {
  // expected-error @+1 {{attribute 'num_heads' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %0 = tfm.split_heads %x {num_heads = 0 : i64} : (tensor<2x4x100xf32>) -> tensor<2x4x100xf32>
  return
}

// -----

func.func @split_heads_result(%x: tensor<2x4x100xf32>) {
  // expected-error @+2 {{'tfm.split_heads' op inferred type(s) 'tensor<10x4x20xf32>' are incompatible with return type(s) of operation 'tensor<2x5x4x20xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tfm.split_heads %x {num_heads = 5 : i64} : (tensor<2x4x100xf32>) -> tensor<2x5x4x20xf32>
  return
}

// -----

func.func @merge_heads_rank(%x: tensor<2x5x4x20xf32>) {
  // expected-error @+1 {{'tfm.merge_heads' op expected input of rank 3 [batch * num_heads, seq, head_dim], found 'tensor<2x5x4x20xf32>'}}
  %0 = tfm.merge_heads %x {num_heads = 5 : i64} : (tensor<2x5x4x20xf32>) -> tensor<2x4x100xf32>
  return
}

// -----

func.func @merge_heads_not_divisible(%x: tensor<10x4x20xf32>) {
  // expected-error @+1 {{'tfm.merge_heads' op expected num_heads (4) to divide the leading dimension (10) of input, found 'tensor<10x4x20xf32>'}}
  %0 = tfm.merge_heads %x {num_heads = 4 : i64} : (tensor<10x4x20xf32>) -> tensor<2x4x80xf32>
  return
}

// -----

func.func @merge_heads_negative_heads(%x: tensor<10x4x20xf32>) {
  // expected-error @+1 {{attribute 'num_heads' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %0 = tfm.merge_heads %x {num_heads = -5 : i64} : (tensor<10x4x20xf32>) -> tensor<2x4x100xf32>
  return
}

// -----

func.func @merge_heads_result(%x: tensor<10x4x20xf32>) {
  // expected-error @+2 {{'tfm.merge_heads' op inferred type(s) 'tensor<2x4x100xf32>' are incompatible with return type(s) of operation 'tensor<2x4x20xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tfm.merge_heads %x {num_heads = 5 : i64} : (tensor<10x4x20xf32>) -> tensor<2x4x20xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// multi_head_attention
//===----------------------------------------------------------------------===//

func.func @mha_query_rank(%q: tensor<4x32xf32>, %x: tensor<2x4x32xf32>, %w: tensor<32x32xf32>) {
  // expected-error @+1 {{'tfm.multi_head_attention' op expected query of rank 3 [batch, queries, query_dim], found 'tensor<4x32xf32>'}}
  %0 = tfm.multi_head_attention %q, %x, %x weights(%w, %w, %w, %w) {num_heads = 4 : i64} : (tensor<4x32xf32>, tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<4x32xf32>
  return
}

// -----

// Grouped-query: num_kv_heads divides num_heads, w_k and w_v project to
// num_kv_heads heads of w_q's head size, a mask's [B * H] is static.
func.func @mha_kv_heads_divisor(%x: tensor<2x4x32xf32>, %w: tensor<32x32xf32>, %wk: tensor<24x32xf32>) {
  // expected-error @+1 {{'tfm.multi_head_attention' op expected num_kv_heads to divide num_heads (4), found 3}}
  %0 = tfm.multi_head_attention %x, %x, %x weights(%w, %wk, %wk, %w) {num_heads = 4 : i64, num_kv_heads = 3 : i64} : (tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<32x32xf32>, tensor<24x32xf32>, tensor<24x32xf32>, tensor<32x32xf32>) -> tensor<2x4x32xf32>
  return
}

// -----

func.func @mha_kv_weight(%x: tensor<2x4x32xf32>, %w: tensor<32x32xf32>) {
  // expected-error @+1 {{'tfm.multi_head_attention' op expected dimension 0 of w_k to be 16 (num_kv_heads times w_q's head size), found 'tensor<32x32xf32>'}}
  %0 = tfm.multi_head_attention %x, %x, %x weights(%w, %w, %w, %w) {num_heads = 4 : i64, num_kv_heads = 2 : i64} : (tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<2x4x32xf32>
  return
}

// -----

func.func @mha_kv_dynamic_mask(%x: tensor<2x4x32xf32>, %w: tensor<32x32xf32>, %wk: tensor<16x32xf32>, %m: tensor<?x4x4xf32>) {
  // expected-error @+1 {{'tfm.multi_head_attention' op expected a static first dimension of the mask (1, or batch times num_heads) with num_kv_heads, found 'tensor<?x4x4xf32>'}}
  %0 = tfm.multi_head_attention %x, %x, %x weights(%w, %wk, %wk, %w) mask(%m) {num_heads = 4 : i64, num_kv_heads = 2 : i64} : (tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<32x32xf32>, tensor<16x32xf32>, tensor<16x32xf32>, tensor<32x32xf32>, tensor<?x4x4xf32>) -> tensor<2x4x32xf32>
  return
}

// -----

func.func @mha_key_rank(%x: tensor<2x4x32xf32>, %k: tensor<2x1x4x32xf32>, %w: tensor<32x32xf32>) {
  // expected-error @+1 {{expected key of rank 3 [batch, keys, key_dim], found 'tensor<2x1x4x32xf32>'}}
  %0 = tfm.multi_head_attention %x, %k, %x weights(%w, %w, %w, %w) {num_heads = 4 : i64} : (tensor<2x4x32xf32>, tensor<2x1x4x32xf32>, tensor<2x4x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<2x4x32xf32>
  return
}

// -----

func.func @mha_value_rank(%x: tensor<2x4x32xf32>, %v: tensor<4x32xf32>, %w: tensor<32x32xf32>) {
  // expected-error @+1 {{expected value of rank 3 [batch, keys, value_dim], found 'tensor<4x32xf32>'}}
  %0 = tfm.multi_head_attention %x, %x, %v weights(%w, %w, %w, %w) {num_heads = 4 : i64} : (tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<4x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<2x4x32xf32>
  return
}

// -----

func.func @mha_key_batch(%x: tensor<2x4x32xf32>, %k: tensor<3x4x32xf32>, %w: tensor<32x32xf32>) {
  // expected-error @+1 {{expected dimension 0 of key to be 2 (batch dimension of query), found 'tensor<3x4x32xf32>'}}
  %0 = tfm.multi_head_attention %x, %k, %x weights(%w, %w, %w, %w) {num_heads = 4 : i64} : (tensor<2x4x32xf32>, tensor<3x4x32xf32>, tensor<2x4x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<2x4x32xf32>
  return
}

// -----

func.func @mha_value_batch(%x: tensor<2x4x32xf32>, %v: tensor<3x4x32xf32>, %w: tensor<32x32xf32>) {
  // expected-error @+1 {{expected dimension 0 of value to be 2 (batch dimension of query), found 'tensor<3x4x32xf32>'}}
  %0 = tfm.multi_head_attention %x, %x, %v weights(%w, %w, %w, %w) {num_heads = 4 : i64} : (tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<3x4x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<2x4x32xf32>
  return
}

// -----

func.func @mha_value_seq_len(%x: tensor<2x4x32xf32>, %k: tensor<2x6x32xf32>, %w: tensor<32x32xf32>) {
  // expected-error @+1 {{expected dimension 1 of value to be 6 (key's sequence length), found 'tensor<2x4x32xf32>'}}
  %0 = tfm.multi_head_attention %x, %k, %x weights(%w, %w, %w, %w) {num_heads = 4 : i64} : (tensor<2x4x32xf32>, tensor<2x6x32xf32>, tensor<2x4x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<2x4x32xf32>
  return
}

// -----

func.func @mha_w_q_rank(%x: tensor<2x4x32xf32>, %wq: tensor<32xf32>, %w: tensor<32x32xf32>) {
  // expected-error @+1 {{expected w_q of rank 2 [model_dim, query_dim], found 'tensor<32xf32>'}}
  %0 = tfm.multi_head_attention %x, %x, %x weights(%wq, %w, %w, %w) {num_heads = 4 : i64} : (tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<2x4x32xf32>
  return
}

// -----

func.func @mha_w_k_rank(%x: tensor<2x4x32xf32>, %wk: tensor<1x32x32xf32>, %w: tensor<32x32xf32>) {
  // expected-error @+1 {{expected w_k of rank 2 [model_dim, key_dim], found 'tensor<1x32x32xf32>'}}
  %0 = tfm.multi_head_attention %x, %x, %x weights(%w, %wk, %w, %w) {num_heads = 4 : i64} : (tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<32x32xf32>, tensor<1x32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<2x4x32xf32>
  return
}

// -----

func.func @mha_w_v_rank(%x: tensor<2x4x32xf32>, %wv: tensor<32xf32>, %w: tensor<32x32xf32>) {
  // expected-error @+1 {{expected w_v of rank 2 [model_dim, value_dim], found 'tensor<32xf32>'}}
  %0 = tfm.multi_head_attention %x, %x, %x weights(%w, %w, %wv, %w) {num_heads = 4 : i64} : (tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32x32xf32>) -> tensor<2x4x32xf32>
  return
}

// -----

func.func @mha_w_o_rank(%x: tensor<2x4x32xf32>, %wo: tensor<32xf32>, %w: tensor<32x32xf32>) {
  // expected-error @+1 {{expected w_o of rank 2 [out_dim, model_dim], found 'tensor<32xf32>'}}
  %0 = tfm.multi_head_attention %x, %x, %x weights(%w, %w, %w, %wo) {num_heads = 4 : i64} : (tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32xf32>) -> tensor<2x4x32xf32>
  return
}

// -----

func.func @mha_w_q_features(%x: tensor<2x4x32xf32>, %wq: tensor<32x16xf32>, %w: tensor<32x32xf32>) {
  // expected-error @+1 {{expected dimension 1 of w_q to be 32 (query's feature size), found 'tensor<32x16xf32>'}}
  %0 = tfm.multi_head_attention %x, %x, %x weights(%wq, %w, %w, %w) {num_heads = 4 : i64} : (tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<32x16xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<2x4x32xf32>
  return
}

// -----

func.func @mha_w_k_features(%x: tensor<2x4x32xf32>, %k: tensor<2x4x12xf32>, %w: tensor<32x32xf32>) {
  // expected-error @+1 {{expected dimension 1 of w_k to be 12 (key's feature size), found 'tensor<32x32xf32>'}}
  %0 = tfm.multi_head_attention %x, %k, %x weights(%w, %w, %w, %w) {num_heads = 4 : i64} : (tensor<2x4x32xf32>, tensor<2x4x12xf32>, tensor<2x4x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<2x4x32xf32>
  return
}

// -----

func.func @mha_w_v_features(%x: tensor<2x4x32xf32>, %v: tensor<2x4x6xf32>, %w: tensor<32x32xf32>) {
  // expected-error @+1 {{expected dimension 1 of w_v to be 6 (value's feature size), found 'tensor<32x32xf32>'}}
  %0 = tfm.multi_head_attention %x, %x, %v weights(%w, %w, %w, %w) {num_heads = 4 : i64} : (tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<2x4x6xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<2x4x32xf32>
  return
}

// -----

func.func @mha_w_k_model_dim(%x: tensor<2x4x32xf32>, %wk: tensor<16x32xf32>, %w: tensor<32x32xf32>) {
  // expected-error @+1 {{expected dimension 0 of w_k to be 32 (w_q's model dimension), found 'tensor<16x32xf32>'}}
  %0 = tfm.multi_head_attention %x, %x, %x weights(%w, %wk, %w, %w) {num_heads = 4 : i64} : (tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<32x32xf32>, tensor<16x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<2x4x32xf32>
  return
}

// -----

func.func @mha_w_v_model_dim(%x: tensor<2x4x32xf32>, %wv: tensor<16x32xf32>, %w: tensor<32x32xf32>) {
  // expected-error @+1 {{expected dimension 0 of w_v to be 32 (w_q's model dimension), found 'tensor<16x32xf32>'}}
  %0 = tfm.multi_head_attention %x, %x, %x weights(%w, %w, %wv, %w) {num_heads = 4 : i64} : (tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<16x32xf32>, tensor<32x32xf32>) -> tensor<2x4x32xf32>
  return
}

// -----

func.func @mha_w_o_model_dim(%x: tensor<2x4x32xf32>, %wo: tensor<32x16xf32>, %w: tensor<32x32xf32>) {
  // expected-error @+1 {{expected dimension 1 of w_o to be 32 (w_q's model dimension), found 'tensor<32x16xf32>'}}
  %0 = tfm.multi_head_attention %x, %x, %x weights(%w, %w, %w, %wo) {num_heads = 4 : i64} : (tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x16xf32>) -> tensor<2x4x32xf32>
  return
}

// -----

func.func @mha_num_heads_not_divisible(%x: tensor<2x4x32xf32>, %w: tensor<32x32xf32>) {
  // expected-error @+1 {{expected num_heads (3) to divide the model dimension (32) of w_q, found 'tensor<32x32xf32>'}}
  %0 = tfm.multi_head_attention %x, %x, %x weights(%w, %w, %w, %w) {num_heads = 3 : i64} : (tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<2x4x32xf32>
  return
}

// -----

func.func @mha_num_heads_zero(%x: tensor<2x4x32xf32>, %w: tensor<32x32xf32>) {
  // expected-error @+1 {{attribute 'num_heads' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %0 = tfm.multi_head_attention %x, %x, %x weights(%w, %w, %w, %w) {num_heads = 0 : i64} : (tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<2x4x32xf32>
  return
}

// -----

func.func @mha_weight_element_type(%x: tensor<2x4x32xf32>, %w: tensor<32x32xf32>, %wo: tensor<32x32xf16>) {
  // expected-error @+1 {{expected w_o to have element type 'f32' like query, found 'tensor<32x32xf16>'}}
  %0 = tfm.multi_head_attention %x, %x, %x weights(%w, %w, %w, %wo) {num_heads = 4 : i64} : (tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf16>) -> tensor<2x4x32xf32>
  return
}

// -----

func.func @mha_bias_element_type(%x: tensor<2x4x32xbf16>, %w: tensor<32x32xbf16>, %b: tensor<32xbf16>, %bv: tensor<32xf32>) {
  // expected-error @+1 {{expected b_v to have element type 'bf16' like query, found 'tensor<32xf32>'}}
  %0 = tfm.multi_head_attention %x, %x, %x weights(%w, %w, %w, %w) biases(%b, %b, %bv, %b) {num_heads = 4 : i64} : (tensor<2x4x32xbf16>, tensor<2x4x32xbf16>, tensor<2x4x32xbf16>, tensor<32x32xbf16>, tensor<32x32xbf16>, tensor<32x32xbf16>, tensor<32x32xbf16>, tensor<32xbf16>, tensor<32xbf16>, tensor<32xf32>, tensor<32xbf16>) -> tensor<2x4x32xbf16>
  return
}

// -----

func.func @mha_mask_element_type(%x: tensor<2x4x32xf32>, %w: tensor<32x32xf32>, %mask: tensor<4x4xbf16>) {
  // expected-error @+1 {{expected mask to have element type 'f32' like query, found 'tensor<4x4xbf16>'}}
  %0 = tfm.multi_head_attention %x, %x, %x weights(%w, %w, %w, %w) mask(%mask) {num_heads = 4 : i64} : (tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<4x4xbf16>) -> tensor<2x4x32xf32>
  return
}

// -----

// The custom syntax takes all four biases or none; the generic form can
// express a partial set, which the verifier rejects.
func.func @mha_biases_partial(%x: tensor<2x4x32xf32>, %w: tensor<32x32xf32>, %b: tensor<32xf32>) {
  // expected-error @+1 {{'tfm.multi_head_attention' op expected biases for all four projections or none, found 1}}
  %0 = "tfm.multi_head_attention"(%x, %x, %x, %w, %w, %w, %w, %b) <{num_heads = 4 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0>}> : (tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32xf32>) -> tensor<2x4x32xf32>
  return
}

// -----

func.func @mha_biases_three(%x: tensor<2x4x32xf32>, %w: tensor<32x32xf32>, %b: tensor<32xf32>) {
  // expected-error @+1 {{expected biases for all four projections or none, found 3}}
  %0 = "tfm.multi_head_attention"(%x, %x, %x, %w, %w, %w, %w, %b, %b, %b) <{num_heads = 4 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, 0, 0>}> : (tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<2x4x32xf32>
  return
}

// -----

func.func @mha_b_q_rank(%x: tensor<2x4x32xf32>, %w: tensor<32x32xf32>, %b: tensor<32xf32>, %bq: tensor<1x32xf32>) {
  // expected-error @+1 {{expected b_q of rank 1 [model_dim], found 'tensor<1x32xf32>'}}
  %0 = tfm.multi_head_attention %x, %x, %x weights(%w, %w, %w, %w) biases(%bq, %b, %b, %b) {num_heads = 4 : i64} : (tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<1x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<2x4x32xf32>
  return
}

// -----

func.func @mha_b_k_rank(%x: tensor<2x4x32xf32>, %w: tensor<32x32xf32>, %b: tensor<32xf32>, %bk: tensor<f32>) {
  // expected-error @+1 {{expected b_k of rank 1 [model_dim], found 'tensor<f32>'}}
  %0 = tfm.multi_head_attention %x, %x, %x weights(%w, %w, %w, %w) biases(%b, %bk, %b, %b) {num_heads = 4 : i64} : (tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<f32>, tensor<32xf32>, tensor<32xf32>) -> tensor<2x4x32xf32>
  return
}

// -----

func.func @mha_b_v_rank(%x: tensor<2x4x32xf32>, %w: tensor<32x32xf32>, %b: tensor<32xf32>, %bv: tensor<32x1xf32>) {
  // expected-error @+1 {{expected b_v of rank 1 [model_dim], found 'tensor<32x1xf32>'}}
  %0 = tfm.multi_head_attention %x, %x, %x weights(%w, %w, %w, %w) biases(%b, %b, %bv, %b) {num_heads = 4 : i64} : (tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x1xf32>, tensor<32xf32>) -> tensor<2x4x32xf32>
  return
}

// -----

func.func @mha_b_o_rank(%x: tensor<2x4x32xf32>, %w: tensor<32x32xf32>, %b: tensor<32xf32>, %bo: tensor<1x32xf32>) {
  // expected-error @+1 {{expected b_o of rank 1 [out_dim], found 'tensor<1x32xf32>'}}
  %0 = tfm.multi_head_attention %x, %x, %x weights(%w, %w, %w, %w) biases(%b, %b, %b, %bo) {num_heads = 4 : i64} : (tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<1x32xf32>) -> tensor<2x4x32xf32>
  return
}

// -----

func.func @mha_b_q_size(%x: tensor<2x4x32xf32>, %w: tensor<32x32xf32>, %b: tensor<32xf32>, %bq: tensor<16xf32>) {
  // expected-error @+1 {{expected dimension 0 of b_q to be 32 (w_q's model dimension), found 'tensor<16xf32>'}}
  %0 = tfm.multi_head_attention %x, %x, %x weights(%w, %w, %w, %w) biases(%bq, %b, %b, %b) {num_heads = 4 : i64} : (tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<16xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<2x4x32xf32>
  return
}

// -----

func.func @mha_b_k_size(%x: tensor<2x4x32xf32>, %w: tensor<32x32xf32>, %b: tensor<32xf32>, %bk: tensor<16xf32>) {
  // expected-error @+1 {{expected dimension 0 of b_k to be 32 (w_q's model dimension), found 'tensor<16xf32>'}}
  %0 = tfm.multi_head_attention %x, %x, %x weights(%w, %w, %w, %w) biases(%b, %bk, %b, %b) {num_heads = 4 : i64} : (tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<16xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<2x4x32xf32>
  return
}

// -----

func.func @mha_b_v_size(%x: tensor<2x4x32xf32>, %w: tensor<32x32xf32>, %b: tensor<32xf32>, %bv: tensor<16xf32>) {
  // expected-error @+1 {{expected dimension 0 of b_v to be 32 (w_q's model dimension), found 'tensor<16xf32>'}}
  %0 = tfm.multi_head_attention %x, %x, %x weights(%w, %w, %w, %w) biases(%b, %b, %bv, %b) {num_heads = 4 : i64} : (tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<16xf32>, tensor<32xf32>) -> tensor<2x4x32xf32>
  return
}

// -----

// b_o follows w_o's output size (10), not the model dimension (32).
func.func @mha_b_o_size(%x: tensor<2x4x32xf32>, %w: tensor<32x32xf32>, %wo: tensor<10x32xf32>, %b: tensor<32xf32>) {
  // expected-error @+1 {{expected dimension 0 of b_o to be 10 (w_o's output size), found 'tensor<32xf32>'}}
  %0 = tfm.multi_head_attention %x, %x, %x weights(%w, %w, %w, %wo) biases(%b, %b, %b, %b) {num_heads = 4 : i64} : (tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<10x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<2x4x10xf32>
  return
}

// -----

func.func @mha_valid_lens_rank(%x: tensor<2x4x32xf32>, %w: tensor<32x32xf32>, %lens: tensor<2x4x4xi32>) {
  // expected-error @+1 {{expected valid_lens of rank 1 (one length per batch) or 2 (one length per query), found 'tensor<2x4x4xi32>'}}
  %0 = tfm.multi_head_attention %x, %x, %x weights(%w, %w, %w, %w) valid_lens(%lens) {num_heads = 4 : i64} : (tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<2x4x4xi32>) -> tensor<2x4x32xf32>
  return
}

// -----

// valid_lens is per batch, [B], and repeated over the heads: not [B * H].
func.func @mha_valid_lens_batch(%x: tensor<2x4x32xf32>, %w: tensor<32x32xf32>, %lens: tensor<8xi32>) {
  // expected-error @+1 {{expected dimension 0 of valid_lens to be 2 (batch dimension of the scores), found 'tensor<8xi32>'}}
  %0 = tfm.multi_head_attention %x, %x, %x weights(%w, %w, %w, %w) valid_lens(%lens) {num_heads = 4 : i64} : (tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<8xi32>) -> tensor<2x4x32xf32>
  return
}

// -----

func.func @mha_valid_lens_queries(%q: tensor<2x3x32xf32>, %kv: tensor<2x5x32xf32>, %w: tensor<32x32xf32>, %lens: tensor<2x5xi64>) {
  // expected-error @+1 {{expected dimension 1 of valid_lens to be 3 (number of queries), found 'tensor<2x5xi64>'}}
  %0 = tfm.multi_head_attention %q, %kv, %kv weights(%w, %w, %w, %w) valid_lens(%lens) {num_heads = 4 : i64} : (tensor<2x3x32xf32>, tensor<2x5x32xf32>, tensor<2x5x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<2x5xi64>) -> tensor<2x3x32xf32>
  return
}

// -----

func.func @mha_valid_lens_float(%x: tensor<2x4x32xf32>, %w: tensor<32x32xf32>, %lens: tensor<2xf32>) {
  // expected-error @+1 {{operand #7 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<2xf32>'}}
  %0 = tfm.multi_head_attention %x, %x, %x weights(%w, %w, %w, %w) valid_lens(%lens) {num_heads = 4 : i64} : (tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<2xf32>) -> tensor<2x4x32xf32>
  return
}

// -----

func.func @mha_mask_rank(%x: tensor<2x4x32xf32>, %w: tensor<32x32xf32>, %mask: tensor<2x4x4x4xf32>) {
  // expected-error @+1 {{expected mask of rank at most 3 to broadcast to the scores, found 'tensor<2x4x4x4xf32>'}}
  %0 = tfm.multi_head_attention %x, %x, %x weights(%w, %w, %w, %w) mask(%mask) {num_heads = 4 : i64} : (tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<2x4x4x4xf32>) -> tensor<2x4x32xf32>
  return
}

// -----

// The per-head scores are [B * H, Sq, Sk] = [8, 4, 4]: a mask over the batch
// alone does not broadcast.
func.func @mha_mask_batch(%x: tensor<2x4x32xf32>, %w: tensor<32x32xf32>, %mask: tensor<2x4x4xf32>) {
  // expected-error @+1 {{expected dimension 0 of mask to be 1 or 8 to broadcast to the scores, found 'tensor<2x4x4xf32>'}}
  %0 = tfm.multi_head_attention %x, %x, %x weights(%w, %w, %w, %w) mask(%mask) {num_heads = 4 : i64} : (tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<2x4x4xf32>) -> tensor<2x4x32xf32>
  return
}

// -----

func.func @mha_scale_inf(%x: tensor<2x4x32xf32>, %w: tensor<32x32xf32>) {
  // expected-error @+1 {{'tfm.multi_head_attention' op expected a finite scale, found -INF}}
  %0 = tfm.multi_head_attention %x, %x, %x weights(%w, %w, %w, %w) {num_heads = 4 : i64, scale = 0xFFF0000000000000 : f64} : (tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<2x4x32xf32>
  return
}

// -----

func.func @mha_dropout(%x: tensor<2x4x32xf32>, %w: tensor<32x32xf32>) {
  // expected-error @+1 {{'tfm.multi_head_attention' op expected dropout in [0, 1), found 1.000000e+00}}
  %0 = tfm.multi_head_attention %x, %x, %x weights(%w, %w, %w, %w) {dropout = 1.0 : f64, num_heads = 4 : i64} : (tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<2x4x32xf32>
  return
}

// -----

func.func @mha_result(%x: tensor<2x4x32xf32>, %w: tensor<32x32xf32>, %wo: tensor<10x32xf32>) {
  // expected-error @+2 {{'tfm.multi_head_attention' op inferred type(s) 'tensor<2x4x10xf32>' are incompatible with return type(s) of operation 'tensor<2x4x32xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tfm.multi_head_attention %x, %x, %x weights(%w, %w, %w, %wo) {num_heads = 4 : i64} : (tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<10x32xf32>) -> tensor<2x4x32xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// linear
//===----------------------------------------------------------------------===//

func.func @linear_input_rank(%x: tensor<f32>, %w: tensor<16x8xf32>) {
  // expected-error @+1 {{'tfm.linear' op expected input of rank at least 1 [..., in_features], found 'tensor<f32>'}}
  %0 = tfm.linear %x, %w : (tensor<f32>, tensor<16x8xf32>) -> tensor<16xf32>
  return
}

// -----

func.func @linear_weight_element_type(%x: tensor<2x8xf32>, %w: tensor<16x8xf16>) {
  // expected-error @+1 {{expected weight to have element type 'f32' like input, found 'tensor<16x8xf16>'}}
  %0 = tfm.linear %x, %w : (tensor<2x8xf32>, tensor<16x8xf16>) -> tensor<2x16xf32>
  return
}

// -----

func.func @linear_bias_element_type(%x: tensor<2x8xf16>, %w: tensor<16x8xf16>, %b: tensor<16xbf16>) {
  // expected-error @+1 {{expected bias to have element type 'f16' like input, found 'tensor<16xbf16>'}}
  %0 = tfm.linear %x, %w, %b : (tensor<2x8xf16>, tensor<16x8xf16>, tensor<16xbf16>) -> tensor<2x16xf16>
  return
}

// -----

func.func @linear_weight_rank(%x: tensor<2x8xf32>, %w: tensor<8xf32>) {
  // expected-error @+1 {{expected weight of rank 2 [out_features, in_features], found 'tensor<8xf32>'}}
  %0 = tfm.linear %x, %w : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  return
}

// -----

// nn.Linear layout: the weight is [out_features, in_features].
func.func @linear_in_features(%x: tensor<2x8xf32>, %w: tensor<8x16xf32>) {
  // expected-error @+1 {{expected dimension 1 of weight to be 8 (input's last dimension), found 'tensor<8x16xf32>'}}
  %0 = tfm.linear %x, %w : (tensor<2x8xf32>, tensor<8x16xf32>) -> tensor<2x8xf32>
  return
}

// -----

func.func @linear_bias_rank(%x: tensor<2x8xf32>, %w: tensor<16x8xf32>, %b: tensor<1x16xf32>) {
  // expected-error @+1 {{expected bias of rank 1 [out_features], found 'tensor<1x16xf32>'}}
  %0 = tfm.linear %x, %w, %b : (tensor<2x8xf32>, tensor<16x8xf32>, tensor<1x16xf32>) -> tensor<2x16xf32>
  return
}

// -----

func.func @linear_bias_size(%x: tensor<2x8xf32>, %w: tensor<16x8xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{expected dimension 0 of bias to be 16 (weight's out_features), found 'tensor<8xf32>'}}
  %0 = tfm.linear %x, %w, %b : (tensor<2x8xf32>, tensor<16x8xf32>, tensor<8xf32>) -> tensor<2x16xf32>
  return
}

// -----

func.func @linear_unknown_activation(%x: tensor<2x8xf32>, %w: tensor<16x8xf32>) {
  // expected-error @+2 {{expected ::mlir::tfm::Activation to be one of: none, relu, gelu, gelu_tanh}}
  // expected-error @+1 {{failed to parse Tfm_ActivationAttr parameter 'value'}}
  %0 = tfm.linear %x, %w {activation = #tfm.activation<swish>} : (tensor<2x8xf32>, tensor<16x8xf32>) -> tensor<2x16xf32>
  return
}

// -----

func.func @linear_result(%x: tensor<2x8xf32>, %w: tensor<16x8xf32>) {
  // expected-error @+2 {{'tfm.linear' op inferred type(s) 'tensor<2x16xf32>' are incompatible with return type(s) of operation 'tensor<2x8xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tfm.linear %x, %w : (tensor<2x8xf32>, tensor<16x8xf32>) -> tensor<2x8xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// ffn
//===----------------------------------------------------------------------===//

func.func @ffn_input_rank(%x: tensor<f32>, %w1: tensor<8x4xf32>, %w2: tensor<4x8xf32>) {
  // expected-error @+1 {{'tfm.ffn' op expected input of rank at least 1 [..., features], found 'tensor<f32>'}}
  %0 = tfm.ffn %x dense1(%w1) dense2(%w2) : (tensor<f32>, tensor<8x4xf32>, tensor<4x8xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @ffn_gate_hidden(%x: tensor<3x4xf32>, %wg: tensor<6x4xf32>, %w1: tensor<8x4xf32>, %w2: tensor<4x8xf32>) {
  // expected-error @+1 {{expected dimension 0 of w_gate to be 8 (the hidden size, w1's out_features), found 'tensor<6x4xf32>'}}
  %0 = tfm.ffn %x gate(%wg) dense1(%w1) dense2(%w2) {activation = #tfm.activation<silu>} : (tensor<3x4xf32>, tensor<6x4xf32>, tensor<8x4xf32>, tensor<4x8xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @ffn_gate_in_features(%x: tensor<3x4xf32>, %wg: tensor<8x5xf32>, %w1: tensor<8x4xf32>, %w2: tensor<4x8xf32>) {
  // expected-error @+1 {{expected dimension 1 of w_gate to be 4 (input's last dimension), found 'tensor<8x5xf32>'}}
  %0 = tfm.ffn %x gate(%wg) dense1(%w1) dense2(%w2) {activation = #tfm.activation<silu>} : (tensor<3x4xf32>, tensor<8x5xf32>, tensor<8x4xf32>, tensor<4x8xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @ffn_gate_bias(%x: tensor<3x4xf32>, %wg: tensor<8x4xf32>, %bg: tensor<6xf32>, %w1: tensor<8x4xf32>, %w2: tensor<4x8xf32>) {
  // expected-error @+1 {{expected dimension 0 of b_gate to be 8 (w_gate's out_features), found 'tensor<6xf32>'}}
  %0 = tfm.ffn %x gate(%wg, %bg) dense1(%w1) dense2(%w2) {activation = #tfm.activation<silu>} : (tensor<3x4xf32>, tensor<8x4xf32>, tensor<6xf32>, tensor<8x4xf32>, tensor<4x8xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @ffn_w2_element_type(%x: tensor<3x4xf32>, %w1: tensor<8x4xf32>, %w2: tensor<4x8xf16>) {
  // expected-error @+1 {{expected w2 to have element type 'f32' like input, found 'tensor<4x8xf16>'}}
  %0 = tfm.ffn %x dense1(%w1) dense2(%w2) : (tensor<3x4xf32>, tensor<8x4xf32>, tensor<4x8xf16>) -> tensor<3x4xf32>
  return
}

// -----

func.func @ffn_b1_element_type(%x: tensor<3x4xf32>, %w1: tensor<8x4xf32>, %b1: tensor<8xbf16>, %w2: tensor<4x8xf32>) {
  // expected-error @+1 {{expected b1 to have element type 'f32' like input, found 'tensor<8xbf16>'}}
  %0 = tfm.ffn %x dense1(%w1, %b1) dense2(%w2) : (tensor<3x4xf32>, tensor<8x4xf32>, tensor<8xbf16>, tensor<4x8xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @ffn_w1_rank(%x: tensor<3x4xf32>, %w1: tensor<4xf32>, %w2: tensor<4x8xf32>) {
  // expected-error @+1 {{expected w1 of rank 2 [out_features, in_features], found 'tensor<4xf32>'}}
  %0 = tfm.ffn %x dense1(%w1) dense2(%w2) : (tensor<3x4xf32>, tensor<4xf32>, tensor<4x8xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @ffn_w1_in_features(%x: tensor<3x4xf32>, %w1: tensor<8x5xf32>, %w2: tensor<4x8xf32>) {
  // expected-error @+1 {{expected dimension 1 of w1 to be 4 (input's last dimension), found 'tensor<8x5xf32>'}}
  %0 = tfm.ffn %x dense1(%w1) dense2(%w2) : (tensor<3x4xf32>, tensor<8x5xf32>, tensor<4x8xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @ffn_b1_rank(%x: tensor<3x4xf32>, %w1: tensor<8x4xf32>, %b1: tensor<1x8xf32>, %w2: tensor<4x8xf32>) {
  // expected-error @+1 {{expected b1 of rank 1 [out_features], found 'tensor<1x8xf32>'}}
  %0 = tfm.ffn %x dense1(%w1, %b1) dense2(%w2) : (tensor<3x4xf32>, tensor<8x4xf32>, tensor<1x8xf32>, tensor<4x8xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @ffn_b1_size(%x: tensor<3x4xf32>, %w1: tensor<8x4xf32>, %b1: tensor<4xf32>, %w2: tensor<4x8xf32>) {
  // expected-error @+1 {{expected dimension 0 of b1 to be 8 (w1's out_features), found 'tensor<4xf32>'}}
  %0 = tfm.ffn %x dense1(%w1, %b1) dense2(%w2) : (tensor<3x4xf32>, tensor<8x4xf32>, tensor<4xf32>, tensor<4x8xf32>) -> tensor<3x4xf32>
  return
}

// -----

// Two linear layers without a non-linearity between them are one layer.
func.func @ffn_activation_none(%x: tensor<3x4xf32>, %w1: tensor<8x4xf32>, %w2: tensor<4x8xf32>) {
  // expected-error @+1 {{'tfm.ffn' op expected an activation between the two layers (relu, gelu, gelu_tanh or silu), found none}}
  %0 = tfm.ffn %x dense1(%w1) dense2(%w2) {activation = #tfm.activation<none>} : (tensor<3x4xf32>, tensor<8x4xf32>, tensor<4x8xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @ffn_w2_rank(%x: tensor<3x4xf32>, %w1: tensor<8x4xf32>, %w2: tensor<1x4x8xf32>) {
  // expected-error @+1 {{expected w2 of rank 2 [out_features, in_features], found 'tensor<1x4x8xf32>'}}
  %0 = tfm.ffn %x dense1(%w1) dense2(%w2) : (tensor<3x4xf32>, tensor<8x4xf32>, tensor<1x4x8xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @ffn_w2_in_features(%x: tensor<3x4xf32>, %w1: tensor<8x4xf32>, %w2: tensor<8x4xf32>) {
  // expected-error @+1 {{expected dimension 1 of w2 to be 8 (the hidden size, w1's out_features), found 'tensor<8x4xf32>'}}
  %0 = tfm.ffn %x dense1(%w1) dense2(%w2) : (tensor<3x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<3x8xf32>
  return
}

// -----

func.func @ffn_b2_rank(%x: tensor<3x4xf32>, %w1: tensor<8x4xf32>, %w2: tensor<4x8xf32>, %b2: tensor<f32>) {
  // expected-error @+1 {{expected b2 of rank 1 [out_features], found 'tensor<f32>'}}
  %0 = tfm.ffn %x dense1(%w1) dense2(%w2, %b2) : (tensor<3x4xf32>, tensor<8x4xf32>, tensor<4x8xf32>, tensor<f32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @ffn_b2_size(%x: tensor<3x4xf32>, %w1: tensor<8x4xf32>, %w2: tensor<4x8xf32>, %b2: tensor<8xf32>) {
  // expected-error @+1 {{expected dimension 0 of b2 to be 4 (w2's out_features), found 'tensor<8xf32>'}}
  %0 = tfm.ffn %x dense1(%w1) dense2(%w2, %b2) : (tensor<3x4xf32>, tensor<8x4xf32>, tensor<4x8xf32>, tensor<8xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @ffn_dropout(%x: tensor<3x4xf32>, %w1: tensor<8x4xf32>, %w2: tensor<4x8xf32>) {
  // expected-error @+1 {{'tfm.ffn' op expected dropout in [0, 1), found -1.000000e-01}}
  %0 = tfm.ffn %x dense1(%w1) dense2(%w2) {dropout = -0.1 : f64} : (tensor<3x4xf32>, tensor<8x4xf32>, tensor<4x8xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @ffn_result(%x: tensor<3x4xf32>, %w1: tensor<8x4xf32>, %w2: tensor<6x8xf32>) {
  // expected-error @+2 {{'tfm.ffn' op inferred type(s) 'tensor<3x6xf32>' are incompatible with return type(s) of operation 'tensor<3x4xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tfm.ffn %x dense1(%w1) dense2(%w2) : (tensor<3x4xf32>, tensor<8x4xf32>, tensor<6x8xf32>) -> tensor<3x4xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// rms_norm
//===----------------------------------------------------------------------===//

func.func @rms_norm_input_rank(%x: tensor<f32>, %g: tensor<4xf32>) {
  // expected-error @+1 {{'tfm.rms_norm' op expected input of rank at least 1 [..., features], found 'tensor<f32>'}}
  %0 = tfm.rms_norm %x, %g : (tensor<f32>, tensor<4xf32>) -> tensor<f32>
  return
}

// -----

func.func @rms_norm_element_type(%x: tensor<3x4xf16>, %g: tensor<4xf32>) {
  // expected-error @+1 {{expected gamma to have element type 'f16' like input, found 'tensor<4xf32>'}}
  %0 = tfm.rms_norm %x, %g : (tensor<3x4xf16>, tensor<4xf32>) -> tensor<3x4xf16>
  return
}

// -----

func.func @rms_norm_gamma_size(%x: tensor<3x4xf32>, %g: tensor<3xf32>) {
  // expected-error @+1 {{expected dimension 0 of gamma to be 4 (the input's last dimension), found 'tensor<3xf32>'}}
  %0 = tfm.rms_norm %x, %g : (tensor<3x4xf32>, tensor<3xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @rms_norm_gamma_rank(%x: tensor<3x4xf32>, %g: tensor<1x4xf32>) {
  // expected-error @+1 {{expected gamma of rank 1 [features], found 'tensor<1x4xf32>'}}
  %0 = tfm.rms_norm %x, %g : (tensor<3x4xf32>, tensor<1x4xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @rms_norm_epsilon_infinite(%x: tensor<3x4xf32>, %g: tensor<4xf32>) {
  // expected-error @+1 {{'tfm.rms_norm' op expected a non-negative finite epsilon, found INF}}
  %0 = tfm.rms_norm %x, %g {epsilon = 0x7FF0000000000000 : f64} : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @rms_norm_result_type(%x: tensor<3x4xf32>, %g: tensor<4xf32>) {
  // expected-error @+2 {{'tfm.rms_norm' op inferred type(s) 'tensor<3x4xf32>' are incompatible with return type(s) of operation 'tensor<4x3xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tfm.rms_norm %x, %g : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<4x3xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// layer_norm and add_norm
//===----------------------------------------------------------------------===//

func.func @layer_norm_input_rank(%x: tensor<f32>, %g: tensor<4xf32>) {
  // expected-error @+1 {{'tfm.layer_norm' op expected input of rank at least 1 [..., features], found 'tensor<f32>'}}
  %0 = tfm.layer_norm %x, %g, %g : (tensor<f32>, tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  return
}

// -----

func.func @layer_norm_element_type(%x: tensor<3x4xf16>, %g: tensor<4xf16>, %b: tensor<4xf32>) {
  // expected-error @+1 {{expected beta to have element type 'f16' like input, found 'tensor<4xf32>'}}
  %0 = tfm.layer_norm %x, %g, %b : (tensor<3x4xf16>, tensor<4xf16>, tensor<4xf32>) -> tensor<3x4xf16>
  return
}

// -----

func.func @layer_norm_gamma_rank(%x: tensor<3x4xf32>, %g: tensor<3x4xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{expected gamma of rank 1 [features], found 'tensor<3x4xf32>'}}
  %0 = tfm.layer_norm %x, %g, %b : (tensor<3x4xf32>, tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @layer_norm_beta_rank(%x: tensor<3x4xf32>, %g: tensor<4xf32>, %b: tensor<f32>) {
  // expected-error @+1 {{expected beta of rank 1 [features], found 'tensor<f32>'}}
  %0 = tfm.layer_norm %x, %g, %b : (tensor<3x4xf32>, tensor<4xf32>, tensor<f32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @layer_norm_gamma_size(%x: tensor<3x4xf32>, %g: tensor<3xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{expected dimension 0 of gamma to be 4 (the input's last dimension), found 'tensor<3xf32>'}}
  %0 = tfm.layer_norm %x, %g, %b : (tensor<3x4xf32>, tensor<3xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @layer_norm_beta_size(%x: tensor<3x4xf32>, %g: tensor<4xf32>, %b: tensor<5xf32>) {
  // expected-error @+1 {{expected dimension 0 of beta to be 4 (the input's last dimension), found 'tensor<5xf32>'}}
  %0 = tfm.layer_norm %x, %g, %b : (tensor<3x4xf32>, tensor<4xf32>, tensor<5xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @layer_norm_epsilon_negative(%x: tensor<3x4xf32>, %g: tensor<4xf32>) {
  // expected-error @+1 {{'tfm.layer_norm' op expected a non-negative finite epsilon, found -1.000000e-05}}
  %0 = tfm.layer_norm %x, %g, %g {epsilon = -1.0e-5 : f64} : (tensor<3x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @layer_norm_epsilon_nan(%x: tensor<3x4xf32>, %g: tensor<4xf32>) {
  // expected-error @+1 {{expected a non-negative finite epsilon, found nan}}
  %0 = tfm.layer_norm %x, %g, %g {epsilon = 0x7FF8000000000000 : f64} : (tensor<3x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @layer_norm_epsilon_inf(%x: tensor<3x4xf32>, %g: tensor<4xf32>) {
  // expected-error @+1 {{expected a non-negative finite epsilon, found INF}}
  %0 = tfm.layer_norm %x, %g, %g {epsilon = 0x7FF0000000000000 : f64} : (tensor<3x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @layer_norm_result(%x: tensor<3x4xf32>, %g: tensor<4xf32>) {
  // expected-error @+2 {{'tfm.layer_norm' op inferred type(s) 'tensor<3x4xf32>' are incompatible with return type(s) of operation 'tensor<3x4xf16>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tfm.layer_norm %x, %g, %g : (tensor<3x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<3x4xf16>
  return
}

// -----

func.func @add_norm_residual_rank(%x: tensor<f32>, %g: tensor<4xf32>) {
  // expected-error @+1 {{'tfm.add_norm' op expected residual of rank at least 1 [..., features], found 'tensor<f32>'}}
  %0 = tfm.add_norm %x, %x, %g, %g : (tensor<f32>, tensor<f32>, tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  return
}

// -----

func.func @add_norm_sublayer_rank(%x: tensor<2x3x4xf32>, %y: tensor<3x4xf32>, %g: tensor<4xf32>) {
  // expected-error @+1 {{expected sublayer of rank 3 (the rank of residual), found 'tensor<3x4xf32>'}}
  %0 = tfm.add_norm %x, %y, %g, %g : (tensor<2x3x4xf32>, tensor<3x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  return
}

// -----

func.func @add_norm_element_type(%x: tensor<2x3x4xf32>, %y: tensor<2x3x4xbf16>, %g: tensor<4xf32>) {
  // expected-error @+1 {{expected sublayer to have element type 'f32' like residual, found 'tensor<2x3x4xbf16>'}}
  %0 = tfm.add_norm %x, %y, %g, %g : (tensor<2x3x4xf32>, tensor<2x3x4xbf16>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  return
}

// -----

func.func @add_norm_sublayer_batch(%x: tensor<2x3x4xf32>, %y: tensor<2x5x4xf32>, %g: tensor<4xf32>) {
  // expected-error @+1 {{expected dimension 1 of sublayer to be 3 (the shape of residual), found 'tensor<2x5x4xf32>'}}
  %0 = tfm.add_norm %x, %y, %g, %g : (tensor<2x3x4xf32>, tensor<2x5x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  return
}

// -----

// The features must match too; they are not a batch dimension.
func.func @add_norm_sublayer_features(%x: tensor<2x3x4xf32>, %y: tensor<2x3x5xf32>, %g: tensor<4xf32>) {
  // expected-error @+1 {{expected dimension 2 of sublayer to be 4 (the shape of residual), found 'tensor<2x3x5xf32>'}}
  %0 = tfm.add_norm %x, %y, %g, %g : (tensor<2x3x4xf32>, tensor<2x3x5xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  return
}

// -----

func.func @add_norm_gamma_size(%x: tensor<2x3x4xf32>, %g: tensor<3xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{expected dimension 0 of gamma to be 4 (the input's last dimension), found 'tensor<3xf32>'}}
  %0 = tfm.add_norm %x, %x, %g, %b : (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<3xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  return
}

// -----

func.func @add_norm_beta_rank(%x: tensor<2x3x4xf32>, %g: tensor<4xf32>, %b: tensor<1x4xf32>) {
  // expected-error @+1 {{expected beta of rank 1 [features], found 'tensor<1x4xf32>'}}
  %0 = tfm.add_norm %x, %x, %g, %b : (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<4xf32>, tensor<1x4xf32>) -> tensor<2x3x4xf32>
  return
}

// -----

func.func @add_norm_epsilon(%x: tensor<2x3x4xf32>, %g: tensor<4xf32>) {
  // expected-error @+1 {{'tfm.add_norm' op expected a non-negative finite epsilon, found -1.000000e+00}}
  %0 = tfm.add_norm %x, %x, %g, %g {epsilon = -1.0 : f64} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  return
}

// -----

func.func @add_norm_dropout(%x: tensor<2x3x4xf32>, %g: tensor<4xf32>) {
  // expected-error @+1 {{'tfm.add_norm' op expected dropout in [0, 1), found 2.000000e+00}}
  %0 = tfm.add_norm %x, %x, %g, %g {dropout = 2.0 : f64} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  return
}

// -----

func.func @add_norm_result(%x: tensor<2x3x4xf32>, %g: tensor<4xf32>) {
  // expected-error @+2 {{'tfm.add_norm' op inferred type(s) 'tensor<2x3x4xf32>' are incompatible with return type(s) of operation 'tensor<6x4xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tfm.add_norm %x, %x, %g, %g : (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<6x4xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// gelu and dropout
//===----------------------------------------------------------------------===//

func.func @gelu_result_type(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'tfm.gelu' op requires the same type for all operands and results}}
  %0 = "tfm.gelu"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf16>
  return
}

// -----

func.func @gelu_integer(%x: tensor<2x3xi32>) {
  // expected-error @+1 {{'tfm.gelu' op operand #0 must be ranked tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<2x3xi32>'}}
  %0 = tfm.gelu %x : tensor<2x3xi32>
  return
}

// -----

func.func @gelu_unknown_approximation(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{expected ::mlir::tfm::GeluApproximation to be one of: none, tanh}}
  // expected-error @+1 {{failed to parse Tfm_GeluApproximationAttr parameter 'value'}}
  %0 = tfm.gelu %x {approximate = #tfm.gelu_approximation<sigmoid>} : tensor<2x3xf32>
  return
}

// -----

func.func @dropout_rate_one(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'tfm.dropout' op expected rate in [0, 1), found 1.000000e+00}}
  %0 = tfm.dropout %x {rate = 1.0 : f64} : tensor<2x3xf32>
  return
}

// -----

func.func @dropout_rate_negative(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{expected rate in [0, 1), found -2.500000e-01}}
  %0 = tfm.dropout %x {rate = -0.25 : f64} : tensor<2x3xf32>
  return
}

// -----

func.func @dropout_rate_nan(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{expected rate in [0, 1), found nan}}
  %0 = tfm.dropout %x {rate = 0x7FF8000000000000 : f64} : tensor<2x3xf32>
  return
}

// -----

func.func @dropout_missing_rate(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'tfm.dropout' op requires attribute 'rate'}}
  %0 = tfm.dropout %x : tensor<2x3xf32>
  return
}

// -----

func.func @dropout_result_element_type(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'tfm.dropout' op requires the same type for all operands and results}}
  %0 = "tfm.dropout"(%x) <{rate = 0.5 : f64}> : (tensor<2x3xf32>) -> tensor<2x3xbf16>
  return
}

// -----

// SameOperandsAndResultType accepts compatible shapes; the inferred type,
// the input's, is what rejects a result less static than the input.
func.func @dropout_result_shape(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'tfm.dropout' op inferred type(s) 'tensor<2x3xf32>' are incompatible with return type(s) of operation 'tensor<?x3xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = "tfm.dropout"(%x) <{rate = 0.5 : f64}> : (tensor<2x3xf32>) -> tensor<?x3xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// embedding
//===----------------------------------------------------------------------===//

func.func @embedding_table_rank(%ids: tensor<2x7xi64>, %table: tensor<200xf32>) {
  // expected-error @+1 {{'tfm.embedding' op expected table of rank 2 [vocab_size, embedding_dim], found 'tensor<200xf32>'}}
  %0 = tfm.embedding %ids, %table : (tensor<2x7xi64>, tensor<200xf32>) -> tensor<2x7x200xf32>
  return
}

// -----

func.func @embedding_float_indices(%ids: tensor<2x7xf32>, %table: tensor<200x24xf32>) {
  // expected-error @+1 {{'tfm.embedding' op operand #0 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<2x7xf32>'}}
  %0 = tfm.embedding %ids, %table : (tensor<2x7xf32>, tensor<200x24xf32>) -> tensor<2x7x24xf32>
  return
}

// -----

func.func @embedding_integer_table(%ids: tensor<2x7xi32>, %table: tensor<200x24xi32>) {
  // expected-error @+1 {{operand #1 must be ranked tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<200x24xi32>'}}
  %0 = tfm.embedding %ids, %table : (tensor<2x7xi32>, tensor<200x24xi32>) -> tensor<2x7x24xi32>
  return
}

// -----

func.func @embedding_result(%ids: tensor<2x7xi32>, %table: tensor<200x24xf32>) {
  // expected-error @+2 {{'tfm.embedding' op inferred type(s) 'tensor<2x7x24xf32>' are incompatible with return type(s) of operation 'tensor<2x7x200xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tfm.embedding %ids, %table : (tensor<2x7xi32>, tensor<200x24xf32>) -> tensor<2x7x200xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// rotary_embedding
//===----------------------------------------------------------------------===//

func.func @rotary_embedding_rank(%x: tensor<8xf32>, %t: tensor<4x4xf32>) {
  // expected-error @+1 {{'tfm.rotary_embedding' op expected input of rank at least 2 [..., positions, features], found 'tensor<8xf32>'}}
  %0 = tfm.rotary_embedding %x, %t, %t : (tensor<8xf32>, tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<8xf32>
  return
}

// -----

func.func @rotary_embedding_odd_features(%x: tensor<2x3x7xf32>, %t: tensor<4x3xf32>) {
  // expected-error @+1 {{expected a static, even number of features (the last dimension of input), found 'tensor<2x3x7xf32>'}}
  %0 = tfm.rotary_embedding %x, %t, %t : (tensor<2x3x7xf32>, tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<2x3x7xf32>
  return
}

// -----

func.func @rotary_embedding_dynamic_features(%x: tensor<2x3x?xf32>, %t: tensor<4x3xf32>) {
  // expected-error @+1 {{expected a static, even number of features (the last dimension of input), found 'tensor<2x3x?xf32>'}}
  %0 = tfm.rotary_embedding %x, %t, %t : (tensor<2x3x?xf32>, tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<2x3x?xf32>
  return
}

// -----

func.func @rotary_embedding_table_width(%x: tensor<2x3x8xf32>, %c: tensor<4x8xf32>, %s: tensor<4x4xf32>) {
  // expected-error @+1 {{expected dimension 1 of cos to be 4 (half the input's features), found 'tensor<4x8xf32>'}}
  %0 = tfm.rotary_embedding %x, %c, %s : (tensor<2x3x8xf32>, tensor<4x8xf32>, tensor<4x4xf32>) -> tensor<2x3x8xf32>
  return
}

// -----

func.func @rotary_embedding_table_rows(%x: tensor<2x3x8xf32>, %c: tensor<4x4xf32>, %s: tensor<5x4xf32>) {
  // expected-error @+1 {{expected dimension 0 of sin to be 4 (the rows of cos), found 'tensor<5x4xf32>'}}
  %0 = tfm.rotary_embedding %x, %c, %s : (tensor<2x3x8xf32>, tensor<4x4xf32>, tensor<5x4xf32>) -> tensor<2x3x8xf32>
  return
}

// -----

func.func @rotary_embedding_too_few_positions(%x: tensor<2x5x8xf32>, %t: tensor<4x4xf32>) {
  // expected-error @+1 {{'tfm.rotary_embedding' op expected at most 4 positions (the rows of the tables), found 'tensor<2x5x8xf32>'}}
  %0 = tfm.rotary_embedding %x, %t, %t : (tensor<2x5x8xf32>, tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<2x5x8xf32>
  return
}

// -----

func.func @rotary_embedding_element_type(%x: tensor<2x3x8xf16>, %t: tensor<4x4xf32>) {
  // expected-error @+1 {{expected cos to have element type 'f16' like input, found 'tensor<4x4xf32>'}}
  %0 = tfm.rotary_embedding %x, %t, %t : (tensor<2x3x8xf16>, tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<2x3x8xf16>
  return
}

// -----

//===----------------------------------------------------------------------===//
// positional_encoding
//===----------------------------------------------------------------------===//

func.func @positional_encoding_rank(%x: tensor<32xf32>) {
  // expected-error @+1 {{'tfm.positional_encoding' op expected input of rank at least 2 [..., seq, features], found 'tensor<32xf32>'}}
  %0 = tfm.positional_encoding %x : tensor<32xf32>
  return
}

// -----

func.func @positional_encoding_odd_features(%x: tensor<1x60x33xf32>) {
  // expected-error @+1 {{'tfm.positional_encoding' op expected an even number of features for the sine/cosine pairs, found 'tensor<1x60x33xf32>'}}
  %0 = tfm.positional_encoding %x : tensor<1x60x33xf32>
  return
}

// -----

func.func @positional_encoding_result_type(%x: tensor<1x60x32xf32>) {
  // expected-error @+1 {{'tfm.positional_encoding' op requires the same type for all operands and results}}
  %0 = "tfm.positional_encoding"(%x) : (tensor<1x60x32xf32>) -> tensor<1x61x32xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// patch_embed
//===----------------------------------------------------------------------===//

func.func @patch_embed_image_rank(%img: tensor<3x32x32xf32>, %w: tensor<24x3x16x16xf32>) {
  // expected-error @+1 {{'tfm.patch_embed' op expected image of rank 4 [batch, channels, height, width], found 'tensor<3x32x32xf32>'}}
  %0 = tfm.patch_embed %img, %w : (tensor<3x32x32xf32>, tensor<24x3x16x16xf32>) -> tensor<3x4x24xf32>
  return
}

// -----

func.func @patch_embed_weight_rank(%img: tensor<1x3x32x32xf32>, %w: tensor<24x768xf32>) {
  // expected-error @+1 {{expected weight of rank 4 [embed_dim, channels, patch_h, patch_w], found 'tensor<24x768xf32>'}}
  %0 = tfm.patch_embed %img, %w : (tensor<1x3x32x32xf32>, tensor<24x768xf32>) -> tensor<1x4x24xf32>
  return
}

// -----

func.func @patch_embed_element_type(%img: tensor<1x3x32x32xf32>, %w: tensor<24x3x16x16xf32>, %b: tensor<24xf16>) {
  // expected-error @+1 {{expected bias to have element type 'f32' like image, found 'tensor<24xf16>'}}
  %0 = tfm.patch_embed %img, %w, %b : (tensor<1x3x32x32xf32>, tensor<24x3x16x16xf32>, tensor<24xf16>) -> tensor<1x4x24xf32>
  return
}

// -----

func.func @patch_embed_channels(%img: tensor<1x3x32x32xf32>, %w: tensor<24x1x16x16xf32>) {
  // expected-error @+1 {{expected dimension 1 of weight to be 3 (the image's channels), found 'tensor<24x1x16x16xf32>'}}
  %0 = tfm.patch_embed %img, %w : (tensor<1x3x32x32xf32>, tensor<24x1x16x16xf32>) -> tensor<1x4x24xf32>
  return
}

// -----

func.func @patch_embed_dynamic_patch(%img: tensor<1x3x32x32xf32>, %w: tensor<24x3x16x?xf32>) {
  // expected-error @+1 {{'tfm.patch_embed' op expected a static patch size in weight, found 'tensor<24x3x16x?xf32>'}}
  %0 = tfm.patch_embed %img, %w : (tensor<1x3x32x32xf32>, tensor<24x3x16x?xf32>) -> tensor<1x?x24xf32>
  return
}

// -----

// A zero-sized patch is rejected rather than divided by.
func.func @patch_embed_zero_patch(%img: tensor<1x3x32x32xf32>, %w: tensor<24x3x0x16xf32>) {
  // expected-error @+1 {{'tfm.patch_embed' op expected a positive patch height in weight, found 'tensor<24x3x0x16xf32>'}}
  %0 = tfm.patch_embed %img, %w : (tensor<1x3x32x32xf32>, tensor<24x3x0x16xf32>) -> tensor<1x?x24xf32>
  return
}

// -----

func.func @patch_embed_zero_patch_width(%img: tensor<1x3x32x32xf32>, %w: tensor<24x3x16x0xf32>) {
  // expected-error @+1 {{expected a positive patch width in weight, found 'tensor<24x3x16x0xf32>'}}
  %0 = tfm.patch_embed %img, %w : (tensor<1x3x32x32xf32>, tensor<24x3x16x0xf32>) -> tensor<1x?x24xf32>
  return
}

// -----

func.func @patch_embed_height(%img: tensor<1x3x30x32xf32>, %w: tensor<24x3x16x16xf32>) {
  // expected-error @+1 {{'tfm.patch_embed' op expected the image's height (30) to be a multiple of the patch height (16), found 'tensor<1x3x30x32xf32>'}}
  %0 = tfm.patch_embed %img, %w : (tensor<1x3x30x32xf32>, tensor<24x3x16x16xf32>) -> tensor<1x2x24xf32>
  return
}

// -----

func.func @patch_embed_width(%img: tensor<1x3x32x20xf32>, %w: tensor<24x3x16x16xf32>) {
  // expected-error @+1 {{expected the image's width (20) to be a multiple of the patch width (16), found 'tensor<1x3x32x20xf32>'}}
  %0 = tfm.patch_embed %img, %w : (tensor<1x3x32x20xf32>, tensor<24x3x16x16xf32>) -> tensor<1x2x24xf32>
  return
}

// -----

func.func @patch_embed_bias_rank(%img: tensor<1x3x32x32xf32>, %w: tensor<24x3x16x16xf32>, %b: tensor<1x24xf32>) {
  // expected-error @+1 {{expected bias of rank 1 [embed_dim], found 'tensor<1x24xf32>'}}
  %0 = tfm.patch_embed %img, %w, %b : (tensor<1x3x32x32xf32>, tensor<24x3x16x16xf32>, tensor<1x24xf32>) -> tensor<1x4x24xf32>
  return
}

// -----

func.func @patch_embed_bias_size(%img: tensor<1x3x32x32xf32>, %w: tensor<24x3x16x16xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{expected dimension 0 of bias to be 24 (weight's embed_dim), found 'tensor<3xf32>'}}
  %0 = tfm.patch_embed %img, %w, %b : (tensor<1x3x32x32xf32>, tensor<24x3x16x16xf32>, tensor<3xf32>) -> tensor<1x4x24xf32>
  return
}

// -----

func.func @patch_embed_result(%img: tensor<1x3x32x32xf32>, %w: tensor<24x3x16x16xf32>) {
  // expected-error @+2 {{'tfm.patch_embed' op inferred type(s) 'tensor<1x4x24xf32>' are incompatible with return type(s) of operation 'tensor<1x5x24xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tfm.patch_embed %img, %w : (tensor<1x3x32x32xf32>, tensor<24x3x16x16xf32>) -> tensor<1x5x24xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// prepend_class_token
//===----------------------------------------------------------------------===//

func.func @prepend_class_token_input_rank(%x: tensor<196x768xf32>, %cls: tensor<1x1x768xf32>) {
  // expected-error @+1 {{'tfm.prepend_class_token' op expected input of rank 3 [batch, seq, features], found 'tensor<196x768xf32>'}}
  %0 = tfm.prepend_class_token %x, %cls : (tensor<196x768xf32>, tensor<1x1x768xf32>) -> tensor<197x768xf32>
  return
}

// -----

func.func @prepend_class_token_token_rank(%x: tensor<1x196x768xf32>, %cls: tensor<768xf32>) {
  // expected-error @+1 {{expected class_token of rank 3 [1, 1, features], found 'tensor<768xf32>'}}
  %0 = tfm.prepend_class_token %x, %cls : (tensor<1x196x768xf32>, tensor<768xf32>) -> tensor<1x197x768xf32>
  return
}

// -----

func.func @prepend_class_token_element_type(%x: tensor<1x196x768xf32>, %cls: tensor<1x1x768xbf16>) {
  // expected-error @+1 {{expected class_token to have element type 'f32' like input, found 'tensor<1x1x768xbf16>'}}
  %0 = tfm.prepend_class_token %x, %cls : (tensor<1x196x768xf32>, tensor<1x1x768xbf16>) -> tensor<1x197x768xf32>
  return
}

// -----

// One token shared by the whole batch, not one per sample.
func.func @prepend_class_token_per_batch(%x: tensor<4x196x768xf32>, %cls: tensor<4x1x768xf32>) {
  // expected-error @+1 {{expected dimension 0 of class_token to be 1 (one token shared by the batch), found 'tensor<4x1x768xf32>'}}
  %0 = tfm.prepend_class_token %x, %cls : (tensor<4x196x768xf32>, tensor<4x1x768xf32>) -> tensor<4x197x768xf32>
  return
}

// -----

func.func @prepend_class_token_two_tokens(%x: tensor<1x196x768xf32>, %cls: tensor<1x2x768xf32>) {
  // expected-error @+1 {{expected dimension 1 of class_token to be 1 (a single token), found 'tensor<1x2x768xf32>'}}
  %0 = tfm.prepend_class_token %x, %cls : (tensor<1x196x768xf32>, tensor<1x2x768xf32>) -> tensor<1x197x768xf32>
  return
}

// -----

func.func @prepend_class_token_features(%x: tensor<1x196x768xf32>, %cls: tensor<1x1x384xf32>) {
  // expected-error @+1 {{expected dimension 2 of class_token to be 768 (the input's features), found 'tensor<1x1x384xf32>'}}
  %0 = tfm.prepend_class_token %x, %cls : (tensor<1x196x768xf32>, tensor<1x1x384xf32>) -> tensor<1x197x768xf32>
  return
}

// -----

func.func @prepend_class_token_result(%x: tensor<1x196x768xf32>, %cls: tensor<1x1x768xf32>) {
  // expected-error @+2 {{'tfm.prepend_class_token' op inferred type(s) 'tensor<1x197x768xf32>' are incompatible with return type(s) of operation 'tensor<1x196x768xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tfm.prepend_class_token %x, %cls : (tensor<1x196x768xf32>, tensor<1x1x768xf32>) -> tensor<1x196x768xf32>
  return
}

// -----

func.func @online_attention_rank(%q: tensor<7x8xf32>, %kt: tensor<8x6xf32>, %v: tensor<6x3xf32>, %acc: tensor<7x3xf32>, %max: tensor<7xf32>, %sum: tensor<7xf32>) {
  // expected-error @+1 {{'tfm.online_attention' op expected query of rank at least 3 [batch..., queries, head_dim], found 'tensor<7x8xf32>'}}
  %r:3 = tfm.online_attention %q, %kt, %v outs(%acc, %max, %sum : tensor<7x3xf32>, tensor<7xf32>, tensor<7xf32>) : tensor<7x8xf32>, tensor<8x6xf32>, tensor<6x3xf32> -> tensor<7x3xf32>, tensor<7xf32>, tensor<7xf32>
  return
}

// -----

func.func @online_attention_head_dim(%q: tensor<2x7x8xf32>, %kt: tensor<2x4x6xf32>, %v: tensor<2x6x3xf32>, %acc: tensor<2x7x3xf32>, %max: tensor<2x7xf32>, %sum: tensor<2x7xf32>) {
  // expected-error @+1 {{'tfm.online_attention' op expected dimension 1 of key_t to be 8 (query's head dimension), found 'tensor<2x4x6xf32>'}}
  %r:3 = tfm.online_attention %q, %kt, %v outs(%acc, %max, %sum : tensor<2x7x3xf32>, tensor<2x7xf32>, tensor<2x7xf32>) : tensor<2x7x8xf32>, tensor<2x4x6xf32>, tensor<2x6x3xf32> -> tensor<2x7x3xf32>, tensor<2x7xf32>, tensor<2x7xf32>
  return
}

// -----

func.func @online_attention_state(%q: tensor<2x7x8xf32>, %kt: tensor<2x8x6xf32>, %v: tensor<2x6x3xf32>, %acc: tensor<2x7x3xf32>, %max: tensor<2x5xf32>, %sum: tensor<2x7xf32>) {
  // expected-error @+1 {{'tfm.online_attention' op expected dimension 1 of max to be 7 (query's query count), found 'tensor<2x5xf32>'}}
  %r:3 = tfm.online_attention %q, %kt, %v outs(%acc, %max, %sum : tensor<2x7x3xf32>, tensor<2x5xf32>, tensor<2x7xf32>) : tensor<2x7x8xf32>, tensor<2x8x6xf32>, tensor<2x6x3xf32> -> tensor<2x7x3xf32>, tensor<2x5xf32>, tensor<2x7xf32>
  return
}

// -----

func.func @online_attention_mask_batch(%q: tensor<2x7x8xf32>, %kt: tensor<2x8x6xf32>, %v: tensor<2x6x3xf32>, %mask: tensor<3x7x6xf32>, %acc: tensor<2x7x3xf32>, %max: tensor<2x7xf32>, %sum: tensor<2x7xf32>) {
  // expected-error @+1 {{'tfm.online_attention' op expected dimension 0 of mask to be 2 (1 or the batch size), found 'tensor<3x7x6xf32>'}}
  %r:3 = tfm.online_attention %q, %kt, %v mask(%mask : tensor<3x7x6xf32>) outs(%acc, %max, %sum : tensor<2x7x3xf32>, tensor<2x7xf32>, tensor<2x7xf32>) : tensor<2x7x8xf32>, tensor<2x8x6xf32>, tensor<2x6x3xf32> -> tensor<2x7x3xf32>, tensor<2x7xf32>, tensor<2x7xf32>
  return
}

// -----

func.func @online_attention_result(%q: tensor<2x7x8xf32>, %kt: tensor<2x8x6xf32>, %v: tensor<2x6x3xf32>, %acc: tensor<2x7x3xf32>, %max: tensor<2x7xf32>, %sum: tensor<2x7xf32>) {
  // expected-error @+1 {{'tfm.online_attention' op expected type of operand #3 ('tensor<2x7x3xf32>') to match type of corresponding result ('tensor<2x7x4xf32>')}}
  %r:3 = tfm.online_attention %q, %kt, %v outs(%acc, %max, %sum : tensor<2x7x3xf32>, tensor<2x7xf32>, tensor<2x7xf32>) : tensor<2x7x8xf32>, tensor<2x8x6xf32>, tensor<2x6x3xf32> -> tensor<2x7x4xf32>, tensor<2x7xf32>, tensor<2x7xf32>
  return
}

// -----

// expected-error @+1 {{expected 3 tile sizes at level reduction, found 2}}
func.func @lowering_config_sizes() attributes {c = #tfm.lowering_config<parallel = [1, 32, 0], reduction = [0, 64]>} {
  return
}

// -----

// expected-error @+1 {{expected tile sizes >= 0 at level parallel}}
func.func @lowering_config_negative() attributes {c = #tfm.lowering_config<parallel = [1, -32, 0]>} {
  return
}

// -----

// expected-error @+1 {{expected the interchange of level parallel to be a permutation of the 3 loops}}
func.func @lowering_config_interchange() attributes {c = #tfm.lowering_config<parallel = [1, 32, 0] interchange [0, 0, 2]>} {
  return
}

// -----

// expected-error @+1 {{expected a prefetch_distance >= 0}}
func.func @lowering_config_prefetch() attributes {c = #tfm.lowering_config<parallel = [1, 32, 0], prefetch_distance = -8>} {
  return
}

// -----

// expected-error @+1 {{expected a tiling level (parallel, cache, vector or reduction), or prefetch_distance after the levels}}
func.func @lowering_config_prefetch_first() attributes {c = #tfm.lowering_config<parallel = [1, 32, 0], prefetch_distance = 8, vector = [1, 8, 0]>} {
  return
}

// -----

// The positional syntax of before the levels had names.
// expected-error @+1 {{expected a tiling level (parallel, cache, vector or reduction), or prefetch_distance after the levels}}
func.func @lowering_config_positional() attributes {c = #tfm.lowering_config<tile_sizes = [[1, 32, 0]]>} {
  return
}

// -----

// expected-error @+1 {{expected the levels in the order parallel, cache, vector, reduction, each at most once; found parallel after vector}}
func.func @lowering_config_level_order() attributes {c = #tfm.lowering_config<vector = [1, 8, 0], parallel = [1, 32, 0]>} {
  return
}

// -----

// expected-error @+1 {{expected the levels in the order parallel, cache, vector, reduction, each at most once; found reduction after reduction}}
func.func @lowering_config_level_twice() attributes {c = #tfm.lowering_config<reduction = [0, 0, 8], reduction = [0, 0, 1]>} {
  return
}

// -----

// expected-error @+1 {{expected at least one tiling level}}
func.func @lowering_config_empty() attributes {c = #tfm.lowering_config<>} {
  return
}

// -----

// A level's interchange follows its sizes, without a comma.
// expected-error @+1 {{expected a tiling level (parallel, cache, vector or reduction), or prefetch_distance after the levels}}
func.func @lowering_config_interchange_comma() attributes {c = #tfm.lowering_config<parallel = [1, 32, 0], interchange = [0, 1, 2]>} {
  return
}

// -----

//===----------------------------------------------------------------------===//
// zero-sized dimensions the lowerings cannot tile
//===----------------------------------------------------------------------===//

func.func @attention_zero_head_dim(%q: tensor<8x10x0xf32>, %k: tensor<8x12x0xf32>, %v: tensor<8x12x32xf32>) {
  // expected-error @+1 {{'tfm.attention' op expected the head dimension (dimension 2 of query) to be at least 1, found 'tensor<8x10x0xf32>'}}
  %0 = tfm.attention %q, %k, %v : (tensor<8x10x0xf32>, tensor<8x12x0xf32>, tensor<8x12x32xf32>) -> tensor<8x10x32xf32>
  return
}

// -----

func.func @multi_head_attention_zero_batch(%x: tensor<0x4x32xf32>, %w: tensor<32x32xf32>) {
  // expected-error @+1 {{'tfm.multi_head_attention' op expected the batch (dimension 0 of query) to be at least 1, found 'tensor<0x4x32xf32>'}}
  %0 = tfm.multi_head_attention %x, %x, %x weights(%w, %w, %w, %w) {num_heads = 4 : i64} : (tensor<0x4x32xf32>, tensor<0x4x32xf32>, tensor<0x4x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<0x4x32xf32>
  return
}

// -----

func.func @multi_head_attention_zero_keys(%x: tensor<2x4x32xf32>, %kv: tensor<2x0x32xf32>, %w: tensor<32x32xf32>) {
  // expected-error @+1 {{'tfm.multi_head_attention' op expected the sequence length (dimension 1 of key) to be at least 1, found 'tensor<2x0x32xf32>'}}
  %0 = tfm.multi_head_attention %x, %kv, %kv weights(%w, %w, %w, %w) {num_heads = 4 : i64} : (tensor<2x4x32xf32>, tensor<2x0x32xf32>, tensor<2x0x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<2x4x32xf32>
  return
}

// -----

func.func @prepend_class_token_zero_features(%x: tensor<1x196x0xf32>, %cls: tensor<1x1x0xf32>) {
  // expected-error @+1 {{'tfm.prepend_class_token' op expected the feature size (dimension 2 of input) to be at least 1, found 'tensor<1x196x0xf32>'}}
  %0 = tfm.prepend_class_token %x, %cls : (tensor<1x196x0xf32>, tensor<1x1x0xf32>) -> tensor<1x197x0xf32>
  return
}

// -----

func.func @online_attention_query_group(%q: tensor<2x8x16xf32>, %kt: tensor<2x16x9xf32>, %v: tensor<2x9x16xf32>, %acc: tensor<2x8x16xf32>, %max: tensor<2x8xf32>, %sum: tensor<2x8xf32>) {
  // expected-error @+1 {{'tfm.online_attention' op expected a positive query_group, found 0}}
  %r:3 = tfm.online_attention %q, %kt, %v {query_group = 0 : i64} outs(%acc, %max, %sum : tensor<2x8x16xf32>, tensor<2x8xf32>, tensor<2x8xf32>) : tensor<2x8x16xf32>, tensor<2x16x9xf32>, tensor<2x9x16xf32> -> tensor<2x8x16xf32>, tensor<2x8xf32>, tensor<2x8xf32>
  return
}
