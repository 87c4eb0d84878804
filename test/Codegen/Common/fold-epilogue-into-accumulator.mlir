// RUN: tfm-opt %s --tfm-fold-epilogue-into-accumulator --split-input-file | FileCheck %s

#bias = affine_map<(d0, d1) -> (d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>

// A Linear's bias and the block's residual, added after the product, start
// its accumulator instead: no pass over the product's result is left.

// CHECK-LABEL: func.func @bias_and_residual
//  CHECK-SAME:     (%[[X:[a-z0-9]+]]: tensor<8x4xf32>, %[[W:[a-z0-9]+]]: tensor<4x16xf32>, %[[B:[a-z0-9]+]]: tensor<16xf32>, %[[R:[a-z0-9]+]]: tensor<8x16xf32>)
//       CHECK:   %[[BUF:.*]] = tensor.empty() : tensor<8x16xf32>
//   CHECK-NOT:   linalg.fill
//       CHECK:   %[[INIT:.*]] = linalg.generic
//  CHECK-SAME:       ins(%[[B]], %[[R]] : tensor<16xf32>, tensor<8x16xf32>) outs(%[[BUF]] : tensor<8x16xf32>)
//       CHECK:   ^bb0(%[[BI:.*]]: f32, %[[RI:.*]]: f32, %{{.*}}: f32):
//       CHECK:     %[[SUM:.*]] = arith.addf %[[BI]], %[[RI]] : f32
//       CHECK:     linalg.yield %[[SUM]]
//       CHECK:   %[[Y:.*]] = linalg.matmul ins(%[[X]], %[[W]] : {{.*}}) outs(%[[INIT]] : tensor<8x16xf32>)
//   CHECK-NOT:   linalg.generic
//       CHECK:   return %[[Y]]
func.func @bias_and_residual(%x: tensor<8x4xf32>, %w: tensor<4x16xf32>, %b: tensor<16xf32>, %r: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %buf = tensor.empty() : tensor<8x16xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%buf : tensor<8x16xf32>) -> tensor<8x16xf32>
  %p = linalg.matmul ins(%x, %w : tensor<8x4xf32>, tensor<4x16xf32>) outs(%acc : tensor<8x16xf32>) -> tensor<8x16xf32>
  %out = tensor.empty() : tensor<8x16xf32>
  %y = linalg.generic {indexing_maps = [#id, #bias, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p, %b, %r : tensor<8x16xf32>, tensor<16xf32>, tensor<8x16xf32>) outs(%out : tensor<8x16xf32>) {
  ^bb0(%pi: f32, %bi: f32, %ri: f32, %o: f32):
    %0 = arith.addf %pi, %bi : f32
    %1 = arith.addf %0, %ri : f32
    linalg.yield %1 : f32
  } -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

// -----

#bias = affine_map<(d0, d1) -> (d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>

// What follows the additions (here a ReLU) stays an epilogue over the
// product alone; the bias (added on either side) moves into the
// accumulator. The product moves down to the epilogue, below the residual
// computed after it.

// CHECK-LABEL: func.func @activation_stays
//       CHECK:   %[[R:.*]] = arith.addf %arg3, %arg3 : tensor<8x16xf32>
//       CHECK:   %[[INIT:.*]] = linalg.generic {{.*}} ins(%arg2 : tensor<16xf32>)
//       CHECK:     linalg.yield
//       CHECK:   %[[P:.*]] = linalg.matmul {{.*}} outs(%[[INIT]] : tensor<8x16xf32>)
//       CHECK:   %[[Y:.*]] = linalg.generic {{.*}} ins(%[[P]] : tensor<8x16xf32>)
//       CHECK:   ^bb0(%[[PI:.*]]: f32, %{{.*}}: f32):
//       CHECK:     %[[RELU:.*]] = arith.maximumf %[[PI]], %{{.*}} : f32
//       CHECK:     linalg.yield %[[RELU]]
//       CHECK:   return %[[Y]], %[[R]]
func.func @activation_stays(%x: tensor<8x4xf32>, %w: tensor<4x16xf32>, %b: tensor<16xf32>, %s: tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %buf = tensor.empty() : tensor<8x16xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%buf : tensor<8x16xf32>) -> tensor<8x16xf32>
  %p = linalg.matmul ins(%x, %w : tensor<8x4xf32>, tensor<4x16xf32>) outs(%acc : tensor<8x16xf32>) -> tensor<8x16xf32>
  %r = arith.addf %s, %s : tensor<8x16xf32>
  %out = tensor.empty() : tensor<8x16xf32>
  %y = linalg.generic {indexing_maps = [#bias, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b, %p : tensor<16xf32>, tensor<8x16xf32>) outs(%out : tensor<8x16xf32>) {
  ^bb0(%bi: f32, %pi: f32, %o: f32):
    %0 = arith.addf %bi, %pi : f32
    %1 = arith.maximumf %0, %zero : f32
    linalg.yield %1 : f32
  } -> tensor<8x16xf32>
  return %y, %r : tensor<8x16xf32>, tensor<8x16xf32>
}

// -----

#bias = affine_map<(d0, d1) -> (d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
#t = affine_map<(d0, d1) -> (d1, d0)>

// Left alone: an accumulator that does not start from zero, a product read
// by another op too, a product read transposed, and an epilogue that
// multiplies before it adds.

// CHECK-LABEL: func.func @left_alone
//       CHECK:   linalg.fill
//       CHECK:   linalg.matmul
//       CHECK:   linalg.generic
//       CHECK:   linalg.fill
//       CHECK:   linalg.matmul
//       CHECK:   linalg.generic
//       CHECK:   linalg.fill
//       CHECK:   linalg.matmul
//       CHECK:   linalg.generic
//       CHECK:   linalg.fill
//       CHECK:   linalg.matmul
//       CHECK:   linalg.generic
func.func @left_alone(%x: tensor<8x8xf32>, %w: tensor<8x8xf32>, %b: tensor<8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %out = tensor.empty() : tensor<8x8xf32>
  %buf0 = tensor.empty() : tensor<8x8xf32>
  %acc0 = linalg.fill ins(%one : f32) outs(%buf0 : tensor<8x8xf32>) -> tensor<8x8xf32>
  %p0 = linalg.matmul ins(%x, %w : tensor<8x8xf32>, tensor<8x8xf32>) outs(%acc0 : tensor<8x8xf32>) -> tensor<8x8xf32>
  %y0 = linalg.generic {indexing_maps = [#id, #bias, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p0, %b : tensor<8x8xf32>, tensor<8xf32>) outs(%out : tensor<8x8xf32>) {
  ^bb0(%pi: f32, %bi: f32, %o: f32):
    %0 = arith.addf %pi, %bi : f32
    linalg.yield %0 : f32
  } -> tensor<8x8xf32>
  %buf1 = tensor.empty() : tensor<8x8xf32>
  %acc1 = linalg.fill ins(%zero : f32) outs(%buf1 : tensor<8x8xf32>) -> tensor<8x8xf32>
  %p1 = linalg.matmul ins(%x, %w : tensor<8x8xf32>, tensor<8x8xf32>) outs(%acc1 : tensor<8x8xf32>) -> tensor<8x8xf32>
  %y1 = linalg.generic {indexing_maps = [#id, #bias, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p1, %b : tensor<8x8xf32>, tensor<8xf32>) outs(%out : tensor<8x8xf32>) {
  ^bb0(%pi: f32, %bi: f32, %o: f32):
    %0 = arith.addf %pi, %bi : f32
    linalg.yield %0 : f32
  } -> tensor<8x8xf32>
  %buf2 = tensor.empty() : tensor<8x8xf32>
  %acc2 = linalg.fill ins(%zero : f32) outs(%buf2 : tensor<8x8xf32>) -> tensor<8x8xf32>
  %p2 = linalg.matmul ins(%x, %w : tensor<8x8xf32>, tensor<8x8xf32>) outs(%acc2 : tensor<8x8xf32>) -> tensor<8x8xf32>
  %y2 = linalg.generic {indexing_maps = [#t, #bias, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p2, %b : tensor<8x8xf32>, tensor<8xf32>) outs(%out : tensor<8x8xf32>) {
  ^bb0(%pi: f32, %bi: f32, %o: f32):
    %0 = arith.addf %pi, %bi : f32
    linalg.yield %0 : f32
  } -> tensor<8x8xf32>
  %buf3 = tensor.empty() : tensor<8x8xf32>
  %acc3 = linalg.fill ins(%zero : f32) outs(%buf3 : tensor<8x8xf32>) -> tensor<8x8xf32>
  %p3 = linalg.matmul ins(%x, %w : tensor<8x8xf32>, tensor<8x8xf32>) outs(%acc3 : tensor<8x8xf32>) -> tensor<8x8xf32>
  %y3 = linalg.generic {indexing_maps = [#id, #bias, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p3, %b : tensor<8x8xf32>, tensor<8xf32>) outs(%out : tensor<8x8xf32>) {
  ^bb0(%pi: f32, %bi: f32, %o: f32):
    %0 = arith.mulf %pi, %bi : f32
    %1 = arith.addf %0, %bi : f32
    linalg.yield %1 : f32
  } -> tensor<8x8xf32>
  return %y0, %y1, %p1, %y2, %y3 : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>
}
