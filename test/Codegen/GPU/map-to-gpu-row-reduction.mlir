// RUN: tfm-opt %s --pass-pipeline="builtin.module(func.func(tfm-gpu-promote-operands,tfm-map-to-gpu),tfm-gpu-place-buffers,canonicalize,cse)" --split-input-file | FileCheck %s
// RUN: tfm-opt %s --pass-pipeline="builtin.module(func.func(tfm-gpu-promote-operands,tfm-map-to-gpu{block-size=1 emulate-warps}),tfm-gpu-place-buffers,canonicalize,cse)" --split-input-file | FileCheck %s --check-prefix=EMU

// Row reductions split over a warp's lanes (lib/Codegen/GPU/RowReduction.h):
// lane l of a row reduces elements l, l + L, ... from the combiner's neutral
// element, a butterfly of shuffles (offsets L/2 down to 1) gives every lane
// the row's result, which is combined with the output's initial value and
// stored by lane 0.

// A LayerNorm's row sums at the top level: a warp per row (32 lanes, each
// with 24 of the 768 columns), 197 rows in 50 blocks of 128 threads; the
// lanes past the last row (the last block's) work on the last row, so that
// every lane of their warp takes part in the shuffles, and store nothing.

// CHECK-LABEL: func.func @rows_top_level(
// CHECK:         gpu.launch blocks(%[[B:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c50, %{{.*}} = %c1, %{{.*}} = %c1) threads(%[[T:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c128, %{{.*}} = %c1, %{{.*}} = %c1) {
// CHECK-NEXT:      %[[OFF:.*]] = arith.muli %[[B]], %c128
// CHECK-NEXT:      %[[I:.*]] = arith.addi %[[OFF]], %[[T]]
// CHECK-NEXT:      %[[ROW:.*]] = arith.divui %[[I]], %c32
// CHECK-NEXT:      %[[LANE:.*]] = arith.remui %[[I]], %c32
// CHECK-NEXT:      %[[IN:.*]] = arith.cmpi ult, %[[ROW]], %c197
// CHECK-NEXT:      %[[R:.*]] = arith.select %[[IN]], %[[ROW]], %c196
// CHECK-NEXT:      %[[FIRST:.*]] = arith.cmpi eq, %[[LANE]], %c0
// CHECK-NEXT:      %[[STORE:.*]] = arith.andi %[[IN]], %[[FIRST]]
// CHECK-NEXT:      %[[INIT:.*]] = memref.load %[[S:.*]][%[[R]]] : memref<197xf32>
// CHECK-NEXT:      %[[PART:.*]] = scf.for %[[COL:.*]] = %[[LANE]] to %c768 step %c32 iter_args(%[[ACC:.*]] = %[[ZERO:.*]]) -> (f32) {
// CHECK-NEXT:        %[[X:.*]] = memref.load %{{.*}}[%[[R]], %[[COL]]] : memref<197x768xf32>
// CHECK-NEXT:        %[[NEXT:.*]] = arith.addf %[[X]], %[[ACC]]
// CHECK-NEXT:        scf.yield %[[NEXT]]
// CHECK-NEXT:      }
// CHECK-NEXT:      %[[SH16:.*]], %{{.*}} = gpu.shuffle  xor %[[PART]], %c16_i32, %c32_i32 : f32
// CHECK-NEXT:      %[[V16:.*]] = arith.addf %[[SH16]], %[[PART]]
// CHECK-NEXT:      %[[SH8:.*]], %{{.*}} = gpu.shuffle  xor %[[V16]], %c8_i32, %c32_i32 : f32
// CHECK-NEXT:      %[[V8:.*]] = arith.addf %[[SH8]], %[[V16]]
// CHECK-NEXT:      %[[SH4:.*]], %{{.*}} = gpu.shuffle  xor %[[V8]], %c4_i32, %c32_i32 : f32
// CHECK-NEXT:      %[[V4:.*]] = arith.addf %[[SH4]], %[[V8]]
// CHECK-NEXT:      %[[SH2:.*]], %{{.*}} = gpu.shuffle  xor %[[V4]], %c2_i32, %c32_i32 : f32
// CHECK-NEXT:      %[[V2:.*]] = arith.addf %[[SH2]], %[[V4]]
// CHECK-NEXT:      %[[SH1:.*]], %{{.*}} = gpu.shuffle  xor %[[V2]], %c1_i32, %c32_i32 : f32
// CHECK-NEXT:      %[[V1:.*]] = arith.addf %[[SH1]], %[[V2]]
// CHECK-NEXT:      %[[SUM:.*]] = arith.addf %[[V1]], %[[INIT]]
// CHECK-NEXT:      scf.if %[[STORE]] {
// CHECK-NEXT:        memref.store %[[SUM]], %[[S]][%[[R]]] : memref<197xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:      gpu.terminator

// In the CPU emulation (one thread), the same lanes' loops run one after
// another into a buffer of partials, and the butterfly is computed on it by
// its definition: at each offset, lanes l and l xor offset both get the
// combination of the two.

// EMU-LABEL: func.func @rows_top_level(
// EMU:         gpu.launch blocks(%[[B:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c197, {{.*}}) threads({{.*}}) in (%{{.*}} = %c1, %{{.*}} = %c1, %{{.*}} = %c1) {
// EMU:           %[[INIT:.*]] = memref.load %[[S:.*]][%[[B]]] : memref<197xf32>
// EMU-NEXT:      %[[LANES:.*]] = memref.alloca() : memref<32xf32>
// EMU-NEXT:      scf.for %[[LANE:.*]] = %c0 to %c32 step %c1 {
// EMU-NEXT:        %[[PART:.*]] = scf.for %[[COL:.*]] = %[[LANE]] to %c768 step %c32 iter_args(%[[ACC:.*]] = %{{.*}}) -> (f32) {
// EMU-NEXT:          memref.load %{{.*}}[%[[B]], %[[COL]]] : memref<197x768xf32>
// EMU-NEXT:          arith.addf
// EMU-NEXT:          scf.yield
// EMU-NEXT:        }
// EMU-NEXT:        memref.store %[[PART]], %[[LANES]][%[[LANE]]]
// EMU-NEXT:      }
// EMU-NEXT:      scf.for %[[L16:.*]] = %c0 to %c32 step %c1 {
// EMU-NEXT:        %[[P16:.*]] = arith.xori %[[L16]], %c16
// EMU-NEXT:        %[[LOW:.*]] = arith.cmpi ult, %[[L16]], %[[P16]]
// EMU-NEXT:        scf.if %[[LOW]] {
// EMU-NEXT:          %[[MINE:.*]] = memref.load %[[LANES]][%[[L16]]]
// EMU-NEXT:          %[[THEIRS:.*]] = memref.load %[[LANES]][%[[P16]]]
// EMU-NEXT:          %[[BOTH:.*]] = arith.addf %[[THEIRS]], %[[MINE]]
// EMU-NEXT:          memref.store %[[BOTH]], %[[LANES]][%[[L16]]]
// EMU-NEXT:          memref.store %[[BOTH]], %[[LANES]][%[[P16]]]
// EMU-NEXT:        }
// EMU-NEXT:      }
// EMU:           arith.xori %{{.*}}, %c8
// EMU:           arith.xori %{{.*}}, %c4
// EMU:           arith.xori %{{.*}}, %c2
// EMU:           arith.xori %{{.*}}, %c1
// EMU:           %[[ALL:.*]] = memref.load %[[LANES]][%c0]
// EMU-NEXT:      %[[SUM:.*]] = arith.addf %[[ALL]], %[[INIT]]
// EMU-NEXT:      memref.store %[[SUM]], %[[S]][%[[B]]]
// EMU-NOT:       gpu.shuffle
// EMU:           gpu.terminator
func.func @rows_top_level(%x: memref<197x768xf32>, %s: memref<197xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : memref<197x768xf32>) outs(%s : memref<197xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %out : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// Rows shorter than a warp, in a tile (a tile of 12 keys' row maxima): 8
// lanes a row (the most powers of two that each get a column), three
// shuffle steps, from maximumf's neutral element, -inf. The 5 rows' 40
// lanes are rounded up to whole warps (64 iterations of the block's
// threads), the lanes past the last row working on it without storing.

// CHECK-LABEL: func.func @short_rows(
// CHECK-DAG:     %[[NEG_INF:.*]] = arith.constant 0xFF800000 : f32
// CHECK:         scf.for %[[I:.*]] = %{{.*}} to %c64 step %c128 {
// CHECK-NEXT:      %[[ROW:.*]] = arith.divui %[[I]], %c8
// CHECK-NEXT:      %[[LANE:.*]] = arith.remui %[[I]], %c8
// CHECK-NEXT:      %[[IN:.*]] = arith.cmpi ult, %[[ROW]], %c5
// CHECK-NEXT:      %[[R:.*]] = arith.select %[[IN]], %[[ROW]], %c4
// CHECK:           scf.for %{{.*}} = %[[LANE]] to %c12 step %c8 iter_args(%{{.*}} = %[[NEG_INF]]) -> (f32) {
// CHECK:             arith.maximumf
// CHECK:           gpu.shuffle  xor %{{.*}}, %c4_i32, %c32_i32
// CHECK:           gpu.shuffle  xor %{{.*}}, %c2_i32, %c32_i32
// CHECK:           gpu.shuffle  xor %{{.*}}, %c1_i32, %c32_i32
// CHECK-NOT:       gpu.shuffle
// CHECK:           scf.if
// CHECK-NEXT:        memref.store %{{.*}}[%[[R]]] : memref<5xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    gpu.barrier

// EMU-LABEL: func.func @short_rows(
// EMU:           memref.alloca() : memref<8xf32>
// EMU-NEXT:      scf.for %{{.*}} = %c0 to %c8 step %c1 {
// EMU:           arith.xori %{{.*}}, %c4
// EMU:           arith.xori %{{.*}}, %c2
// EMU:           arith.xori %{{.*}}, %c1
func.func @short_rows(%x: memref<2x5x12xf32>, %m: memref<2x5xf32>) {
  scf.forall (%i) in (2) {
    %xt = memref.subview %x[%i, 0, 0] [1, 5, 12] [1, 1, 1] : memref<2x5x12xf32> to memref<5x12xf32, strided<[12, 1], offset: ?>>
    %mt = memref.subview %m[%i, 0] [1, 5] [1, 1] : memref<2x5xf32> to memref<5xf32, strided<[1], offset: ?>>
    %max = memref.alloc() : memref<5xf32>
    memref.copy %mt, %max : memref<5xf32, strided<[1], offset: ?>> to memref<5xf32>
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%xt : memref<5x12xf32, strided<[12, 1], offset: ?>>) outs(%max : memref<5xf32>) {
    ^bb0(%in: f32, %out: f32):
      %0 = arith.maximumf %in, %out : f32
      linalg.yield %0 : f32
    }
    memref.copy %max, %mt : memref<5xf32> to memref<5xf32, strided<[1], offset: ?>>
  }
  return
}

// -----

// A contraction is not split: its operands are shared between rows (each
// of A's rows serves every column), and a thread per output element reads
// them once per warp; split, each lane would read a column of B, a row
// apart from its neighbour's.

// CHECK-LABEL: func.func @contraction(
// CHECK-NOT:     gpu.shuffle
// CHECK:         scf.for %{{.*}} = %c0 to %c32 step %c1 iter_args
// CHECK-NOT:     gpu.shuffle
// CHECK:         return
func.func @contraction(%a: memref<64x32xf32>, %b: memref<32x64xf32>, %c: memref<64x64xf32>) {
  linalg.matmul ins(%a, %b : memref<64x32xf32>, memref<32x64xf32>) outs(%c : memref<64x64xf32>)
  return
}

// -----

// A reduction that cannot be split stays a thread per row: a 64-bit sum
// (nvvm.shfl.sync moves 32-bit values), a row of a single element, and a
// reduction along a dimension other than the input's last (a mean over a
// sequence's tokens: neighbouring threads read neighbouring channels).

// CHECK-LABEL: func.func @not_split(
// CHECK-NOT:     gpu.shuffle
// CHECK:         return
func.func @not_split(%x: memref<8x64xf64>, %s: memref<8xf64>, %y: memref<8x1xf32>, %t: memref<8xf32>, %z: memref<2x49x64xf32>, %p: memref<2x64xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%z : memref<2x49x64xf32>) outs(%p : memref<2x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %out : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : memref<8x64xf64>) outs(%s : memref<8xf64>) {
  ^bb0(%in: f64, %out: f64):
    %0 = arith.addf %in, %out : f64
    linalg.yield %0 : f64
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%y : memref<8x1xf32>) outs(%t : memref<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %out : f32
    linalg.yield %0 : f32
  }
  return
}
