// RUN: tfm-opt %s -split-input-file --tfm-hoist-loop-buffers | FileCheck %s

// A flash attention's block of scores: allocated and freed in every
// iteration of the loop over key blocks, inside a parallel query tile. It
// moves out of the sequential loop (and out of the one around it), not out
// of the parallel one, whose iterations run at the same time.

// CHECK-LABEL: func.func @per_block
//       CHECK:   scf.parallel
//  CHECK-NEXT:     %[[S:.*]] = memref.alloc() : memref<32x64xf32>
//  CHECK-NEXT:     scf.for
//  CHECK-NEXT:       scf.for
//  CHECK-NEXT:         linalg.fill {{.*}} outs(%[[S]]
//  CHECK-NEXT:         memref.subview %[[S]]
//  CHECK-NEXT:         memref.subview
//  CHECK-NEXT:         memref.copy
//  CHECK-NEXT:       }
//  CHECK-NEXT:     }
//  CHECK-NEXT:     memref.dealloc %[[S]]
//  CHECK-NEXT:     scf.reduce
func.func @per_block(%out: memref<4x32x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %cst = arith.constant 1.0 : f32
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    scf.for %j = %c0 to %c16 step %c1 {
      scf.for %k = %c0 to %c4 step %c1 {
        %s = memref.alloc() : memref<32x64xf32>
        linalg.fill ins(%cst : f32) outs(%s : memref<32x64xf32>)
        %view = memref.subview %s[0, 0] [32, 64] [1, 1] : memref<32x64xf32> to memref<32x64xf32, strided<[64, 1]>>
        %dst = memref.subview %out[%i, 0, 0] [1, 32, 64] [1, 1, 1] : memref<4x32x64xf32> to memref<32x64xf32, strided<[64, 1], offset: ?>>
        memref.copy %view, %dst : memref<32x64xf32, strided<[64, 1]>> to memref<32x64xf32, strided<[64, 1], offset: ?>>
        memref.dealloc %s : memref<32x64xf32>
      }
    }
    scf.reduce
  }
  return
}

// -----

// Left where they are: a buffer whose size depends on the iteration, one
// that the iteration does not free, and one that an scf.if passes on.

// CHECK-LABEL: func.func @kept
//       CHECK:   scf.for %[[J:[a-z0-9]+]] =
//  CHECK-NEXT:     memref.alloc(%[[J]]) : memref<?xf32>
//       CHECK:     memref.alloc() : memref<8xf32>
//       CHECK:     memref.alloc() : memref<16xf32>
//       CHECK:     scf.if
//       CHECK:   return
func.func @kept(%n: index, %flag: i1, %out: memref<16xf32>) -> memref<8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cst = arith.constant 1.0 : f32
  %first = memref.alloc() : memref<8xf32>
  %last = scf.for %j = %c1 to %n step %c1 iter_args(%prev = %first) -> (memref<8xf32>) {
    %dynamic = memref.alloc(%j) : memref<?xf32>
    linalg.fill ins(%cst : f32) outs(%dynamic : memref<?xf32>)
    memref.dealloc %dynamic : memref<?xf32>
    %kept = memref.alloc() : memref<8xf32>
    linalg.fill ins(%cst : f32) outs(%kept : memref<8xf32>)
    %passed = memref.alloc() : memref<16xf32>
    %chosen = scf.if %flag -> (memref<16xf32>) {
      scf.yield %passed : memref<16xf32>
    } else {
      scf.yield %out : memref<16xf32>
    }
    linalg.fill ins(%cst : f32) outs(%chosen : memref<16xf32>)
    memref.dealloc %passed : memref<16xf32>
    scf.yield %kept : memref<8xf32>
  }
  return %last : memref<8xf32>
}
