// RUN: tfm-opt %s --pass-pipeline='builtin.module(func.func(tfm-cpu-lower-copies))' -split-input-file | FileCheck %s

// Swin's roll along the width: 56 rows of 53 x 96 contiguous floats each
// (1.1 MiB in all) become one parallel loop of contiguous copies, each of
// which the LLVM conversion turns into a memcpy. The shift-merge
// integration test (test/Integration/onnx) checks the numbers.

// CHECK-LABEL: func.func @roll_width(
//  CHECK-SAME:     %[[SRC:.*]]: memref<1x56x53x96xf32, {{.*}}>, %[[DST:.*]]: memref<1x56x53x96xf32, {{.*}}>)
//   CHECK-DAG:   %[[C56:.*]] = arith.constant 56 : index
//       CHECK:   scf.parallel (%[[ROW:.*]]) = ({{.*}}) to (%[[C56]])
//       CHECK:     %[[S:.*]] = memref.subview %[[SRC]][0, %[[ROW]], 0, 0] [1, 1, 53, 96] [1, 1, 1, 1]
//       CHECK:     %[[D:.*]] = memref.subview %[[DST]][0, %[[ROW]], 0, 0] [1, 1, 53, 96] [1, 1, 1, 1]
//       CHECK:     memref.copy %[[S]], %[[D]] : memref<1x1x53x96xf32, strided<[301056, 5376, 96, 1], offset: ?>> to memref<1x1x53x96xf32, strided<[301056, 5376, 96, 1], offset: ?>>
//   CHECK-NOT:   memref.copy
func.func @roll_width(%src: memref<1x56x53x96xf32, strided<[301056, 5376, 96, 1], offset: 288>>, %dst: memref<1x56x53x96xf32, strided<[301056, 5376, 96, 1]>>) {
  memref.copy %src, %dst : memref<1x56x53x96xf32, strided<[301056, 5376, 96, 1], offset: 288>> to memref<1x56x53x96xf32, strided<[301056, 5376, 96, 1]>>
  return
}

// -----

// Patch merging: every other pixel of every other row into a quarter of
// the channels. Only the channels are contiguous in both operands: a
// parallel loop over rows and columns of 96-float copies.

// CHECK-LABEL: func.func @patch_merging(
//       CHECK:   scf.parallel (%[[I:.*]], %[[J:.*]]) = ({{.*}}) to ({{.*}})
//       CHECK:     memref.subview %{{.*}}[0, %[[I]], %[[J]], 0] [1, 1, 1, 96]
//       CHECK:     memref.subview %{{.*}}[0, %[[I]], %[[J]], 0] [1, 1, 1, 96]
//       CHECK:     memref.copy {{.*}} : memref<1x1x1x96xf32, strided<[301056, 10752, 192, 1], offset: ?>> to memref<1x1x1x96xf32, strided<[301056, 10752, 384, 1], offset: ?>>
func.func @patch_merging(%src: memref<1x28x28x96xf32, strided<[301056, 10752, 192, 1]>>, %dst: memref<1x28x28x96xf32, strided<[301056, 10752, 384, 1], offset: 96>>) {
  memref.copy %src, %dst : memref<1x28x28x96xf32, strided<[301056, 10752, 192, 1]>> to memref<1x28x28x96xf32, strided<[301056, 10752, 384, 1], offset: 96>>
  return
}

// -----

// Below 64 KiB a copy stays on its thread: serial loops. Rows of 8 floats
// read from rows of 16.

// CHECK-LABEL: func.func @small(
//   CHECK-NOT:   scf.parallel
//       CHECK:   scf.for %[[I:.*]] =
//       CHECK:     memref.subview %{{.*}}[%[[I]], 0] [1, 8] [1, 1] : memref<4x8xf32, strided<[16, 1]>> to memref<1x8xf32, strided<[16, 1], offset: ?>>
//       CHECK:     memref.copy
func.func @small(%src: memref<4x8xf32, strided<[16, 1]>>, %dst: memref<4x8xf32>) {
  memref.copy %src, %dst : memref<4x8xf32, strided<[16, 1]>> to memref<4x8xf32>
  return
}

// -----

// Nothing contiguous in common (a transposed source): one element at a
// time, as loads and stores.

// CHECK-LABEL: func.func @transposed(
//       CHECK:   scf.for %[[I:.*]] =
//       CHECK:     scf.for %[[J:.*]] =
//       CHECK:       %[[X:.*]] = memref.load %{{.*}}[%[[I]], %[[J]]] : memref<4x8xf32, strided<[1, 4]>>
//       CHECK:       memref.store %[[X]], %{{.*}}[%[[I]], %[[J]]] : memref<4x8xf32>
//   CHECK-NOT:   memref.copy
func.func @transposed(%src: memref<4x8xf32, strided<[1, 4]>>, %dst: memref<4x8xf32>) {
  memref.copy %src, %dst : memref<4x8xf32, strided<[1, 4]>> to memref<4x8xf32>
  return
}

// -----

// A large contiguous copy is shared out by its outermost dimension; a
// small one stays one memcpy; a one-dimensional one too (runs of one
// element would be slower).

// CHECK-LABEL: func.func @contiguous(
//       CHECK:   scf.parallel (%[[I:.*]]) =
//       CHECK:     memref.subview %{{.*}}[%[[I]], 0] [1, 1024] [1, 1] : memref<64x1024xf32> to memref<1x1024xf32, strided<[1024, 1], offset: ?>>
//       CHECK:     memref.copy
//       CHECK:   memref.copy %{{.*}}, %{{.*}} : memref<16x16xf32> to memref<16x16xf32>
//       CHECK:   memref.copy %{{.*}}, %{{.*}} : memref<65536xf32> to memref<65536xf32>
func.func @contiguous(%a: memref<64x1024xf32>, %b: memref<64x1024xf32, strided<[1024, 1], offset: ?>>, %c: memref<16x16xf32>, %d: memref<16x16xf32>, %e: memref<65536xf32>, %f: memref<65536xf32>) {
  memref.copy %a, %b : memref<64x1024xf32> to memref<64x1024xf32, strided<[1024, 1], offset: ?>>
  memref.copy %c, %d : memref<16x16xf32> to memref<16x16xf32>
  memref.copy %e, %f : memref<65536xf32> to memref<65536xf32>
  return
}

// -----

// Inside a parallel loop a large copy runs on the loop's thread; a copy of
// dynamic size is left to the runtime.

// CHECK-LABEL: func.func @nested_and_dynamic(
//       CHECK:   scf.parallel
//   CHECK-NOT:     scf.parallel
//       CHECK:     scf.for
//       CHECK:       memref.copy {{.*}} : memref<1x1024xf32, strided<[2048, 1], offset: ?>> to memref<1x1024xf32, strided<[1024, 1], offset: ?>>
//       CHECK:     scf.reduce
//       CHECK:   memref.copy %{{.*}}, %{{.*}} : memref<?x8xf32, strided<[16, 1]>> to memref<?x8xf32>
func.func @nested_and_dynamic(%a: memref<2x64x1024xf32, strided<[131072, 2048, 1]>>, %b: memref<2x64x1024xf32>, %c: memref<?x8xf32, strided<[16, 1]>>, %d: memref<?x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  scf.parallel (%i) = (%c0) to (%c2) step (%c1) {
    %sa = memref.subview %a[%i, 0, 0] [1, 64, 1024] [1, 1, 1] : memref<2x64x1024xf32, strided<[131072, 2048, 1]>> to memref<64x1024xf32, strided<[2048, 1], offset: ?>>
    %sb = memref.subview %b[%i, 0, 0] [1, 64, 1024] [1, 1, 1] : memref<2x64x1024xf32> to memref<64x1024xf32, strided<[1024, 1], offset: ?>>
    memref.copy %sa, %sb : memref<64x1024xf32, strided<[2048, 1], offset: ?>> to memref<64x1024xf32, strided<[1024, 1], offset: ?>>
    scf.reduce
  }
  memref.copy %c, %d : memref<?x8xf32, strided<[16, 1]>> to memref<?x8xf32>
  return
}
