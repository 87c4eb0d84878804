// RUN: tfm-opt %s --tfm-cpu-vectorize -split-input-file | FileCheck %s

// A matmul with a row-major right operand is split into parallel column
// panels (an scf.forall over 768 / 128 = 6 panels), each tiled into 8x32
// register tiles with a peeled remainder of 5 rows, and a reduction loop of
// step 1 around a vector multiply-add of the register tile.

// CHECK-LABEL: func.func @matmul
// CHECK: scf.forall (%{{.*}}) = (0) to (768) step (128)
// CHECK:   scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c32
// CHECK:     scf.for %{{.*}} = %{{.*}} to %c192 step %c8
// CHECK:       scf.for %{{.*}} = %{{.*}} to %c64 step %c1 {{.*}} -> (tensor<8x32xf32>)
// CHECK:         vector.transfer_read {{.*}} : tensor<1x32xf32>, vector<8x32x1xf32>
// CHECK:         arith.mulf {{.*}} : vector<8x32x1xf32>
// CHECK:     scf.for %{{.*}} = %{{.*}} to %c64 step %c1 {{.*}} -> (tensor<5x32xf32>)
// CHECK:       vector.transfer_read {{.*}} : tensor<1x32xf32>, vector<5x32x1xf32>
// CHECK-NOT: linalg.matmul
func.func @matmul(%a: tensor<197x64xf32>, %b: tensor<64x768xf32>,
                  %c: tensor<197x768xf32>) -> tensor<197x768xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<197x64xf32>, tensor<64x768xf32>)
      outs(%c : tensor<197x768xf32>) -> tensor<197x768xf32>
  return %0 : tensor<197x768xf32>
}

// -----

// linalg.softmax is decomposed into its reductions and elementwise ops,
// which are vectorized like any other linalg op.

// CHECK-LABEL: func.func @softmax
// CHECK-NOT: linalg.softmax
// CHECK: vector.multi_reduction <maxnumf>
// CHECK: math.exp {{.*}} : vector<1x16xf32>
// CHECK: vector.multi_reduction <add>
// CHECK: arith.divf {{.*}} : vector<1x16xf32>
func.func @softmax(%x: tensor<3x21xf32>) -> tensor<3x21xf32> {
  %e = tensor.empty() : tensor<3x21xf32>
  %s = linalg.softmax dimension(1) ins(%x : tensor<3x21xf32>)
      outs(%e : tensor<3x21xf32>) -> tensor<3x21xf32>
  return %s : tensor<3x21xf32>
}

// -----

// A linear on a [B, S, K] input whose reshape was folded into the product
// (two m dimensions) still takes the micro-kernel: the outer m dimension is
// iterated like a batch.

// CHECK-LABEL: func.func @matmul_two_m_dims
// CHECK: scf.forall (%{{.*}}) = (0) to (64) step (32)
// CHECK:       scf.for %{{.*}} = %{{.*}} to %c16 step %c1 {{.*}} -> (tensor<1x8x32xf32>)
// CHECK-NOT: vector.multi_reduction <add>, {{.*}} : vector<1x1x1x16xf32>
func.func @matmul_two_m_dims(%x: tensor<1x9x16xf32>, %w: tensor<16x64xf32>,
                             %y: tensor<1x9x64xf32>) -> tensor<1x9x64xf32> {
  %0 = linalg.generic {
      indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>,
                       affine_map<(b, m, n, k) -> (k, n)>,
                       affine_map<(b, m, n, k) -> (b, m, n)>],
      iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<1x9x16xf32>, tensor<16x64xf32>)
      outs(%y : tensor<1x9x64xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %c, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x9x64xf32>
  return %0 : tensor<1x9x64xf32>
}

// -----

// A batched matmul runs its batches in parallel.

// CHECK-LABEL: func.func @batch_matmul
// CHECK: scf.forall (%{{.*}}) in (12)
// CHECK:   scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c1 {{.*}} -> (tensor<1x8x32xf32>)
func.func @batch_matmul(%a: tensor<12x16x64xf32>, %b: tensor<12x64x32xf32>,
                        %c: tensor<12x16x32xf32>) -> tensor<12x16x32xf32> {
  %0 = linalg.batch_matmul ins(%a, %b : tensor<12x16x64xf32>, tensor<12x64x32xf32>)
      outs(%c : tensor<12x16x32xf32>) -> tensor<12x16x32xf32>
  return %0 : tensor<12x16x32xf32>
}
