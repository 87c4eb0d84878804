// RUN: tfm-opt %s --tfm-set-cpu-target=cpu=avx2 --tfm-cpu-pipeline="stop-after=bufferized" | FileCheck %s

// Flash attention's state lives in its query tiles: each tile (32 of the
// 64 queries) fills its own accumulator, maxima and sums, runs the key
// blocks, and multiplies its rows by their sums' reciprocals straight into
// its slice of the output (the out-parameter %OUT), with no copy. The only
// buffer of the whole attention's size is Kᵀ.

// CHECK-LABEL: func.func @main(
//  CHECK-SAME:     %[[OUT:[^:]*]]: memref<2x64x16xf32>)
//   CHECK-NOT:   memref.alloc() {{.*}} : memref<2x64
//       CHECK:   memref.alloc() {{.*}} : memref<2x16x64xf32>
//   CHECK-NOT:   memref.alloc() {{.*}} : memref<2x64
//       CHECK:   scf.parallel (%[[B:.*]], %[[Q0:.*]]) = (%c0, %c0) to (%c2, %c64) step (%c1, %c32)
//       CHECK:     %[[ACC:.*]] = memref.alloc() {{.*}} : memref<1x32x16xf32>
//       CHECK:     %[[MAX:.*]] = memref.alloc() {{.*}} : memref<1x32xf32>
//       CHECK:     %[[SUM:.*]] = memref.alloc() {{.*}} : memref<1x32xf32>
//       CHECK:     math.exp
//       CHECK:     %[[ROWS:.*]] = memref.subview %[[OUT]][%[[B]], %[[Q0]], 0] [1, 32, 16]
//       CHECK:     scf.for
//       CHECK:       %[[A:.*]] = memref.subview %[[ACC]]
//       CHECK:       %[[S:.*]] = memref.subview %[[SUM]]
//       CHECK:       %[[DST:.*]] = memref.subview %[[ROWS]]
//       CHECK:       %[[X:.*]] = vector.transfer_read %[[A]]
//       CHECK:       %[[Y:.*]] = vector.transfer_read %[[S]]
//       CHECK:       %[[R:.*]] = arith.divf %{{.*}}, %[[Y]] : vector<1x1x8xf32>
//       CHECK:       %[[Q:.*]] = arith.mulf %[[X]], %[[R]] : vector<1x1x8xf32>
//       CHECK:       vector.transfer_write %[[Q]], %[[DST]]
//   CHECK-NOT:   memref.copy
//       CHECK:   return
func.func @main(%q: tensor<2x64x16xf32>, %k: tensor<2x64x16xf32>,
                %v: tensor<2x64x16xf32>) -> tensor<2x64x16xf32> {
  %0 = tfm.attention %q, %k, %v
      : (tensor<2x64x16xf32>, tensor<2x64x16xf32>, tensor<2x64x16xf32>) -> tensor<2x64x16xf32>
  return %0 : tensor<2x64x16xf32>
}
