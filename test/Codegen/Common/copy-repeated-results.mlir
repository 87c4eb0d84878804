// RUN: tfm-opt %s --tfm-copy-repeated-results | FileCheck %s

// The second and third places of %y return copies; an argument returned
// twice and distinct values are left alone.

// CHECK-LABEL: func.func @repeated
//       CHECK:   %[[Y:.*]] = arith.addf
//       CHECK:   %[[C1:.*]] = bufferization.alloc_tensor() copy(%[[Y]]) : tensor<4xf32>
//       CHECK:   %[[C2:.*]] = bufferization.alloc_tensor() copy(%[[Y]]) : tensor<4xf32>
//       CHECK:   return %[[Y]], %[[C1]], %[[Z:.*]], %[[C2]]
func.func @repeated(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %y = arith.addf %x, %x : tensor<4xf32>
  %z = arith.mulf %x, %x : tensor<4xf32>
  return %y, %y, %z, %y : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// CHECK-LABEL: func.func @dynamic
//       CHECK:   %[[C:.*]] = bufferization.alloc_tensor() copy(%{{.*}}) : tensor<?xf32>
//       CHECK:   return %{{.*}}, %[[C]]
func.func @dynamic(%x: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %y = arith.addf %x, %x : tensor<?xf32>
  return %y, %y : tensor<?xf32>, tensor<?xf32>
}
