// RUN: tfm-opt %s --tfm-splat-constants-to-fill | FileCheck %s
// RUN: tfm-opt %s --tfm-splat-constants-to-fill=max-bytes=0 | FileCheck %s --check-prefix=ALL

// A splat larger than 4 KiB is filled where it is used; smaller splats and
// constants that are not splats stay constants.

// CHECK-LABEL: func.func @splats
// CHECK:         %[[ONE:.*]] = arith.constant 1.500000e+00 : f32
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<300x700xf32>
// CHECK:         %[[BIG:.*]] = linalg.fill ins(%[[ONE]] : f32) outs(%[[E]] : tensor<300x700xf32>) -> tensor<300x700xf32>
// CHECK:         %[[SMALL:.*]] = arith.constant dense<2.000000e+00> : tensor<1024xf32>
// CHECK:         %[[TABLE:.*]] = arith.constant dense<[1, 2, 3]> : tensor<3xi64>
// CHECK:         %[[SEVEN:.*]] = arith.constant 7 : i32
// CHECK:         %[[E2:.*]] = tensor.empty() : tensor<2048xi32>
// CHECK:         %[[INT:.*]] = linalg.fill ins(%[[SEVEN]] : i32) outs(%[[E2]] : tensor<2048xi32>) -> tensor<2048xi32>
// CHECK:         return %[[BIG]], %[[SMALL]], %[[TABLE]], %[[INT]]

// With max-bytes=0 every splat tensor is filled, the non-splat stays.
// ALL-LABEL: func.func @splats
// ALL:         linalg.fill {{.*}} tensor<300x700xf32>
// ALL:         linalg.fill {{.*}} tensor<1024xf32>
// ALL:         arith.constant dense<[1, 2, 3]> : tensor<3xi64>
// ALL:         linalg.fill {{.*}} tensor<2048xi32>
// ALL-NOT:     linalg.fill
func.func @splats() -> (tensor<300x700xf32>, tensor<1024xf32>, tensor<3xi64>, tensor<2048xi32>) {
  %big = arith.constant dense<1.5> : tensor<300x700xf32>
  %small = arith.constant dense<2.0> : tensor<1024xf32>
  %table = arith.constant dense<[1, 2, 3]> : tensor<3xi64>
  %int = arith.constant dense<7> : tensor<2048xi32>
  return %big, %small, %table, %int : tensor<300x700xf32>, tensor<1024xf32>, tensor<3xi64>, tensor<2048xi32>
}
