// RUN: tfm-opt %s --tfm-fuse-elementwise -split-input-file | FileCheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>

// Two elementwise generics become one.

// CHECK-LABEL: func.func @chain
//       CHECK:   linalg.generic
//       CHECK:     arith.mulf
//       CHECK:     arith.addf
//   CHECK-NOT:   linalg.generic
func.func @chain(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %a : f32
    linalg.yield %m : f32
  } -> tensor<4x8xf32>
  %1 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%0, %y : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// Nothing is fused into a contraction: the matmul would recompute the
// producer once per output column.

// CHECK-LABEL: func.func @into_matmul
//       CHECK:   %[[P:.*]] = linalg.generic
//       CHECK:     arith.mulf
//       CHECK:   linalg.matmul ins(%[[P]], %{{.*}} : tensor<4x8xf32>, tensor<8x16xf32>)
func.func @into_matmul(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>, %c: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %a : f32
    linalg.yield %m : f32
  } -> tensor<4x8xf32>
  %1 = linalg.matmul ins(%0, %w : tensor<4x8xf32>, tensor<8x16xf32>) outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %1 : tensor<4x16xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// A producer with two users is not duplicated.

// CHECK-LABEL: func.func @two_users
//   CHECK-COUNT-3:   linalg.generic
func.func @two_users(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %e = tensor.empty() : tensor<4x8xf32>
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %a : f32
    linalg.yield %m : f32
  } -> tensor<4x8xf32>
  %1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%0 : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %a : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  %2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%0 : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.subf %a, %a : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  return %1, %2 : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// A row's statistic read broadcast by each element of the row (LayerNorm's
// 1 / sqrt(var + eps)) is not fused into its reader, which would compute
// it once an element instead of once a row.

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#vec = affine_map<(d0) -> (d0)>

// CHECK-LABEL: func.func @row_statistic
//       CHECK:   %[[R:.*]] = linalg.generic
//       CHECK:     math.sqrt
//       CHECK:   linalg.generic {{.*}} ins(%{{.*}}, %[[R]] : tensor<4x8xf32>, tensor<4xf32>)
//   CHECK-NOT:     math.sqrt
//       CHECK:     arith.mulf
func.func @row_statistic(%x: tensor<4x8xf32>, %var: tensor<4xf32>) -> tensor<4x8xf32> {
  %er = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [#vec, #vec], iterator_types = ["parallel"]} ins(%var : tensor<4xf32>) outs(%er : tensor<4xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = math.sqrt %v : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %e = tensor.empty() : tensor<4x8xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %r : tensor<4x8xf32>, tensor<4xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
