// RUN: tfm-opt %s -split-input-file --tfm-tensor-parallel=ranks=2 | FileCheck %s
// RUN: tfm-opt %s -split-input-file --tfm-tensor-parallel=ranks=2 | tfm-opt -split-input-file > /dev/null

// Tests of tfm-tensor-parallel: Megatron-LM's split over a 1-D grid of two
// ranks. Each rank's clone holds its slices of the weights as constants
// (the values show which rows and columns), its blocks end in one
// shard.all_reduce each, and the entry calls its rank's clone.

// A multi-head attention (2 heads) and a feed-forward (6 hidden units):
// rank r keeps the rows of W_q, W_k, W_v and of their biases for head r,
// the columns of W_o that read them; rows r*3.. of W_1 and b_1 and the
// matching columns of W_2. b_o and b_2 stay on rank 0 (zeros on rank 1).

// CHECK:       module attributes {dlti.map = #dlti.map<"MPI:Implementation" = "OpenMPI">, tfm.tensor_parallel = 2 : i64}
// CHECK:       shard.grid @tfm_tp(shape = 2)
// CHECK-LABEL: func.func @blocks(
// CHECK-SAME:      %[[X:.*]]: tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
// CHECK:         %[[RANK:.*]] = shard.process_linear_index on @tfm_tp : index
// CHECK:         %[[Y:.*]] = scf.index_switch %[[RANK]] -> tensor<2x3x4xf32>
// CHECK-NEXT:    case 1 {
// CHECK-NEXT:      %[[R1:.*]] = func.call @blocks_rank1(%[[X]])
// CHECK-NEXT:      scf.yield %[[R1]]
// CHECK:         default {
// CHECK-NEXT:      %[[R0:.*]] = func.call @blocks_rank0(%[[X]])
// CHECK-NEXT:      scf.yield %[[R0]]
// CHECK:         return %[[Y]]

// CHECK-LABEL: func.func private @blocks_rank0(
// CHECK-DAG:     %[[WQ:.*]] = arith.constant dense<{{\[}}[0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00], [4.000000e+00, 5.000000e+00, 6.000000e+00, 7.000000e+00]]> : tensor<2x4xf32>
// CHECK-DAG:     %[[WO:.*]] = arith.constant dense<{{\[}}[0.000000e+00, 1.000000e+00], [4.000000e+00, 5.000000e+00], [8.000000e+00, 9.000000e+00], [1.200000e+01, 1.300000e+01]]> : tensor<4x2xf32>
// CHECK-DAG:     %[[BQ:.*]] = arith.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-DAG:     %[[BO:.*]] = arith.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>
// CHECK-DAG:     %[[W1:.*]] = arith.constant dense<5.000000e-01> : tensor<3x4xf32>
// CHECK-DAG:     %[[B1:.*]] = arith.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>
// CHECK-DAG:     %[[W2:.*]] = arith.constant dense<2.500000e-01> : tensor<4x3xf32>
// CHECK:         %[[A:.*]] = tfm.multi_head_attention %{{.*}}, %{{.*}}, %{{.*}} weights(%[[WQ]], %[[WQ]], %[[WQ]], %[[WO]]) biases(%[[BQ]], %[[BQ]], %[[BQ]], %[[BO]]) {num_heads = 1 : i64}
// CHECK-NEXT:    %[[AR:.*]] = shard.all_reduce %[[A]] on @tfm_tp grid_axes = [0] : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
// CHECK-NEXT:    %[[F:.*]] = tfm.ffn %[[AR]] dense1(%[[W1]], %[[B1]]) dense2(%[[W2]], %[[BO]])
// CHECK-NEXT:    %[[FR:.*]] = shard.all_reduce %[[F]] on @tfm_tp
// CHECK-NEXT:    return %[[FR]]

// CHECK-LABEL: func.func private @blocks_rank1(
// CHECK-DAG:     %[[WQ:.*]] = arith.constant dense<{{\[}}[8.000000e+00, 9.000000e+00, 1.000000e+01, 1.100000e+01], [1.200000e+01, 1.300000e+01, 1.400000e+01, 1.500000e+01]]> : tensor<2x4xf32>
// CHECK-DAG:     %[[WO:.*]] = arith.constant dense<{{\[}}[2.000000e+00, 3.000000e+00], [6.000000e+00, 7.000000e+00], [1.000000e+01, 1.100000e+01], [1.400000e+01, 1.500000e+01]]> : tensor<4x2xf32>
// CHECK-DAG:     %[[BQ:.*]] = arith.constant dense<[3.000000e+00, 4.000000e+00]> : tensor<2xf32>
// CHECK-DAG:     %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<4xf32>
// CHECK-DAG:     %[[B1:.*]] = arith.constant dense<[4.000000e+00, 5.000000e+00, 6.000000e+00]> : tensor<3xf32>
// CHECK:         tfm.multi_head_attention %{{.*}} weights(%[[WQ]], %[[WQ]], %[[WQ]], %[[WO]]) biases(%[[BQ]], %[[BQ]], %[[BQ]], %[[ZERO]]) {num_heads = 1 : i64}
// CHECK-NEXT:    shard.all_reduce
// CHECK-NEXT:    tfm.ffn %{{.*}} dense1(%{{.*}}, %[[B1]]) dense2(%{{.*}}, %[[ZERO]])
// CHECK-NEXT:    shard.all_reduce
func.func @blocks(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %w = arith.constant dense<[[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0], [12.0, 13.0, 14.0, 15.0]]> : tensor<4x4xf32>
  %b = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %a = tfm.multi_head_attention %x, %x, %x weights(%w, %w, %w, %w) biases(%b, %b, %b, %b) {num_heads = 2 : i64}
      : (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  %w1 = arith.constant dense<0.5> : tensor<6x4xf32>
  %b1 = arith.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]> : tensor<6xf32>
  %w2 = arith.constant dense<0.25> : tensor<4x6xf32>
  %f = tfm.ffn %a dense1(%w1, %b1) dense2(%w2, %b) : (tensor<2x3x4xf32>, tensor<6x4xf32>, tensor<6xf32>, tensor<4x6xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  return %f : tensor<2x3x4xf32>
}

// -----

// A chain of primitives as ONNX exports write it: one fused Q/K/V product
// cut by tensor.extract_slice, heads by reshape and transpose, the output
// projection, a residual and a classifier. Each rank keeps its part of each
// of the three segments (the bias shows it: 0-3, 10-13, 20-23 on rank 0),
// every op between the products works on 1 of the 2 heads, the output
// projection keeps 4 of 8 input features, and the residual and the
// classifier (whose output is returned) stay whole.

// CHECK-LABEL: func.func private @chain_rank0(
// CHECK-DAG:     %[[WQKV:.*]] = arith.constant dense<5.000000e-01> : tensor<12x8xf32>
// CHECK-DAG:     %[[BQKV:.*]] = arith.constant dense<[0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00, 1.000000e+01, 1.100000e+01, 1.200000e+01, 1.300000e+01, 2.000000e+01, 2.100000e+01, 2.200000e+01, 2.300000e+01]> : tensor<12xf32>
// CHECK:         %[[QKV:.*]] = tfm.linear %{{.*}}, %[[WQKV]], %[[BQKV]] : {{.*}} -> tensor<1x4x12xf32>
// CHECK:         %[[Q:.*]] = tensor.extract_slice %[[QKV]][0, 0, 0] [1, 4, 4] [1, 1, 1] : tensor<1x4x12xf32> to tensor<1x4x4xf32>
// CHECK:         tensor.extract_slice %[[QKV]][0, 0, 4] [1, 4, 4]
// CHECK:         tensor.extract_slice %[[QKV]][0, 0, 8] [1, 4, 4]
// CHECK:         tensor.expand_shape %[[Q]] {{\[}}[0], [1], [2, 3]] output_shape [1, 4, 1, 4] : tensor<1x4x4xf32> into tensor<1x4x1x4xf32>
// CHECK:         tfm.attention {{.*}} : (tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
// CHECK:         %[[M:.*]] = tensor.collapse_shape %{{.*}} : tensor<1x4x1x4xf32> into tensor<1x4x4xf32>
// CHECK:         %[[Y:.*]] = tfm.linear %[[M]], %{{.*}}, %{{.*}} : (tensor<1x4x4xf32>, tensor<8x4xf32>, tensor<8xf32>) -> tensor<1x4x8xf32>
// CHECK:         %[[S:.*]] = shard.all_reduce %[[Y]] on @tfm_tp grid_axes = [0] : tensor<1x4x8xf32> -> tensor<1x4x8xf32>
// CHECK:         %[[R:.*]] = arith.addf %[[S]], %{{.*}} : tensor<1x4x8xf32>
// CHECK:         tfm.linear %[[R]], %{{.*}} : (tensor<1x4x8xf32>, tensor<3x8xf32>) -> tensor<1x4x3xf32>
// CHECK-NOT:     shard.all_reduce
// CHECK-LABEL: func.func private @chain_rank1(
// CHECK:         arith.constant dense<[4.000000e+00, 5.000000e+00, 6.000000e+00, 7.000000e+00, 1.400000e+01, 1.500000e+01, 1.600000e+01, 1.700000e+01, 2.400000e+01, 2.500000e+01, 2.600000e+01, 2.700000e+01]> : tensor<12xf32>
// CHECK-COUNT-1: shard.all_reduce
// CHECK-NOT:     shard.all_reduce
func.func @chain(%x: tensor<1x4x8xf32>) -> (tensor<1x4x8xf32>, tensor<1x4x3xf32>) {
  %wqkv = arith.constant dense<0.5> : tensor<24x8xf32>
  %bqkv = arith.constant dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0]> : tensor<24xf32>
  %qkv = tfm.linear %x, %wqkv, %bqkv : (tensor<1x4x8xf32>, tensor<24x8xf32>, tensor<24xf32>) -> tensor<1x4x24xf32>
  %q = tensor.extract_slice %qkv[0, 0, 0] [1, 4, 8] [1, 1, 1] : tensor<1x4x24xf32> to tensor<1x4x8xf32>
  %k = tensor.extract_slice %qkv[0, 0, 8] [1, 4, 8] [1, 1, 1] : tensor<1x4x24xf32> to tensor<1x4x8xf32>
  %v = tensor.extract_slice %qkv[0, 0, 16] [1, 4, 8] [1, 1, 1] : tensor<1x4x24xf32> to tensor<1x4x8xf32>
  %q4 = tensor.expand_shape %q [[0], [1], [2, 3]] output_shape [1, 4, 2, 4] : tensor<1x4x8xf32> into tensor<1x4x2x4xf32>
  %k4 = tensor.expand_shape %k [[0], [1], [2, 3]] output_shape [1, 4, 2, 4] : tensor<1x4x8xf32> into tensor<1x4x2x4xf32>
  %v4 = tensor.expand_shape %v [[0], [1], [2, 3]] output_shape [1, 4, 2, 4] : tensor<1x4x8xf32> into tensor<1x4x2x4xf32>
  %e = tensor.empty() : tensor<1x2x4x4xf32>
  %qt = linalg.transpose ins(%q4 : tensor<1x4x2x4xf32>) outs(%e : tensor<1x2x4x4xf32>) permutation = [0, 2, 1, 3]
  %kt = linalg.transpose ins(%k4 : tensor<1x4x2x4xf32>) outs(%e : tensor<1x2x4x4xf32>) permutation = [0, 2, 1, 3]
  %vt = linalg.transpose ins(%v4 : tensor<1x4x2x4xf32>) outs(%e : tensor<1x2x4x4xf32>) permutation = [0, 2, 1, 3]
  %o = tfm.attention %qt, %kt, %vt {causal} : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %e2 = tensor.empty() : tensor<1x4x2x4xf32>
  %ot = linalg.transpose ins(%o : tensor<1x2x4x4xf32>) outs(%e2 : tensor<1x4x2x4xf32>) permutation = [0, 2, 1, 3]
  %m = tensor.collapse_shape %ot [[0], [1], [2, 3]] : tensor<1x4x2x4xf32> into tensor<1x4x8xf32>
  %wo = arith.constant dense<0.125> : tensor<8x8xf32>
  %bo = arith.constant dense<1.0> : tensor<8xf32>
  %y = tfm.linear %m, %wo, %bo : (tensor<1x4x8xf32>, tensor<8x8xf32>, tensor<8xf32>) -> tensor<1x4x8xf32>
  %r = arith.addf %y, %x : tensor<1x4x8xf32>
  %wh = arith.constant dense<0.125> : tensor<3x8xf32>
  %h = tfm.linear %r, %wh : (tensor<1x4x8xf32>, tensor<3x8xf32>) -> tensor<1x4x3xf32>
  return %r, %h : tensor<1x4x8xf32>, tensor<1x4x3xf32>
}

// -----

// PyTorch's nn.MultiheadAttention as torch.onnx.export writes it: sequence
// first, and the heads merged with the batch ([S, B * H, Dh]): rank r's
// heads recur once per batch, and the reshapes and transposes between the
// products carry them there and back.

// CHECK-LABEL: func.func private @merged_heads_rank0(
// CHECK:         tfm.linear {{.*}} -> tensor<8x2x48xf32>
// CHECK:         tensor.collapse_shape {{.*}} : tensor<8x2x16xf32> into tensor<8x32xf32>
// CHECK:         tensor.expand_shape {{.*}} output_shape [8, 4, 8] : tensor<8x32xf32> into tensor<8x4x8xf32>
// CHECK:         tfm.attention {{.*}} -> tensor<4x8x8xf32>
// CHECK:         tensor.collapse_shape {{.*}} : tensor<8x4x8xf32> into tensor<256xf32>
// CHECK:         tensor.expand_shape {{.*}} output_shape [16, 16] : tensor<256xf32> into tensor<16x16xf32>
// CHECK:         %[[P:.*]] = tfm.linear {{.*}} : (tensor<16x16xf32>, tensor<32x16xf32>, tensor<32xf32>) -> tensor<16x32xf32>
// CHECK:         shard.all_reduce %[[P]]
func.func @merged_heads(%x: tensor<8x2x32xf32>) -> tensor<16x32xf32> {
  %w = arith.constant dense<0.5> : tensor<96x32xf32>
  %b = arith.constant dense<0.0> : tensor<96xf32>
  %qkv = tfm.linear %x, %w, %b : (tensor<8x2x32xf32>, tensor<96x32xf32>, tensor<96xf32>) -> tensor<8x2x96xf32>
  %q = tensor.extract_slice %qkv[0, 0, 0] [8, 2, 32] [1, 1, 1] : tensor<8x2x96xf32> to tensor<8x2x32xf32>
  %k = tensor.extract_slice %qkv[0, 0, 32] [8, 2, 32] [1, 1, 1] : tensor<8x2x96xf32> to tensor<8x2x32xf32>
  %v = tensor.extract_slice %qkv[0, 0, 64] [8, 2, 32] [1, 1, 1] : tensor<8x2x96xf32> to tensor<8x2x32xf32>
  %qc = tensor.collapse_shape %q [[0], [1, 2]] : tensor<8x2x32xf32> into tensor<8x64xf32>
  %qe = tensor.expand_shape %qc [[0], [1, 2]] output_shape [8, 8, 8] : tensor<8x64xf32> into tensor<8x8x8xf32>
  %kc = tensor.collapse_shape %k [[0], [1, 2]] : tensor<8x2x32xf32> into tensor<8x64xf32>
  %ke = tensor.expand_shape %kc [[0], [1, 2]] output_shape [8, 8, 8] : tensor<8x64xf32> into tensor<8x8x8xf32>
  %vc = tensor.collapse_shape %v [[0], [1, 2]] : tensor<8x2x32xf32> into tensor<8x64xf32>
  %ve = tensor.expand_shape %vc [[0], [1, 2]] output_shape [8, 8, 8] : tensor<8x64xf32> into tensor<8x8x8xf32>
  %e = tensor.empty() : tensor<8x8x8xf32>
  %qt = linalg.transpose ins(%qe : tensor<8x8x8xf32>) outs(%e : tensor<8x8x8xf32>) permutation = [1, 0, 2]
  %kt = linalg.transpose ins(%ke : tensor<8x8x8xf32>) outs(%e : tensor<8x8x8xf32>) permutation = [1, 0, 2]
  %vt = linalg.transpose ins(%ve : tensor<8x8x8xf32>) outs(%e : tensor<8x8x8xf32>) permutation = [1, 0, 2]
  %o = tfm.attention %qt, %kt, %vt : (tensor<8x8x8xf32>, tensor<8x8x8xf32>, tensor<8x8x8xf32>) -> tensor<8x8x8xf32>
  %ot = linalg.transpose ins(%o : tensor<8x8x8xf32>) outs(%e : tensor<8x8x8xf32>) permutation = [1, 0, 2]
  %flat = tensor.collapse_shape %ot [[0, 1, 2]] : tensor<8x8x8xf32> into tensor<512xf32>
  %rows = tensor.expand_shape %flat [[0, 1]] output_shape [16, 32] : tensor<512xf32> into tensor<16x32xf32>
  %wo = arith.constant dense<0.25> : tensor<32x32xf32>
  %bo = arith.constant dense<0.0> : tensor<32xf32>
  %y = tfm.linear %rows, %wo, %bo : (tensor<16x32xf32>, tensor<32x32xf32>, tensor<32xf32>) -> tensor<16x32xf32>
  return %y : tensor<16x32xf32>
}

// -----

// A decoding step over a key/value cache, of any batch: the cache is the
// entry's argument, whole on every rank ([B, heads, positions, head_dim]);
// each rank appends its head's keys to its part of it, reads that part's
// prefix, and writes the part back where it came from, after the last
// read, so that bufferization updates the caller's cache in place. The
// clones keep which result is the updated cache.

// CHECK-LABEL: func.func @decode(
//  CHECK-SAME:     -> (tensor<?x1x8xf32>, tensor<?x2x16x4xf32> {tfm.kv_cache = 1 : i64})
// CHECK-LABEL: func.func private @decode_rank1(
//  CHECK-SAME:     -> (tensor<?x1x8xf32>, tensor<?x2x16x4xf32> {tfm.kv_cache = 1 : i64})
//       CHECK:   %[[MINE:.*]] = tensor.extract_slice %arg1[0, 1, 0, 0] [%{{.*}}, 1, 16, 4] [1, 1, 1, 1] : tensor<?x2x16x4xf32> to tensor<?x1x16x4xf32>
//       CHECK:   %[[UPDATED:.*]], %[[KEYS:.*]] = tfm.kv_cache_append %[[MINE]], %{{.*}} at %{{.*}} : tensor<?x1x16x4xf32>, tensor<?x1x1x4xf32> -> tensor<?x1x16x4xf32>, tensor<?x1x?x4xf32>
//       CHECK:   tfm.attention %{{.*}}, %[[KEYS]], %[[KEYS]] query_offset(%{{.*}}) {causal} : (tensor<?x1x1x4xf32>, tensor<?x1x?x4xf32>, tensor<?x1x?x4xf32>, index) -> tensor<?x1x1x4xf32>
//       CHECK:   %[[Y:.*]] = tfm.linear {{.*}} : (tensor<?x1x4xf32>, tensor<8x4xf32>) -> tensor<?x1x8xf32>
//       CHECK:   %[[SUM:.*]] = shard.all_reduce %[[Y]]
//       CHECK:   %[[BACK:.*]] = tensor.insert_slice %[[UPDATED]] into %arg1[0, 1, 0, 0] [%{{.*}}, 1, 16, 4] [1, 1, 1, 1] : tensor<?x1x16x4xf32> into tensor<?x2x16x4xf32>
//  CHECK-NEXT:   return %[[SUM]], %[[BACK]]
func.func @decode(%x: tensor<?x1x8xf32>, %cache: tensor<?x2x16x4xf32>, %pos: index)
    -> (tensor<?x1x8xf32>, tensor<?x2x16x4xf32> {tfm.kv_cache = 1 : i64}) {
  %c0 = arith.constant 0 : index
  %b = tensor.dim %x, %c0 : tensor<?x1x8xf32>
  %w = arith.constant dense<0.5> : tensor<8x8xf32>
  %q = tfm.linear %x, %w : (tensor<?x1x8xf32>, tensor<8x8xf32>) -> tensor<?x1x8xf32>
  %k = tfm.linear %x, %w : (tensor<?x1x8xf32>, tensor<8x8xf32>) -> tensor<?x1x8xf32>
  %q4 = tensor.expand_shape %q [[0], [1], [2, 3]] output_shape [%b, 1, 2, 4] : tensor<?x1x8xf32> into tensor<?x1x2x4xf32>
  %k4 = tensor.expand_shape %k [[0], [1], [2, 3]] output_shape [%b, 1, 2, 4] : tensor<?x1x8xf32> into tensor<?x1x2x4xf32>
  %e = tensor.empty(%b) : tensor<?x2x1x4xf32>
  %qt = linalg.transpose ins(%q4 : tensor<?x1x2x4xf32>) outs(%e : tensor<?x2x1x4xf32>) permutation = [0, 2, 1, 3]
  %kt = linalg.transpose ins(%k4 : tensor<?x1x2x4xf32>) outs(%e : tensor<?x2x1x4xf32>) permutation = [0, 2, 1, 3]
  %updated, %keys = tfm.kv_cache_append %cache, %kt at %pos : tensor<?x2x16x4xf32>, tensor<?x2x1x4xf32> -> tensor<?x2x16x4xf32>, tensor<?x2x?x4xf32>
  %o = tfm.attention %qt, %keys, %keys query_offset(%pos) {causal} : (tensor<?x2x1x4xf32>, tensor<?x2x?x4xf32>, tensor<?x2x?x4xf32>, index) -> tensor<?x2x1x4xf32>
  %e2 = tensor.empty(%b) : tensor<?x1x2x4xf32>
  %ot = linalg.transpose ins(%o : tensor<?x2x1x4xf32>) outs(%e2 : tensor<?x1x2x4xf32>) permutation = [0, 2, 1, 3]
  %m = tensor.collapse_shape %ot [[0], [1], [2, 3]] : tensor<?x1x2x4xf32> into tensor<?x1x8xf32>
  %y = tfm.linear %m, %w : (tensor<?x1x8xf32>, tensor<8x8xf32>) -> tensor<?x1x8xf32>
  return %y, %updated : tensor<?x1x8xf32>, tensor<?x2x16x4xf32>
}
