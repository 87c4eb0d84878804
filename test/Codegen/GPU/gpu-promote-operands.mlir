// RUN: tfm-opt %s --pass-pipeline="builtin.module(func.func(tfm-gpu-promote-operands))" --split-input-file | FileCheck %s
// RUN: tfm-opt %s --pass-pipeline="builtin.module(func.func(tfm-gpu-promote-operands{shared-memory-bytes=3000}))" --split-input-file | FileCheck %s --check-prefix=SMALL
// RUN: tfm-opt %s --pass-pipeline="builtin.module(func.func(tfm-gpu-promote-operands{stages=2}))" --split-input-file | FileCheck %s --check-prefix=DOUBLE
// RUN: tfm-opt %s --pass-pipeline="builtin.module(func.func(tfm-gpu-promote-operands{stages=3}))" --split-input-file | FileCheck %s --check-prefix=PIPE
// RUN: tfm-opt %s --pass-pipeline="builtin.module(func.func(tfm-gpu-promote-operands{stages=3 shared-memory-bytes=25000}))" --split-input-file | FileCheck %s --check-prefix=FEWER
// RUN: tfm-opt %s --pass-pipeline="builtin.module(func.func(tfm-gpu-promote-operands{stages=2 shared-memory-bytes=16000}))" --split-input-file | FileCheck %s --check-prefix=NO-ROOM

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

// Bufferization views the query tile anew inside the loop (a rank-reducing
// subview of a view made outside it): the view is hoisted, and the tile is
// still staged once, before the loop; the key block, whose view depends on
// the step, at every step.

// CHECK-LABEL: func.func @view_in_loop(
//       CHECK:   scf.forall
//       CHECK:     %[[Q:.*]] = memref.subview %{{.*}}[0, 0, 0] [1, 8, 64] [1, 1, 1] : memref<1x8x64xf32, strided<[1024, 64, 1], offset: ?>> to memref<8x64xf32, strided<[64, 1], offset: ?>>
//       CHECK:     %[[QB:.*]] = memref.alloc() : memref<8x68xf32>
//       CHECK:     %[[QS:.*]] = memref.subview %[[QB]]
//       CHECK:     linalg.copy ins(%[[Q]] : {{.*}}) outs(%[[QS]] : {{.*}})
//       CHECK:     scf.for
//       CHECK:       memref.subview %{{.*}}[0, %{{.*}}] [64, 16]
//       CHECK:       memref.alloc() : memref<64x20xf32>
//       CHECK:       linalg.matmul ins(%[[QS]], %{{.*}} : memref<8x64xf32, strided<[68, 1]>>, memref<64x16xf32, strided<[20, 1]>>)
func.func @view_in_loop(%q: memref<2x16x64xf32>, %kt: memref<64x128xf32>, %s: memref<16x16xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c128 = arith.constant 128 : index
  scf.forall (%i) = (0) to (16) step (8) {
    %qt = memref.subview %q[1, %i, 0] [1, 8, 64] [1, 1, 1] : memref<2x16x64xf32> to memref<1x8x64xf32, strided<[1024, 64, 1], offset: ?>>
    %st = memref.subview %s[%i, 0] [8, 16] [1, 1] : memref<16x16xf32> to memref<8x16xf32, strided<[16, 1], offset: ?>>
    scf.for %j = %c0 to %c128 step %c16 {
      %q2 = memref.subview %qt[0, 0, 0] [1, 8, 64] [1, 1, 1] : memref<1x8x64xf32, strided<[1024, 64, 1], offset: ?>> to memref<8x64xf32, strided<[64, 1], offset: ?>>
      %kb = memref.subview %kt[0, %j] [64, 16] [1, 1] : memref<64x128xf32> to memref<64x16xf32, strided<[128, 1], offset: ?>>
      linalg.matmul ins(%q2, %kb : memref<8x64xf32, strided<[64, 1], offset: ?>>, memref<64x16xf32, strided<[128, 1], offset: ?>>)
                    outs(%st : memref<8x16xf32, strided<[16, 1], offset: ?>>)
    }
  }
  return
}

// -----

// With stages=2, a loop of three chunks that stages A's and B's chunk at
// every step: each buffer gets a twin, allocated before the loop, and the
// first chunk's copies are issued there (tfm.prefetch = 0: for the first
// step); each step picks the buffer it reads and the other by its parity,
// and copies the next chunk (the last step: its own, 128) into the other
// one, these copies marked tfm.prefetch = 1 (a step ahead). Without room
// for the twins (16000 bytes), nothing changes. Without the option
// (CHECK), the copies stay in the loop, unmarked.

// DOUBLE-LABEL: func.func @chunks(
//       DOUBLE:   scf.forall
//       DOUBLE:     %[[FIRST_A:.*]] = memref.subview %arg0[0, %c0{{.*}}] [32, 64] [1, 1]
//       DOUBLE:     %[[A0:.*]] = memref.alloc() : memref<32x72xf16>
//       DOUBLE:     %[[A1:.*]] = memref.alloc() : memref<32x72xf16>
//       DOUBLE:     %[[B0:.*]] = memref.alloc() : memref<64x40xf16>
//       DOUBLE:     %[[B1:.*]] = memref.alloc() : memref<64x40xf16>
//       DOUBLE:     %[[A0_VIEW:.*]] = memref.subview %[[A0]][0, 0] [32, 64] [1, 1]
//       DOUBLE:     linalg.copy {tfm.prefetch = 0 : i64} ins(%[[FIRST_A]] : {{.*}}) outs(%[[A0_VIEW]] :
//       DOUBLE:     linalg.copy {tfm.prefetch = 0 : i64}
//       DOUBLE:     scf.for %[[K:.*]] = %c0 to %c192 step %c64 {
//       DOUBLE:       %[[SUM:.*]] = arith.addi %[[K]], %c64
//       DOUBLE:       %[[NEXT:.*]] = arith.minsi %[[SUM]], %c128
//       DOUBLE:       %[[EVEN:.*]] = arith.cmpi eq
//   DOUBLE-DAG:       %[[CUR_A:.*]] = arith.select %[[EVEN]], %[[A0]], %[[A1]] : memref<32x72xf16>
//   DOUBLE-DAG:       %[[OTHER_A:.*]] = arith.select %[[EVEN]], %[[A1]], %[[A0]] : memref<32x72xf16>
//   DOUBLE-DAG:       %[[CUR_B:.*]] = arith.select %[[EVEN]], %[[B0]], %[[B1]] : memref<64x40xf16>
//   DOUBLE-DAG:       %[[OTHER_B:.*]] = arith.select %[[EVEN]], %[[B1]], %[[B0]] : memref<64x40xf16>
//       DOUBLE:       %[[CUR_A_VIEW:.*]] = memref.subview %[[CUR_A]][0, 0] [32, 64] [1, 1]
//       DOUBLE:       %[[NEXT_A:.*]] = memref.subview %arg0[0, %[[NEXT]]] [32, 64] [1, 1]
//       DOUBLE:       %[[OTHER_A_VIEW:.*]] = memref.subview %[[OTHER_A]][0, 0] [32, 64] [1, 1]
//       DOUBLE:       linalg.copy {tfm.prefetch = 1 : i64} ins(%[[NEXT_A]] : {{.*}}) outs(%[[OTHER_A_VIEW]] :
//       DOUBLE:       %[[CUR_B_VIEW:.*]] = memref.subview %[[CUR_B]][0, 0] [64, 32] [1, 1]
//       DOUBLE:       linalg.copy {tfm.prefetch = 1 : i64}
//   DOUBLE-NOT:       linalg.copy
//       DOUBLE:       linalg.matmul ins(%[[CUR_A_VIEW]], %[[CUR_B_VIEW]] :

// With stages=3, three buffers each; the first two chunks' copies before
// the loop, chunk 0's (A and B) then chunk 1's (tfm.prefetch = 0, then 1);
// step i (slot i mod 3) reads buffer i mod 3 and fills buffer (i + 2) mod
// 3, the one step i - 1 read, with the chunk two steps ahead (clamped to
// the last, 128), marked tfm.prefetch = 2.
// PIPE-LABEL: func.func @chunks(
//       PIPE:   scf.forall
//       PIPE:     %[[FIRST_A:.*]] = memref.subview %arg0[0, %c0{{.*}}] [32, 64] [1, 1]
//       PIPE:     %[[SECOND_A:.*]] = memref.subview %arg0[0, %c64{{.*}}] [32, 64] [1, 1]
//       PIPE:     %[[A0:.*]] = memref.alloc() : memref<32x72xf16>
//       PIPE:     %[[A1:.*]] = memref.alloc() : memref<32x72xf16>
//       PIPE:     %[[A2:.*]] = memref.alloc() : memref<32x72xf16>
//       PIPE:     %[[A0_VIEW:.*]] = memref.subview %[[A0]][0, 0] [32, 64] [1, 1]
//       PIPE:     linalg.copy {tfm.prefetch = 0 : i64} ins(%[[FIRST_A]] : {{.*}}) outs(%[[A0_VIEW]] :
//       PIPE:     linalg.copy {tfm.prefetch = 0 : i64}
//       PIPE:     %[[A1_VIEW:.*]] = memref.subview %[[A1]][0, 0] [32, 64] [1, 1]
//       PIPE:     linalg.copy {tfm.prefetch = 1 : i64} ins(%[[SECOND_A]] : {{.*}}) outs(%[[A1_VIEW]] :
//       PIPE:     linalg.copy {tfm.prefetch = 1 : i64}
//       PIPE:     scf.for %[[K:.*]] = %c0 to %c192 step %c64 {
//       PIPE:       %[[SUM:.*]] = arith.addi %[[K]], %c128
//       PIPE:       %[[AHEAD:.*]] = arith.minsi %[[SUM]], %c128
//       PIPE:       %[[SLOT:.*]] = arith.remsi %{{.*}}, %c3
//       PIPE:       %[[IS0:.*]] = arith.cmpi eq, %[[SLOT]], %c0
//       PIPE:       %[[IS1:.*]] = arith.cmpi eq, %[[SLOT]], %c1
//       PIPE:       %[[CUR12:.*]] = arith.select %[[IS1]], %[[A1]], %[[A2]] : memref<32x72xf16>
//       PIPE:       %[[CUR_A:.*]] = arith.select %[[IS0]], %[[A0]], %[[CUR12]] : memref<32x72xf16>
//       PIPE:       %[[FILL12:.*]] = arith.select %[[IS1]], %[[A0]], %[[A1]] : memref<32x72xf16>
//       PIPE:       %[[FILL_A:.*]] = arith.select %[[IS0]], %[[A2]], %[[FILL12]] : memref<32x72xf16>
//       PIPE:       %[[CUR_A_VIEW:.*]] = memref.subview %[[CUR_A]][0, 0] [32, 64] [1, 1]
//       PIPE:       %[[NEXT_A:.*]] = memref.subview %arg0[0, %[[AHEAD]]] [32, 64] [1, 1]
//       PIPE:       %[[FILL_A_VIEW:.*]] = memref.subview %[[FILL_A]][0, 0] [32, 64] [1, 1]
//       PIPE:       linalg.copy {tfm.prefetch = 2 : i64} ins(%[[NEXT_A]] : {{.*}}) outs(%[[FILL_A_VIEW]] :
//       PIPE:       linalg.copy {tfm.prefetch = 2 : i64}
//   PIPE-NOT:       linalg.copy
//       PIPE:       linalg.matmul ins(%[[CUR_A_VIEW]],
// Where three stages do not fit (25000 bytes: 29184 needed, 19456 for
// two), two.
// FEWER-LABEL: func.func @chunks(
//       FEWER:   memref.alloc() : memref<32x72xf16>
//       FEWER:   memref.alloc() : memref<32x72xf16>
//   FEWER-NOT:   memref.alloc() : memref<32x72xf16>
//       FEWER:   scf.for
//       FEWER:     arith.remsi %{{.*}}, %c2
//       FEWER:     linalg.copy {tfm.prefetch = 1 : i64}
// NO-ROOM-LABEL: func.func @chunks(
//   NO-ROOM-NOT:   tfm.prefetch
//       NO-ROOM:   scf.for
//       NO-ROOM:     memref.alloc() : memref<32x72xf16>
//   NO-ROOM-NOT:     tfm.prefetch
// CHECK-LABEL: func.func @chunks(
//   CHECK-NOT:   tfm.prefetch
//       CHECK:   scf.for
//       CHECK:     memref.alloc() : memref<32x72xf16>
//       CHECK:     linalg.copy ins
func.func @chunks(%a: memref<32x192xf16>, %b: memref<192x32xf16>, %c: memref<32x32xf32>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c192 = arith.constant 192 : index
  scf.forall (%i) in (1) {
    scf.for %k = %c0 to %c192 step %c64 {
      %sa = memref.subview %a[0, %k] [32, 64] [1, 1] : memref<32x192xf16> to memref<32x64xf16, strided<[192, 1], offset: ?>>
      %sb = memref.subview %b[%k, 0] [64, 32] [1, 1] : memref<192x32xf16> to memref<64x32xf16, strided<[32, 1], offset: ?>>
      linalg.matmul ins(%sa, %sb : memref<32x64xf16, strided<[192, 1], offset: ?>>, memref<64x32xf16, strided<[32, 1], offset: ?>>) outs(%c : memref<32x32xf32>)
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

// -----

// A row reduction's input is read once an element (one step of one row
// each): it is read where it is, not staged. What the rows' steps share
// (the means, read at every column) would be, were it not a tile buffer
// already.

// CHECK-LABEL: func.func @read_once(
//   CHECK-NOT:   linalg.copy
//       CHECK:   linalg.generic
//  CHECK-SAME:       ins(%{{.*}}, %{{.*}} : memref<4x64xf32, strided<[64, 1], offset: ?>>, memref<4xf32>)
//   CHECK-NOT:   linalg.copy
//       CHECK:   return
func.func @read_once(%x: memref<12x64xf32>, %y: memref<12xf32>) {
  scf.forall (%i) in (3) {
    %c4 = arith.constant 4 : index
    %row = arith.muli %i, %c4 : index
    %xt = memref.subview %x[%row, 0] [4, 64] [1, 1] : memref<12x64xf32> to memref<4x64xf32, strided<[64, 1], offset: ?>>
    %yt = memref.subview %y[%row] [4] [1] : memref<12xf32> to memref<4xf32, strided<[1], offset: ?>>
    %mean = memref.alloc() : memref<4xf32>
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%xt, %mean : memref<4x64xf32, strided<[64, 1], offset: ?>>, memref<4xf32>) outs(%yt : memref<4xf32, strided<[1], offset: ?>>) {
    ^bb0(%v: f32, %m: f32, %acc: f32):
      %d = arith.subf %v, %m : f32
      %r = arith.addf %d, %acc : f32
      linalg.yield %r : f32
    }
  }
  return
}
