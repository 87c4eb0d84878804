// RUN: tfm-opt %s --pass-pipeline="builtin.module(func.func(tfm-map-to-gpu{tensor-cores=true}),canonicalize,cse)" --split-input-file | FileCheck %s
// RUN: tfm-opt %s --pass-pipeline="builtin.module(func.func(tfm-map-to-gpu{tensor-cores=true emulate-warps=true block-size=1}),canonicalize,cse)" --split-input-file | FileCheck %s --check-prefix=EMULATED
// RUN: tfm-opt %s --pass-pipeline="builtin.module(func.func(tfm-map-to-gpu),canonicalize,cse)" --split-input-file | FileCheck %s --check-prefix=OFF
// RUN: tfm-opt %s --pass-pipeline="builtin.module(func.func(tfm-map-to-gpu{tensor-cores=true tf32=true}),canonicalize,cse)" --split-input-file | FileCheck %s --check-prefix=TF32
// RUN: tfm-opt %s --pass-pipeline="builtin.module(func.func(tfm-map-to-gpu{tensor-cores=true tf32=true emulate-warps=true block-size=1}),canonicalize,cse)" --split-input-file | FileCheck %s --check-prefix=TF32-EMULATED

// A block tile's float16 product with a float32 accumulator, 32 x 32 x 96:
// 2 x 4 instruction tiles of 16 x 8, in 4 warp tiles of two side by side,
// one per warp of the block's 4. A warp tile's two accumulator fragments
// are loaded once, updated by one mma.sync each per 16 steps of the
// reduction as loop values, both with the step's one A fragment, and
// stored once. Lane l's fragments: groupID l / 4, threadID_in_group l mod 4.

// CHECK-LABEL: func.func @tile_product(
// CHECK:         gpu.launch {{.*}} threads(%[[T:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c128,
// CHECK:           %[[WARP:.*]] = arith.divui %[[T]], %c32
// CHECK:           %[[LANE:.*]] = arith.remui %[[T]], %c32
// CHECK:           %[[G:.*]] = arith.divui %[[LANE]], %c4
// CHECK:           %[[TIG:.*]] = arith.remui %[[LANE]], %c4
// CHECK:           gpu.barrier
// CHECK:           scf.for %[[TILE:.*]] = %[[WARP]] to %c4 step %c4 {
// CHECK:             %[[M0:.*]] = arith.muli %{{.*}}, %c16
// CHECK:             %[[N0:.*]] = arith.muli %{{.*}}, %c16
// CHECK:             %[[TWICE_T:.*]] = arith.muli %[[TIG]], %c2
// CHECK:             %[[ROW:.*]] = arith.addi %[[M0]], %[[G]]
// CHECK:             %[[COL:.*]] = arith.addi %[[N0]], %[[TWICE_T]]
// CHECK:             %[[C00:.*]] = memref.load %[[C:.*]][%[[ROW]], %[[COL]]] : memref<32x32xf32
// CHECK:             %[[INIT0:.*]] = vector.from_elements %[[C00]], {{.*}} : vector<2x2xf32>
// CHECK:             %[[INIT1:.*]] = vector.from_elements {{.*}} : vector<2x2xf32>
// CHECK:             %[[D:.*]]:2 = scf.for %[[K:.*]] = %c0 to %c96 step %c16 iter_args(%[[ACC0:.*]] = %[[INIT0]], %[[ACC1:.*]] = %[[INIT1]]) -> (vector<2x2xf32>, vector<2x2xf32>) {
// CHECK:               %[[KA:.*]] = arith.addi %[[K]], %[[TWICE_T]]
// CHECK:               memref.load %{{.*}}[%[[ROW]], %[[KA]]] : memref<32x96xf16
// CHECK:               %[[A:.*]] = vector.from_elements {{.*}} : vector<4x2xf16>
// CHECK:               %[[B0:.*]] = vector.from_elements {{.*}} : vector<2x2xf16>
// CHECK-NOT:           vector<4x2xf16>
// CHECK:               %[[B1:.*]] = vector.from_elements {{.*}} : vector<2x2xf16>
// CHECK:               %[[NEXT0:.*]] = nvgpu.mma.sync(%[[A]], %[[B0]], %[[ACC0]]) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
// CHECK:               %[[NEXT1:.*]] = nvgpu.mma.sync(%[[A]], %[[B1]], %[[ACC1]])
// CHECK:               scf.yield %[[NEXT0]], %[[NEXT1]] : vector<2x2xf32>, vector<2x2xf32>
// CHECK:             %[[D00:.*]] = vector.extract %[[D]]#0[0, 0]
// CHECK:             memref.store %[[D00]], %[[C]][%[[ROW]], %[[COL]]]
// CHECK-COUNT-7:     memref.store
// CHECK:           gpu.barrier
// CHECK-NOT:       scf.for

// Emulated, the one thread is the whole warp: its lanes' fragments go
// through buffers of lanes x registers x elements (one A, and a B and a C
// for each instruction tile of the warp tile), each instruction computed
// from them, and no nvgpu op is left.

// EMULATED-LABEL: func.func @tile_product(
// EMULATED:         gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %c1,
// EMULATED-DAG:       %[[AF:.*]] = memref.alloca() : memref<32x4x2xf16>
// EMULATED-DAG:       %[[BF:.*]] = memref.alloca() : memref<32x2x2xf16>
// EMULATED-DAG:       %[[CF:.*]] = memref.alloca() : memref<32x2x2xf32>
// EMULATED-DAG:       %[[BF1:.*]] = memref.alloca() : memref<32x2x2xf16>
// EMULATED-DAG:       %[[CF1:.*]] = memref.alloca() : memref<32x2x2xf32>
// EMULATED:           scf.for %{{.*}} = %c0 to %c4 step %c1 {
// EMULATED:             scf.for %[[LANE:.*]] = %c0 to %c32 step %c1 {
// EMULATED:               memref.store %{{.*}}, %[[CF]][%[[LANE]], %c0, %c0]
// EMULATED:             scf.for %{{.*}} = %c0 to %c96 step %c16 {
// EMULATED:               scf.for %[[LANE2:.*]] = %c0 to %c32 step %c1 {
// EMULATED:                 memref.store %{{.*}}, %[[AF]][%[[LANE2]], %c3, %c1]
// EMULATED:               scf.for %[[LANE3:.*]] = %c0 to %c32 step %c1 {
// EMULATED:                 memref.store %{{.*}}, %[[BF]][%[[LANE3]], %c1, %c1]
// EMULATED:               scf.for %{{.*}} = %c0 to %c16 step %c1 {
// EMULATED:                 scf.for %{{.*}} = %c0 to %c8 step %c1 {
// EMULATED:                   scf.for %{{.*}} = %c0 to %c16 step %c1 iter_args
// EMULATED:                     arith.mulf
// EMULATED:                     arith.addf
// EMULATED-NOT:     nvgpu

// OFF-LABEL: func.func @tile_product(
// OFF-NOT:     nvgpu
// OFF:         scf.for %{{.*}} = %{{.*}} to %c1024 step %c128 {
// OFF-NOT:     nvgpu
func.func @tile_product(%a: memref<64x96xf16>, %b: memref<96x128xf16>, %c: memref<64x128xf32>) {
  scf.forall (%i, %j) = (0, 0) to (64, 128) step (32, 32) {
    %sa = memref.subview %a[%i, 0] [32, 96] [1, 1] : memref<64x96xf16> to memref<32x96xf16, strided<[96, 1], offset: ?>>
    %sb = memref.subview %b[0, %j] [96, 32] [1, 1] : memref<96x128xf16> to memref<96x32xf16, strided<[128, 1], offset: ?>>
    %sc = memref.subview %c[%i, %j] [32, 32] [1, 1] : memref<64x128xf32> to memref<32x32xf32, strided<[128, 1], offset: ?>>
    linalg.matmul ins(%sa, %sb : memref<32x96xf16, strided<[96, 1], offset: ?>>, memref<96x32xf16, strided<[128, 1], offset: ?>>) outs(%sc : memref<32x32xf32, strided<[128, 1], offset: ?>>)
  }
  return
}

// -----

// The right operand read transposed (keys as rows, Q K^T's), in a batch of
// one, staged in shared memory: ldmatrix loads B's fragments, two 8 x 8
// matrices whose rows are keys, not transposed (a row of K^T is a column
// of B). Lane l points at key n0 + l mod 8, reduction step
// k + 8 ((l mod 16) / 8). A, in global memory, is loaded element by
// element.

// CHECK-LABEL: func.func @transposed_rhs(
// CHECK:         gpu.launch {{.*}} threads(%[[T:.*]], %{{.*}}, %{{.*}}) in
// CHECK:         %[[KT:.*]] = memref.view {{.*}} to memref<1x16x32xf16, #gpu.address_space<workgroup>>
// CHECK:         %[[LANE:.*]] = arith.remui %[[T]], %c32
// CHECK:         scf.for %[[K:.*]] = %c0 to %c32 step %c16 iter_args
// CHECK:           %[[A:.*]] = vector.from_elements {{.*}} : vector<4x2xf16>
// CHECK:           %[[HALF:.*]] = arith.remui %[[LANE]], %c16
// CHECK:           %[[WHICH:.*]] = arith.divui %[[HALF]], %c8
// CHECK:           %[[KOFF:.*]] = arith.muli %[[WHICH]], %c8
// CHECK:           %[[ROW:.*]] = arith.remui %[[LANE]], %c8
// CHECK:           %[[KROW:.*]] = arith.addi %[[K]], %[[KOFF]]
// CHECK:           %[[NROW:.*]] = arith.addi %{{.*}}, %[[ROW]]
// CHECK:           %[[B:.*]] = nvgpu.ldmatrix %[[KT]][%c0, %[[NROW]], %[[KROW]]] {numTiles = 2 : i32, transpose = false} : memref<1x16x32xf16, #gpu.address_space<workgroup>> -> vector<2x2xf16>
// CHECK:           nvgpu.mma.sync(%[[A]], %[[B]], %{{.*}})

// EMULATED-LABEL: func.func @transposed_rhs(
// EMULATED:         %[[STARTS:.*]] = memref.alloca() : memref<32x3xindex>
// EMULATED:         scf.for %{{.*}} = %c0 to %c32 step %c16 {
// EMULATED:           scf.for %[[LANE:.*]] = %c0 to %c32 step %c1 {
// EMULATED:             memref.store %{{.*}}, %[[STARTS]][%[[LANE]], %c2]
// EMULATED:           scf.for %[[L:.*]] = %c0 to %c32 step %c1 {
// EMULATED:             scf.for %[[Q:.*]] = %c0 to %c2 step %c1 {
// EMULATED:               scf.for %[[E:.*]] = %c0 to %c2 step %c1 {
// EMULATED:                 memref.load %[[STARTS]]
// EMULATED-NOT:   nvgpu
func.func @transposed_rhs(%q: memref<4x16x32xf16>, %k: memref<4x16x32xf16>, %s: memref<4x16x16xf32>) {
  scf.forall (%h) in (4) {
    %sq = memref.subview %q[%h, 0, 0] [1, 16, 32] [1, 1, 1] : memref<4x16x32xf16> to memref<1x16x32xf16, strided<[512, 32, 1], offset: ?>>
    %sk = memref.subview %k[%h, 0, 0] [1, 16, 32] [1, 1, 1] : memref<4x16x32xf16> to memref<1x16x32xf16, strided<[512, 32, 1], offset: ?>>
    %ss = memref.subview %s[%h, 0, 0] [1, 16, 16] [1, 1, 1] : memref<4x16x16xf32> to memref<1x16x16xf32, strided<[256, 16, 1], offset: ?>>
    %tk = memref.alloc() : memref<1x16x32xf16>
    memref.copy %sk, %tk : memref<1x16x32xf16, strided<[512, 32, 1], offset: ?>> to memref<1x16x32xf16>
    linalg.generic {indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%sq, %tk : memref<1x16x32xf16, strided<[512, 32, 1], offset: ?>>, memref<1x16x32xf16>) outs(%ss : memref<1x16x16xf32, strided<[256, 16, 1], offset: ?>>) {
    ^bb0(%x: f16, %y: f16, %acc: f32):
      %xe = arith.extf %x : f16 to f32
      %ye = arith.extf %y : f16 to f32
      %p = arith.mulf %xe, %ye : f32
      %r = arith.addf %acc, %p : f32
      linalg.yield %r : f32
    }
  }
  return
}

// -----

// Both operands staged in shared memory, as tfm-gpu-promote-operands
// leaves a linear layer's tile. The staging copies are cp.async of 16
// bytes (8 halves) a thread at a time, committed as a group, when the
// source's offset is a multiple of 8 elements (else element by element);
// A's and B's are issued together, with no barrier between them, and
// waited for once, before the barrier that precedes the product.
// A is loaded by ldmatrix of four matrices, lane l pointing at row
// m0 + l mod 8 + 8 ((l / 8) mod 2), step k + 8 (l / 16); B, whose rows run
// along the columns, by ldmatrix of two matrices transposed, lane l
// pointing at step k + l mod 16 of column n0.

// CHECK-LABEL: func.func @shared_operands(
// CHECK:         gpu.launch {{.*}} threads(%[[T:.*]], %{{.*}}, %{{.*}}) in
// CHECK:         %[[SA:.*]] = memref.view {{.*}} to memref<32x64xf16, #gpu.address_space<workgroup>>
// CHECK:         %[[SB:.*]] = memref.view {{.*}} to memref<64x32xf16, #gpu.address_space<workgroup>>
// CHECK:         %[[TILE:.*]] = memref.subview %arg0
// CHECK:         %{{.*}}, %[[OFFSET:.*]], %{{.*}}, %{{.*}} = memref.extract_strided_metadata %[[TILE]]
// CHECK:         %[[MIS:.*]] = arith.remui %[[OFFSET]], %c8
// CHECK:         %[[ALIGNED:.*]] = arith.cmpi eq, %[[MIS]], %c0
// CHECK:         scf.if %[[ALIGNED]] {
// CHECK:           scf.for %[[CHUNK:.*]] = %[[T]] to %c256 step %c128 {
// CHECK:             %[[FIRST:.*]] = arith.muli %[[CHUNK]], %c8
// CHECK:             %[[COL:.*]] = arith.remui %[[FIRST]], %c64
// CHECK:             %[[ROW:.*]] = arith.divui %[[FIRST]], %c64
// CHECK:             nvgpu.device_async_copy %[[TILE]][%[[ROW]], %[[COL]]], %[[SA]][%[[ROW]], %[[COL]]], 8
// CHECK:           nvgpu.device_async_create_group
// CHECK-NOT:       nvgpu.device_async_wait
// CHECK:         } else {
// CHECK:           scf.for %{{.*}} = %[[T]] to %c2048 step %c128 {
// CHECK-NOT:     gpu.barrier
// CHECK:         nvgpu.device_async_copy {{.*}}, %[[SB]][{{.*}}], 8
// CHECK-NOT:     gpu.barrier
// CHECK:         nvgpu.device_async_wait %{{.*}} {numGroups = 0 : i32}
// CHECK-NEXT:    gpu.barrier
// CHECK:         %[[LANE:.*]] = arith.remui %[[T]], %c32
// CHECK:         scf.for %[[K:.*]] = %c0 to %c64 step %c16 iter_args
// CHECK:           %[[A:.*]] = nvgpu.ldmatrix %[[SA]][%{{.*}}, %{{.*}}] {numTiles = 4 : i32, transpose = false} : memref<32x64xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// CHECK:           %[[STEP:.*]] = arith.remui %[[LANE]], %c16
// CHECK:           %[[KROW:.*]] = arith.addi %[[K]], %[[STEP]]
// CHECK:           %[[B:.*]] = nvgpu.ldmatrix %[[SB]][%[[KROW]], %{{.*}}] {numTiles = 2 : i32, transpose = true} : memref<64x32xf16, #gpu.address_space<workgroup>> -> vector<2x2xf16>
// CHECK:           nvgpu.mma.sync(%[[A]], %[[B]], %{{.*}})
func.func @shared_operands(%a: memref<64x64xf16>, %b: memref<64x64xf16>, %c: memref<64x64xf32>) {
  scf.forall (%i, %j) = (0, 0) to (64, 64) step (32, 32) {
    %sa = memref.subview %a[%i, 0] [32, 64] [1, 1] : memref<64x64xf16> to memref<32x64xf16, strided<[64, 1], offset: ?>>
    %sb = memref.subview %b[0, %j] [64, 32] [1, 1] : memref<64x64xf16> to memref<64x32xf16, strided<[64, 1], offset: ?>>
    %sc = memref.subview %c[%i, %j] [32, 32] [1, 1] : memref<64x64xf32> to memref<32x32xf32, strided<[64, 1], offset: ?>>
    %ta = memref.alloc() : memref<32x64xf16>
    memref.copy %sa, %ta : memref<32x64xf16, strided<[64, 1], offset: ?>> to memref<32x64xf16>
    %tb = memref.alloc() : memref<64x32xf16>
    memref.copy %sb, %tb : memref<64x32xf16, strided<[64, 1], offset: ?>> to memref<64x32xf16>
    linalg.matmul ins(%ta, %tb : memref<32x64xf16>, memref<64x32xf16>) outs(%sc : memref<32x32xf32, strided<[64, 1], offset: ?>>)
  }
  return
}

// -----

// A 64 x 64 block tile: four warp tiles of 2 x 4 instruction tiles (32 x
// 32 of the output), one per warp. At every 16 steps a warp loads the A
// fragments of its two rows and the B fragments of its four columns, then
// issues the eight mma.sync, each instruction tile (i, j) with row i's A,
// column j's B and accumulator i * 4 + j.

// CHECK-LABEL: func.func @warp_tile_2x4(
// CHECK:         scf.for %{{.*}} = %{{.*}} to %c4 step %c4 {
// CHECK:           scf.for %{{.*}} = %c0 to %c32 step %c16 iter_args({{.*}}) -> (vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>) {
// CHECK-COUNT-2:     vector.from_elements {{.*}} : vector<4x2xf16>
// CHECK-NOT:         nvgpu.mma.sync
// CHECK:             %[[B0:.*]] = vector.from_elements {{.*}} : vector<2x2xf16>
// CHECK-COUNT-2:     vector.from_elements {{.*}} : vector<2x2xf16>
// CHECK:             %[[B3:.*]] = vector.from_elements {{.*}} : vector<2x2xf16>
// CHECK-NEXT:        %[[D00:.*]] = nvgpu.mma.sync(%[[A0:.*]], %[[B0]], %{{.*}})
// CHECK-COUNT-3:     nvgpu.mma.sync(%[[A0]],
// CHECK-NEXT:        %[[D10:.*]] = nvgpu.mma.sync(%{{.*}}, %[[B0]], %{{.*}})
// CHECK-COUNT-2:     nvgpu.mma.sync
// CHECK-NEXT:        %[[D13:.*]] = nvgpu.mma.sync(%{{.*}}, %[[B3]], %{{.*}})
// CHECK-NEXT:        scf.yield %[[D00]], {{.*}}, %[[D13]] :

// EMULATED-LABEL: func.func @warp_tile_2x4(
// EMULATED-COUNT-2: memref.alloca() : memref<32x4x2xf16>
// EMULATED-COUNT-4: memref.alloca() : memref<32x2x2xf16>
// EMULATED-COUNT-8: memref.alloca() : memref<32x2x2xf32>
// EMULATED:         scf.for %{{.*}} = %c0 to %c4 step %c1 {
func.func @warp_tile_2x4(%a: memref<128x32xf16>, %b: memref<32x128xf16>, %c: memref<128x128xf32>) {
  scf.forall (%i, %j) = (0, 0) to (128, 128) step (64, 64) {
    %sa = memref.subview %a[%i, 0] [64, 32] [1, 1] : memref<128x32xf16> to memref<64x32xf16, strided<[32, 1], offset: ?>>
    %sb = memref.subview %b[0, %j] [32, 64] [1, 1] : memref<32x128xf16> to memref<32x64xf16, strided<[128, 1], offset: ?>>
    %sc = memref.subview %c[%i, %j] [64, 64] [1, 1] : memref<128x128xf32> to memref<64x64xf32, strided<[128, 1], offset: ?>>
    linalg.matmul ins(%sa, %sb : memref<64x32xf16, strided<[32, 1], offset: ?>>, memref<32x64xf16, strided<[128, 1], offset: ?>>) outs(%sc : memref<64x64xf32, strided<[128, 1], offset: ?>>)
  }
  return
}

// -----

// A 128 x 128 block tile (tfm-gpu-select-strategy's for large products on
// tensor cores): four warp tiles of 4 x 8 instruction tiles (64 x 64 of the
// output), one per warp. At every 16 steps a warp loads the A fragments of
// its four rows and the B fragments of its eight columns, then issues the
// 32 mma.sync: each A fragment serves eight instructions, each B fragment
// four. Emulated, the one warp keeps 4 + 8 operand and 32 accumulator
// buffers.

// CHECK-LABEL: func.func @warp_tile_4x8(
// CHECK:         scf.for %{{.*}} = %{{.*}} to %c4 step %c4 {
// CHECK:           scf.for %{{.*}} = %c0 to %c32 step %c16 iter_args({{.*}}) -> ({{(vector<2x2xf32>, ){31}vector<2x2xf32>}}) {
// CHECK-COUNT-4:     vector.from_elements {{.*}} : vector<4x2xf16>
// CHECK-NOT:         nvgpu.mma.sync
// CHECK:             %[[B0:.*]] = vector.from_elements {{.*}} : vector<2x2xf16>
// CHECK-COUNT-6:     vector.from_elements {{.*}} : vector<2x2xf16>
// CHECK:             %[[B7:.*]] = vector.from_elements {{.*}} : vector<2x2xf16>
// CHECK-NEXT:        %[[D00:.*]] = nvgpu.mma.sync(%[[A0:.*]], %[[B0]], %{{.*}})
// CHECK-COUNT-7:     nvgpu.mma.sync(%[[A0]],
// CHECK-NEXT:        nvgpu.mma.sync(%{{.*}}, %[[B0]], %{{.*}})
// CHECK-COUNT-22:    nvgpu.mma.sync
// CHECK-NEXT:        %[[D37:.*]] = nvgpu.mma.sync(%{{.*}}, %[[B7]], %{{.*}})
// CHECK-NEXT:        scf.yield %[[D00]], {{.*}}, %[[D37]] :

// EMULATED-LABEL: func.func @warp_tile_4x8(
// EMULATED-COUNT-4: memref.alloca() : memref<32x4x2xf16>
// EMULATED-COUNT-8: memref.alloca() : memref<32x2x2xf16>
// EMULATED-COUNT-32: memref.alloca() : memref<32x2x2xf32>
// EMULATED-NOT:     memref.alloca() : memref<32x2x2xf32>
// EMULATED:         scf.for %{{.*}} = %c0 to %c4 step %c1 {
func.func @warp_tile_4x8(%a: memref<256x32xf16>, %b: memref<32x256xf16>, %c: memref<256x256xf32>) {
  scf.forall (%i, %j) = (0, 0) to (256, 256) step (128, 128) {
    %sa = memref.subview %a[%i, 0] [128, 32] [1, 1] : memref<256x32xf16> to memref<128x32xf16, strided<[32, 1], offset: ?>>
    %sb = memref.subview %b[0, %j] [32, 128] [1, 1] : memref<32x256xf16> to memref<32x128xf16, strided<[256, 1], offset: ?>>
    %sc = memref.subview %c[%i, %j] [128, 128] [1, 1] : memref<256x256xf32> to memref<128x128xf32, strided<[256, 1], offset: ?>>
    linalg.matmul ins(%sa, %sb : memref<128x32xf16, strided<[32, 1], offset: ?>>, memref<32x128xf16, strided<[256, 1], offset: ?>>) outs(%sc : memref<128x128xf32, strided<[256, 1], offset: ?>>)
  }
  return
}

// -----

// A reduction in chunks (a loop over them, the tile's accumulator defined
// outside it, nothing else in the loop touching it): the warps keep their
// accumulator fragments across the chunks. They are loaded before the
// loop, carried by it as loop values into each chunk's steps, and stored
// once after it, with one barrier after the stores; inside the loop the
// accumulator tile is neither loaded nor stored. Emulated, the one warp's
// lanes keep the fragments of all four warp tiles in eight buffers loaded
// before the loop.

// CHECK-LABEL: func.func @chunk_loop(
// CHECK:         %[[INIT0:.*]] = vector.from_elements {{.*}} : vector<2x2xf32>
// CHECK:         %[[INIT1:.*]] = vector.from_elements {{.*}} : vector<2x2xf32>
// CHECK:         %[[D:.*]]:2 = scf.for %{{.*}} = %c0 to %c128 step %c64 iter_args(%[[ACC0:.*]] = %[[INIT0]], %[[ACC1:.*]] = %[[INIT1]]) -> (vector<2x2xf32>, vector<2x2xf32>) {
// CHECK-NOT:       memref<32x32xf32
// CHECK:           %[[STEPS:.*]]:2 = scf.for %{{.*}} = %c0 to %c64 step %c16 iter_args(%{{.*}} = %[[ACC0]], %{{.*}} = %[[ACC1]])
// CHECK:             nvgpu.mma.sync
// CHECK-NOT:       memref<32x32xf32
// CHECK:           scf.yield %[[STEPS]]#0, %[[STEPS]]#1 : vector<2x2xf32>, vector<2x2xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[D00:.*]] = vector.extract %[[D]]#0[0, 0]
// CHECK-NEXT:    memref.store %[[D00]], %{{.*}} : memref<32x32xf32
// CHECK-COUNT-7: memref.store {{.*}} : memref<32x32xf32
// CHECK-NEXT:    gpu.barrier

// EMULATED-LABEL: func.func @chunk_loop(
// EMULATED-COUNT-8: memref.alloca() : memref<32x2x2xf32>
// EMULATED:         memref.load {{.*}} : memref<32x32xf32
// EMULATED:         scf.for %{{.*}} = %c0 to %c128 step %c64 {
// EMULATED-NOT:       memref<32x32xf32
// EMULATED:           arith.mulf
// EMULATED-NOT:       memref<32x32xf32
// EMULATED:         memref.store {{.*}} : memref<32x32xf32
func.func @chunk_loop(%a: memref<64x128xf16>, %b: memref<128x64xf16>, %c: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  scf.forall (%i, %j) = (0, 0) to (64, 64) step (32, 32) {
    %sc = memref.subview %c[%i, %j] [32, 32] [1, 1] : memref<64x64xf32> to memref<32x32xf32, strided<[64, 1], offset: ?>>
    scf.for %k = %c0 to %c128 step %c64 {
      %sa = memref.subview %a[%i, %k] [32, 64] [1, 1] : memref<64x128xf16> to memref<32x64xf16, strided<[128, 1], offset: ?>>
      %sb = memref.subview %b[%k, %j] [64, 32] [1, 1] : memref<128x64xf16> to memref<64x32xf16, strided<[64, 1], offset: ?>>
      linalg.matmul ins(%sa, %sb : memref<32x64xf16, strided<[128, 1], offset: ?>>, memref<64x32xf16, strided<[64, 1], offset: ?>>) outs(%sc : memref<32x32xf32, strided<[64, 1], offset: ?>>)
    }
  }
  return
}

// -----

// A product whose accumulator a fill has just set (nothing between them
// but the staging of its operands) starts its fragments from the fill's
// value: no pass over the tile to fill it, no load of what it stored.
// Where something reads the buffer between them, the fill stays.

// CHECK-LABEL: func.func @fill_folded(
// CHECK:         %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<2x2xf32>
// CHECK-NOT:     memref.store {{.*}} : memref<32x32xf32
// CHECK-NOT:     memref.load {{.*}} : memref<32x32xf32
// CHECK:         scf.for %{{.*}} = %c0 to %c32 step %c16 iter_args(%{{.*}} = %[[ZERO]], %{{.*}} = %[[ZERO]]) -> (vector<2x2xf32>, vector<2x2xf32>)
// CHECK:           nvgpu.mma.sync
// CHECK:         memref.store {{.*}} : memref<32x32xf32
// CHECK-LABEL: func.func @fill_read(
// CHECK:         scf.for
// CHECK:           memref.store %{{.*}} : memref<32x32xf32
// CHECK:         memref.load {{.*}} : memref<32x32xf32
// CHECK:         nvgpu.mma.sync
func.func @fill_folded(%a: memref<64x32xf16>, %b: memref<32x64xf16>, %c: memref<64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  scf.forall (%i, %j) = (0, 0) to (64, 64) step (32, 32) {
    %sc = memref.subview %c[%i, %j] [32, 32] [1, 1] : memref<64x64xf32> to memref<32x32xf32, strided<[64, 1], offset: ?>>
    linalg.fill ins(%zero : f32) outs(%sc : memref<32x32xf32, strided<[64, 1], offset: ?>>)
    %sa = memref.subview %a[%i, 0] [32, 32] [1, 1] : memref<64x32xf16> to memref<32x32xf16, strided<[32, 1], offset: ?>>
    %sb = memref.subview %b[0, %j] [32, 32] [1, 1] : memref<32x64xf16> to memref<32x32xf16, strided<[64, 1], offset: ?>>
    linalg.matmul ins(%sa, %sb : memref<32x32xf16, strided<[32, 1], offset: ?>>, memref<32x32xf16, strided<[64, 1], offset: ?>>) outs(%sc : memref<32x32xf32, strided<[64, 1], offset: ?>>)
  }
  return
}
func.func @fill_read(%a: memref<64x32xf16>, %b: memref<32x64xf16>, %c: memref<64x64xf32>, %d: memref<64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  scf.forall (%i, %j) = (0, 0) to (64, 64) step (32, 32) {
    %sc = memref.subview %c[%i, %j] [32, 32] [1, 1] : memref<64x64xf32> to memref<32x32xf32, strided<[64, 1], offset: ?>>
    %sd = memref.subview %d[%i, %j] [32, 32] [1, 1] : memref<64x64xf32> to memref<32x32xf32, strided<[64, 1], offset: ?>>
    linalg.fill ins(%zero : f32) outs(%sc : memref<32x32xf32, strided<[64, 1], offset: ?>>)
    linalg.copy ins(%sc : memref<32x32xf32, strided<[64, 1], offset: ?>>) outs(%sd : memref<32x32xf32, strided<[64, 1], offset: ?>>)
    %sa = memref.subview %a[%i, 0] [32, 32] [1, 1] : memref<64x32xf16> to memref<32x32xf16, strided<[32, 1], offset: ?>>
    %sb = memref.subview %b[0, %j] [32, 32] [1, 1] : memref<32x64xf16> to memref<32x32xf16, strided<[64, 1], offset: ?>>
    linalg.matmul ins(%sa, %sb : memref<32x32xf16, strided<[32, 1], offset: ?>>, memref<32x32xf16, strided<[64, 1], offset: ?>>) outs(%sc : memref<32x32xf32, strided<[64, 1], offset: ?>>)
  }
  return
}

// -----

// A product into a tile buffer that only an elementwise op then reads (flash
// attention's scores, scaled; a bias and a cast) stores through that op:
// each lane applies it to its fragments' elements, reading its other
// inputs at the element's position, and stores the result into the op's
// output. Nothing is stored into the product's tile, which takes no shared
// memory (one 32 x 32 float16 buffer: 2 KiB), and there is no pass over it
// behind a barrier. Where the tile is read by anything else too, the
// product stores it and the op stays a pass of its own.

// CHECK-LABEL: func.func @epilogue_fused(
// CHECK:         gpu.launch {{.*}} dynamic_shared_memory_size %c2048_i32
// CHECK:           %[[SCORES:.*]]:2 = scf.for %{{.*}} = %c0 to %c32 step %c16 iter_args
// CHECK:             nvgpu.mma.sync
// CHECK:           %[[E:.*]] = vector.extract %[[SCORES]]#0[0, 0]
// CHECK:           %[[BIAS:.*]] = memref.load %{{.*}} : memref<32xf32
// CHECK:           %[[SUM:.*]] = arith.addf %[[E]], %[[BIAS]]
// CHECK:           %[[HALF:.*]] = arith.truncf %[[SUM]] : f32 to f16
// CHECK:           memref.store %[[HALF]], %{{.*}} : memref<32x32xf16
// CHECK-NOT:       memref.store {{.*}} : memref<32x32xf32
// CHECK:           gpu.terminator
// CHECK-LABEL: func.func @epilogue_unfused(
// CHECK:         gpu.launch {{.*}} dynamic_shared_memory_size %c6144_i32
// CHECK:           nvgpu.mma.sync
// CHECK:           memref.store {{.*}} : memref<32x32xf32>
// CHECK:           gpu.barrier
// CHECK:           scf.for
// CHECK:             memref.load {{.*}} : memref<32x32xf32>
// EMULATED-LABEL: func.func @epilogue_fused(
// EMULATED-NOT:     memref.store {{.*}} : memref<32x32xf32
// EMULATED:         arith.truncf
// EMULATED:         memref.store {{.*}} : memref<32x32xf16
// EMULATED-LABEL: func.func @epilogue_unfused(
func.func @epilogue_fused(%a: memref<64x32xf16>, %b: memref<32x64xf16>, %bias: memref<64xf32>, %c: memref<64x64xf16>) {
  %zero = arith.constant 0.0 : f32
  scf.forall (%i, %j) = (0, 0) to (64, 64) step (32, 32) {
    %sa = memref.subview %a[%i, 0] [32, 32] [1, 1] : memref<64x32xf16> to memref<32x32xf16, strided<[32, 1], offset: ?>>
    %sb = memref.subview %b[0, %j] [32, 32] [1, 1] : memref<32x64xf16> to memref<32x32xf16, strided<[64, 1], offset: ?>>
    %sbias = memref.subview %bias[%j] [32] [1] : memref<64xf32> to memref<32xf32, strided<[1], offset: ?>>
    %sc = memref.subview %c[%i, %j] [32, 32] [1, 1] : memref<64x64xf16> to memref<32x32xf16, strided<[64, 1], offset: ?>>
    %acc = memref.alloc() : memref<32x32xf32>
    linalg.fill ins(%zero : f32) outs(%acc : memref<32x32xf32>)
    linalg.matmul ins(%sa, %sb : memref<32x32xf16, strided<[32, 1], offset: ?>>, memref<32x32xf16, strided<[64, 1], offset: ?>>) outs(%acc : memref<32x32xf32>)
    %half = memref.alloc() : memref<32x32xf16>
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%acc, %sbias : memref<32x32xf32>, memref<32xf32, strided<[1], offset: ?>>) outs(%half : memref<32x32xf16>) {
    ^bb0(%x: f32, %y: f32, %out: f16):
      %s = arith.addf %x, %y : f32
      %t = arith.truncf %s : f32 to f16
      linalg.yield %t : f16
    }
    linalg.copy ins(%half : memref<32x32xf16>) outs(%sc : memref<32x32xf16, strided<[64, 1], offset: ?>>)
  }
  return
}
func.func @epilogue_unfused(%a: memref<64x32xf16>, %b: memref<32x64xf16>, %bias: memref<64xf32>, %c: memref<64x64xf16>, %d: memref<64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  scf.forall (%i, %j) = (0, 0) to (64, 64) step (32, 32) {
    %sa = memref.subview %a[%i, 0] [32, 32] [1, 1] : memref<64x32xf16> to memref<32x32xf16, strided<[32, 1], offset: ?>>
    %sb = memref.subview %b[0, %j] [32, 32] [1, 1] : memref<32x64xf16> to memref<32x32xf16, strided<[64, 1], offset: ?>>
    %sbias = memref.subview %bias[%j] [32] [1] : memref<64xf32> to memref<32xf32, strided<[1], offset: ?>>
    %sc = memref.subview %c[%i, %j] [32, 32] [1, 1] : memref<64x64xf16> to memref<32x32xf16, strided<[64, 1], offset: ?>>
    %sd = memref.subview %d[%i, %j] [32, 32] [1, 1] : memref<64x64xf32> to memref<32x32xf32, strided<[64, 1], offset: ?>>
    %acc = memref.alloc() : memref<32x32xf32>
    linalg.fill ins(%zero : f32) outs(%acc : memref<32x32xf32>)
    linalg.matmul ins(%sa, %sb : memref<32x32xf16, strided<[32, 1], offset: ?>>, memref<32x32xf16, strided<[64, 1], offset: ?>>) outs(%acc : memref<32x32xf32>)
    %half = memref.alloc() : memref<32x32xf16>
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%acc, %sbias : memref<32x32xf32>, memref<32xf32, strided<[1], offset: ?>>) outs(%half : memref<32x32xf16>) {
    ^bb0(%x: f32, %y: f32, %out: f16):
      %s = arith.addf %x, %y : f32
      %t = arith.truncf %s : f32 to f16
      linalg.yield %t : f16
    }
    linalg.copy ins(%half : memref<32x32xf16>) outs(%sc : memref<32x32xf16, strided<[64, 1], offset: ?>>)
    linalg.copy ins(%acc : memref<32x32xf32>) outs(%sd : memref<32x32xf32, strided<[64, 1], offset: ?>>)
  }
  return
}

// -----

// The same after a reduction in chunks: the loop carries the fragments, and
// after it each lane stores its elements through the epilogue (a ReLU and a
// cast) into the float16 output. The float32 tile is never stored; the
// launch asks for no shared memory (the operands are read as they are
// here: nothing stages them).

// CHECK-LABEL: func.func @epilogue_after_chunks(
// CHECK-NOT:     dynamic_shared_memory_size
// CHECK:         %[[FRAGMENTS:.*]]:2 = scf.for %{{.*}} = %c0 to %c128 step %c64 iter_args
// CHECK:         %[[E:.*]] = vector.extract %[[FRAGMENTS]]#0[0, 0]
// CHECK:         %[[R:.*]] = arith.maximumf %[[E]]
// CHECK-NEXT:    %[[T:.*]] = arith.truncf %[[R]] : f32 to f16
// CHECK-NEXT:    memref.store %[[T]], %{{.*}} : memref<32x32xf16, strided<[64, 1], offset: ?>>
// CHECK-NOT:     memref.store {{.*}} : memref<32x32xf32
// CHECK:         gpu.terminator
// EMULATED-LABEL: func.func @epilogue_after_chunks(
// EMULATED-NOT:     memref.store {{.*}} : memref<32x32xf32
// EMULATED:         arith.maximumf
// EMULATED:         memref.store {{.*}} : memref<32x32xf16
func.func @epilogue_after_chunks(%a: memref<64x128xf16>, %b: memref<128x64xf16>, %c: memref<64x64xf16>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  scf.forall (%i, %j) = (0, 0) to (64, 64) step (32, 32) {
    %sc = memref.subview %c[%i, %j] [32, 32] [1, 1] : memref<64x64xf16> to memref<32x32xf16, strided<[64, 1], offset: ?>>
    %acc = memref.alloc() : memref<32x32xf32>
    linalg.fill ins(%zero : f32) outs(%acc : memref<32x32xf32>)
    scf.for %k = %c0 to %c128 step %c64 {
      %sa = memref.subview %a[%i, %k] [32, 64] [1, 1] : memref<64x128xf16> to memref<32x64xf16, strided<[128, 1], offset: ?>>
      %sb = memref.subview %b[%k, %j] [64, 32] [1, 1] : memref<128x64xf16> to memref<64x32xf16, strided<[64, 1], offset: ?>>
      linalg.matmul ins(%sa, %sb : memref<32x64xf16, strided<[128, 1], offset: ?>>, memref<64x32xf16, strided<[64, 1], offset: ?>>) outs(%acc : memref<32x32xf32>)
    }
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%acc : memref<32x32xf32>) outs(%sc : memref<32x32xf16, strided<[64, 1], offset: ?>>) {
    ^bb0(%x: f32, %out: f16):
      %r = arith.maximumf %x, %zero : f32
      %t = arith.truncf %r : f32 to f16
      linalg.yield %t : f16
    }
  }
  return
}

// -----

// Flash attention's output, as the attention lowers it: the accumulator is
// a 1 x 32 x 32 buffer, filled with zeros, and the product accumulates
// into a view of all of it without the unit dimension; the division by the
// row sums reads the buffer itself, over three dimensions. The fill is
// folded (the fragments start from zero and the launch's shared memory is
// the sums' 128 bytes), and the division becomes the epilogue of the
// fragments after the loop, rebuilt over the view's two dimensions: after a
// barrier (the sums are the block's, which its threads wrote), each lane
// divides its elements by their row's sum and stores them, cast, into the
// float16 output's rows. The float32 accumulator is never stored.

// CHECK-LABEL: func.func @epilogue_of_view(
// CHECK:         dynamic_shared_memory_size %c128_i32
// CHECK-NOT:     memref.store {{.*}} : memref<1x32x32xf32
// CHECK:         %[[FRAGMENTS:.*]]:2 = scf.for %{{.*}} = %c0 to %c128 step %c64 iter_args(%{{.*}} = %[[ZERO:cst[_0-9]*]], %{{.*}} = %[[ZERO]])
// CHECK:         gpu.barrier
// CHECK-NEXT:    %[[E:.*]] = vector.extract %[[FRAGMENTS]]#0[0, 0]
// CHECK:         %[[S:.*]] = memref.load %{{.*}} : memref<32xf32, strided<[1]>>
// CHECK-NEXT:    %[[D:.*]] = arith.divf %[[E]], %[[S]] : f32
// CHECK-NEXT:    %[[T:.*]] = arith.truncf %[[D]] : f32 to f16
// CHECK-NEXT:    memref.store %[[T]], %{{.*}} : memref<32x32xf16, strided<[64, 1], offset: ?>>
// CHECK-NOT:     memref.store {{.*}} : memref<{{(1x)?}}32x32xf32
// CHECK:         gpu.terminator
// EMULATED-LABEL: func.func @epilogue_of_view(
// EMULATED-NOT:     memref.store {{.*}} : memref<{{(1x)?}}32x32xf32
// EMULATED:         arith.divf
// EMULATED:         memref.store {{.*}} : memref<32x32xf16
func.func @epilogue_of_view(%a: memref<64x128xf16>, %b: memref<128x64xf16>, %c: memref<1x64x64xf16>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  scf.forall (%i, %j) = (0, 0) to (64, 64) step (32, 32) {
    %sc = memref.subview %c[0, %i, %j] [1, 32, 32] [1, 1, 1] : memref<1x64x64xf16> to memref<1x32x32xf16, strided<[4096, 64, 1], offset: ?>>
    %acc = memref.alloc() : memref<1x32x32xf32>
    linalg.fill ins(%zero : f32) outs(%acc : memref<1x32x32xf32>)
    %sums = memref.alloc() : memref<1x32xf32>
    linalg.fill ins(%two : f32) outs(%sums : memref<1x32xf32>)
    %view = memref.subview %acc[0, 0, 0] [1, 32, 32] [1, 1, 1] : memref<1x32x32xf32> to memref<32x32xf32, strided<[32, 1]>>
    scf.for %k = %c0 to %c128 step %c64 {
      %sa = memref.subview %a[%i, %k] [32, 64] [1, 1] : memref<64x128xf16> to memref<32x64xf16, strided<[128, 1], offset: ?>>
      %sb = memref.subview %b[%k, %j] [64, 32] [1, 1] : memref<128x64xf16> to memref<64x32xf16, strided<[64, 1], offset: ?>>
      linalg.matmul ins(%sa, %sb : memref<32x64xf16, strided<[128, 1], offset: ?>>, memref<64x32xf16, strided<[64, 1], offset: ?>>) outs(%view : memref<32x32xf32, strided<[32, 1]>>)
    }
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%acc, %sums : memref<1x32x32xf32>, memref<1x32xf32>) outs(%sc : memref<1x32x32xf16, strided<[4096, 64, 1], offset: ?>>) {
    ^bb0(%x: f32, %s: f32, %out: f16):
      %r = arith.divf %x, %s : f32
      %t = arith.truncf %r : f32 to f16
      linalg.yield %t : f16
    }
  }
  return
}

// -----

// An epilogue that reads its elements' positions (a causal mask): each
// element's row and column in the tile, as the lane's fragment layout puts
// them, are what it compares, and where it stores.

// CHECK-LABEL: func.func @epilogue_positions(
// CHECK:         %[[ABOVE:.*]] = arith.cmpi sgt, %[[COL:.*]], %[[ROW:.*]] : index
// CHECK-NEXT:    %[[MASKED:.*]] = arith.select %[[ABOVE]]
// CHECK-NEXT:    memref.store %[[MASKED]], %{{.*}}[%[[ROW]], %[[COL]]] : memref<32x32xf32, strided<[64, 1], offset: ?>>
// EMULATED-LABEL: func.func @epilogue_positions(
// EMULATED:         arith.cmpi sgt
func.func @epilogue_positions(%a: memref<64x32xf16>, %b: memref<32x64xf16>, %c: memref<64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  scf.forall (%i, %j) = (0, 0) to (64, 64) step (32, 32) {
    %sa = memref.subview %a[%i, 0] [32, 32] [1, 1] : memref<64x32xf16> to memref<32x32xf16, strided<[32, 1], offset: ?>>
    %sb = memref.subview %b[0, %j] [32, 32] [1, 1] : memref<32x64xf16> to memref<32x32xf16, strided<[64, 1], offset: ?>>
    %sc = memref.subview %c[%i, %j] [32, 32] [1, 1] : memref<64x64xf32> to memref<32x32xf32, strided<[64, 1], offset: ?>>
    %acc = memref.alloc() : memref<32x32xf32>
    linalg.fill ins(%zero : f32) outs(%acc : memref<32x32xf32>)
    linalg.matmul ins(%sa, %sb : memref<32x32xf16, strided<[32, 1], offset: ?>>, memref<32x32xf16, strided<[64, 1], offset: ?>>) outs(%acc : memref<32x32xf32>)
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%acc : memref<32x32xf32>) outs(%sc : memref<32x32xf32, strided<[64, 1], offset: ?>>) {
    ^bb0(%x: f32, %out: f32):
      %row = linalg.index 0 : index
      %col = linalg.index 1 : index
      %above = arith.cmpi sgt, %col, %row : index
      %masked = arith.select %above, %ninf, %x : f32
      linalg.yield %masked : f32
    }
  }
  return
}

// -----

// A loop that also updates the accumulator element by element between the
// products (as flash attention rescales its output by each row's
// correction at every key block) keeps it in the warps all the same: the
// loop carries the fragments, and each lane applies the update to its
// elements, reading the row's scale at the element's row (g and g + 8 of
// its instruction tiles); nothing in the loop loads or stores the
// accumulator.

// CHECK-LABEL: func.func @accumulator_update(
// CHECK:         %[[FRAGMENTS:.*]]:2 = scf.for %{{.*}} = %c0 to %c128 step %c64 iter_args(%[[F0:.*]] = %{{.*}}, %[[F1:.*]] = %{{.*}}) -> (vector<2x2xf32>, vector<2x2xf32>) {
// CHECK-NOT:       memref<32x32xf32
// CHECK:           %[[UPPER:.*]] = memref.load %{{.*}} : memref<32xf32
// CHECK:           %[[E:.*]] = vector.extract %[[F0]][0, 0]
// CHECK:           arith.mulf %[[E]], %[[UPPER]]
// CHECK:           %[[LOWER:.*]] = memref.load %{{.*}} : memref<32xf32
// CHECK:           %[[E2:.*]] = vector.extract %[[F0]][1, 0]
// CHECK:           arith.mulf %[[E2]], %[[LOWER]]
// CHECK-NOT:       memref<32x32xf32
// CHECK:           nvgpu.mma.sync
// CHECK-NOT:       memref<32x32xf32
// CHECK:           scf.yield
// CHECK:         vector.extract %[[FRAGMENTS]]#0[0, 0]
// CHECK:         memref.store {{.*}} : memref<32x32xf32
func.func @accumulator_update(%a: memref<64x128xf16>, %b: memref<128x64xf16>, %c: memref<64x64xf32>, %scale: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  scf.forall (%i, %j) = (0, 0) to (64, 64) step (32, 32) {
    %ss = memref.subview %scale[%i] [32] [1] : memref<64xf32> to memref<32xf32, strided<[1], offset: ?>>
    scf.for %k = %c0 to %c128 step %c64 {
      %sc = memref.subview %c[%i, %j] [32, 32] [1, 1] : memref<64x64xf32> to memref<32x32xf32, strided<[64, 1], offset: ?>>
      linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%ss : memref<32xf32, strided<[1], offset: ?>>) outs(%sc : memref<32x32xf32, strided<[64, 1], offset: ?>>) {
      ^bb0(%s: f32, %out: f32):
        %scaled = arith.mulf %out, %s : f32
        linalg.yield %scaled : f32
      }
      %sa = memref.subview %a[%i, %k] [32, 64] [1, 1] : memref<64x128xf16> to memref<32x64xf16, strided<[128, 1], offset: ?>>
      %sb = memref.subview %b[%k, %j] [64, 32] [1, 1] : memref<128x64xf16> to memref<64x32xf16, strided<[64, 1], offset: ?>>
      linalg.matmul ins(%sa, %sb : memref<32x64xf16, strided<[128, 1], offset: ?>>, memref<64x32xf16, strided<[64, 1], offset: ?>>) outs(%sc : memref<32x32xf32, strided<[64, 1], offset: ?>>)
    }
  }
  return
}

// -----

// A loop that reads the accumulator otherwise (here, copies it out at every
// step) cannot keep it in the warps: each product loads and stores its
// fragments, and the loop carries nothing.

// CHECK-LABEL: func.func @accumulator_read(
// CHECK:         scf.for %{{.*}} = %c0 to %c128 step %c64 {
// CHECK:           scf.for %{{.*}} = %{{.*}} to %c4 step %c4 {
// CHECK:             memref.load {{.*}} : memref<32x32xf32
// CHECK:             nvgpu.mma.sync
// CHECK:             memref.store {{.*}} : memref<32x32xf32
func.func @accumulator_read(%a: memref<64x128xf16>, %b: memref<128x64xf16>, %c: memref<64x64xf32>, %d: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  scf.forall (%i, %j) = (0, 0) to (64, 64) step (32, 32) {
    %sc = memref.subview %c[%i, %j] [32, 32] [1, 1] : memref<64x64xf32> to memref<32x32xf32, strided<[64, 1], offset: ?>>
    %sd = memref.subview %d[%i, %j] [32, 32] [1, 1] : memref<64x64xf32> to memref<32x32xf32, strided<[64, 1], offset: ?>>
    scf.for %k = %c0 to %c128 step %c64 {
      %sa = memref.subview %a[%i, %k] [32, 64] [1, 1] : memref<64x128xf16> to memref<32x64xf16, strided<[128, 1], offset: ?>>
      %sb = memref.subview %b[%k, %j] [64, 32] [1, 1] : memref<128x64xf16> to memref<64x32xf16, strided<[64, 1], offset: ?>>
      linalg.matmul ins(%sa, %sb : memref<32x64xf16, strided<[128, 1], offset: ?>>, memref<64x32xf16, strided<[64, 1], offset: ?>>) outs(%sc : memref<32x32xf32, strided<[64, 1], offset: ?>>)
      linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%sc : memref<32x32xf32, strided<[64, 1], offset: ?>>) outs(%sd : memref<32x32xf32, strided<[64, 1], offset: ?>>) {
      ^bb0(%x: f32, %out: f32):
        linalg.yield %x : f32
      }
    }
  }
  return
}

// -----

// Extents that the instruction tiles do not cover exactly (17 rows, 12
// columns, 24 steps): two tiles down, two across, two instructions of 16
// steps; an element past an extent is read at the last one and replaced by
// zero, and is not stored. An operand whose tiles are not whole is loaded
// element by element, even from shared memory (A here), not by ldmatrix.

// CHECK-LABEL: func.func @partial_tiles(
// CHECK:         scf.for %{{.*}} = %{{.*}} to %c4 step %c4 {
// CHECK:           arith.cmpi ult, %{{.*}}, %c17
// CHECK:           %[[CLAMPED:.*]] = arith.minui %{{.*}}, %c16
// CHECK:           %[[V:.*]] = memref.load %{{.*}}[%[[CLAMPED]], %{{.*}}]
// CHECK:           arith.select %{{.*}}, %[[V]], %{{.*}} : f32
// CHECK:           scf.for %{{.*}} = %c0 to %c32 step %c16 iter_args
// CHECK-NOT:         nvgpu.ldmatrix
// CHECK:             nvgpu.mma.sync
// CHECK:           scf.if %{{.*}} {
// CHECK-NEXT:        memref.store
func.func @partial_tiles(%a: memref<17x24xf16>, %b: memref<24x12xf16>, %c: memref<17x12xf32>) {
  scf.forall (%i) in (1) {
    %ta = memref.alloc() : memref<17x24xf16>
    memref.copy %a, %ta : memref<17x24xf16> to memref<17x24xf16>
    linalg.matmul ins(%ta, %b : memref<17x24xf16>, memref<24x12xf16>) outs(%c : memref<17x12xf32>)
  }
  return
}

// -----

// What the tensor cores do not take stays a loop over the threads: float32
// operands (TF32 only when asked for, below), a product outside a block
// tile, dynamic extents.

// CHECK-LABEL: func.func @not_on_tensor_cores(
// CHECK-NOT:     nvgpu
// CHECK:         return
func.func @not_on_tensor_cores(%a32: memref<32x32xf32>, %b32: memref<32x32xf32>, %a16: memref<32x32xf16>, %dynamic: memref<?x32xf16>, %c: memref<32x32xf32>, %cd: memref<?x32xf32>) {
  scf.forall (%i) in (1) {
    linalg.matmul ins(%a32, %b32 : memref<32x32xf32>, memref<32x32xf32>) outs(%c : memref<32x32xf32>)
    linalg.matmul ins(%dynamic, %a16 : memref<?x32xf16>, memref<32x32xf16>) outs(%cd : memref<?x32xf32>)
  }
  linalg.matmul ins(%a16, %a16 : memref<32x32xf16>, memref<32x32xf16>) outs(%c : memref<32x32xf32>)
  return
}

// -----

// With tf32, a float32 product runs on mma.sync m16n8k8: the operands'
// elements rounded to TF32 (cvt.rna.tf32.f32) as they are loaded, one per
// register, eight steps an instruction.

// TF32-LABEL: func.func @tf32(
// TF32:         scf.for %{{.*}} = %c0 to %c32 step %c8 iter_args(%{{.*}}) -> (vector<2x2xf32>, vector<2x2xf32>) {
// TF32:           %[[X:.*]] = memref.load {{.*}} : memref<32x32xf32>
// TF32:           %[[R:.*]] = nvvm.convert.float.to.tf32 %[[X]] {rnd = #nvvm.fp_rnd_mode<rna>}
// TF32:           arith.bitcast %[[R]] : i32 to f32
// TF32:           %[[A:.*]] = vector.from_elements {{.*}} : vector<4x1xf32>
// TF32:           %[[B:.*]] = vector.from_elements {{.*}} : vector<2x1xf32>
// TF32:           nvgpu.mma.sync(%[[A]], %[[B]], %{{.*}}) {mmaShape = [16, 8, 8], tf32Enabled} : (vector<4x1xf32>, vector<2x1xf32>, vector<2x2xf32>) -> vector<2x2xf32>

// Emulated, the rounding is to nearest with ties away from zero on the
// bits: add half of TF32's last place (0x1000), clear the 13 bits below.

// TF32-EMULATED-LABEL: func.func @tf32(
// TF32-EMULATED:         %[[RAW:.*]] = arith.bitcast %{{.*}} : f32 to i32
// TF32-EMULATED:         %[[UP:.*]] = arith.addi %[[RAW]], %c4096_i32
// TF32-EMULATED:         %[[CUT:.*]] = arith.andi %[[UP]], %c-8192_i32
// TF32-EMULATED:         arith.bitcast %[[CUT]] : i32 to f32
// TF32-EMULATED-NOT:     nvvm
func.func @tf32(%a: memref<32x32xf32>, %b: memref<32x32xf32>, %c: memref<32x32xf32>) {
  scf.forall (%i) in (1) {
    linalg.matmul ins(%a, %b : memref<32x32xf32>, memref<32x32xf32>) outs(%c : memref<32x32xf32>)
  }
  return
}
