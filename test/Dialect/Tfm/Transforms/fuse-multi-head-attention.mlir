// RUN: tfm-opt %s -split-input-file --tfm-fuse-multi-head-attention \
// RUN:   | FileCheck %s
// RUN: tfm-opt %s -split-input-file --tfm-decompose \
// RUN:     --tfm-fuse-multi-head-attention \
// RUN:   | FileCheck %s --check-prefix=ROUNDTRIP

// Tests of tfm-fuse-multi-head-attention: projections split into heads,
// tfm.attention, merge_heads and the output projection become one
// tfm.multi_head_attention, with valid_lens recovered from their per-head
// repetition. Blocks whose intermediates have other users, whose heads or
// sizes do not line up, or whose valid_lens are not a repetition are left
// alone. The ROUNDTRIP prefix checks that what tfm-decompose makes of a
// multi_head_attention (with the packed projection of a self-attention)
// fuses back into it.

// d2l's self-attention: no biases, valid_lens per batch repeated with
// linalg.broadcast and tensor.collapse_shape, the default scale.

// CHECK-LABEL: func.func @self_attention_valid_lens
// CHECK-SAME:    %[[X:[^:]*]]: tensor<2x10x32xf32>, %[[WQ:[^:]*]]: tensor<32x32xf32>, %[[WK:[^:]*]]: tensor<32x32xf32>, %[[WV:[^:]*]]: tensor<32x32xf32>, %[[WO:[^:]*]]: tensor<32x32xf32>, %[[LENS:[^:]*]]: tensor<2xi32>
// CHECK-NEXT:    %[[Y:.*]] = tfm.multi_head_attention %[[X]], %[[X]], %[[X]] weights(%[[WQ]], %[[WK]], %[[WV]], %[[WO]]) valid_lens(%[[LENS]]) {num_heads = 4 : i64} : (tensor<2x10x32xf32>, tensor<2x10x32xf32>, tensor<2x10x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<2xi32>) -> tensor<2x10x32xf32>
// CHECK-NEXT:    return %[[Y]]
func.func @self_attention_valid_lens(
    %x: tensor<2x10x32xf32>, %wq: tensor<32x32xf32>, %wk: tensor<32x32xf32>,
    %wv: tensor<32x32xf32>, %wo: tensor<32x32xf32>, %lens: tensor<2xi32>)
    -> tensor<2x10x32xf32> {
  %pq = tfm.linear %x, %wq : (tensor<2x10x32xf32>, tensor<32x32xf32>)
      -> tensor<2x10x32xf32>
  %q = tfm.split_heads %pq {num_heads = 4 : i64}
      : (tensor<2x10x32xf32>) -> tensor<8x10x8xf32>
  %pk = tfm.linear %x, %wk : (tensor<2x10x32xf32>, tensor<32x32xf32>)
      -> tensor<2x10x32xf32>
  %k = tfm.split_heads %pk {num_heads = 4 : i64}
      : (tensor<2x10x32xf32>) -> tensor<8x10x8xf32>
  %pv = tfm.linear %x, %wv : (tensor<2x10x32xf32>, tensor<32x32xf32>)
      -> tensor<2x10x32xf32>
  %v = tfm.split_heads %pv {num_heads = 4 : i64}
      : (tensor<2x10x32xf32>) -> tensor<8x10x8xf32>
  %init = tensor.empty() : tensor<2x4xi32>
  %wide = linalg.broadcast ins(%lens : tensor<2xi32>)
      outs(%init : tensor<2x4xi32>) dimensions = [1]
  %rep = tensor.collapse_shape %wide [[0, 1]]
      : tensor<2x4xi32> into tensor<8xi32>
  %a = tfm.attention %q, %k, %v valid_lens(%rep)
      : (tensor<8x10x8xf32>, tensor<8x10x8xf32>, tensor<8x10x8xf32>,
         tensor<8xi32>) -> tensor<8x10x8xf32>
  %m = tfm.merge_heads %a {num_heads = 4 : i64}
      : (tensor<8x10x8xf32>) -> tensor<2x10x32xf32>
  %y = tfm.linear %m, %wo : (tensor<2x10x32xf32>, tensor<32x32xf32>)
      -> tensor<2x10x32xf32>
  return %y : tensor<2x10x32xf32>
}

// -----

// Cross-attention with all four biases, a mask, causal, and a scale equal to
// the default 1/sqrt(12): the scale is dropped, the rest passes through.

// CHECK-LABEL: func.func @cross_attention_biases_mask_causal
// CHECK-SAME:    %[[Q:[^:]*]]: tensor<2x5x12xf32>, %[[K:[^:]*]]: tensor<2x7x16xf32>, %[[V:[^:]*]]: tensor<2x7x20xf32>, %[[WQ:[^:]*]]: tensor<24x12xf32>, %[[WK:[^:]*]]: tensor<24x16xf32>, %[[WV:[^:]*]]: tensor<24x20xf32>, %[[WO:[^:]*]]: tensor<6x24xf32>, %[[BQ:[^:]*]]: tensor<24xf32>, %[[BK:[^:]*]]: tensor<24xf32>, %[[BV:[^:]*]]: tensor<24xf32>, %[[BO:[^:]*]]: tensor<6xf32>, %[[MASK:[^:]*]]: tensor<5x7xf32>
// CHECK-NEXT:    %[[Y:.*]] = tfm.multi_head_attention %[[Q]], %[[K]], %[[V]] weights(%[[WQ]], %[[WK]], %[[WV]], %[[WO]]) biases(%[[BQ]], %[[BK]], %[[BV]], %[[BO]]) mask(%[[MASK]]) {causal, num_heads = 2 : i64} : {{.*}} -> tensor<2x5x6xf32>
// CHECK-NEXT:    return %[[Y]]
func.func @cross_attention_biases_mask_causal(
    %q: tensor<2x5x12xf32>, %k: tensor<2x7x16xf32>, %v: tensor<2x7x20xf32>,
    %wq: tensor<24x12xf32>, %wk: tensor<24x16xf32>, %wv: tensor<24x20xf32>,
    %wo: tensor<6x24xf32>, %bq: tensor<24xf32>, %bk: tensor<24xf32>,
    %bv: tensor<24xf32>, %bo: tensor<6xf32>, %mask: tensor<5x7xf32>)
    -> tensor<2x5x6xf32> {
  %pq = tfm.linear %q, %wq, %bq
      : (tensor<2x5x12xf32>, tensor<24x12xf32>, tensor<24xf32>)
      -> tensor<2x5x24xf32>
  %sq = tfm.split_heads %pq {num_heads = 2 : i64}
      : (tensor<2x5x24xf32>) -> tensor<4x5x12xf32>
  %pk = tfm.linear %k, %wk, %bk
      : (tensor<2x7x16xf32>, tensor<24x16xf32>, tensor<24xf32>)
      -> tensor<2x7x24xf32>
  %sk = tfm.split_heads %pk {num_heads = 2 : i64}
      : (tensor<2x7x24xf32>) -> tensor<4x7x12xf32>
  %pv = tfm.linear %v, %wv, %bv
      : (tensor<2x7x20xf32>, tensor<24x20xf32>, tensor<24xf32>)
      -> tensor<2x7x24xf32>
  %sv = tfm.split_heads %pv {num_heads = 2 : i64}
      : (tensor<2x7x24xf32>) -> tensor<4x7x12xf32>
  %a = tfm.attention %sq, %sk, %sv mask(%mask)
      {causal, scale = 0.28867513459481287 : f64}
      : (tensor<4x5x12xf32>, tensor<4x7x12xf32>, tensor<4x7x12xf32>,
         tensor<5x7xf32>) -> tensor<4x5x12xf32>
  %m = tfm.merge_heads %a {num_heads = 2 : i64}
      : (tensor<4x5x12xf32>) -> tensor<2x5x24xf32>
  %y = tfm.linear %m, %wo, %bo
      : (tensor<2x5x24xf32>, tensor<6x24xf32>, tensor<6xf32>)
      -> tensor<2x5x6xf32>
  return %y : tensor<2x5x6xf32>
}

// -----

// Only the query and output projections have biases: the key and value
// projections get zeros. Another scale (0.5) is kept, and valid_lens per
// query ([2, 10], i64) are recovered.

// CHECK-LABEL: func.func @some_biases_scale_lens_per_query
// CHECK-SAME:    %[[X:[^:]*]]: tensor<2x10x32xf32>, %[[W:[^:]*]]: tensor<32x32xf32>, %[[BQ:[^:]*]]: tensor<32xf32>, %[[BO:[^:]*]]: tensor<32xf32>, %[[LENS:[^:]*]]: tensor<2x10xi64>
// CHECK:         %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<32xf32>
// CHECK:         %[[Y:.*]] = tfm.multi_head_attention %[[X]], %[[X]], %[[X]] weights(%[[W]], %[[W]], %[[W]], %[[W]]) biases(%[[BQ]], %[[ZERO]], %[[ZERO]], %[[BO]]) valid_lens(%[[LENS]]) {num_heads = 4 : i64, scale = 5.000000e-01 : f64}
// CHECK-NEXT:    return %[[Y]]
func.func @some_biases_scale_lens_per_query(
    %x: tensor<2x10x32xf32>, %w: tensor<32x32xf32>, %bq: tensor<32xf32>,
    %bo: tensor<32xf32>, %lens: tensor<2x10xi64>) -> tensor<2x10x32xf32> {
  %pq = tfm.linear %x, %w, %bq
      : (tensor<2x10x32xf32>, tensor<32x32xf32>, tensor<32xf32>)
      -> tensor<2x10x32xf32>
  %q = tfm.split_heads %pq {num_heads = 4 : i64}
      : (tensor<2x10x32xf32>) -> tensor<8x10x8xf32>
  %pk = tfm.linear %x, %w : (tensor<2x10x32xf32>, tensor<32x32xf32>)
      -> tensor<2x10x32xf32>
  %k = tfm.split_heads %pk {num_heads = 4 : i64}
      : (tensor<2x10x32xf32>) -> tensor<8x10x8xf32>
  %init = tensor.empty() : tensor<2x4x10xi64>
  %wide = linalg.broadcast ins(%lens : tensor<2x10xi64>)
      outs(%init : tensor<2x4x10xi64>) dimensions = [1]
  %rep = tensor.collapse_shape %wide [[0, 1], [2]]
      : tensor<2x4x10xi64> into tensor<8x10xi64>
  %a = tfm.attention %q, %k, %k valid_lens(%rep) {scale = 0.5 : f64}
      : (tensor<8x10x8xf32>, tensor<8x10x8xf32>, tensor<8x10x8xf32>,
         tensor<8x10xi64>) -> tensor<8x10x8xf32>
  %m = tfm.merge_heads %a {num_heads = 4 : i64}
      : (tensor<8x10x8xf32>) -> tensor<2x10x32xf32>
  %y = tfm.linear %m, %w, %bo
      : (tensor<2x10x32xf32>, tensor<32x32xf32>, tensor<32xf32>)
      -> tensor<2x10x32xf32>
  return %y : tensor<2x10x32xf32>
}

// -----

// The packed projection of a self-attention, as tfm-decompose writes it:
// one linear on concat(W_q, W_k, W_v) and concat(b_q, b_k, b_v), sliced in
// three along the last dimension, here with a dynamic batch.

// CHECK-LABEL: func.func @packed_projection
// CHECK-SAME:    %[[X:[^:]*]]: tensor<?x10x32xf32>, %[[WQ:[^:]*]]: tensor<32x32xf32>, %[[WK:[^:]*]]: tensor<32x32xf32>, %[[WV:[^:]*]]: tensor<32x32xf32>, %[[WO:[^:]*]]: tensor<32x32xf32>, %[[BQ:[^:]*]]: tensor<32xf32>, %[[BK:[^:]*]]: tensor<32xf32>, %[[BV:[^:]*]]: tensor<32xf32>, %[[BO:[^:]*]]: tensor<32xf32>
// CHECK-NOT:     tensor.concat
// CHECK:         %[[Y:.*]] = tfm.multi_head_attention %[[X]], %[[X]], %[[X]] weights(%[[WQ]], %[[WK]], %[[WV]], %[[WO]]) biases(%[[BQ]], %[[BK]], %[[BV]], %[[BO]]) {num_heads = 4 : i64} : {{.*}} -> tensor<?x10x32xf32>
// CHECK-NEXT:    return %[[Y]]
func.func @packed_projection(
    %x: tensor<?x10x32xf32>, %wq: tensor<32x32xf32>, %wk: tensor<32x32xf32>,
    %wv: tensor<32x32xf32>, %wo: tensor<32x32xf32>, %bq: tensor<32xf32>,
    %bk: tensor<32xf32>, %bv: tensor<32xf32>, %bo: tensor<32xf32>)
    -> tensor<?x10x32xf32> {
  %c0 = arith.constant 0 : index
  %w = tensor.concat dim(0) %wq, %wk, %wv
      : (tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>)
      -> tensor<96x32xf32>
  %b = tensor.concat dim(0) %bq, %bk, %bv
      : (tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<96xf32>
  %p = tfm.linear %x, %w, %b
      : (tensor<?x10x32xf32>, tensor<96x32xf32>, tensor<96xf32>)
      -> tensor<?x10x96xf32>
  %n = tensor.dim %p, %c0 : tensor<?x10x96xf32>
  %pq = tensor.extract_slice %p[0, 0, 0] [%n, 10, 32] [1, 1, 1]
      : tensor<?x10x96xf32> to tensor<?x10x32xf32>
  %pk = tensor.extract_slice %p[0, 0, 32] [%n, 10, 32] [1, 1, 1]
      : tensor<?x10x96xf32> to tensor<?x10x32xf32>
  %pv = tensor.extract_slice %p[0, 0, 64] [%n, 10, 32] [1, 1, 1]
      : tensor<?x10x96xf32> to tensor<?x10x32xf32>
  %q = tfm.split_heads %pq {num_heads = 4 : i64}
      : (tensor<?x10x32xf32>) -> tensor<?x10x8xf32>
  %k = tfm.split_heads %pk {num_heads = 4 : i64}
      : (tensor<?x10x32xf32>) -> tensor<?x10x8xf32>
  %v = tfm.split_heads %pv {num_heads = 4 : i64}
      : (tensor<?x10x32xf32>) -> tensor<?x10x8xf32>
  %a = tfm.attention %q, %k, %v
      : (tensor<?x10x8xf32>, tensor<?x10x8xf32>, tensor<?x10x8xf32>)
      -> tensor<?x10x8xf32>
  %m = tfm.merge_heads %a {num_heads = 4 : i64}
      : (tensor<?x10x8xf32>) -> tensor<?x10x32xf32>
  %y = tfm.linear %m, %wo, %bo
      : (tensor<?x10x32xf32>, tensor<32x32xf32>, tensor<32xf32>)
      -> tensor<?x10x32xf32>
  return %y : tensor<?x10x32xf32>
}

// -----

// tfm-decompose then tfm-fuse-multi-head-attention gives the
// multi_head_attention back, for a self-attention (packed projection) and a
// cross-attention.

// ROUNDTRIP-LABEL: func.func @roundtrip
// ROUNDTRIP-SAME:    %[[X:[^:]*]]: tensor<2x10x32xf32>, %[[M:[^:]*]]: tensor<2x6x32xf32>, %[[W:[^:]*]]: tensor<32x32xf32>, %[[B:[^:]*]]: tensor<32xf32>, %[[LENS:[^:]*]]: tensor<2xi32>
// ROUNDTRIP-NOT:     tensor.concat
// ROUNDTRIP:         %[[S:.*]] = tfm.multi_head_attention %[[X]], %[[X]], %[[X]] weights(%[[W]], %[[W]], %[[W]], %[[W]]) biases(%[[B]], %[[B]], %[[B]], %[[B]]) valid_lens(%[[LENS]]) {causal, num_heads = 4 : i64}
// ROUNDTRIP:         %[[C:.*]] = tfm.multi_head_attention %[[S]], %[[M]], %[[M]] weights(%[[W]], %[[W]], %[[W]], %[[W]]) valid_lens(%[[LENS]]) {num_heads = 2 : i64}
// ROUNDTRIP:         return %[[C]]
func.func @roundtrip(%x: tensor<2x10x32xf32>, %mem: tensor<2x6x32xf32>,
                     %w: tensor<32x32xf32>, %b: tensor<32xf32>,
                     %lens: tensor<2xi32>) -> tensor<2x10x32xf32> {
  %0 = tfm.multi_head_attention %x, %x, %x weights(%w, %w, %w, %w)
      biases(%b, %b, %b, %b) valid_lens(%lens) {num_heads = 4 : i64, causal}
      : (tensor<2x10x32xf32>, tensor<2x10x32xf32>, tensor<2x10x32xf32>,
         tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>,
         tensor<32x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>,
         tensor<32xf32>, tensor<2xi32>) -> tensor<2x10x32xf32>
  %1 = tfm.multi_head_attention %0, %mem, %mem weights(%w, %w, %w, %w)
      valid_lens(%lens) {num_heads = 2 : i64}
      : (tensor<2x10x32xf32>, tensor<2x6x32xf32>, tensor<2x6x32xf32>,
         tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>,
         tensor<32x32xf32>, tensor<2xi32>) -> tensor<2x10x32xf32>
  return %1 : tensor<2x10x32xf32>
}

//===----------------------------------------------------------------------===//
// Negative: not fused
//===----------------------------------------------------------------------===//

// -----

// The query projection is also returned.

// CHECK-LABEL: func.func @neg_projection_has_other_user
// CHECK-NOT:     tfm.multi_head_attention
// CHECK:         tfm.attention
// CHECK-NOT:     tfm.multi_head_attention
func.func @neg_projection_has_other_user(
    %x: tensor<2x10x32xf32>, %w: tensor<32x32xf32>)
    -> (tensor<2x10x32xf32>, tensor<2x10x32xf32>) {
  %pq = tfm.linear %x, %w : (tensor<2x10x32xf32>, tensor<32x32xf32>)
      -> tensor<2x10x32xf32>
  %q = tfm.split_heads %pq {num_heads = 4 : i64}
      : (tensor<2x10x32xf32>) -> tensor<8x10x8xf32>
  %pk = tfm.linear %x, %w {activation = #tfm.activation<none>}
      : (tensor<2x10x32xf32>, tensor<32x32xf32>) -> tensor<2x10x32xf32>
  %k = tfm.split_heads %pk {num_heads = 4 : i64}
      : (tensor<2x10x32xf32>) -> tensor<8x10x8xf32>
  %a = tfm.attention %q, %k, %k
      : (tensor<8x10x8xf32>, tensor<8x10x8xf32>, tensor<8x10x8xf32>)
      -> tensor<8x10x8xf32>
  %m = tfm.merge_heads %a {num_heads = 4 : i64}
      : (tensor<8x10x8xf32>) -> tensor<2x10x32xf32>
  %y = tfm.linear %m, %w : (tensor<2x10x32xf32>, tensor<32x32xf32>)
      -> tensor<2x10x32xf32>
  return %y, %pq : tensor<2x10x32xf32>, tensor<2x10x32xf32>
}

// -----

// valid_lens already per head ([batch * heads]), not a repetition.

// CHECK-LABEL: func.func @neg_valid_lens_per_head
// CHECK-NOT:     tfm.multi_head_attention
// CHECK:         tfm.attention
// CHECK-NOT:     tfm.multi_head_attention
func.func @neg_valid_lens_per_head(%x: tensor<2x10x32xf32>,
                                   %w: tensor<32x32xf32>,
                                   %lens: tensor<8xi32>)
    -> tensor<2x10x32xf32> {
  %p = tfm.linear %x, %w : (tensor<2x10x32xf32>, tensor<32x32xf32>)
      -> tensor<2x10x32xf32>
  %h = tfm.split_heads %p {num_heads = 4 : i64}
      : (tensor<2x10x32xf32>) -> tensor<8x10x8xf32>
  %a = tfm.attention %h, %h, %h valid_lens(%lens)
      : (tensor<8x10x8xf32>, tensor<8x10x8xf32>, tensor<8x10x8xf32>,
         tensor<8xi32>) -> tensor<8x10x8xf32>
  %m = tfm.merge_heads %a {num_heads = 4 : i64}
      : (tensor<8x10x8xf32>) -> tensor<2x10x32xf32>
  %y = tfm.linear %m, %w : (tensor<2x10x32xf32>, tensor<32x32xf32>)
      -> tensor<2x10x32xf32>
  return %y : tensor<2x10x32xf32>
}

// -----

// valid_lens repeated for 2 heads, but the attention has 4 heads.

// CHECK-LABEL: func.func @neg_valid_lens_other_repeat
// CHECK-NOT:     tfm.multi_head_attention
// CHECK:         tfm.attention
// CHECK-NOT:     tfm.multi_head_attention
func.func @neg_valid_lens_other_repeat(%x: tensor<4x10x32xf32>,
                                       %w: tensor<32x32xf32>,
                                       %lens: tensor<8xi32>)
    -> tensor<4x10x32xf32> {
  %p = tfm.linear %x, %w : (tensor<4x10x32xf32>, tensor<32x32xf32>)
      -> tensor<4x10x32xf32>
  %h = tfm.split_heads %p {num_heads = 4 : i64}
      : (tensor<4x10x32xf32>) -> tensor<16x10x8xf32>
  %init = tensor.empty() : tensor<8x2xi32>
  %wide = linalg.broadcast ins(%lens : tensor<8xi32>)
      outs(%init : tensor<8x2xi32>) dimensions = [1]
  %rep = tensor.collapse_shape %wide [[0, 1]]
      : tensor<8x2xi32> into tensor<16xi32>
  %a = tfm.attention %h, %h, %h valid_lens(%rep)
      : (tensor<16x10x8xf32>, tensor<16x10x8xf32>, tensor<16x10x8xf32>,
         tensor<16xi32>) -> tensor<16x10x8xf32>
  %m = tfm.merge_heads %a {num_heads = 4 : i64}
      : (tensor<16x10x8xf32>) -> tensor<4x10x32xf32>
  %y = tfm.linear %m, %w : (tensor<4x10x32xf32>, tensor<32x32xf32>)
      -> tensor<4x10x32xf32>
  return %y : tensor<4x10x32xf32>
}

// -----

// The heads are split in 4 and merged in 2 (the attention then runs on
// half-heads); the output projection has an activation; a projection has an
// activation.

// CHECK-LABEL: func.func @neg_heads_and_activations
// CHECK-NOT:     tfm.multi_head_attention
// CHECK:         return
func.func @neg_heads_and_activations(%x: tensor<2x10x32xf32>,
                                     %w: tensor<32x32xf32>,
                                     %w2: tensor<32x16xf32>)
    -> (tensor<4x10x32xf32>, tensor<2x10x32xf32>, tensor<2x10x32xf32>) {
  %p = tfm.linear %x, %w : (tensor<2x10x32xf32>, tensor<32x32xf32>)
      -> tensor<2x10x32xf32>
  %h = tfm.split_heads %p {num_heads = 4 : i64}
      : (tensor<2x10x32xf32>) -> tensor<8x10x8xf32>
  %a = tfm.attention %h, %h, %h
      : (tensor<8x10x8xf32>, tensor<8x10x8xf32>, tensor<8x10x8xf32>)
      -> tensor<8x10x8xf32>
  %m = tfm.merge_heads %a {num_heads = 2 : i64}
      : (tensor<8x10x8xf32>) -> tensor<4x10x16xf32>
  %y = tfm.linear %m, %w2 : (tensor<4x10x16xf32>, tensor<32x16xf32>)
      -> tensor<4x10x32xf32>

  %p2 = tfm.linear %x, %w : (tensor<2x10x32xf32>, tensor<32x32xf32>)
      -> tensor<2x10x32xf32>
  %h2 = tfm.split_heads %p2 {num_heads = 4 : i64}
      : (tensor<2x10x32xf32>) -> tensor<8x10x8xf32>
  %a2 = tfm.attention %h2, %h2, %h2
      : (tensor<8x10x8xf32>, tensor<8x10x8xf32>, tensor<8x10x8xf32>)
      -> tensor<8x10x8xf32>
  %m2 = tfm.merge_heads %a2 {num_heads = 4 : i64}
      : (tensor<8x10x8xf32>) -> tensor<2x10x32xf32>
  %y2 = tfm.linear %m2, %w {activation = #tfm.activation<relu>}
      : (tensor<2x10x32xf32>, tensor<32x32xf32>) -> tensor<2x10x32xf32>

  %p3 = tfm.linear %x, %w {activation = #tfm.activation<relu>}
      : (tensor<2x10x32xf32>, tensor<32x32xf32>) -> tensor<2x10x32xf32>
  %h3 = tfm.split_heads %p3 {num_heads = 4 : i64}
      : (tensor<2x10x32xf32>) -> tensor<8x10x8xf32>
  %a3 = tfm.attention %h3, %h3, %h3
      : (tensor<8x10x8xf32>, tensor<8x10x8xf32>, tensor<8x10x8xf32>)
      -> tensor<8x10x8xf32>
  %m3 = tfm.merge_heads %a3 {num_heads = 4 : i64}
      : (tensor<8x10x8xf32>) -> tensor<2x10x32xf32>
  %y3 = tfm.linear %m3, %w : (tensor<2x10x32xf32>, tensor<32x32xf32>)
      -> tensor<2x10x32xf32>
  return %y, %y2, %y3
      : tensor<4x10x32xf32>, tensor<2x10x32xf32>, tensor<2x10x32xf32>
}

// -----

// The value projection has another model dimension (16) than the query and
// key projections (32): multi_head_attention has one.

// CHECK-LABEL: func.func @neg_value_projection_size
// CHECK-NOT:     tfm.multi_head_attention
// CHECK:         tfm.attention
// CHECK-NOT:     tfm.multi_head_attention
func.func @neg_value_projection_size(%x: tensor<2x10x32xf32>,
                                     %w: tensor<32x32xf32>,
                                     %wv: tensor<16x32xf32>,
                                     %wo: tensor<32x16xf32>)
    -> tensor<2x10x32xf32> {
  %p = tfm.linear %x, %w : (tensor<2x10x32xf32>, tensor<32x32xf32>)
      -> tensor<2x10x32xf32>
  %h = tfm.split_heads %p {num_heads = 4 : i64}
      : (tensor<2x10x32xf32>) -> tensor<8x10x8xf32>
  %pv = tfm.linear %x, %wv : (tensor<2x10x32xf32>, tensor<16x32xf32>)
      -> tensor<2x10x16xf32>
  %v = tfm.split_heads %pv {num_heads = 4 : i64}
      : (tensor<2x10x16xf32>) -> tensor<8x10x4xf32>
  %a = tfm.attention %h, %h, %v
      : (tensor<8x10x8xf32>, tensor<8x10x8xf32>, tensor<8x10x4xf32>)
      -> tensor<8x10x4xf32>
  %m = tfm.merge_heads %a {num_heads = 4 : i64}
      : (tensor<8x10x4xf32>) -> tensor<2x10x16xf32>
  %y = tfm.linear %m, %wo : (tensor<2x10x16xf32>, tensor<32x16xf32>)
      -> tensor<2x10x32xf32>
  return %y : tensor<2x10x32xf32>
}
