// RUN: tfm-opt %s --pass-pipeline='builtin.module(func.func(tfm-drop-write-only-buffers))' -split-input-file | FileCheck %s

// A product whose GELU its register tiles compute still stores its sums,
// into a buffer nothing reads (what bufferization makes of the product's
// own result of the fused loops): the buffer, its views, the stores into
// it and its dealloc go; the activation's stores stay.

// CHECK-LABEL: func.func @fused_activation(
//  CHECK-SAME:     %[[OUT:[^:]*]]: memref<24x32xf32>
//   CHECK-NOT:   memref.alloc
//       CHECK:   scf.for %[[I:.*]] =
//       CHECK:     %[[S:.*]] = memref.subview %[[OUT]][%[[I]], 0]
//       CHECK:     vector.transfer_write %{{.*}}, %[[S]]
//   CHECK-NOT:     vector.transfer_write
//   CHECK-NOT:   memref.dealloc
func.func @fused_activation(%out: memref<24x32xf32>, %sums: vector<12x32xf32>) {
  %c0 = arith.constant 0 : index
  %c12 = arith.constant 12 : index
  %c24 = arith.constant 24 : index
  %dead = memref.alloc() : memref<24x32xf32>
  scf.for %i = %c0 to %c24 step %c12 {
    %d = memref.subview %dead[%i, 0] [12, 32] [1, 1] : memref<24x32xf32> to memref<12x32xf32, strided<[32, 1], offset: ?>>
    vector.transfer_write %sums, %d[%c0, %c0] {in_bounds = [true, true]} : vector<12x32xf32>, memref<12x32xf32, strided<[32, 1], offset: ?>>
    %act = math.tanh %sums : vector<12x32xf32>
    %o = memref.subview %out[%i, 0] [12, 32] [1, 1] : memref<24x32xf32> to memref<12x32xf32, strided<[32, 1], offset: ?>>
    vector.transfer_write %act, %o[%c0, %c0] {in_bounds = [true, true]} : vector<12x32xf32>, memref<12x32xf32, strided<[32, 1], offset: ?>>
  }
  memref.dealloc %dead : memref<24x32xf32>
  return
}

// -----

// A buffer that is read (through a view) or passed on stays; one written
// with a mask and never read goes.

// CHECK-LABEL: func.func @kept(
//       CHECK:   memref.alloc() : memref<16xf32>
//       CHECK:   memref.alloc() : memref<4x4xf32>
//   CHECK-NOT:   memref.alloc
func.func @kept(%v: vector<16xf32>, %mask: vector<16xi1>) -> (f32, memref<4x4xf32>) {
  %c0 = arith.constant 0 : index
  %read = memref.alloc() : memref<16xf32>
  vector.transfer_write %v, %read[%c0] {in_bounds = [true]} : vector<16xf32>, memref<16xf32>
  %view = memref.subview %read[4] [4] [1] : memref<16xf32> to memref<4xf32, strided<[1], offset: 4>>
  %x = memref.load %view[%c0] : memref<4xf32, strided<[1], offset: 4>>
  %escaped = memref.alloc() : memref<4x4xf32>
  %masked = memref.alloc() : memref<16xf32>
  vector.transfer_write %v, %masked[%c0], %mask {in_bounds = [true]} : vector<16xf32>, memref<16xf32>
  return %x, %escaped : f32, memref<4x4xf32>
}
