// RUN: tfm-opt %s --pass-pipeline="builtin.module(func.func(tfm-gpu-promote-operands))" --split-input-file | FileCheck %s
// RUN: tfm-opt %s --pass-pipeline="builtin.module(func.func(tfm-gpu-promote-operands{shared-memory-bytes=3000}))" --split-input-file | FileCheck %s --check-prefix=SMALL

// Flash attention's shape: inside a tile, a loop over key blocks whose
// contraction reads the query tile (the same at every step) and a key
// block (a new one at every step). The query tile is staged once, before
// the loop; the key block inside it, at every step. With 3000 bytes only
// the query tile (2048 bytes) fits.

// CHECK-LABEL: func.func @stage(
//       CHECK:   scf.forall
//       CHECK:     %[[QS:.*]] = memref.alloc() : memref<8x64xf32>
//       CHECK:     linalg.copy ins(%{{.*}} : memref<8x64xf32, strided<[64, 1], offset: ?>>) outs(%[[QS]] : memref<8x64xf32>)
//       CHECK:     scf.for
//       CHECK:       %[[KS:.*]] = memref.alloc() : memref<64x16xf32>
//       CHECK:       linalg.copy ins(%{{.*}} : memref<64x16xf32, strided<[128, 1], offset: ?>>) outs(%[[KS]] : memref<64x16xf32>)
//       CHECK:       linalg.matmul ins(%[[QS]], %[[KS]] : memref<8x64xf32>, memref<64x16xf32>)
// SMALL-LABEL: func.func @stage(
//       SMALL:     %[[QS:.*]] = memref.alloc() : memref<8x64xf32>
//       SMALL:     scf.for
//   SMALL-NOT:       memref.alloc
//       SMALL:       linalg.matmul ins(%[[QS]], %{{.*}} : memref<8x64xf32>, memref<64x16xf32, strided<[128, 1], offset: ?>>)
func.func @stage(%q: memref<16x64xf32>, %kt: memref<64x128xf32>, %s: memref<16x16xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c128 = arith.constant 128 : index
  scf.forall (%i) = (0) to (16) step (8) {
    %qt = memref.subview %q[%i, 0] [8, 64] [1, 1] : memref<16x64xf32> to memref<8x64xf32, strided<[64, 1], offset: ?>>
    %st = memref.subview %s[%i, 0] [8, 16] [1, 1] : memref<16x16xf32> to memref<8x16xf32, strided<[16, 1], offset: ?>>
    scf.for %j = %c0 to %c128 step %c16 {
      %kb = memref.subview %kt[0, %j] [64, 16] [1, 1] : memref<64x128xf32> to memref<64x16xf32, strided<[128, 1], offset: ?>>
      linalg.matmul ins(%qt, %kb : memref<8x64xf32, strided<[64, 1], offset: ?>>, memref<64x16xf32, strided<[128, 1], offset: ?>>)
                    outs(%st : memref<8x16xf32, strided<[16, 1], offset: ?>>)
    }
  }
  return
}

// -----

// Ops that are not contractions, and contractions outside a tile loop, are
// left alone.

// CHECK-LABEL: func.func @untouched(
//   CHECK-NOT:   memref.alloc
//   CHECK-NOT:   linalg.copy
func.func @untouched(%a: memref<8x8xf32>, %b: memref<8x8xf32>, %c: memref<8x8xf32>) {
  linalg.matmul ins(%a, %b : memref<8x8xf32>, memref<8x8xf32>) outs(%c : memref<8x8xf32>)
  scf.forall (%i) in (2) {
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a : memref<8x8xf32>) outs(%c : memref<8x8xf32>) {
    ^bb0(%x: f32, %y: f32):
      linalg.yield %x : f32
    }
  }
  return
}
