// RUN: tfm-opt %s --tfm-collapse-contraction-dims -split-input-file | FileCheck %s

// A projection into heads, [2, 10, 32] x [32, 4, 8]: its two column
// dimensions are contiguous in the weight and the result, and become one of
// 32, which the micro-kernel takes; its two row dimensions, contiguous in
// the input and the result, become one of 20. The result is expanded back.

// CHECK-LABEL: func.func @heads
//       CHECK:   %[[X:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2]] : tensor<2x10x32xf32> into tensor<20x32xf32>
//       CHECK:   %[[W:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2]] : tensor<32x4x8xf32> into tensor<32x32xf32>
//       CHECK:   %[[P:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]{{.*}} ins(%[[X]], %[[W]] : tensor<20x32xf32>, tensor<32x32xf32>)
//       CHECK:   tensor.expand_shape %[[P]] {{\[}}[0, 1], [2, 3]] {{.*}} : tensor<20x32xf32> into tensor<2x10x4x8xf32>
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

// -----

// The in-projection of an exported nn.MultiheadAttention on PyTorch's
// [S, B, D] layout: rows [128, 8] become one of 1024, so that the weight is
// read once per row block rather than once for every 8 rows.

// CHECK-LABEL: func.func @sequence_first
//       CHECK:   %[[X:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2]] : tensor<128x8x64xf32> into tensor<1024x64xf32>
//       CHECK:   %[[P:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]{{.*}} ins(%[[X]], %{{.*}} : tensor<1024x64xf32>, tensor<64x96xf32>)
//       CHECK:   tensor.expand_shape %[[P]] {{\[}}[0, 1], [2]] {{.*}} : tensor<1024x96xf32> into tensor<128x8x96xf32>
func.func @sequence_first(%x: tensor<128x8x64xf32>, %w: tensor<64x96xf32>,
                          %y: tensor<128x8x96xf32>) -> tensor<128x8x96xf32> {
  %0 = linalg.generic {
      indexing_maps = [affine_map<(s, b, n, k) -> (s, b, k)>,
                       affine_map<(s, b, n, k) -> (k, n)>,
                       affine_map<(s, b, n, k) -> (s, b, n)>],
      iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<128x8x64xf32>, tensor<64x96xf32>) outs(%y : tensor<128x8x96xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %c, %p : f32
    linalg.yield %s : f32
  } -> tensor<128x8x96xf32>
  return %0 : tensor<128x8x96xf32>
}

// -----

// Rows that the result lays out in another order than the input ([S, B]
// into [B, S]) cannot be collapsed: left alone.

// CHECK-LABEL: func.func @rows_swapped
//   CHECK-NOT:   tensor.collapse_shape
//       CHECK:   linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "reduction"]
func.func @rows_swapped(%x: tensor<16x8x64xf32>, %w: tensor<64x96xf32>,
                        %y: tensor<8x16x96xf32>) -> tensor<8x16x96xf32> {
  %0 = linalg.generic {
      indexing_maps = [affine_map<(s, b, n, k) -> (s, b, k)>,
                       affine_map<(s, b, n, k) -> (k, n)>,
                       affine_map<(s, b, n, k) -> (b, s, n)>],
      iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<16x8x64xf32>, tensor<64x96xf32>) outs(%y : tensor<8x16x96xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %c, %p : f32
    linalg.yield %s : f32
  } -> tensor<8x16x96xf32>
  return %0 : tensor<8x16x96xf32>
}

// -----

// Swin's FC1 on its [56, 56, 96] image of tokens: the product's rows become
// one dimension, and so do the op that computes its accumulator (a
// broadcast bias) and its activation (here a ReLU), which then compute and
// read the product's own [3136, 384] tensors: the micro-kernel's register
// tiles can take them in. Only the final result is expanded back.

// CHECK-LABEL: func.func @epilogues
//  CHECK-SAME:     %[[X:[^:]*]]: tensor<56x56x96xf32>
//       CHECK:   %[[BIAS:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]} ins(%{{.*}} : tensor<384xf32>) outs(%{{.*}} : tensor<3136x384xf32>)
//       CHECK:   %[[ROWS:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1], [2]] : tensor<56x56x96xf32> into tensor<3136x96xf32>
//       CHECK:   %[[P:.*]] = linalg.generic {{.*}} ins(%[[ROWS]], %{{.*}} : tensor<3136x96xf32>, tensor<96x384xf32>) outs(%[[BIAS]] : tensor<3136x384xf32>)
//       CHECK:   %[[A:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]} ins(%[[P]] : tensor<3136x384xf32>)
//       CHECK:   %[[Y:.*]] = tensor.expand_shape %[[A]] {{\[}}[0, 1], [2]] {{.*}} : tensor<3136x384xf32> into tensor<56x56x384xf32>
//       CHECK:   return %[[Y]]
func.func @epilogues(%x: tensor<56x56x96xf32>, %w: tensor<96x384xf32>,
                     %b: tensor<384xf32>) -> tensor<56x56x384xf32> {
  %empty = tensor.empty() : tensor<56x56x384xf32>
  %acc = linalg.generic {
      indexing_maps = [affine_map<(i, j, n) -> (n)>,
                       affine_map<(i, j, n) -> (i, j, n)>],
      iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%b : tensor<384xf32>) outs(%empty : tensor<56x56x384xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<56x56x384xf32>
  %p = linalg.generic {
      indexing_maps = [affine_map<(i, j, n, k) -> (i, j, k)>,
                       affine_map<(i, j, n, k) -> (k, n)>,
                       affine_map<(i, j, n, k) -> (i, j, n)>],
      iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<56x56x96xf32>, tensor<96x384xf32>) outs(%acc : tensor<56x56x384xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %m = arith.mulf %a, %c : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<56x56x384xf32>
  %zero = arith.constant 0.0 : f32
  %y = linalg.generic {
      indexing_maps = [affine_map<(i, j, n) -> (i, j, n)>,
                       affine_map<(i, j, n) -> (i, j, n)>],
      iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%p : tensor<56x56x384xf32>) outs(%empty : tensor<56x56x384xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  } -> tensor<56x56x384xf32>
  return %y : tensor<56x56x384xf32>
}
