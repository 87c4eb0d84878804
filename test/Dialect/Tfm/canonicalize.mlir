// RUN: tfm-opt %s -canonicalize -split-input-file | FileCheck %s

// Folds and canonicalization patterns of the tfm dialect, each with the
// cases where it must not fire.

//===----------------------------------------------------------------------===//
// dropout is the identity at inference
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @dropout_folds(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3xf32>)
// CHECK-NOT:     tfm.dropout
// CHECK:         return %[[X]] : tensor<2x3xf32>
func.func @dropout_folds(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = tfm.dropout %x {rate = 1.000000e-01 : f64} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// The users of a dropout see its input; chains fold entirely.
// CHECK-LABEL: func.func @dropout_chain_folds(
// CHECK-SAME:    %[[X:.*]]: tensor<?x4xbf16>)
// CHECK-NOT:     tfm.dropout
// CHECK:         %[[G:.*]] = tfm.gelu %[[X]] : tensor<?x4xbf16>
// CHECK-NOT:     tfm.dropout
// CHECK:         return %[[G]] : tensor<?x4xbf16>
func.func @dropout_chain_folds(%x: tensor<?x4xbf16>) -> tensor<?x4xbf16> {
  %0 = tfm.dropout %x {rate = 5.000000e-01 : f64} : tensor<?x4xbf16>
  %1 = tfm.dropout %0 {rate = 0.000000e+00 : f64} : tensor<?x4xbf16>
  %2 = tfm.gelu %1 : tensor<?x4xbf16>
  %3 = tfm.dropout %2 {rate = 1.000000e-01 : f64} : tensor<?x4xbf16>
  return %3 : tensor<?x4xbf16>
}

// -----

//===----------------------------------------------------------------------===//
// split_heads and merge_heads are inverses
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @split_of_merge_folds(
// CHECK-SAME:    %[[X:.*]]: tensor<10x4x20xf32>)
// CHECK-NOT:     tfm.merge_heads
// CHECK-NOT:     tfm.split_heads
// CHECK:         return %[[X]] : tensor<10x4x20xf32>
func.func @split_of_merge_folds(%x: tensor<10x4x20xf32>) -> tensor<10x4x20xf32> {
  %0 = tfm.merge_heads %x {num_heads = 5 : i64} : (tensor<10x4x20xf32>) -> tensor<2x4x100xf32>
  %1 = tfm.split_heads %0 {num_heads = 5 : i64} : (tensor<2x4x100xf32>) -> tensor<10x4x20xf32>
  return %1 : tensor<10x4x20xf32>
}

// -----

// CHECK-LABEL: func.func @merge_of_split_folds(
// CHECK-SAME:    %[[X:.*]]: tensor<2x4x100xf32>)
// CHECK-NOT:     tfm.split_heads
// CHECK-NOT:     tfm.merge_heads
// CHECK:         return %[[X]] : tensor<2x4x100xf32>
func.func @merge_of_split_folds(%x: tensor<2x4x100xf32>) -> tensor<2x4x100xf32> {
  %0 = tfm.split_heads %x {num_heads = 5 : i64} : (tensor<2x4x100xf32>) -> tensor<10x4x20xf32>
  %1 = tfm.merge_heads %0 {num_heads = 5 : i64} : (tensor<10x4x20xf32>) -> tensor<2x4x100xf32>
  return %1 : tensor<2x4x100xf32>
}

// -----

// CHECK-LABEL: func.func @merge_of_split_folds_dynamic(
// CHECK-SAME:    %[[X:.*]]: tensor<?x?x64xf16>)
// CHECK-NOT:     tfm.split_heads
// CHECK-NOT:     tfm.merge_heads
// CHECK:         return %[[X]] : tensor<?x?x64xf16>
func.func @merge_of_split_folds_dynamic(%x: tensor<?x?x64xf16>) -> tensor<?x?x64xf16> {
  %0 = tfm.split_heads %x {num_heads = 8 : i64} : (tensor<?x?x64xf16>) -> tensor<?x?x8xf16>
  %1 = tfm.merge_heads %0 {num_heads = 8 : i64} : (tensor<?x?x8xf16>) -> tensor<?x?x64xf16>
  return %1 : tensor<?x?x64xf16>
}

// -----

// The split's other users keep it alive; the merge still folds.
// CHECK-LABEL: func.func @merge_of_split_folds_multiple_uses(
// CHECK-SAME:    %[[X:.*]]: tensor<2x4x100xf32>)
// CHECK:         %[[S:.*]] = tfm.split_heads %[[X]] {num_heads = 5 : i64}
// CHECK-NOT:     tfm.merge_heads
// CHECK:         return %[[X]], %[[S]] : tensor<2x4x100xf32>, tensor<10x4x20xf32>
func.func @merge_of_split_folds_multiple_uses(%x: tensor<2x4x100xf32>) -> (tensor<2x4x100xf32>, tensor<10x4x20xf32>) {
  %0 = tfm.split_heads %x {num_heads = 5 : i64} : (tensor<2x4x100xf32>) -> tensor<10x4x20xf32>
  %1 = tfm.merge_heads %0 {num_heads = 5 : i64} : (tensor<10x4x20xf32>) -> tensor<2x4x100xf32>
  return %1, %0 : tensor<2x4x100xf32>, tensor<10x4x20xf32>
}

// -----

// With different head counts the pair permutes the features: no fold.
// CHECK-LABEL: func.func @split_of_merge_different_heads(
// CHECK-SAME:    %[[X:.*]]: tensor<10x4x20xf32>)
// CHECK:         %[[M:.*]] = tfm.merge_heads %[[X]] {num_heads = 5 : i64}
// CHECK:         %[[S:.*]] = tfm.split_heads %[[M]] {num_heads = 10 : i64}
// CHECK:         return %[[S]] : tensor<20x4x10xf32>
func.func @split_of_merge_different_heads(%x: tensor<10x4x20xf32>) -> tensor<20x4x10xf32> {
  %0 = tfm.merge_heads %x {num_heads = 5 : i64} : (tensor<10x4x20xf32>) -> tensor<2x4x100xf32>
  %1 = tfm.split_heads %0 {num_heads = 10 : i64} : (tensor<2x4x100xf32>) -> tensor<20x4x10xf32>
  return %1 : tensor<20x4x10xf32>
}

// -----

// CHECK-LABEL: func.func @merge_of_split_different_heads(
// CHECK-SAME:    %[[X:.*]]: tensor<2x4x100xf32>)
// CHECK:         %[[S:.*]] = tfm.split_heads %[[X]] {num_heads = 4 : i64}
// CHECK:         %[[M:.*]] = tfm.merge_heads %[[S]] {num_heads = 2 : i64}
// CHECK:         return %[[M]] : tensor<4x4x50xf32>
func.func @merge_of_split_different_heads(%x: tensor<2x4x100xf32>) -> tensor<4x4x50xf32> {
  %0 = tfm.split_heads %x {num_heads = 4 : i64} : (tensor<2x4x100xf32>) -> tensor<8x4x25xf32>
  %1 = tfm.merge_heads %0 {num_heads = 2 : i64} : (tensor<8x4x25xf32>) -> tensor<4x4x50xf32>
  return %1 : tensor<4x4x50xf32>
}

// -----

// The declared result refines x's dynamic batch: folding to x would change
// the result's type, so the pair stays.
// CHECK-LABEL: func.func @split_of_merge_refined_type(
// CHECK-SAME:    %[[X:.*]]: tensor<?x4x20xf32>)
// CHECK:         %[[M:.*]] = tfm.merge_heads %[[X]] {num_heads = 5 : i64}
// CHECK:         %[[S:.*]] = tfm.split_heads %[[M]] {num_heads = 5 : i64}
// CHECK:         return %[[S]] : tensor<10x4x20xf32>
func.func @split_of_merge_refined_type(%x: tensor<?x4x20xf32>) -> tensor<10x4x20xf32> {
  %0 = tfm.merge_heads %x {num_heads = 5 : i64} : (tensor<?x4x20xf32>) -> tensor<?x4x100xf32>
  %1 = tfm.split_heads %0 {num_heads = 5 : i64} : (tensor<?x4x100xf32>) -> tensor<10x4x20xf32>
  return %1 : tensor<10x4x20xf32>
}

// -----

//===----------------------------------------------------------------------===//
// masked_softmax: a constant valid_lens that masks no key is dropped
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @masked_softmax_drops_full_lens(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NOT:     arith.constant
// CHECK:         %[[R:.*]] = tfm.masked_softmax %[[X]] : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
// CHECK:         return %[[R]]
func.func @masked_softmax_drops_full_lens(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %lens = arith.constant dense<[4, 7]> : tensor<2xi32>
  %0 = tfm.masked_softmax %x valid_lens(%lens) : (tensor<2x3x4xf32>, tensor<2xi32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// One length per query, i64, splat.
// CHECK-LABEL: func.func @masked_softmax_drops_full_lens_per_query(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3x4xf16>)
// CHECK:         %[[R:.*]] = tfm.masked_softmax %[[X]] : (tensor<2x3x4xf16>) -> tensor<2x3x4xf16>
// CHECK:         return %[[R]]
func.func @masked_softmax_drops_full_lens_per_query(%x: tensor<2x3x4xf16>) -> tensor<2x3x4xf16> {
  %lens = arith.constant dense<4> : tensor<2x3xi64>
  %0 = tfm.masked_softmax %x valid_lens(%lens) : (tensor<2x3x4xf16>, tensor<2x3xi64>) -> tensor<2x3x4xf16>
  return %0 : tensor<2x3x4xf16>
}

// -----

// The batch may be dynamic; only the number of keys needs to be known.
// CHECK-LABEL: func.func @masked_softmax_drops_full_lens_dynamic_batch(
// CHECK-SAME:    %[[X:.*]]: tensor<?x?x4xf32>)
// CHECK:         %[[R:.*]] = tfm.masked_softmax %[[X]] : (tensor<?x?x4xf32>) -> tensor<?x?x4xf32>
func.func @masked_softmax_drops_full_lens_dynamic_batch(%x: tensor<?x?x4xf32>) -> tensor<?x?x4xf32> {
  %lens = arith.constant dense<9> : tensor<1xi32>
  %0 = tfm.masked_softmax %x valid_lens(%lens) : (tensor<?x?x4xf32>, tensor<1xi32>) -> tensor<?x?x4xf32>
  return %0 : tensor<?x?x4xf32>
}

// -----

// A length of 3 masks the fourth key: kept.
// CHECK-LABEL: func.func @masked_softmax_keeps_short_lens(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3x4xf32>)
// CHECK:         %[[LENS:.*]] = arith.constant dense<[4, 3]> : tensor<2xi32>
// CHECK:         tfm.masked_softmax %[[X]] valid_lens(%[[LENS]])
func.func @masked_softmax_keeps_short_lens(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %lens = arith.constant dense<[4, 3]> : tensor<2xi32>
  %0 = tfm.masked_softmax %x valid_lens(%lens) : (tensor<2x3x4xf32>, tensor<2xi32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// A negative length masks every key (the row becomes uniform): kept.
// CHECK-LABEL: func.func @masked_softmax_keeps_negative_lens(
// CHECK:         %[[LENS:.*]] = arith.constant dense<-1> : tensor<2xi64>
// CHECK:         tfm.masked_softmax %{{.*}} valid_lens(%[[LENS]])
func.func @masked_softmax_keeps_negative_lens(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %lens = arith.constant dense<-1> : tensor<2xi64>
  %0 = tfm.masked_softmax %x valid_lens(%lens) : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// CHECK-LABEL: func.func @masked_softmax_keeps_runtime_lens(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3x4xf32>, %[[LENS:.*]]: tensor<2xi32>)
// CHECK:         tfm.masked_softmax %[[X]] valid_lens(%[[LENS]])
func.func @masked_softmax_keeps_runtime_lens(%x: tensor<2x3x4xf32>, %lens: tensor<2xi32>) -> tensor<2x3x4xf32> {
  %0 = tfm.masked_softmax %x valid_lens(%lens) : (tensor<2x3x4xf32>, tensor<2xi32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// With a dynamic number of keys no constant length is known to cover them.
// CHECK-LABEL: func.func @masked_softmax_keeps_lens_dynamic_keys(
// CHECK:         %[[LENS:.*]] = arith.constant dense<100> : tensor<2xi32>
// CHECK:         tfm.masked_softmax %{{.*}} valid_lens(%[[LENS]])
func.func @masked_softmax_keeps_lens_dynamic_keys(%x: tensor<2x3x?xf32>) -> tensor<2x3x?xf32> {
  %lens = arith.constant dense<100> : tensor<2xi32>
  %0 = tfm.masked_softmax %x valid_lens(%lens) : (tensor<2x3x?xf32>, tensor<2xi32>) -> tensor<2x3x?xf32>
  return %0 : tensor<2x3x?xf32>
}

// -----

//===----------------------------------------------------------------------===//
// attention: a constant valid_lens that masks no key is dropped
//===----------------------------------------------------------------------===//

// The lengths are compared with the 6 keys, not the 10 queries.
// CHECK-LABEL: func.func @attention_drops_full_lens(
// CHECK-SAME:    %[[Q:.*]]: tensor<8x10x16xf32>, %[[K:.*]]: tensor<8x6x16xf32>, %[[V:.*]]: tensor<8x6x32xf32>)
// CHECK-NOT:     arith.constant
// CHECK:         %[[R:.*]] = tfm.attention %[[Q]], %[[K]], %[[V]] {causal} :
// CHECK-SAME:      (tensor<8x10x16xf32>, tensor<8x6x16xf32>, tensor<8x6x32xf32>) -> tensor<8x10x32xf32>
// CHECK:         return %[[R]]
func.func @attention_drops_full_lens(%q: tensor<8x10x16xf32>, %k: tensor<8x6x16xf32>, %v: tensor<8x6x32xf32>) -> tensor<8x10x32xf32> {
  %lens = arith.constant dense<6> : tensor<8xi32>
  %0 = tfm.attention %q, %k, %v valid_lens(%lens) {causal} : (tensor<8x10x16xf32>, tensor<8x6x16xf32>, tensor<8x6x32xf32>, tensor<8xi32>) -> tensor<8x10x32xf32>
  return %0 : tensor<8x10x32xf32>
}

// -----

// Dropping valid_lens keeps the mask, which follows it in the operand list.
// CHECK-LABEL: func.func @attention_drops_full_lens_keeps_mask(
// CHECK-SAME:    %[[Q:.*]]: tensor<2x4x10x16xbf16>, %[[MASK:.*]]: tensor<10x10xbf16>)
// CHECK:         %[[R:.*]] = tfm.attention %[[Q]], %[[Q]], %[[Q]] mask(%[[MASK]]) {scale = 2.500000e-01 : f64} :
// CHECK-SAME:      (tensor<2x4x10x16xbf16>, tensor<2x4x10x16xbf16>, tensor<2x4x10x16xbf16>, tensor<10x10xbf16>) -> tensor<2x4x10x16xbf16>
// CHECK:         return %[[R]]
func.func @attention_drops_full_lens_keeps_mask(%q: tensor<2x4x10x16xbf16>, %mask: tensor<10x10xbf16>) -> tensor<2x4x10x16xbf16> {
  %lens = arith.constant dense<[[10, 11, 12, 10], [10, 10, 10, 99]]> : tensor<2x4xi64>
  %0 = tfm.attention %q, %q, %q valid_lens(%lens) mask(%mask) {scale = 2.500000e-01 : f64} : (tensor<2x4x10x16xbf16>, tensor<2x4x10x16xbf16>, tensor<2x4x10x16xbf16>, tensor<2x4xi64>, tensor<10x10xbf16>) -> tensor<2x4x10x16xbf16>
  return %0 : tensor<2x4x10x16xbf16>
}

// -----

// The lengths cover the 10 queries but not the 12 keys: kept.
// CHECK-LABEL: func.func @attention_keeps_short_lens(
// CHECK:         %[[LENS:.*]] = arith.constant dense<[12, 12, 12, 12, 12, 12, 12, 10]> : tensor<8xi32>
// CHECK:         tfm.attention %{{.*}}, %{{.*}}, %{{.*}} valid_lens(%[[LENS]])
func.func @attention_keeps_short_lens(%q: tensor<8x10x16xf32>, %k: tensor<8x12x16xf32>) -> tensor<8x10x16xf32> {
  %lens = arith.constant dense<[12, 12, 12, 12, 12, 12, 12, 10]> : tensor<8xi32>
  %0 = tfm.attention %q, %k, %k valid_lens(%lens) : (tensor<8x10x16xf32>, tensor<8x12x16xf32>, tensor<8x12x16xf32>, tensor<8xi32>) -> tensor<8x10x16xf32>
  return %0 : tensor<8x10x16xf32>
}

// -----

// CHECK-LABEL: func.func @attention_keeps_runtime_lens(
// CHECK-SAME:    %[[Q:.*]]: tensor<8x10x16xf32>, %[[LENS:.*]]: tensor<8x10xi64>)
// CHECK:         tfm.attention %[[Q]], %[[Q]], %[[Q]] valid_lens(%[[LENS]])
func.func @attention_keeps_runtime_lens(%q: tensor<8x10x16xf32>, %lens: tensor<8x10xi64>) -> tensor<8x10x16xf32> {
  %0 = tfm.attention %q, %q, %q valid_lens(%lens) : (tensor<8x10x16xf32>, tensor<8x10x16xf32>, tensor<8x10x16xf32>, tensor<8x10xi64>) -> tensor<8x10x16xf32>
  return %0 : tensor<8x10x16xf32>
}

// -----

// The query's sequence length is static, the key's is not: kept.
// CHECK-LABEL: func.func @attention_keeps_lens_dynamic_keys(
// CHECK:         %[[LENS:.*]] = arith.constant dense<1000> : tensor<8xi32>
// CHECK:         tfm.attention %{{.*}}, %{{.*}}, %{{.*}} valid_lens(%[[LENS]])
func.func @attention_keeps_lens_dynamic_keys(%q: tensor<8x10x16xf32>, %k: tensor<8x?x16xf32>) -> tensor<8x10x16xf32> {
  %lens = arith.constant dense<1000> : tensor<8xi32>
  %0 = tfm.attention %q, %k, %k valid_lens(%lens) : (tensor<8x10x16xf32>, tensor<8x?x16xf32>, tensor<8x?x16xf32>, tensor<8xi32>) -> tensor<8x10x16xf32>
  return %0 : tensor<8x10x16xf32>
}
