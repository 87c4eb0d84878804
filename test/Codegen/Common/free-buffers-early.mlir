// RUN: tfm-opt %s -split-input-file --tfm-free-buffers-early | FileCheck %s

// Two intermediates freed at the end of the function, as bufferization's
// deallocation leaves them: each is freed right after its last use, the
// first one's memory free before the third buffer is allocated.

// CHECK-LABEL: func.func @chain
//       CHECK:   %[[A:.*]] = memref.alloc() : memref<64xf32>
//       CHECK:   linalg.fill {{.*}} outs(%[[A]]
//       CHECK:   %[[B:.*]] = memref.alloc() : memref<64xf32>
//       CHECK:   linalg.copy ins(%[[A]] {{.*}} outs(%[[B]]
//  CHECK-NEXT:   memref.dealloc %[[A]]
//       CHECK:   %[[C:.*]] = memref.alloc() : memref<64xf32>
//       CHECK:   linalg.copy ins(%[[B]] {{.*}} outs(%[[C]]
//  CHECK-NEXT:   memref.dealloc %[[B]]
//       CHECK:   memref.copy %[[C]], %{{.*}}
//  CHECK-NEXT:   memref.dealloc %[[C]]
//  CHECK-NEXT:   return
func.func @chain(%out: memref<64xf32>) {
  %cst = arith.constant 1.0 : f32
  %a = memref.alloc() : memref<64xf32>
  linalg.fill ins(%cst : f32) outs(%a : memref<64xf32>)
  %b = memref.alloc() : memref<64xf32>
  linalg.copy ins(%a : memref<64xf32>) outs(%b : memref<64xf32>)
  %c = memref.alloc() : memref<64xf32>
  linalg.copy ins(%b : memref<64xf32>) outs(%c : memref<64xf32>)
  memref.copy %c, %out : memref<64xf32> to memref<64xf32>
  memref.dealloc %a : memref<64xf32>
  memref.dealloc %b : memref<64xf32>
  memref.dealloc %c : memref<64xf32>
  return
}

// -----

// A view's use keeps the buffer, and so does a use in a nested loop: the
// buffer is freed after the op of the block that holds the last one.

// CHECK-LABEL: func.func @views_and_loops
//       CHECK:   %[[A:.*]] = memref.alloc() : memref<8x8xf32>
//       CHECK:   %[[V:.*]] = memref.subview %[[A]]
//       CHECK:   %[[C:.*]] = memref.collapse_shape %[[V]]
//       CHECK:   scf.for
//       CHECK:     memref.load %[[C]]
//       CHECK:   }
//  CHECK-NEXT:   memref.dealloc %[[A]]
//       CHECK:   memref.store
//  CHECK-NEXT:   return
func.func @views_and_loops(%out: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %a = memref.alloc() : memref<8x8xf32>
  %v = memref.subview %a[0, 0] [1, 8] [1, 1] : memref<8x8xf32> to memref<1x8xf32, strided<[8, 1]>>
  %c = memref.collapse_shape %v [[0, 1]] : memref<1x8xf32, strided<[8, 1]>> into memref<8xf32, strided<[1]>>
  scf.for %i = %c0 to %c8 step %c1 {
    %x = memref.load %c[%i] : memref<8xf32, strided<[1]>>
    memref.store %x, %out[%i] : memref<8xf32>
  }
  %cst = arith.constant 0.0 : f32
  memref.store %cst, %out[%c0] : memref<8xf32>
  memref.dealloc %a : memref<8x8xf32>
  return
}

// -----

// Left alone: a buffer that an scf.if yields (the result may be it), and
// a buffer freed in another block than the one that allocates it.

// CHECK-LABEL: func.func @escapes
//       CHECK:   %[[A:.*]] = memref.alloc() : memref<4xf32>
//       CHECK:   scf.if
//       CHECK:   memref.copy
//       CHECK:   memref.dealloc %[[A]]
//  CHECK-NEXT:   return
func.func @escapes(%cond: i1, %other: memref<4xf32>, %out: memref<4xf32>) {
  %a = memref.alloc() : memref<4xf32>
  %r = scf.if %cond -> memref<4xf32> {
    scf.yield %a : memref<4xf32>
  } else {
    scf.yield %other : memref<4xf32>
  }
  %cst = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  memref.store %cst, %out[%c0] : memref<4xf32>
  memref.copy %r, %out : memref<4xf32> to memref<4xf32>
  memref.dealloc %a : memref<4xf32>
  return
}
