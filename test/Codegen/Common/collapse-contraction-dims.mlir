// RUN: tfm-opt %s --tfm-collapse-contraction-dims -split-input-file | FileCheck %s

// A projection into heads, [2, 10, 32] x [32, 4, 8]: its two column
// dimensions are contiguous in the weight and the result, and become one of
// 32, which the micro-kernel takes; the result is expanded back.

// CHECK-LABEL: func.func @heads
//       CHECK:   %[[W:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2]] : tensor<32x4x8xf32> into tensor<32x32xf32>
//       CHECK:   %[[P:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "reduction"]{{.*}} ins(%{{.*}}, %[[W]] : tensor<2x10x32xf32>, tensor<32x32xf32>)
//       CHECK:   tensor.expand_shape %[[P]] {{\[}}[0], [1], [2, 3]] {{.*}} : tensor<2x10x32xf32> into tensor<2x10x4x8xf32>
func.func @heads(%x: tensor<2x10x32xf32>, %w: tensor<32x4x8xf32>,
                 %y: tensor<2x10x4x8xf32>) -> tensor<2x10x4x8xf32> {
  %0 = linalg.generic {
      indexing_maps = [affine_map<(b, s, h, d, k) -> (b, s, k)>,
                       affine_map<(b, s, h, d, k) -> (k, h, d)>,
                       affine_map<(b, s, h, d, k) -> (b, s, h, d)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<2x10x32xf32>, tensor<32x4x8xf32>) outs(%y : tensor<2x10x4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %c, %p : f32
    linalg.yield %s : f32
  } -> tensor<2x10x4x8xf32>
  return %0 : tensor<2x10x4x8xf32>
}

// -----

// Columns that the result lays out in another order than the weight
// ([K, H, D] into [.., D, H]) cannot be collapsed: left alone.

// CHECK-LABEL: func.func @swapped
//   CHECK-NOT:   tensor.collapse_shape
//       CHECK:   linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "reduction"]
func.func @swapped(%x: tensor<10x32xf32>, %w: tensor<32x4x8xf32>,
                   %y: tensor<10x8x4xf32>) -> tensor<10x8x4xf32> {
  %0 = linalg.generic {
      indexing_maps = [affine_map<(s, h, d, k) -> (s, k)>,
                       affine_map<(s, h, d, k) -> (k, h, d)>,
                       affine_map<(s, h, d, k) -> (s, d, h)>],
      iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<10x32xf32>, tensor<32x4x8xf32>) outs(%y : tensor<10x8x4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %c, %p : f32
    linalg.yield %s : f32
  } -> tensor<10x8x4xf32>
  return %0 : tensor<10x8x4xf32>
}
