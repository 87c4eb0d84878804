// RUN: tfm-opt %s -split-input-file --tfm-tensor-parallel=ranks=2 -verify-diagnostics | FileCheck %s

// Heads or hidden units that the ranks do not divide are dealt out in
// contiguous blocks as evenly as they go, the first ranks holding one more
// (torchvision's ViT-Ti has 3 heads: 2 and 1 over two ranks), with a
// warning, since the busiest rank sets the pace. Each rank's clone is its
// own function, so each has its own sizes.

// A multi-head attention of 3 heads of 2 and a feed-forward of 5 hidden
// units: rank 0 keeps rows 0-3 of W_q (heads 0 and 1), columns 0-3 of W_o,
// hidden units 0-2; rank 1 the rest.

// CHECK-LABEL: func.func private @blocks_rank0(
// CHECK-DAG:     %[[WQ:.*]] = arith.constant dense<{{\[}}[0.000000e+00, 1.000000e+00], [2.000000e+00, 3.000000e+00], [4.000000e+00, 5.000000e+00], [6.000000e+00, 7.000000e+00]]> : tensor<4x2xf32>
// CHECK-DAG:     %[[WO:.*]] = arith.constant dense<{{\[}}[0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00], [6.000000e+00, 7.000000e+00, 8.000000e+00, 9.000000e+00]]> : tensor<2x4xf32>
// CHECK-DAG:     %[[B1:.*]] = arith.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>
// CHECK:         tfm.multi_head_attention %{{.*}} weights(%[[WQ]], %[[WQ]], %[[WQ]], %[[WO]]) {num_heads = 2 : i64} : {{.*}} -> tensor<1x3x2xf32>
// CHECK-NEXT:    shard.all_reduce
// CHECK-NEXT:    tfm.ffn %{{.*}} dense1(%{{.*}}, %[[B1]]) dense2({{.*}}) : (tensor<1x3x2xf32>, tensor<3x2xf32>, tensor<3xf32>, tensor<2x3xf32>) -> tensor<1x3x2xf32>
// CHECK-NEXT:    shard.all_reduce
// CHECK-LABEL: func.func private @blocks_rank1(
// CHECK-DAG:     %[[WQ:.*]] = arith.constant dense<{{\[}}[8.000000e+00, 9.000000e+00], [1.000000e+01, 1.100000e+01]]> : tensor<2x2xf32>
// CHECK-DAG:     %[[WO:.*]] = arith.constant dense<{{\[}}[4.000000e+00, 5.000000e+00], [1.000000e+01, 1.100000e+01]]> : tensor<2x2xf32>
// CHECK-DAG:     %[[B1:.*]] = arith.constant dense<[4.000000e+00, 5.000000e+00]> : tensor<2xf32>
// CHECK:         tfm.multi_head_attention %{{.*}} weights(%[[WQ]], %[[WQ]], %[[WQ]], %[[WO]]) {num_heads = 1 : i64}
// CHECK:         tfm.ffn %{{.*}} dense1(%{{.*}}, %[[B1]]) dense2({{.*}}) : (tensor<1x3x2xf32>, tensor<2x2xf32>, tensor<2xf32>, tensor<2x2xf32>) -> tensor<1x3x2xf32>
func.func @blocks(%x: tensor<1x3x2xf32>) -> tensor<1x3x2xf32> {
  %wq = arith.constant dense<[[0.0, 1.0], [2.0, 3.0], [4.0, 5.0], [6.0, 7.0], [8.0, 9.0], [10.0, 11.0]]> : tensor<6x2xf32>
  %wo = arith.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0], [6.0, 7.0, 8.0, 9.0, 10.0, 11.0]]> : tensor<2x6xf32>
  // expected-warning @+1 {{splitting 3 heads unevenly over 2 ranks: they hold 2 or 1 each, and the busiest sets the pace}}
  %a = tfm.multi_head_attention %x, %x, %x weights(%wq, %wq, %wq, %wo) {num_heads = 3 : i64}
      : (tensor<1x3x2xf32>, tensor<1x3x2xf32>, tensor<1x3x2xf32>, tensor<6x2xf32>, tensor<6x2xf32>, tensor<6x2xf32>, tensor<2x6xf32>) -> tensor<1x3x2xf32>
  %w1 = arith.constant dense<0.5> : tensor<5x2xf32>
  %b1 = arith.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0]> : tensor<5xf32>
  %w2 = arith.constant dense<0.25> : tensor<2x5xf32>
  // expected-warning @+1 {{splitting 5 hidden units unevenly over 2 ranks: they hold 3 or 2 each}}
  %f = tfm.ffn %a dense1(%w1, %b1) dense2(%w2) : (tensor<1x3x2xf32>, tensor<5x2xf32>, tensor<5xf32>, tensor<2x5xf32>) -> tensor<1x3x2xf32>
  return %f : tensor<1x3x2xf32>
}

// -----

// Grouped-query attention, 6 query heads in 3 groups: a rank holds whole
// groups, 4 query heads and 2 key/value heads on rank 0, 2 and 1 on rank 1.

// CHECK-LABEL: func.func private @gqa_rank0(
// CHECK:         tfm.multi_head_attention {{.*}} {num_heads = 4 : i64, num_kv_heads = 2 : i64} : (tensor<1x2x6xf32>, tensor<1x2x6xf32>, tensor<1x2x6xf32>, tensor<4x6xf32>, tensor<2x6xf32>, tensor<2x6xf32>, tensor<6x4xf32>)
// CHECK-LABEL: func.func private @gqa_rank1(
// CHECK:         tfm.multi_head_attention {{.*}} {num_heads = 2 : i64, num_kv_heads = 1 : i64} : (tensor<1x2x6xf32>, tensor<1x2x6xf32>, tensor<1x2x6xf32>, tensor<2x6xf32>, tensor<1x6xf32>, tensor<1x6xf32>, tensor<6x2xf32>)
func.func @gqa(%x: tensor<1x2x6xf32>) -> tensor<1x2x6xf32> {
  %w = arith.constant dense<0.5> : tensor<6x6xf32>
  %wkv = arith.constant dense<0.5> : tensor<3x6xf32>
  // expected-warning @+1 {{splitting 3 key/value heads unevenly over 2 ranks: they hold 2 or 1 each}}
  %a = tfm.multi_head_attention %x, %x, %x weights(%w, %wkv, %wkv, %w) {num_heads = 6 : i64, num_kv_heads = 3 : i64}
      : (tensor<1x2x6xf32>, tensor<1x2x6xf32>, tensor<1x2x6xf32>, tensor<6x6xf32>, tensor<3x6xf32>, tensor<3x6xf32>, tensor<6x6xf32>) -> tensor<1x2x6xf32>
  return %a : tensor<1x2x6xf32>
}

// -----

// ONNX's chain with a fused Q/K/V product of 3 heads of 2: rank 0 keeps
// features 0-3 of each segment (the bias shows it), its slices and heads
// follow, and the output projection keeps the matching 4 of 6 input
// features; rank 1 keeps 4-5 of each.

// CHECK-LABEL: func.func private @chain_rank0(
// CHECK-DAG:     %[[B:.*]] = arith.constant dense<[0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00, 6.000000e+00, 7.000000e+00, 8.000000e+00, 9.000000e+00, 1.200000e+01, 1.300000e+01, 1.400000e+01, 1.500000e+01]> : tensor<12xf32>
// CHECK:         %[[QKV:.*]] = tfm.linear %{{.*}}, %{{.*}}, %[[B]] : {{.*}} -> tensor<1x4x12xf32>
// CHECK:         %[[Q:.*]] = tensor.extract_slice %[[QKV]][0, 0, 0] [1, 4, 4]
// CHECK:         tensor.extract_slice %[[QKV]][0, 0, 4] [1, 4, 4]
// CHECK:         tensor.extract_slice %[[QKV]][0, 0, 8] [1, 4, 4]
// CHECK:         tensor.expand_shape %[[Q]] {{\[}}[0], [1], [2, 3]] output_shape [1, 4, 2, 2] : tensor<1x4x4xf32> into tensor<1x4x2x2xf32>
// CHECK:         tfm.attention {{.*}} -> tensor<1x2x4x2xf32>
// CHECK:         tfm.linear {{.*}} : (tensor<1x4x4xf32>, tensor<6x4xf32>) -> tensor<1x4x6xf32>
// CHECK:         shard.all_reduce
// CHECK-LABEL: func.func private @chain_rank1(
// CHECK-DAG:     %[[B:.*]] = arith.constant dense<[4.000000e+00, 5.000000e+00, 1.000000e+01, 1.100000e+01, 1.600000e+01, 1.700000e+01]> : tensor<6xf32>
// CHECK:         %[[QKV:.*]] = tfm.linear %{{.*}}, %{{.*}}, %[[B]] : {{.*}} -> tensor<1x4x6xf32>
// CHECK:         %[[Q:.*]] = tensor.extract_slice %[[QKV]][0, 0, 0] [1, 4, 2]
// CHECK:         tensor.extract_slice %[[QKV]][0, 0, 2] [1, 4, 2]
// CHECK:         tensor.extract_slice %[[QKV]][0, 0, 4] [1, 4, 2]
// CHECK:         tensor.expand_shape %[[Q]] {{\[}}[0], [1], [2, 3]] output_shape [1, 4, 1, 2] : tensor<1x4x2xf32> into tensor<1x4x1x2xf32>
// CHECK:         tfm.attention {{.*}} -> tensor<1x1x4x2xf32>
// CHECK:         tfm.linear {{.*}} : (tensor<1x4x2xf32>, tensor<6x2xf32>) -> tensor<1x4x6xf32>
// CHECK:         shard.all_reduce
func.func @chain(%x: tensor<1x4x6xf32>) -> tensor<1x4x6xf32> {
  %wqkv = arith.constant dense<0.5> : tensor<18x6xf32>
  %bqkv = arith.constant dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0]> : tensor<18xf32>
  // expected-warning @+1 {{splitting 3 heads unevenly over 2 ranks: they hold 2 or 1 each}}
  %qkv = tfm.linear %x, %wqkv, %bqkv : (tensor<1x4x6xf32>, tensor<18x6xf32>, tensor<18xf32>) -> tensor<1x4x18xf32>
  %q = tensor.extract_slice %qkv[0, 0, 0] [1, 4, 6] [1, 1, 1] : tensor<1x4x18xf32> to tensor<1x4x6xf32>
  %k = tensor.extract_slice %qkv[0, 0, 6] [1, 4, 6] [1, 1, 1] : tensor<1x4x18xf32> to tensor<1x4x6xf32>
  %v = tensor.extract_slice %qkv[0, 0, 12] [1, 4, 6] [1, 1, 1] : tensor<1x4x18xf32> to tensor<1x4x6xf32>
  %q4 = tensor.expand_shape %q [[0], [1], [2, 3]] output_shape [1, 4, 3, 2] : tensor<1x4x6xf32> into tensor<1x4x3x2xf32>
  %k4 = tensor.expand_shape %k [[0], [1], [2, 3]] output_shape [1, 4, 3, 2] : tensor<1x4x6xf32> into tensor<1x4x3x2xf32>
  %v4 = tensor.expand_shape %v [[0], [1], [2, 3]] output_shape [1, 4, 3, 2] : tensor<1x4x6xf32> into tensor<1x4x3x2xf32>
  %e = tensor.empty() : tensor<1x3x4x2xf32>
  %qt = linalg.transpose ins(%q4 : tensor<1x4x3x2xf32>) outs(%e : tensor<1x3x4x2xf32>) permutation = [0, 2, 1, 3]
  %kt = linalg.transpose ins(%k4 : tensor<1x4x3x2xf32>) outs(%e : tensor<1x3x4x2xf32>) permutation = [0, 2, 1, 3]
  %vt = linalg.transpose ins(%v4 : tensor<1x4x3x2xf32>) outs(%e : tensor<1x3x4x2xf32>) permutation = [0, 2, 1, 3]
  %o = tfm.attention %qt, %kt, %vt : (tensor<1x3x4x2xf32>, tensor<1x3x4x2xf32>, tensor<1x3x4x2xf32>) -> tensor<1x3x4x2xf32>
  %e2 = tensor.empty() : tensor<1x4x3x2xf32>
  %ot = linalg.transpose ins(%o : tensor<1x3x4x2xf32>) outs(%e2 : tensor<1x4x3x2xf32>) permutation = [0, 2, 1, 3]
  %m = tensor.collapse_shape %ot [[0], [1], [2, 3]] : tensor<1x4x3x2xf32> into tensor<1x4x6xf32>
  %wo = arith.constant dense<0.125> : tensor<6x6xf32>
  %y = tfm.linear %m, %wo : (tensor<1x4x6xf32>, tensor<6x6xf32>) -> tensor<1x4x6xf32>
  %r = arith.addf %y, %x : tensor<1x4x6xf32>
  return %r : tensor<1x4x6xf32>
}
