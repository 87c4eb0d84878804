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
