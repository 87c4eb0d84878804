// RUN: tfm-opt %s --pass-pipeline="builtin.module(func.func(tfm-gpu-tile-contractions))" --split-input-file | FileCheck %s

// A matmul becomes a forall over 32 x 32 tiles of its output; the partial
// tiles at the edges have dynamic sizes.

// CHECK-LABEL: func.func @matmul(
// CHECK:         scf.forall (%[[I:.*]], %[[J:.*]]) = (0, 0) to (64, 80) step (32, 32) shared_outs(%[[OUT:.*]] = %{{.*}}) -> (tensor<64x80xf32>) {
// CHECK:           %[[COLS:.*]] = affine.min
// CHECK:           %[[A:.*]] = tensor.extract_slice %{{.*}}[%[[I]], 0] [32, 96] [1, 1]
// CHECK:           %[[B:.*]] = tensor.extract_slice %{{.*}}[0, %[[J]]] [96, %[[COLS]]] [1, 1]
// CHECK:           %[[C:.*]] = tensor.extract_slice %[[OUT]][%[[I]], %[[J]]] [32, %[[COLS]]] [1, 1]
// CHECK:           linalg.matmul ins(%[[A]], %[[B]] : tensor<32x96xf32>, tensor<96x?xf32>) outs(%[[C]] : tensor<32x?xf32>)
// CHECK:           tensor.parallel_insert_slice
func.func @matmul(%a: tensor<64x96xf32>, %b: tensor<96x80xf32>, %c: tensor<64x80xf32>) -> tensor<64x80xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<64x96xf32>, tensor<96x80xf32>) outs(%c : tensor<64x80xf32>) -> tensor<64x80xf32>
  return %0 : tensor<64x80xf32>
}

// -----

// A batched matmul: one batch element and one output tile per iteration.

// CHECK-LABEL: func.func @batch_matmul(
// CHECK:         scf.forall (%{{.*}}, %{{.*}}, %{{.*}}) = (0, 0, 0) to (8, 64, 64) step (1, 32, 32)
// CHECK:           linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<1x32x16xf32>, tensor<1x16x32xf32>) outs(%{{.*}} : tensor<1x32x32xf32>)
func.func @batch_matmul(%a: tensor<8x64x16xf32>, %b: tensor<8x16x64xf32>, %c: tensor<8x64x64xf32>) -> tensor<8x64x64xf32> {
  %0 = linalg.batch_matmul ins(%a, %b : tensor<8x64x16xf32>, tensor<8x16x64xf32>) outs(%c : tensor<8x64x64xf32>) -> tensor<8x64x64xf32>
  return %0 : tensor<8x64x64xf32>
}

// -----

// Two batch dimensions would need a fourth grid dimension: left alone, as
// are ops that are not contractions.

// CHECK-LABEL: func.func @two_batch_dims(
// CHECK-NOT:     scf.forall
// CHECK:         linalg.generic
// CHECK-NOT:     scf.forall
func.func @two_batch_dims(%a: tensor<2x4x8x16xf32>, %b: tensor<2x4x16x8xf32>, %c: tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(b, h, m, n, k) -> (b, h, m, k)>, affine_map<(b, h, m, n, k) -> (b, h, k, n)>, affine_map<(b, h, m, n, k) -> (b, h, m, n)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%a, %b : tensor<2x4x8x16xf32>, tensor<2x4x16x8xf32>) outs(%c : tensor<2x4x8x8xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x4x8x8xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(b, h, m, n) -> (b, h, m, n)>, affine_map<(b, h, m, n) -> (b, h, m, n)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%0 : tensor<2x4x8x8xf32>) outs(%c : tensor<2x4x8x8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %e = math.exp %x : f32
    linalg.yield %e : f32
  } -> tensor<2x4x8x8xf32>
  return %1 : tensor<2x4x8x8xf32>
}
