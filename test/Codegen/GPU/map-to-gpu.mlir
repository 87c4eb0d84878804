// RUN: tfm-opt %s --pass-pipeline="builtin.module(func.func(tfm-gpu-promote-operands,tfm-map-to-gpu),tfm-gpu-place-buffers,canonicalize,cse)" --split-input-file | FileCheck %s

// An elementwise op: one launch with a thread per element, 128 per block
// over the linearized iteration space. The input is copied to the device;
// the output, only written, is not copied in but is copied back.

// CHECK-LABEL: func.func @elementwise(
// CHECK-SAME:      %[[X:.*]]: memref<4x100xf32>, %[[Y:.*]]: memref<4x100xf32>)
// CHECK-DAG:     %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG:     %[[C128:.*]] = arith.constant 128 : index
// CHECK-DAG:     %[[C400:.*]] = arith.constant 400 : index
// CHECK:         %[[DX:.*]] = gpu.alloc () : memref<4x100xf32>
// CHECK-NEXT:    gpu.memcpy %[[DX]], %[[X]]
// CHECK-NEXT:    %[[DY:.*]] = gpu.alloc () : memref<4x100xf32>
// CHECK-NEXT:    gpu.launch blocks(%[[B:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C4]], {{.*}}) threads(%[[T:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C128]],
// CHECK:           %[[BASE:.*]] = arith.muli %[[B]], %[[C128]]
// CHECK:           %[[I:.*]] = arith.addi %[[BASE]], %[[T]]
// CHECK:           %[[IN:.*]] = arith.cmpi ult, %[[I]], %[[C400]]
// CHECK:           scf.if %[[IN]] {
// CHECK:             %[[COL:.*]] = arith.remui %[[I]], %c100
// CHECK:             %[[ROW:.*]] = arith.divui %[[I]], %c100
// CHECK:             %[[V:.*]] = memref.load %[[DX]][%[[ROW]], %[[COL]]]
// CHECK:             %[[S:.*]] = arith.addf %[[V]], %[[V]]
// CHECK:             memref.store %[[S]], %[[DY]][%[[ROW]], %[[COL]]]
// CHECK:         gpu.memcpy %[[Y]], %[[DY]]
// CHECK-NEXT:    gpu.dealloc %[[DX]]
// CHECK-NEXT:    gpu.dealloc %[[DY]]
// CHECK-NEXT:    return
func.func @elementwise(%x: memref<4x100xf32>, %y: memref<4x100xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : memref<4x100xf32>) outs(%y : memref<4x100xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %in : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// A tile loop: one block per tile. The tile's buffer lives in the block's
// dynamic shared memory; each of its loops is spread over the block's
// threads, between barriers. The constant is read through the runtime's
// device copy.

// CHECK-LABEL: func.func @tiles(
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[BYTES:.*]] = arith.constant 1600 : i32
// CHECK:         %[[BIAS:.*]] = memref.get_global @bias
// CHECK-NEXT:    %[[BIAS1:.*]] = memref.cast %[[BIAS]] : memref<100xf32> to memref<?xf32>
// CHECK-NEXT:    %[[DBIAS:.*]] = call @tfmGpuConstant_f32(%[[BIAS1]])
// CHECK:         gpu.launch blocks(%[[B:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c2, {{.*}}) threads(%[[T:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c128, {{.*}}) dynamic_shared_memory_size %[[BYTES]] {
// CHECK-NEXT:      %[[SHARED:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK-NEXT:      %[[VIEW:.*]] = memref.view %[[SHARED]][%[[C0]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<4x100xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:      %[[TILE:.*]] = memref.memory_space_cast %[[VIEW]] : memref<4x100xf32, #gpu.address_space<workgroup>> to memref<4x100xf32>
// CHECK:           gpu.barrier
// CHECK-NEXT:      scf.for %[[I:.*]] = %[[T]] to %c400 step %c128 {
// CHECK:             memref.load %[[DBIAS]]
// CHECK:             memref.store %{{.*}}, %[[TILE]]
// CHECK:           }
// CHECK-NEXT:      gpu.barrier
// CHECK-NEXT:      memref.subview
// CHECK-NEXT:      scf.for %{{.*}} = %[[T]] to %c400 step %c128 {
// CHECK:             memref.load %[[TILE]]
// CHECK:           }
// CHECK-NEXT:      gpu.barrier
// CHECK-NEXT:      gpu.terminator
memref.global "private" constant @bias : memref<100xf32> = dense<1.0>
func.func @tiles(%x: memref<8x100xf32>, %y: memref<8x100xf32>) {
  %bias = memref.get_global @bias : memref<100xf32>
  scf.forall (%i) in (2) {
    %c4 = arith.constant 4 : index
    %row = arith.muli %i, %c4 : index
    %in = memref.subview %x[%row, 0] [4, 100] [1, 1] : memref<8x100xf32> to memref<4x100xf32, strided<[100, 1], offset: ?>>
    %tile = memref.alloc() : memref<4x100xf32>
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%in, %bias : memref<4x100xf32, strided<[100, 1], offset: ?>>, memref<100xf32>) outs(%tile : memref<4x100xf32>) {
    ^bb0(%a: f32, %b: f32, %out: f32):
      %0 = arith.addf %a, %b : f32
      linalg.yield %0 : f32
    }
    %out = memref.subview %y[%row, 0] [4, 100] [1, 1] : memref<8x100xf32> to memref<4x100xf32, strided<[100, 1], offset: ?>>
    memref.copy %tile, %out : memref<4x100xf32> to memref<4x100xf32, strided<[100, 1], offset: ?>>
    memref.dealloc %tile : memref<4x100xf32>
  }
  return
}

// -----

// A contraction in a tile reads its global operands through shared memory:
// each is copied into a block buffer (16-byte aligned after the others)
// first, by all threads, and the product reads the copies.

// CHECK-LABEL: func.func @staged(
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C64:.*]] = arith.constant 64 : index
// CHECK-DAG:     %[[C96:.*]] = arith.constant 96 : index
// CHECK-DAG:     %[[BYTES:.*]] = arith.constant 128 : i32
// CHECK:         gpu.launch {{.*}} dynamic_shared_memory_size %[[BYTES]] {
// CHECK:           %[[OUT:.*]] = memref.view %{{.*}}[%[[C0]]][] {{.*}} to memref<4x4xf32, #gpu.address_space<workgroup>>
// CHECK:           %[[A:.*]] = memref.view %{{.*}}[%[[C64]]][] {{.*}} to memref<4x2xf32, #gpu.address_space<workgroup>>
// CHECK:           %[[A_CAST:.*]] = memref.memory_space_cast %[[A]]
// CHECK:           %[[B:.*]] = memref.view %{{.*}}[%[[C96]]][] {{.*}} to memref<2x4xf32, #gpu.address_space<workgroup>>
// CHECK:           %[[B_CAST:.*]] = memref.memory_space_cast %[[B]]
// CHECK:           scf.for
// CHECK:             memref.store %{{.*}}, %[[A_CAST]]
// CHECK:           gpu.barrier
// CHECK:           scf.for
// CHECK:             memref.store %{{.*}}, %[[B_CAST]]
// CHECK:           gpu.barrier
// CHECK:           scf.for
// CHECK:             scf.for
// CHECK:               memref.load %[[A_CAST]]
// CHECK:               memref.load %[[B_CAST]]
func.func @staged(%a: memref<2x4x2xf32>, %b: memref<2x2x4xf32>) {
  scf.forall (%i) in (2) {
    %tile = memref.alloc() : memref<4x4xf32>
    %sa = memref.subview %a[%i, 0, 0] [1, 4, 2] [1, 1, 1] : memref<2x4x2xf32> to memref<4x2xf32, strided<[2, 1], offset: ?>>
    %sb = memref.subview %b[%i, 0, 0] [1, 2, 4] [1, 1, 1] : memref<2x2x4xf32> to memref<2x4xf32, strided<[4, 1], offset: ?>>
    linalg.matmul ins(%sa, %sb : memref<4x2xf32, strided<[2, 1], offset: ?>>, memref<2x4xf32, strided<[4, 1], offset: ?>>) outs(%tile : memref<4x4xf32>)
  }
  return
}

// -----

// In a loop of steps (flash attention's key tiles), an operand that does
// not change from step to step is staged once, before the loop; one that
// does is staged at every step.

// CHECK-LABEL: func.func @staged_in_loop(
// CHECK:         gpu.launch
// CHECK:           %[[A:.*]] = memref.memory_space_cast %{{.*}} : memref<4x2xf32, #gpu.address_space<workgroup>> to memref<4x2xf32>
// CHECK:           %[[B:.*]] = memref.memory_space_cast %{{.*}} : memref<2x4xf32, #gpu.address_space<workgroup>> to memref<2x4xf32>
// CHECK:           scf.for
// CHECK:             memref.store %{{.*}}, %[[A]]
// CHECK:           gpu.barrier
// CHECK-NEXT:      scf.for %[[STEP:.*]] = %c0 to %c3 step %c1 {
// CHECK:             scf.for
// CHECK:               memref.store %{{.*}}, %[[B]]
// CHECK:             gpu.barrier
// CHECK:             scf.for
// CHECK:               memref.load %[[A]]
// CHECK:               memref.load %[[B]]
func.func @staged_in_loop(%a: memref<2x4x2xf32>, %b: memref<3x2x4xf32>) {
  scf.forall (%i) in (2) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %tile = memref.alloc() : memref<4x4xf32>
    %sa = memref.subview %a[%i, 0, 0] [1, 4, 2] [1, 1, 1] : memref<2x4x2xf32> to memref<4x2xf32, strided<[2, 1], offset: ?>>
    scf.for %step = %c0 to %c3 step %c1 {
      %sb = memref.subview %b[%step, 0, 0] [1, 2, 4] [1, 1, 1] : memref<3x2x4xf32> to memref<2x4xf32, strided<[4, 1], offset: ?>>
      linalg.matmul ins(%sa, %sb : memref<4x2xf32, strided<[2, 1], offset: ?>>, memref<2x4xf32, strided<[4, 1], offset: ?>>) outs(%tile : memref<4x4xf32>)
    }
  }
  return
}

// -----

// Ops without parallel dimensions run on one thread; so does a write at
// block level, with barriers around it. The reduction's output is read, so
// it is copied in. The sum is carried in a register: its element is loaded
// once before the loop and stored once after it.

// CHECK-LABEL: func.func @sequential(
// CHECK-SAME:      %{{.*}}: memref<100xf32>, %[[Y:.*]]: memref<f32>, %[[Z:.*]]: memref<2x100xf32>)
// CHECK:         %[[DY:.*]] = gpu.alloc () : memref<f32>
// CHECK-NEXT:    gpu.memcpy %[[DY]], %[[Y]]
// CHECK:         gpu.launch blocks({{.*}}) in (%{{.*}} = %c1, %{{.*}} = %c1, %{{.*}} = %c1) threads({{.*}}) in (%{{.*}} = %c1, %{{.*}} = %c1, %{{.*}} = %c1) {
// CHECK-NEXT:      %[[INIT:.*]] = memref.load %[[DY]][]
// CHECK-NEXT:      %[[SUM:.*]] = scf.for %{{.*}} = %c0 to %c100 step %c1 iter_args(%[[ACC:.*]] = %[[INIT]]) -> (f32) {
// CHECK-NEXT:        %[[X:.*]] = memref.load
// CHECK-NEXT:        %[[NEXT:.*]] = arith.addf %[[X]], %[[ACC]]
// CHECK-NEXT:        scf.yield %[[NEXT]]
// CHECK-NEXT:      }
// CHECK-NEXT:      memref.store %[[SUM]], %[[DY]][]
// CHECK:         gpu.launch blocks({{.*}}) in (%{{.*}} = %c2, {{.*}}) threads(%[[T:.*]], %{{.*}}, %{{.*}}) in
// CHECK:           %[[FIRST:.*]] = arith.cmpi eq, %[[T]], %c0
// CHECK-NEXT:      gpu.barrier
// CHECK-NEXT:      scf.if %[[FIRST]] {
// CHECK-NEXT:        memref.store
// CHECK-NEXT:      }
// CHECK-NEXT:      gpu.barrier
func.func @sequential(%x: memref<100xf32>, %y: memref<f32>, %z: memref<2x100xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%x : memref<100xf32>) outs(%y : memref<f32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %out : f32
    linalg.yield %0 : f32
  }
  scf.forall (%i) in (2) {
    %c0 = arith.constant 0 : index
    %one = arith.constant 1.0 : f32
    memref.store %one, %z[%i, %c0] : memref<2x100xf32>
  }
  return
}

// -----

// A row-wise reduction in a tile (flash attention's row maxima): each row
// split over a warp's lanes (map-to-gpu-row-reduction.mlir), each lane
// keeping its part of the row's maximum in a register across its columns
// (no load and store of the running maximum per column, each waiting for
// the last through shared memory). A reduction that reads its output again
// as an input keeps its loads and stores, a thread per row.

// CHECK-LABEL: func.func @row_reduction(
// CHECK:             %[[INIT:.*]] = memref.load %[[MAX:.*]][%[[ROW:.*]]] : memref<32xf32>
// CHECK-NEXT:        %[[PART:.*]] = scf.for %[[COL:.*]] = %[[LANE:.*]] to %c64 step %c32 iter_args(%[[ACC:.*]] = %{{.*}}) -> (f32) {
// CHECK-NEXT:          %[[S:.*]] = memref.load %{{.*}}[%[[ROW]], %[[COL]]] : memref<32x64xf32>
// CHECK-NEXT:          %[[M:.*]] = arith.maxnumf %[[S]], %[[ACC]]
// CHECK-NEXT:          scf.yield %[[M]]
// CHECK-NEXT:        }
// CHECK-COUNT-5:     gpu.shuffle  xor
// CHECK:             %[[ROWMAX:.*]] = arith.maxnumf %{{.*}}, %[[INIT]]
// CHECK-NEXT:        scf.if
// CHECK-NEXT:          memref.store %[[ROWMAX]], %[[MAX]][%[[ROW]]]
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK:             scf.for %[[COL2:.*]] = %c0 to %c64 step %c1 {
// CHECK-NEXT:          memref.load %{{.*}}[%[[ROW2:.*]], %[[COL2]]] : memref<32x64xf32>
// CHECK-NEXT:          memref.load %[[SUM:.*]][%[[ROW2]]] : memref<32xf32>
// CHECK:               memref.store %{{.*}}, %[[SUM]][%[[ROW2]]] : memref<32xf32>
// CHECK-NEXT:        }
// CHECK-NEXT:      }
func.func @row_reduction(%s: memref<2x32x64xf32>, %m: memref<2x32xf32>, %l: memref<2x32xf32>) {
  scf.forall (%i) in (2) {
    %st = memref.subview %s[%i, 0, 0] [1, 32, 64] [1, 1, 1] : memref<2x32x64xf32> to memref<32x64xf32, strided<[64, 1], offset: ?>>
    %mt = memref.subview %m[%i, 0] [1, 32] [1, 1] : memref<2x32xf32> to memref<32xf32, strided<[1], offset: ?>>
    %lt = memref.subview %l[%i, 0] [1, 32] [1, 1] : memref<2x32xf32> to memref<32xf32, strided<[1], offset: ?>>
    %tile = memref.alloc() : memref<32x64xf32>
    memref.copy %st, %tile : memref<32x64xf32, strided<[64, 1], offset: ?>> to memref<32x64xf32>
    %max = memref.alloc() : memref<32xf32>
    memref.copy %mt, %max : memref<32xf32, strided<[1], offset: ?>> to memref<32xf32>
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%tile : memref<32x64xf32>) outs(%max : memref<32xf32>) {
    ^bb0(%in: f32, %out: f32):
      %0 = arith.maxnumf %in, %out : f32
      linalg.yield %0 : f32
    }
    memref.copy %max, %mt : memref<32xf32> to memref<32xf32, strided<[1], offset: ?>>
    %sum = memref.alloc() : memref<32xf32>
    memref.copy %lt, %sum : memref<32xf32, strided<[1], offset: ?>> to memref<32xf32>
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%tile, %sum : memref<32x64xf32>, memref<32xf32>) outs(%sum : memref<32xf32>) {
    ^bb0(%in: f32, %old: f32, %out: f32):
      %0 = arith.addf %in, %old : f32
      %1 = arith.addf %0, %out : f32
      linalg.yield %1 : f32
    }
    memref.copy %sum, %lt : memref<32xf32> to memref<32xf32, strided<[1], offset: ?>>
  }
  return
}

// -----

// A copy of a buffer onto itself (bufferization leaves one where a loop's
// state is updated in place, as flash attention's is at every key block) is
// dropped: the launch only fills the tile; no loop loads it back and
// stores it again behind another barrier.

// CHECK-LABEL: func.func @self_copy(
// CHECK:         gpu.launch
// CHECK-NOT:       memref.load
// CHECK:           scf.for
// CHECK-NEXT:        arith.remui
// CHECK-NEXT:        arith.divui
// CHECK-NEXT:        memref.store
// CHECK-NEXT:      }
// CHECK-NEXT:      gpu.barrier
// CHECK-NEXT:      gpu.terminator
func.func @self_copy(%y: memref<8x100xf32>) {
  %zero = arith.constant 0.0 : f32
  scf.forall (%i) in (2) {
    %c4 = arith.constant 4 : index
    %row = arith.muli %i, %c4 : index
    %out = memref.subview %y[%row, 0] [4, 100] [1, 1] : memref<8x100xf32> to memref<4x100xf32, strided<[100, 1], offset: ?>>
    linalg.fill ins(%zero : f32) outs(%out : memref<4x100xf32, strided<[100, 1], offset: ?>>)
    memref.copy %out, %out : memref<4x100xf32, strided<[100, 1], offset: ?>> to memref<4x100xf32, strided<[100, 1], offset: ?>>
  }
  return
}
