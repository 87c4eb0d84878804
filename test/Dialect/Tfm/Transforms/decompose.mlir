// RUN: tfm-opt %s -split-input-file --tfm-decompose \
// RUN:   | tfm-opt -split-input-file | FileCheck %s

// Tests of tfm-decompose: composite ops (multi_head_attention, ffn,
// add_norm) become the primitive ops d2l builds them from, dropout
// disappears, and primitive ops are left alone. The second tfm-opt checks
// that what the pass produces prints as IR that parses back in its custom
// form (--verify-roundtrip would only try the generic form).

//===----------------------------------------------------------------------===//
// multi_head_attention
//===----------------------------------------------------------------------===//

// Without biases (d2l's default), self-attention: the three projections are
// one tfm.linear on the packed [W_q; W_k; W_v] weight, whose [2, 10, 96]
// result is sliced at 0, 32 and 64 into Q, K and V; each is split into
// [batch * heads, seq, head_dim], one tfm.attention without any mask, then
// merge_heads and the output projection.

// CHECK-LABEL: func.func @mha_no_biases
// CHECK-SAME:    %[[X:[^:]*]]: tensor<2x10x32xf32>
// CHECK-SAME:    %[[WQ:[^:]*]]: tensor<32x32xf32>, %[[WK:[^:]*]]: tensor<32x32xf32>
// CHECK-SAME:    %[[WV:[^:]*]]: tensor<32x32xf32>, %[[WO:[^:]*]]: tensor<32x32xf32>
// CHECK:         %[[W:.*]] = tensor.concat dim(0) %[[WQ]], %[[WK]], %[[WV]] : (tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<96x32xf32>
// CHECK:         %[[P:.*]] = tfm.linear %[[X]], %[[W]] : (tensor<2x10x32xf32>, tensor<96x32xf32>) -> tensor<2x10x96xf32>
// CHECK:         %[[PQ:.*]] = tensor.extract_slice %[[P]][0, 0, 0] [2, 10, 32] [1, 1, 1] : tensor<2x10x96xf32> to tensor<2x10x32xf32>
// CHECK:         %[[PK:.*]] = tensor.extract_slice %[[P]][0, 0, 32] [2, 10, 32] [1, 1, 1]
// CHECK:         %[[PV:.*]] = tensor.extract_slice %[[P]][0, 0, 64] [2, 10, 32] [1, 1, 1]
// CHECK:         %[[Q:.*]] = tfm.split_heads %[[PQ]] {num_heads = 4 : i64} : (tensor<2x10x32xf32>) -> tensor<8x10x8xf32>
// CHECK:         %[[K:.*]] = tfm.split_heads %[[PK]] {num_heads = 4 : i64}
// CHECK:         %[[V:.*]] = tfm.split_heads %[[PV]] {num_heads = 4 : i64}
// CHECK:         %[[A:.*]] = tfm.attention %[[Q]], %[[K]], %[[V]] : (tensor<8x10x8xf32>, tensor<8x10x8xf32>, tensor<8x10x8xf32>) -> tensor<8x10x8xf32>
// CHECK:         %[[M:.*]] = tfm.merge_heads %[[A]] {num_heads = 4 : i64} : (tensor<8x10x8xf32>) -> tensor<2x10x32xf32>
// CHECK:         %[[O:.*]] = tfm.linear %[[M]], %[[WO]] : (tensor<2x10x32xf32>, tensor<32x32xf32>) -> tensor<2x10x32xf32>
// CHECK:         return %[[O]]
// CHECK-NOT:     tfm.multi_head_attention
func.func @mha_no_biases(%x: tensor<2x10x32xf32>, %wq: tensor<32x32xf32>,
                         %wk: tensor<32x32xf32>, %wv: tensor<32x32xf32>,
                         %wo: tensor<32x32xf32>) -> tensor<2x10x32xf32> {
  %0 = tfm.multi_head_attention %x, %x, %x weights(%wq, %wk, %wv, %wo)
      {num_heads = 4 : i64}
      : (tensor<2x10x32xf32>, tensor<2x10x32xf32>, tensor<2x10x32xf32>,
         tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>,
         tensor<32x32xf32>) -> tensor<2x10x32xf32>
  return %0 : tensor<2x10x32xf32>
}

// -----

// With biases (nn.MultiheadAttention), cross-attention with different
// query, key and value sizes: each bias goes to its own projection, and the
// output size is w_o's.

// CHECK-LABEL: func.func @mha_biases_cross
// CHECK-SAME:    %[[Q:[^:]*]]: tensor<2x5x12xf32>, %[[K:[^:]*]]: tensor<2x7x16xf32>, %[[V:[^:]*]]: tensor<2x7x20xf32>
// CHECK-SAME:    %[[WQ:[^:]*]]: tensor<24x12xf32>, %[[WK:[^:]*]]: tensor<24x16xf32>, %[[WV:[^:]*]]: tensor<24x20xf32>, %[[WO:[^:]*]]: tensor<6x24xf32>
// CHECK-SAME:    %[[BQ:[^:]*]]: tensor<24xf32>, %[[BK:[^:]*]]: tensor<24xf32>, %[[BV:[^:]*]]: tensor<24xf32>, %[[BO:[^:]*]]: tensor<6xf32>
// CHECK:         %[[PQ:.*]] = tfm.linear %[[Q]], %[[WQ]], %[[BQ]] : {{.*}} -> tensor<2x5x24xf32>
// CHECK:         %[[SQ:.*]] = tfm.split_heads %[[PQ]] {num_heads = 2 : i64} : (tensor<2x5x24xf32>) -> tensor<4x5x12xf32>
// CHECK:         %[[PK:.*]] = tfm.linear %[[K]], %[[WK]], %[[BK]] : {{.*}} -> tensor<2x7x24xf32>
// CHECK:         %[[SK:.*]] = tfm.split_heads %[[PK]] {num_heads = 2 : i64} : (tensor<2x7x24xf32>) -> tensor<4x7x12xf32>
// CHECK:         %[[PV:.*]] = tfm.linear %[[V]], %[[WV]], %[[BV]] : {{.*}} -> tensor<2x7x24xf32>
// CHECK:         %[[SV:.*]] = tfm.split_heads %[[PV]] {num_heads = 2 : i64}
// CHECK:         %[[A:.*]] = tfm.attention %[[SQ]], %[[SK]], %[[SV]] : (tensor<4x5x12xf32>, tensor<4x7x12xf32>, tensor<4x7x12xf32>) -> tensor<4x5x12xf32>
// CHECK:         %[[M:.*]] = tfm.merge_heads %[[A]] {num_heads = 2 : i64} : (tensor<4x5x12xf32>) -> tensor<2x5x24xf32>
// CHECK:         %[[O:.*]] = tfm.linear %[[M]], %[[WO]], %[[BO]] : (tensor<2x5x24xf32>, tensor<6x24xf32>, tensor<6xf32>) -> tensor<2x5x6xf32>
// CHECK:         return %[[O]]
func.func @mha_biases_cross(
    %q: tensor<2x5x12xf32>, %k: tensor<2x7x16xf32>, %v: tensor<2x7x20xf32>,
    %wq: tensor<24x12xf32>, %wk: tensor<24x16xf32>, %wv: tensor<24x20xf32>,
    %wo: tensor<6x24xf32>, %bq: tensor<24xf32>, %bk: tensor<24xf32>,
    %bv: tensor<24xf32>, %bo: tensor<6xf32>) -> tensor<2x5x6xf32> {
  %0 = tfm.multi_head_attention %q, %k, %v weights(%wq, %wk, %wv, %wo)
      biases(%bq, %bk, %bv, %bo) {num_heads = 2 : i64}
      : (tensor<2x5x12xf32>, tensor<2x7x16xf32>, tensor<2x7x20xf32>,
         tensor<24x12xf32>, tensor<24x16xf32>, tensor<24x20xf32>,
         tensor<6x24xf32>, tensor<24xf32>, tensor<24xf32>, tensor<24xf32>,
         tensor<6xf32>) -> tensor<2x5x6xf32>
  return %0 : tensor<2x5x6xf32>
}

// -----

// Self-attention with biases: the biases are packed like the weights.

// CHECK-LABEL: func.func @mha_biases_self
// CHECK-SAME:    %[[X:[^:]*]]: tensor<2x5x12xf32>
// CHECK-SAME:    %[[WQ:[^:]*]]: tensor<24x12xf32>, %[[WK:[^:]*]]: tensor<24x12xf32>, %[[WV:[^:]*]]: tensor<24x12xf32>, %[[WO:[^:]*]]: tensor<6x24xf32>
// CHECK-SAME:    %[[BQ:[^:]*]]: tensor<24xf32>, %[[BK:[^:]*]]: tensor<24xf32>, %[[BV:[^:]*]]: tensor<24xf32>, %[[BO:[^:]*]]: tensor<6xf32>
// CHECK:         %[[W:.*]] = tensor.concat dim(0) %[[WQ]], %[[WK]], %[[WV]] : {{.*}} -> tensor<72x12xf32>
// CHECK:         %[[B:.*]] = tensor.concat dim(0) %[[BQ]], %[[BK]], %[[BV]] : (tensor<24xf32>, tensor<24xf32>, tensor<24xf32>) -> tensor<72xf32>
// CHECK:         %[[P:.*]] = tfm.linear %[[X]], %[[W]], %[[B]] : (tensor<2x5x12xf32>, tensor<72x12xf32>, tensor<72xf32>) -> tensor<2x5x72xf32>
// CHECK-COUNT-3: tensor.extract_slice %[[P]]
// CHECK:         tfm.attention
// CHECK:         %[[M:.*]] = tfm.merge_heads
// CHECK:         tfm.linear %[[M]], %[[WO]], %[[BO]] : (tensor<2x5x24xf32>, tensor<6x24xf32>, tensor<6xf32>) -> tensor<2x5x6xf32>
func.func @mha_biases_self(
    %x: tensor<2x5x12xf32>,
    %wq: tensor<24x12xf32>, %wk: tensor<24x12xf32>, %wv: tensor<24x12xf32>,
    %wo: tensor<6x24xf32>, %bq: tensor<24xf32>, %bk: tensor<24xf32>,
    %bv: tensor<24xf32>, %bo: tensor<6xf32>) -> tensor<2x5x6xf32> {
  %0 = tfm.multi_head_attention %x, %x, %x weights(%wq, %wk, %wv, %wo)
      biases(%bq, %bk, %bv, %bo) {num_heads = 2 : i64}
      : (tensor<2x5x12xf32>, tensor<2x5x12xf32>, tensor<2x5x12xf32>,
         tensor<24x12xf32>, tensor<24x12xf32>, tensor<24x12xf32>,
         tensor<6x24xf32>, tensor<24xf32>, tensor<24xf32>, tensor<24xf32>,
         tensor<6xf32>) -> tensor<2x5x6xf32>
  return %0 : tensor<2x5x6xf32>
}

// -----

// Query and key are one value but the value is another (d2l's decoder
// attends with the same keys and values, here the converse): not a
// self-attention, so three projections.

// CHECK-LABEL: func.func @mha_same_query_key
// CHECK-SAME:    %[[X:[^:]*]]: tensor<2x10x32xf32>, %[[Y:[^:]*]]: tensor<2x10x32xf32>, %[[W:[^:]*]]: tensor<32x32xf32>
// CHECK-NOT:     tensor.concat
// CHECK:         tfm.linear %[[X]], %[[W]] :
// CHECK:         tfm.linear %[[X]], %[[W]] :
// CHECK:         tfm.linear %[[Y]], %[[W]] :
func.func @mha_same_query_key(%x: tensor<2x10x32xf32>, %y: tensor<2x10x32xf32>,
                              %w: tensor<32x32xf32>) -> tensor<2x10x32xf32> {
  %0 = tfm.multi_head_attention %x, %x, %y weights(%w, %w, %w, %w)
      {num_heads = 4 : i64}
      : (tensor<2x10x32xf32>, tensor<2x10x32xf32>, tensor<2x10x32xf32>,
         tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>,
         tensor<32x32xf32>) -> tensor<2x10x32xf32>
  return %0 : tensor<2x10x32xf32>
}

// -----

// A self-attention whose model dimension is dynamic keeps three
// projections: the slices of a packed one would need its size.

// CHECK-LABEL: func.func @mha_self_dynamic_model_dim
// CHECK-NOT:     tensor.concat
// CHECK-COUNT-3: tfm.linear %{{[^,]*}}, %{{[^ ]*}} : (tensor<2x10x32xf32>, tensor<?x32xf32>) -> tensor<2x10x?xf32>
func.func @mha_self_dynamic_model_dim(%x: tensor<2x10x32xf32>,
                                      %w: tensor<?x32xf32>,
                                      %wo: tensor<32x?xf32>)
    -> tensor<2x10x32xf32> {
  %0 = tfm.multi_head_attention %x, %x, %x weights(%w, %w, %w, %wo)
      {num_heads = 4 : i64}
      : (tensor<2x10x32xf32>, tensor<2x10x32xf32>, tensor<2x10x32xf32>,
         tensor<?x32xf32>, tensor<?x32xf32>, tensor<?x32xf32>,
         tensor<32x?xf32>) -> tensor<2x10x32xf32>
  return %0 : tensor<2x10x32xf32>
}

// -----

// valid_lens of rank 1 ([batch]): d2l's repeat_interleave(valid_lens, 4,
// dim=0) as a broadcast to [batch, heads] and a collapse to [batch * heads],
// so that the lengths of batch b are at rows b * 4 ... b * 4 + 3, where
// split_heads puts b's heads.

// CHECK-LABEL: func.func @mha_valid_lens_per_batch
// CHECK-SAME:    %[[LENS:[^:]*]]: tensor<2xi32>
// CHECK:         %[[INIT:.*]] = tensor.empty() : tensor<2x4xi32>
// CHECK:         %[[WIDE:.*]] = linalg.broadcast ins(%[[LENS]] : tensor<2xi32>) outs(%[[INIT]] : tensor<2x4xi32>) dimensions = [1]
// CHECK:         %[[REP:.*]] = tensor.collapse_shape %[[WIDE]] {{\[\[}}0, 1]] : tensor<2x4xi32> into tensor<8xi32>
// CHECK:         tfm.attention %{{.*}}, %{{.*}}, %{{.*}} valid_lens(%[[REP]]) : (tensor<8x10x8xf32>, tensor<8x10x8xf32>, tensor<8x10x8xf32>, tensor<8xi32>) -> tensor<8x10x8xf32>
func.func @mha_valid_lens_per_batch(%x: tensor<2x10x32xf32>,
                                    %w: tensor<32x32xf32>,
                                    %lens: tensor<2xi32>)
    -> tensor<2x10x32xf32> {
  %0 = tfm.multi_head_attention %x, %x, %x weights(%w, %w, %w, %w)
      valid_lens(%lens) {num_heads = 4 : i64}
      : (tensor<2x10x32xf32>, tensor<2x10x32xf32>, tensor<2x10x32xf32>,
         tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>,
         tensor<32x32xf32>, tensor<2xi32>) -> tensor<2x10x32xf32>
  return %0 : tensor<2x10x32xf32>
}

// -----

// valid_lens of rank 2 ([batch, queries], i64): the query dimension is kept
// and only batch and heads are collapsed.

// CHECK-LABEL: func.func @mha_valid_lens_per_query
// CHECK-SAME:    %[[LENS:[^:]*]]: tensor<2x10xi64>
// CHECK:         %[[INIT:.*]] = tensor.empty() : tensor<2x4x10xi64>
// CHECK:         %[[WIDE:.*]] = linalg.broadcast ins(%[[LENS]] : tensor<2x10xi64>) outs(%[[INIT]] : tensor<2x4x10xi64>) dimensions = [1]
// CHECK:         %[[REP:.*]] = tensor.collapse_shape %[[WIDE]] {{\[\[}}0, 1], [2]] : tensor<2x4x10xi64> into tensor<8x10xi64>
// CHECK:         tfm.attention %{{.*}}, %{{.*}}, %{{.*}} valid_lens(%[[REP]]) : ({{.*}}, tensor<8x10xi64>) -> tensor<8x10x8xf32>
func.func @mha_valid_lens_per_query(%x: tensor<2x10x32xf32>,
                                    %w: tensor<32x32xf32>,
                                    %lens: tensor<2x10xi64>)
    -> tensor<2x10x32xf32> {
  %0 = tfm.multi_head_attention %x, %x, %x weights(%w, %w, %w, %w)
      valid_lens(%lens) {num_heads = 4 : i64}
      : (tensor<2x10x32xf32>, tensor<2x10x32xf32>, tensor<2x10x32xf32>,
         tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>,
         tensor<32x32xf32>, tensor<2x10xi64>) -> tensor<2x10x32xf32>
  return %0 : tensor<2x10x32xf32>
}

// -----

// An additive mask goes to tfm.attention unchanged: it broadcasts to the
// per-head scores [batch * heads, Sq, Sk] in both ops.

// CHECK-LABEL: func.func @mha_mask
// CHECK-SAME:    %[[MASK:[^:]*]]: tensor<10x10xf32>
// CHECK:         tfm.attention %{{.*}}, %{{.*}}, %{{.*}} mask(%[[MASK]]) : (tensor<8x10x8xf32>, tensor<8x10x8xf32>, tensor<8x10x8xf32>, tensor<10x10xf32>) -> tensor<8x10x8xf32>
func.func @mha_mask(%x: tensor<2x10x32xf32>, %w: tensor<32x32xf32>,
                    %mask: tensor<10x10xf32>) -> tensor<2x10x32xf32> {
  %0 = tfm.multi_head_attention %x, %x, %x weights(%w, %w, %w, %w)
      mask(%mask) {num_heads = 4 : i64}
      : (tensor<2x10x32xf32>, tensor<2x10x32xf32>, tensor<2x10x32xf32>,
         tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>,
         tensor<32x32xf32>, tensor<10x10xf32>) -> tensor<2x10x32xf32>
  return %0 : tensor<2x10x32xf32>
}

// -----

// causal and scale pass through; the attention dropout (the identity at
// inference) does not.

// CHECK-LABEL: func.func @mha_causal_scale_dropout
// CHECK:         tfm.attention %{{.*}}, %{{.*}}, %{{.*}} {causal, scale = 2.500000e-01 : f64} : (tensor<8x10x8xf32>
// CHECK-NOT:     dropout
// CHECK:         return
func.func @mha_causal_scale_dropout(%x: tensor<2x10x32xf32>,
                                    %w: tensor<32x32xf32>)
    -> tensor<2x10x32xf32> {
  %0 = tfm.multi_head_attention %x, %x, %x weights(%w, %w, %w, %w)
      {num_heads = 4 : i64, causal, scale = 0.25 : f64, dropout = 0.1 : f64}
      : (tensor<2x10x32xf32>, tensor<2x10x32xf32>, tensor<2x10x32xf32>,
         tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>,
         tensor<32x32xf32>) -> tensor<2x10x32xf32>
  return %0 : tensor<2x10x32xf32>
}

// -----

// valid_lens and mask together, with causal: all three reach tfm.attention.

// CHECK-LABEL: func.func @mha_valid_lens_mask_causal
// CHECK-SAME:    %[[LENS:[^:]*]]: tensor<2xi32>, %[[MASK:[^:]*]]: tensor<8x1x10xf32>
// CHECK:         %[[REP:.*]] = tensor.collapse_shape
// CHECK:         tfm.attention %{{.*}}, %{{.*}}, %{{.*}} valid_lens(%[[REP]]) mask(%[[MASK]]) {causal} :
func.func @mha_valid_lens_mask_causal(%x: tensor<2x10x32xf32>,
                                      %w: tensor<32x32xf32>,
                                      %lens: tensor<2xi32>,
                                      %mask: tensor<8x1x10xf32>)
    -> tensor<2x10x32xf32> {
  %0 = tfm.multi_head_attention %x, %x, %x weights(%w, %w, %w, %w)
      valid_lens(%lens) mask(%mask) {num_heads = 4 : i64, causal}
      : (tensor<2x10x32xf32>, tensor<2x10x32xf32>, tensor<2x10x32xf32>,
         tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>,
         tensor<32x32xf32>, tensor<2xi32>, tensor<8x1x10xf32>)
      -> tensor<2x10x32xf32>
  return %0 : tensor<2x10x32xf32>
}

// -----

// Grouped-query (num_kv_heads = 2 of 4 heads), dynamic batch: the keys
// and values are projected to 2 heads, and the attention runs on
// [B, 4, S, 8] queries and [B, 2, S, 8] keys and values (the heads its last
// batch dimension, which tfm.attention groups), with valid_lens broadcast
// to [B, 4]; its result is collapsed back to [B * 4, S, 8] for merge_heads.

// CHECK-LABEL: func.func @mha_grouped_query
// CHECK-SAME:    %[[X:[^:]*]]: tensor<?x10x32xf32>, %[[W:[^:]*]]: tensor<32x32xf32>, %[[WK:[^:]*]]: tensor<16x32xf32>, %[[LENS:[^:]*]]: tensor<?xi32>
// CHECK:         %[[Q:.*]] = tfm.linear %[[X]], %[[W]]
// CHECK:         %[[QH:.*]] = tfm.split_heads %[[Q]] {num_heads = 4 : i64} : (tensor<?x10x32xf32>) -> tensor<?x10x8xf32>
// CHECK:         %[[K:.*]] = tfm.linear %[[X]], %[[WK]]
// CHECK:         %[[KH:.*]] = tfm.split_heads %[[K]] {num_heads = 2 : i64} : (tensor<?x10x16xf32>) -> tensor<?x10x8xf32>
// CHECK:         tensor.expand_shape %[[QH]] {{\[}}[0, 1], [2], [3]] output_shape [%{{.*}}, 4, 10, 8] : tensor<?x10x8xf32> into tensor<?x4x10x8xf32>
// CHECK:         tensor.expand_shape %[[KH]] {{\[}}[0, 1], [2], [3]] output_shape [%{{.*}}, 2, 10, 8] : tensor<?x10x8xf32> into tensor<?x2x10x8xf32>
// CHECK:         %[[L:.*]] = linalg.broadcast ins(%[[LENS]] : tensor<?xi32>) outs(%{{.*}} : tensor<?x4xi32>) dimensions = [1]
// CHECK:         %[[O:.*]] = tfm.attention %{{.*}}, %{{.*}}, %{{.*}} valid_lens(%[[L]]) : (tensor<?x4x10x8xf32>, tensor<?x2x10x8xf32>, tensor<?x2x10x8xf32>, tensor<?x4xi32>) -> tensor<?x4x10x8xf32>
// CHECK:         %[[C:.*]] = tensor.collapse_shape %[[O]] {{\[}}[0, 1], [2], [3]] : tensor<?x4x10x8xf32> into tensor<?x10x8xf32>
// CHECK:         tfm.merge_heads %[[C]] {num_heads = 4 : i64}
func.func @mha_grouped_query(%x: tensor<?x10x32xf32>, %w: tensor<32x32xf32>,
                             %wk: tensor<16x32xf32>, %lens: tensor<?xi32>)
    -> tensor<?x10x32xf32> {
  %0 = tfm.multi_head_attention %x, %x, %x weights(%w, %wk, %wk, %w)
      valid_lens(%lens) {num_heads = 4 : i64, num_kv_heads = 2 : i64}
      : (tensor<?x10x32xf32>, tensor<?x10x32xf32>, tensor<?x10x32xf32>,
         tensor<32x32xf32>, tensor<16x32xf32>, tensor<16x32xf32>,
         tensor<32x32xf32>, tensor<?xi32>) -> tensor<?x10x32xf32>
  return %0 : tensor<?x10x32xf32>
}

// -----

// Dynamic batch: the heads multiply a dynamic batch into a dynamic
// [? * heads], the slices of the packed projection take their batch size
// from tensor.dim, and so does the broadcast of valid_lens.

// CHECK-LABEL: func.func @mha_dynamic_batch
// CHECK-SAME:    %[[X:[^:]*]]: tensor<?x10x32xf32>, %[[W:[^:]*]]: tensor<32x32xf32>, %[[LENS:[^:]*]]: tensor<?xi32>
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK:         %[[WP:.*]] = tensor.concat dim(0) %[[W]], %[[W]], %[[W]]
// CHECK:         %[[P:.*]] = tfm.linear %[[X]], %[[WP]] : (tensor<?x10x32xf32>, tensor<96x32xf32>) -> tensor<?x10x96xf32>
// CHECK:         %[[PB:.*]] = tensor.dim %[[P]], %[[C0]] : tensor<?x10x96xf32>
// CHECK:         %[[PQ:.*]] = tensor.extract_slice %[[P]][0, 0, 0] [%[[PB]], 10, 32] [1, 1, 1] : tensor<?x10x96xf32> to tensor<?x10x32xf32>
// CHECK:         tfm.split_heads %[[PQ]] {num_heads = 4 : i64} : (tensor<?x10x32xf32>) -> tensor<?x10x8xf32>
// CHECK:         %[[B:.*]] = tensor.dim %[[LENS]], %[[C0]] : tensor<?xi32>
// CHECK:         %[[INIT:.*]] = tensor.empty(%[[B]]) : tensor<?x4xi32>
// CHECK:         %[[WIDE:.*]] = linalg.broadcast ins(%[[LENS]] : tensor<?xi32>) outs(%[[INIT]] : tensor<?x4xi32>) dimensions = [1]
// CHECK:         %[[REP:.*]] = tensor.collapse_shape %[[WIDE]] {{\[\[}}0, 1]] : tensor<?x4xi32> into tensor<?xi32>
// CHECK:         %[[A:.*]] = tfm.attention %{{.*}}, %{{.*}}, %{{.*}} valid_lens(%[[REP]]) : (tensor<?x10x8xf32>, tensor<?x10x8xf32>, tensor<?x10x8xf32>, tensor<?xi32>) -> tensor<?x10x8xf32>
// CHECK:         %[[M:.*]] = tfm.merge_heads %[[A]] {num_heads = 4 : i64} : (tensor<?x10x8xf32>) -> tensor<?x10x32xf32>
// CHECK:         tfm.linear %[[M]], %[[W]] : (tensor<?x10x32xf32>, tensor<32x32xf32>) -> tensor<?x10x32xf32>
func.func @mha_dynamic_batch(%x: tensor<?x10x32xf32>, %w: tensor<32x32xf32>,
                             %lens: tensor<?xi32>) -> tensor<?x10x32xf32> {
  %0 = tfm.multi_head_attention %x, %x, %x weights(%w, %w, %w, %w)
      valid_lens(%lens) {num_heads = 4 : i64}
      : (tensor<?x10x32xf32>, tensor<?x10x32xf32>, tensor<?x10x32xf32>,
         tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>,
         tensor<32x32xf32>, tensor<?xi32>) -> tensor<?x10x32xf32>
  return %0 : tensor<?x10x32xf32>
}

// -----

// Dynamic batch and sequence with per-query lengths: both dynamic sizes of
// valid_lens reach tensor.empty, in order.

// CHECK-LABEL: func.func @mha_dynamic_valid_lens_per_query
// CHECK-SAME:    %[[LENS:[^:]*]]: tensor<?x?xi32>
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[B:.*]] = tensor.dim %[[LENS]], %[[C0]] : tensor<?x?xi32>
// CHECK-DAG:     %[[S:.*]] = tensor.dim %[[LENS]], %[[C1]] : tensor<?x?xi32>
// CHECK:         %[[INIT:.*]] = tensor.empty(%[[B]], %[[S]]) : tensor<?x4x?xi32>
// CHECK:         %[[WIDE:.*]] = linalg.broadcast ins(%[[LENS]] : tensor<?x?xi32>) outs(%[[INIT]] : tensor<?x4x?xi32>) dimensions = [1]
// CHECK:         %[[REP:.*]] = tensor.collapse_shape %[[WIDE]] {{\[\[}}0, 1], [2]] : tensor<?x4x?xi32> into tensor<?x?xi32>
// CHECK:         tfm.attention %{{.*}}, %{{.*}}, %{{.*}} valid_lens(%[[REP]]) : (tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?x?xi32>) -> tensor<?x?x8xf32>
func.func @mha_dynamic_valid_lens_per_query(%x: tensor<?x?x32xf32>,
                                            %w: tensor<32x32xf32>,
                                            %lens: tensor<?x?xi32>)
    -> tensor<?x?x32xf32> {
  %0 = tfm.multi_head_attention %x, %x, %x weights(%w, %w, %w, %w)
      valid_lens(%lens) {num_heads = 4 : i64}
      : (tensor<?x?x32xf32>, tensor<?x?x32xf32>, tensor<?x?x32xf32>,
         tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>,
         tensor<32x32xf32>, tensor<?x?xi32>) -> tensor<?x?x32xf32>
  return %0 : tensor<?x?x32xf32>
}

// -----

// A declared result more static than the inputs is kept on the output
// projection.

// CHECK-LABEL: func.func @mha_refined_result
// CHECK:         %[[M:.*]] = tfm.merge_heads %{{.*}} {num_heads = 4 : i64} : (tensor<?x10x8xf32>) -> tensor<?x10x32xf32>
// CHECK:         tfm.linear %[[M]], %{{.*}} : (tensor<?x10x32xf32>, tensor<32x32xf32>) -> tensor<2x10x32xf32>
func.func @mha_refined_result(%x: tensor<?x10x32xf32>, %w: tensor<32x32xf32>)
    -> tensor<2x10x32xf32> {
  %0 = tfm.multi_head_attention %x, %x, %x weights(%w, %w, %w, %w)
      {num_heads = 4 : i64}
      : (tensor<?x10x32xf32>, tensor<?x10x32xf32>, tensor<?x10x32xf32>,
         tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>,
         tensor<32x32xf32>) -> tensor<2x10x32xf32>
  return %0 : tensor<2x10x32xf32>
}

//===----------------------------------------------------------------------===//
// ffn
//===----------------------------------------------------------------------===//

// -----

// Without biases: the activation (the default relu) moves to the first
// linear; the second one has none.

// CHECK-LABEL: func.func @ffn_no_biases
// CHECK-SAME:    %[[X:[^:]*]]: tensor<2x10x32xf32>, %[[W1:[^:]*]]: tensor<64x32xf32>, %[[W2:[^:]*]]: tensor<32x64xf32>
// CHECK:         %[[H:.*]] = tfm.linear %[[X]], %[[W1]] {activation = #tfm.activation<relu>} : (tensor<2x10x32xf32>, tensor<64x32xf32>) -> tensor<2x10x64xf32>
// CHECK:         %[[Y:.*]] = tfm.linear %[[H]], %[[W2]] : (tensor<2x10x64xf32>, tensor<32x64xf32>) -> tensor<2x10x32xf32>
// CHECK:         return %[[Y]]
func.func @ffn_no_biases(%x: tensor<2x10x32xf32>, %w1: tensor<64x32xf32>,
                         %w2: tensor<32x64xf32>) -> tensor<2x10x32xf32> {
  %0 = tfm.ffn %x dense1(%w1) dense2(%w2)
      : (tensor<2x10x32xf32>, tensor<64x32xf32>, tensor<32x64xf32>)
      -> tensor<2x10x32xf32>
  return %0 : tensor<2x10x32xf32>
}

// -----

// With biases and ViT's GELU; the ffn's dropout disappears.

// CHECK-LABEL: func.func @ffn_biases_gelu
// CHECK-SAME:    %[[X:[^:]*]]: tensor<1x17x48xf32>, %[[W1:[^:]*]]: tensor<96x48xf32>, %[[B1:[^:]*]]: tensor<96xf32>, %[[W2:[^:]*]]: tensor<48x96xf32>, %[[B2:[^:]*]]: tensor<48xf32>
// CHECK:         %[[H:.*]] = tfm.linear %[[X]], %[[W1]], %[[B1]] {activation = #tfm.activation<gelu>} : (tensor<1x17x48xf32>, tensor<96x48xf32>, tensor<96xf32>) -> tensor<1x17x96xf32>
// CHECK:         %[[Y:.*]] = tfm.linear %[[H]], %[[W2]], %[[B2]] : (tensor<1x17x96xf32>, tensor<48x96xf32>, tensor<48xf32>) -> tensor<1x17x48xf32>
// CHECK-NOT:     dropout
// CHECK:         return %[[Y]]
func.func @ffn_biases_gelu(%x: tensor<1x17x48xf32>, %w1: tensor<96x48xf32>,
                           %b1: tensor<96xf32>, %w2: tensor<48x96xf32>,
                           %b2: tensor<48xf32>) -> tensor<1x17x48xf32> {
  %0 = tfm.ffn %x dense1(%w1, %b1) dense2(%w2, %b2)
      {activation = #tfm.activation<gelu>, dropout = 0.1 : f64}
      : (tensor<1x17x48xf32>, tensor<96x48xf32>, tensor<96xf32>,
         tensor<48x96xf32>, tensor<48xf32>) -> tensor<1x17x48xf32>
  return %0 : tensor<1x17x48xf32>
}

// -----

// Only the first layer has a bias; gelu_tanh; dynamic leading dimensions.

// CHECK-LABEL: func.func @ffn_first_bias_gelu_tanh_dynamic
// CHECK-SAME:    %[[X:[^:]*]]: tensor<?x?x8xf32>, %[[W1:[^:]*]]: tensor<16x8xf32>, %[[B1:[^:]*]]: tensor<16xf32>, %[[W2:[^:]*]]: tensor<4x16xf32>
// CHECK:         %[[H:.*]] = tfm.linear %[[X]], %[[W1]], %[[B1]] {activation = #tfm.activation<gelu_tanh>} : {{.*}} -> tensor<?x?x16xf32>
// CHECK:         tfm.linear %[[H]], %[[W2]] : (tensor<?x?x16xf32>, tensor<4x16xf32>) -> tensor<?x?x4xf32>
func.func @ffn_first_bias_gelu_tanh_dynamic(
    %x: tensor<?x?x8xf32>, %w1: tensor<16x8xf32>, %b1: tensor<16xf32>,
    %w2: tensor<4x16xf32>) -> tensor<?x?x4xf32> {
  %0 = tfm.ffn %x dense1(%w1, %b1) dense2(%w2)
      {activation = #tfm.activation<gelu_tanh>}
      : (tensor<?x?x8xf32>, tensor<16x8xf32>, tensor<16xf32>,
         tensor<4x16xf32>) -> tensor<?x?x4xf32>
  return %0 : tensor<?x?x4xf32>
}

//===----------------------------------------------------------------------===//
// add_norm
//===----------------------------------------------------------------------===//

// -----

// residual + sublayer, then layer_norm with the same gamma, beta and
// epsilon; the dropout disappears.

// CHECK-LABEL: func.func @add_norm_epsilon
// CHECK-SAME:    %[[X:[^:]*]]: tensor<2x10x32xf32>, %[[Y:[^:]*]]: tensor<2x10x32xf32>, %[[G:[^:]*]]: tensor<32xf32>, %[[B:[^:]*]]: tensor<32xf32>
// CHECK:         %[[SUM:.*]] = arith.addf %[[X]], %[[Y]] : tensor<2x10x32xf32>
// CHECK:         %[[N:.*]] = tfm.layer_norm %[[SUM]], %[[G]], %[[B]] {epsilon = 9.9999999999999995E-7 : f64} : (tensor<2x10x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<2x10x32xf32>
// CHECK-NOT:     dropout
// CHECK:         return %[[N]]
func.func @add_norm_epsilon(%x: tensor<2x10x32xf32>, %y: tensor<2x10x32xf32>,
                            %g: tensor<32xf32>, %b: tensor<32xf32>)
    -> tensor<2x10x32xf32> {
  %0 = tfm.add_norm %x, %y, %g, %b {epsilon = 1.0e-06 : f64, dropout = 0.5 : f64}
      : (tensor<2x10x32xf32>, tensor<2x10x32xf32>, tensor<32xf32>,
         tensor<32xf32>) -> tensor<2x10x32xf32>
  return %0 : tensor<2x10x32xf32>
}

// -----

// The default epsilon (1e-5) stays the default of layer_norm.

// CHECK-LABEL: func.func @add_norm_default_epsilon
// CHECK:         %[[SUM:.*]] = arith.addf
// CHECK:         tfm.layer_norm %[[SUM]], %{{.*}}, %{{.*}} : (tensor<4x8xf32>
func.func @add_norm_default_epsilon(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>,
                                    %g: tensor<8xf32>, %b: tensor<8xf32>)
    -> tensor<4x8xf32> {
  %0 = tfm.add_norm %x, %y, %g, %b
      : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>)
      -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// A residual and a sub-layer of compatible but different types are cast to
// the join of the two before arith.addf, whose custom form has one type for
// both operands; the result keeps add_norm's declared type.

// CHECK-LABEL: func.func @add_norm_mixed_static_dynamic
// CHECK-SAME:    %[[X:[^:]*]]: tensor<?x10x32xf32>, %[[Y:[^:]*]]: tensor<2x?x32xf32>
// CHECK-DAG:     %[[CX:.*]] = tensor.cast %[[X]] : tensor<?x10x32xf32> to tensor<2x10x32xf32>
// CHECK-DAG:     %[[CY:.*]] = tensor.cast %[[Y]] : tensor<2x?x32xf32> to tensor<2x10x32xf32>
// CHECK:         %[[SUM:.*]] = arith.addf %[[CX]], %[[CY]] : tensor<2x10x32xf32>
// CHECK:         tfm.layer_norm %[[SUM]], {{.*}} : (tensor<2x10x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<?x10x32xf32>
func.func @add_norm_mixed_static_dynamic(%x: tensor<?x10x32xf32>,
                                         %y: tensor<2x?x32xf32>,
                                         %g: tensor<32xf32>,
                                         %b: tensor<32xf32>)
    -> tensor<?x10x32xf32> {
  %0 = tfm.add_norm %x, %y, %g, %b
      : (tensor<?x10x32xf32>, tensor<2x?x32xf32>, tensor<32xf32>,
         tensor<32xf32>) -> tensor<?x10x32xf32>
  return %0 : tensor<?x10x32xf32>
}

// -----

// Operands of the same dynamic type need no cast.

// CHECK-LABEL: func.func @add_norm_dynamic
// CHECK-SAME:    %[[X:[^:]*]]: tensor<?x?x32xf32>, %[[Y:[^:]*]]: tensor<?x?x32xf32>
// CHECK-NOT:     tensor.cast
// CHECK:         %[[SUM:.*]] = arith.addf %[[X]], %[[Y]] : tensor<?x?x32xf32>
func.func @add_norm_dynamic(%x: tensor<?x?x32xf32>, %y: tensor<?x?x32xf32>,
                            %g: tensor<32xf32>, %b: tensor<32xf32>)
    -> tensor<?x?x32xf32> {
  %0 = tfm.add_norm %x, %y, %g, %b
      : (tensor<?x?x32xf32>, tensor<?x?x32xf32>, tensor<32xf32>,
         tensor<32xf32>) -> tensor<?x?x32xf32>
  return %0 : tensor<?x?x32xf32>
}

//===----------------------------------------------------------------------===//
// dropout
//===----------------------------------------------------------------------===//

// -----

// tfm.dropout is the identity at inference.

// CHECK-LABEL: func.func @dropout
// CHECK-SAME:    %[[X:[^:]*]]: tensor<2x10x32xf32>
// CHECK-NOT:     tfm.dropout
// CHECK:         return %[[X]] : tensor<2x10x32xf32>
func.func @dropout(%x: tensor<2x10x32xf32>) -> tensor<2x10x32xf32> {
  %0 = tfm.dropout %x {rate = 5.0e-01 : f64} : tensor<2x10x32xf32>
  return %0 : tensor<2x10x32xf32>
}

//===----------------------------------------------------------------------===//
// Negative: primitive ops are left alone
//===----------------------------------------------------------------------===//

// -----

// CHECK-LABEL: func.func @primitives_unchanged
// CHECK-SAME:    %[[Q:[^:]*]]: tensor<8x10x8xf32>, %[[K:[^:]*]]: tensor<8x12x8xf32>, %[[V:[^:]*]]: tensor<8x12x8xf32>, %[[LENS:[^:]*]]: tensor<8xi32>, %[[X:[^:]*]]: tensor<2x10x32xf32>, %[[W:[^:]*]]: tensor<64x32xf32>, %[[BIAS:[^:]*]]: tensor<64xf32>, %[[G:[^:]*]]: tensor<32xf32>
// CHECK-NEXT:    %[[A:.*]] = tfm.attention %[[Q]], %[[K]], %[[V]] valid_lens(%[[LENS]]) {causal, scale = 5.000000e-01 : f64} : (tensor<8x10x8xf32>, tensor<8x12x8xf32>
// CHECK-NEXT:    %[[L:.*]] = tfm.linear %[[X]], %[[W]], %[[BIAS]] {activation = #tfm.activation<relu>} : (tensor<2x10x32xf32>, tensor<64x32xf32>, tensor<64xf32>) -> tensor<2x10x64xf32>
// CHECK-NEXT:    %[[N:.*]] = tfm.layer_norm %[[X]], %[[G]], %[[G]] {epsilon = 9.9999999999999995E-7 : f64}
// CHECK-NEXT:    %[[S:.*]] = tfm.split_heads %[[X]] {num_heads = 4 : i64}
// CHECK-NEXT:    return %[[A]], %[[L]], %[[N]], %[[S]]
func.func @primitives_unchanged(
    %q: tensor<8x10x8xf32>, %k: tensor<8x12x8xf32>, %v: tensor<8x12x8xf32>,
    %lens: tensor<8xi32>, %x: tensor<2x10x32xf32>, %w: tensor<64x32xf32>,
    %bias: tensor<64xf32>, %g: tensor<32xf32>)
    -> (tensor<8x10x8xf32>, tensor<2x10x64xf32>, tensor<2x10x32xf32>,
        tensor<8x10x8xf32>) {
  %a = tfm.attention %q, %k, %v valid_lens(%lens) {causal, scale = 0.5 : f64}
      : (tensor<8x10x8xf32>, tensor<8x12x8xf32>, tensor<8x12x8xf32>,
         tensor<8xi32>) -> tensor<8x10x8xf32>
  %l = tfm.linear %x, %w, %bias {activation = #tfm.activation<relu>}
      : (tensor<2x10x32xf32>, tensor<64x32xf32>, tensor<64xf32>)
      -> tensor<2x10x64xf32>
  %n = tfm.layer_norm %x, %g, %g {epsilon = 1.0e-06 : f64}
      : (tensor<2x10x32xf32>, tensor<32xf32>, tensor<32xf32>)
      -> tensor<2x10x32xf32>
  %s = tfm.split_heads %x {num_heads = 4 : i64}
      : (tensor<2x10x32xf32>) -> tensor<8x10x8xf32>
  return %a, %l, %n, %s : tensor<8x10x8xf32>, tensor<2x10x64xf32>,
      tensor<2x10x32xf32>, tensor<8x10x8xf32>
}

// -----

// Constant projection weights of a self-attention are packed at compile
// time: one [3·D, D] constant, no tensor.concat.

// CHECK-LABEL: func.func @packed_constant_weights
// CHECK-NOT: tensor.concat
// CHECK: %[[W:.*]] = arith.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00], [5.000000e+00, 6.000000e+00], [7.000000e+00, 8.000000e+00], [9.000000e+00, 1.000000e+01], [1.100000e+01, 1.200000e+01]]> : tensor<6x2xf32>
// CHECK: tfm.linear %{{.*}}, %[[W]] : (tensor<1x3x2xf32>, tensor<6x2xf32>) -> tensor<1x3x6xf32>
func.func @packed_constant_weights(%x: tensor<1x3x2xf32>) -> tensor<1x3x2xf32> {
  %wq = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %wk = arith.constant dense<[[5.0, 6.0], [7.0, 8.0]]> : tensor<2x2xf32>
  %wv = arith.constant dense<[[9.0, 10.0], [11.0, 12.0]]> : tensor<2x2xf32>
  %wo = arith.constant dense<[[1.0, 0.0], [0.0, 1.0]]> : tensor<2x2xf32>
  %y = tfm.multi_head_attention %x, %x, %x weights(%wq, %wk, %wv, %wo)
      {num_heads = 1 : i64}
      : (tensor<1x3x2xf32>, tensor<1x3x2xf32>, tensor<1x3x2xf32>,
         tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>)
      -> tensor<1x3x2xf32>
  return %y : tensor<1x3x2xf32>
}
