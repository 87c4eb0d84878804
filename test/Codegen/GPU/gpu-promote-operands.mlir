// RUN: tfm-opt %s --pass-pipeline="builtin.module(func.func(tfm-gpu-promote-operands))" --split-input-file | FileCheck %s
// RUN: tfm-opt %s --pass-pipeline="builtin.module(func.func(tfm-gpu-promote-operands{shared-memory-bytes=3000}))" --split-input-file | FileCheck %s --check-prefix=SMALL

// Flash attention's shape: inside a tile, a loop over key blocks whose
// contraction reads the query tile (the same at every step) and a key
// block (a new one at every step). The query tile is staged once, before
// the loop; the key block inside it, at every step. Rows of 64 bytes or a
// multiple are padded by 16 bytes (against shared memory's bank
// conflicts), the contraction reading the buffer's leading part. With 3000
// bytes only the query tile (8 x 68 floats, 2176 bytes) fits.

// CHECK-LABEL: func.func @stage(
//       CHECK:   scf.forall
//       CHECK:     %[[QB:.*]] = memref.alloc() : memref<8x68xf32>
//       CHECK:     %[[QS:.*]] = memref.subview %[[QB]][0, 0] [8, 64] [1, 1] : memref<8x68xf32> to memref<8x64xf32, strided<[68, 1]>>
//       CHECK:     linalg.copy ins(%{{.*}} : memref<8x64xf32, strided<[64, 1], offset: ?>>) outs(%[[QS]] : memref<8x64xf32, strided<[68, 1]>>)
//       CHECK:     scf.for
//       CHECK:       %[[KB:.*]] = memref.alloc() : memref<64x20xf32>
//       CHECK:       %[[KS:.*]] = memref.subview %[[KB]][0, 0] [64, 16] [1, 1]
//       CHECK:       linalg.copy ins(%{{.*}} : memref<64x16xf32, strided<[128, 1], offset: ?>>) outs(%[[KS]] : memref<64x16xf32, strided<[20, 1]>>)
//       CHECK:       linalg.matmul ins(%[[QS]], %[[KS]] : memref<8x64xf32, strided<[68, 1]>>, memref<64x16xf32, strided<[20, 1]>>)
// SMALL-LABEL: func.func @stage(
//       SMALL:     %[[QB:.*]] = memref.alloc() : memref<8x68xf32>
//       SMALL:     %[[QS:.*]] = memref.subview %[[QB]]
//       SMALL:     scf.for
//   SMALL-NOT:       memref.alloc
//       SMALL:       linalg.matmul ins(%[[QS]], %{{.*}} : memref<8x64xf32, strided<[68, 1]>>, memref<64x16xf32, strided<[128, 1], offset: ?>>)
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

// Rows shorter than 64 bytes, or not a multiple of them, are not padded:
// 8 float16 elements (16 bytes; eight such rows are 128 contiguous bytes,
// in all 32 banks) and 40 (80 bytes).

// CHECK-LABEL: func.func @unpadded(
//       CHECK:   memref.alloc() : memref<16x8xf16>
//       CHECK:   memref.alloc() : memref<8x40xf16>
//   CHECK-NOT:   memref.subview
//       CHECK:   linalg.matmul
func.func @unpadded(%a: memref<16x8xf16>, %b: memref<8x40xf16>, %c: memref<16x40xf32>) {
  scf.forall (%i) in (1) {
    linalg.matmul ins(%a, %b : memref<16x8xf16>, memref<8x40xf16>) outs(%c : memref<16x40xf32>)
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
