// RUN: tfm-opt %s --tfm-cpu-outline-kernels=dedup=false | FileCheck %s

// Each outermost scf.parallel moves into a private function of its own,
// called where it was: the buffers it reads and writes and the sizes it
// uses become arguments, constants and (without dedup, see
// cpu-outline-kernels-dedup.mlir) globals are cloned into it. A loop
// nested in another stays in its kernel.

memref.global "private" constant @weight : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>

// CHECK-LABEL: func.func @entry(
//  CHECK-SAME:     %[[X:[a-z0-9]+]]: memref<?x4xf32>, %[[S:[a-z0-9]+]]: f32)
//       CHECK:   %[[N:.*]] = memref.dim %[[X]]
//       CHECK:   call @entry_kernel_0(%[[X]], %[[N]]) : (memref<?x4xf32>, index) -> ()
//       CHECK:   call @entry_kernel_1(%[[X]], %[[S]], %[[N]])
//   CHECK-NOT:   scf.parallel
//       CHECK:   return
// CHECK-LABEL: func.func private @entry_kernel_0(
//  CHECK-SAME:     %[[X:[a-z0-9]+]]: memref<?x4xf32>, %[[N:[a-z0-9]+]]: index)
//   CHECK-DAG:   %[[C0:.*]] = arith.constant 0 : index
//   CHECK-DAG:   %[[C1:.*]] = arith.constant 1 : index
//   CHECK-DAG:   %[[W:.*]] = memref.get_global @weight
//       CHECK:   scf.parallel (%[[I:.*]]) = (%[[C0]]) to (%[[N]]) step (%[[C1]])
//       CHECK:     scf.parallel
//       CHECK:       memref.load %[[W]]
//       CHECK:   return

// CHECK-LABEL: func.func private @entry_kernel_1(
//  CHECK-SAME:     %{{.*}}: memref<?x4xf32>, %{{.*}}: f32, %{{.*}}: index)
//       CHECK:   scf.parallel

func.func @entry(%x: memref<?x4xf32>, %s: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %n = memref.dim %x, %c0 : memref<?x4xf32>
  %w = memref.get_global @weight : memref<4xf32>
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    scf.parallel (%j) = (%c0) to (%c4) step (%c1) {
      %a = memref.load %x[%i, %j] : memref<?x4xf32>
      %b = memref.load %w[%j] : memref<4xf32>
      %c = arith.mulf %a, %b : f32
      memref.store %c, %x[%i, %j] : memref<?x4xf32>
      scf.reduce
    }
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    %a = memref.load %x[%i, %c0] : memref<?x4xf32>
    %c = arith.addf %a, %s : f32
    memref.store %c, %x[%i, %c0] : memref<?x4xf32>
    scf.reduce
  }
  return
}
