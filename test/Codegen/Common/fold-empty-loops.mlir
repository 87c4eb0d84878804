// RUN: tfm-opt %s --tfm-fold-empty-loops -split-input-file | FileCheck %s

// A product whose reduction has length 0 is its accumulator: the fill of
// zeros, returned as it is.

// CHECK-LABEL: func.func @empty_reduction
//  CHECK-SAME:   (%[[A:.*]]: tensor<2x0xf32>, %[[B:.*]]: tensor<0x3xf32>)
//       CHECK:   %[[ZERO:.*]] = arith.constant 0.0
//       CHECK:   %[[FILL:.*]] = linalg.fill ins(%[[ZERO]] : f32)
//   CHECK-NOT:   linalg.matmul
//       CHECK:   return %[[FILL]]
func.func @empty_reduction(%a: tensor<2x0xf32>, %b: tensor<0x3xf32>) -> tensor<2x3xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x3xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2x3xf32>) -> tensor<2x3xf32>
  %r = linalg.matmul ins(%a, %b : tensor<2x0xf32>, tensor<0x3xf32>) outs(%init : tensor<2x3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// An elementwise op over an empty tensor is its (empty) init; every result
// of a multi-result op is its own init.

// CHECK-LABEL: func.func @empty_elementwise
//  CHECK-SAME:   (%[[X:.*]]: tensor<0x4xf32>, %[[O1:.*]]: tensor<0x4xf32>, %[[O2:.*]]: tensor<0x4xf32>)
//   CHECK-NOT:   linalg.generic
//       CHECK:   return %[[O1]], %[[O2]]
func.func @empty_elementwise(%x: tensor<0x4xf32>, %o1: tensor<0x4xf32>, %o2: tensor<0x4xf32>) -> (tensor<0x4xf32>, tensor<0x4xf32>) {
  %r:2 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<0x4xf32>) outs(%o1, %o2 : tensor<0x4xf32>, tensor<0x4xf32>) {
  ^bb0(%in: f32, %a: f32, %b: f32):
    %n = arith.negf %in : f32
    linalg.yield %n, %in : f32, f32
  } -> (tensor<0x4xf32>, tensor<0x4xf32>)
  return %r#0, %r#1 : tensor<0x4xf32>, tensor<0x4xf32>
}

// -----

// Loops of extent 1 or more, and dynamic extents (0 only at run time, where
// the loop runs no iteration anyway), are left alone.

// CHECK-LABEL: func.func @not_empty
//       CHECK:   linalg.matmul
//       CHECK:   linalg.matmul
func.func @not_empty(%a: tensor<2x1xf32>, %b: tensor<1x3xf32>, %c: tensor<2x?xf32>, %d: tensor<?x3xf32>, %init: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %r = linalg.matmul ins(%a, %b : tensor<2x1xf32>, tensor<1x3xf32>) outs(%init : tensor<2x3xf32>) -> tensor<2x3xf32>
  %s = linalg.matmul ins(%c, %d : tensor<2x?xf32>, tensor<?x3xf32>) outs(%init : tensor<2x3xf32>) -> tensor<2x3xf32>
  return %r, %s : tensor<2x3xf32>, tensor<2x3xf32>
}
