// RUN: tfm-opt %s --tfm-allocate-fill-inits --cse -split-input-file | FileCheck %s

// Two layers' zero accumulators: equal fills of equal empties, which CSE
// alone would merge into one tensor that both products accumulate into
// (bufferization would then copy it for each). Each fills its own
// allocation instead, and CSE keeps both.

// CHECK-LABEL: func.func @two_accumulators
//       CHECK:   %[[A0:.*]] = bufferization.alloc_tensor() : tensor<4x8xf32>
//       CHECK:   %[[F0:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[A0]] : tensor<4x8xf32>)
//       CHECK:   linalg.matmul {{.*}} outs(%[[F0]] : tensor<4x8xf32>)
//       CHECK:   %[[A1:.*]] = bufferization.alloc_tensor() : tensor<4x8xf32>
//       CHECK:   %[[F1:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[A1]] : tensor<4x8xf32>)
//       CHECK:   linalg.matmul {{.*}} outs(%[[F1]] : tensor<4x8xf32>)
//   CHECK-NOT:   tensor.empty
func.func @two_accumulators(%a: tensor<4x16xf32>, %b: tensor<16x8xf32>,
                            %c: tensor<16x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<4x8xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<4x16xf32>, tensor<16x8xf32>)
      outs(%f0 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %e1 = tensor.empty() : tensor<4x8xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = linalg.matmul ins(%a, %c : tensor<4x16xf32>, tensor<16x8xf32>)
      outs(%f1 : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0, %1 : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// A static reshape of an empty (the [S, 1, D] accumulator of a linear on
// an exported nn.MultiheadAttention) is allocated in the fill's shape; an
// empty of dynamic shape keeps its sizes; a fill of anything else is left
// alone.

// CHECK-LABEL: func.func @shapes
//  CHECK-SAME:   %[[N:[^:]*]]: index, %[[T:[^:]*]]: tensor<3xf32>
//       CHECK:   %[[A:.*]] = bufferization.alloc_tensor() : tensor<6x1x4xf32>
//       CHECK:   linalg.fill {{.*}} outs(%[[A]] : tensor<6x1x4xf32>)
//       CHECK:   %[[D:.*]] = bufferization.alloc_tensor(%[[N]]) : tensor<?x4xf32>
//       CHECK:   linalg.fill {{.*}} outs(%[[D]] : tensor<?x4xf32>)
//       CHECK:   linalg.fill {{.*}} outs(%[[T]] : tensor<3xf32>)
//   CHECK-NOT:   tensor.expand_shape
func.func @shapes(%n: index, %t: tensor<3xf32>) -> (tensor<6x1x4xf32>, tensor<?x4xf32>, tensor<3xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<6x4xf32>
  %x = tensor.expand_shape %e [[0, 1], [2]] output_shape [6, 1, 4] : tensor<6x4xf32> into tensor<6x1x4xf32>
  %0 = linalg.fill ins(%zero : f32) outs(%x : tensor<6x1x4xf32>) -> tensor<6x1x4xf32>
  %d = tensor.empty(%n) : tensor<?x4xf32>
  %1 = linalg.fill ins(%zero : f32) outs(%d : tensor<?x4xf32>) -> tensor<?x4xf32>
  %2 = linalg.fill ins(%zero : f32) outs(%t : tensor<3xf32>) -> tensor<3xf32>
  return %0, %1, %2 : tensor<6x1x4xf32>, tensor<?x4xf32>, tensor<3xf32>
}
