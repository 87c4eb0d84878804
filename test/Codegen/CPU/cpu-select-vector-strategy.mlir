// RUN: tfm-opt %s --tfm-cpu-select-vector-strategy -split-input-file | FileCheck %s
// RUN: tfm-opt %s --tfm-set-cpu-target=cpu=avx2 --tfm-cpu-select-vector-strategy -split-input-file | FileCheck %s --check-prefix=AVX2
// RUN: tfm-opt %s --tfm-cpu-select-vector-strategy --tfm-tile-by-config --canonicalize --tfm-cpu-vectorize -split-input-file | FileCheck %s --check-prefix=TILED

// A matmul with a row-major right operand gets the micro-kernel: parallel
// column panels of 64 (768 / 64 = 12 panels: a number of parallel tiles
// that 2 or 4 threads share evenly), 12x32 register tiles with the
// row loop outermost in a panel, and the reduction one step at a time. With AVX2's
// 16 registers the tiles are 6x16 and the panels 64 wide. Applied, the row
// loop is peeled: the 5 rows that 12 does not divide are a last row of
// register tiles of their own.

// CHECK-LABEL: func.func @matmul
//       CHECK:   linalg.matmul {lowering_config = #tfm.lowering_config<parallel = [0, 64, 0], vector = [12, 32, 0] interchange [0, 1, 2], reduction = [0, 0, 1]>}
// AVX2-LABEL: func.func @matmul
//       AVX2:   parallel = [0, 64, 0], vector = [6, 16, 0]{{( interchange \[[0-9, ]*\])?}}, reduction = [0, 0, 1]

// TILED-LABEL: func.func @matmul
// TILED: scf.forall (%{{.*}}) = (0) to (768) step (64)
// TILED:   scf.for %{{.*}} = %{{.*}} to %c192 step %c12
// TILED:     scf.for %{{.*}} = %{{.*}} to %c64 step %c32
// TILED:       scf.for %{{.*}} = %{{.*}} to %c64 step %c1 {{.*}} -> (tensor<12x32xf32>)
// TILED:         vector.transfer_read {{.*}} : tensor<1x32xf32>, vector<12x32x1xf32>
// TILED:         arith.mulf {{.*}} : vector<12x32x1xf32>
// TILED:   scf.for %{{.*}} = %{{.*}} to %c64 step %c32
// TILED:     scf.for %{{.*}} = %{{.*}} to %c64 step %c1 {{.*}} -> (tensor<5x32xf32>)
// TILED:       vector.transfer_read {{.*}} : tensor<1x32xf32>, vector<5x32x1xf32>
// TILED-NOT: linalg.matmul
func.func @matmul(%a: tensor<197x64xf32>, %b: tensor<64x768xf32>,
                  %c: tensor<197x768xf32>) -> tensor<197x768xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<197x64xf32>, tensor<64x768xf32>)
      outs(%c : tensor<197x768xf32>) -> tensor<197x768xf32>
  return %0 : tensor<197x768xf32>
}

// -----

// Every other op: one vector along the innermost loop (16 f32 with AVX-512,
// 8 with AVX2; fewer when the loop is shorter), one iteration of the rest.
// The 21 columns become a tile of 16 and a peeled one of 5, both without
// masks. Ops this small (under 2^15 iterations) run on one thread: no
// parallel tiles.

// CHECK-LABEL: func.func @elementwise
//       CHECK:   linalg.generic {{.*}}lowering_config = #tfm.lowering_config<parallel = [0, 0], vector = [1, 16]>
//       CHECK:   linalg.fill {lowering_config = #tfm.lowering_config<parallel = [0], vector = [3]>
// AVX2-LABEL: func.func @elementwise
//       AVX2:   parallel = [0, 0], vector = [1, 8]
// TILED-LABEL: func.func @elementwise
//       TILED:   math.exp {{.*}} : vector<1x16xf32>
//       TILED:   math.exp {{.*}} : vector<1x5xf32>
//   TILED-NOT:   vector.mask
func.func @elementwise(%x: tensor<3x21xf32>, %y: tensor<3x21xf32>,
                       %z: tensor<3xf32>) -> (tensor<3x21xf32>, tensor<3xf32>) {
  %0 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<3x21xf32>) outs(%y : tensor<3x21xf32>) {
  ^bb0(%a: f32, %b: f32):
    %e = math.exp %a : f32
    linalg.yield %e : f32
  } -> tensor<3x21xf32>
  %zero = arith.constant 0.0 : f32
  %1 = linalg.fill ins(%zero : f32) outs(%z : tensor<3xf32>) -> tensor<3xf32>
  return %0, %1 : tensor<3x21xf32>, tensor<3xf32>
}

// -----

// A linear on a [B, S, K] input whose reshape was folded into the product
// (two m dimensions) still takes the micro-kernel: the outer m dimension is
// iterated like a batch.

// CHECK-LABEL: func.func @matmul_two_m_dims
//       CHECK:   parallel = [0, 0, 32, 0], vector = [1, 9, 32, 0] interchange [0, 1, 2, 3], reduction = [0, 0, 0, 1]
// TILED-LABEL: func.func @matmul_two_m_dims
//       TILED: scf.forall (%{{.*}}) = (0) to (64) step (32)
//       TILED:   scf.for %{{.*}} = %{{.*}} to %c16 step %c1 {{.*}} -> (tensor<1x9x32xf32>)
func.func @matmul_two_m_dims(%x: tensor<1x9x16xf32>, %w: tensor<16x64xf32>,
                             %y: tensor<1x9x64xf32>) -> tensor<1x9x64xf32> {
  %0 = linalg.generic {
      indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>,
                       affine_map<(b, m, n, k) -> (k, n)>,
                       affine_map<(b, m, n, k) -> (b, m, n)>],
      iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<1x9x16xf32>, tensor<16x64xf32>)
      outs(%y : tensor<1x9x64xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %c, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x9x64xf32>
  return %0 : tensor<1x9x64xf32>
}

// -----

// A batched matmul runs its batches in parallel; a strategy set by hand is
// kept.

// CHECK-LABEL: func.func @batch_matmul
//       CHECK:   parallel = [1, 0, 0, 0], vector = [1, 12, 32, 0]{{( interchange \[[0-9, ]*\])?}}, reduction = [0, 0, 0, 1]
//       CHECK:   parallel = [0, 0, 0, 0], vector = [1, 4, 4, 0]>
// TILED-LABEL: func.func @batch_matmul
//       TILED: scf.forall (%{{.*}}) in (12)
//       TILED:   scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c1 {{.*}} -> (tensor<1x12x32xf32>)
//       TILED:   tensor.extract_slice {{.*}} to tensor<1x4x4xf32>
//       TILED:   arith.mulf {{.*}} : vector<1x4x4x64xf32>
func.func @batch_matmul(%a: tensor<12x16x64xf32>, %b: tensor<12x64x32xf32>,
                        %c: tensor<12x16x32xf32>) -> (tensor<12x16x32xf32>, tensor<12x16x32xf32>) {
  %0 = linalg.batch_matmul ins(%a, %b : tensor<12x16x64xf32>, tensor<12x64x32xf32>)
      outs(%c : tensor<12x16x32xf32>) -> tensor<12x16x32xf32>
  %1 = linalg.batch_matmul {lowering_config = #tfm.lowering_config<parallel = [0, 0, 0, 0], vector = [1, 4, 4, 0]>}
      ins(%a, %b : tensor<12x16x64xf32>, tensor<12x64x32xf32>)
      outs(%c : tensor<12x16x32xf32>) -> tensor<12x16x32xf32>
  return %0, %1 : tensor<12x16x32xf32>, tensor<12x16x32xf32>
}

// -----

// A decoding step's weights · values: one row per batch x head, a dynamic
// number of them. The batches run in parallel (split, the 64 columns would
// have each thread read part of every row of the values), and one row's
// register tile is as wide as Mr x Nr's accumulators allow (8 vectors: 64
// columns with AVX-512 and with AVX2), so that each row of the values is
// read once, whole.

// CHECK-LABEL: func.func @decode_values
//       CHECK:   parallel = [1, 0, 0, 0], cache = [0, 0, 0, 512]{{( interchange \[[0-9, ]*\])?}}, vector = [1, 1, 64, 0]{{( interchange \[[0-9, ]*\])?}}, reduction = [0, 0, 0, 1]
// AVX2-LABEL: func.func @decode_values
//       AVX2:   parallel = [1, 0, 0, 0], cache = [0, 0, 0, 512]{{( interchange \[[0-9, ]*\])?}}, vector = [1, 1, 64, 0]{{( interchange \[[0-9, ]*\])?}}, reduction = [0, 0, 0, 1]
// TILED-LABEL: func.func @decode_values
//       TILED:   scf.forall (%{{.*}}) in (%{{.*}})
//       TILED:     vector.multi_reduction <add>, {{.*}} [3] : vector<1x1x64x1xf32> to vector<1x1x64xf32>
func.func @decode_values(%p: tensor<?x1x?xf32>, %v: tensor<?x?x64xf32>,
                         %c: tensor<?x1x64xf32>) -> tensor<?x1x64xf32> {
  %0 = linalg.batch_matmul ins(%p, %v : tensor<?x1x?xf32>, tensor<?x?x64xf32>)
      outs(%c : tensor<?x1x64xf32>) -> tensor<?x1x64xf32>
  return %0 : tensor<?x1x64xf32>
}

// -----

// A decoding step's attention, one batch x head an iteration of a parallel
// loop: its scores read a key row (64 floats, four lines) a step, its
// product with the values a value row a step, along a dynamic number of
// positions. Both prefetch 64 steps (16 KiB) ahead; tiling marks the loops
// that take those steps. AVX2's scores take a key row 8 floats at a time,
// too little a step to prefetch (its values still do). The same ops over a
// static number of positions prefetch nothing.

// CHECK-LABEL: func.func @decode_streams
//       CHECK:   parallel = [0, 0, 0, 0], vector = [1, 1, 1, 64], prefetch_distance = 64>
//       CHECK:   parallel = [0, 0, 0, 0], cache = [0, 0, 0, 512]{{.*}}, vector = [1, 1, 64, 0]{{.*}}, reduction = [0, 0, 0, 1], prefetch_distance = 64>
// AVX2-LABEL: func.func @decode_streams
//       AVX2:   parallel = [0, 0, 0, 0], vector = [1, 1, 1, 8]>
//       AVX2:   parallel = [0, 0, 0, 0], cache = [0, 0, 0, 512]{{.*}}, vector = [1, 1, 64, 0]{{.*}}, reduction = [0, 0, 0, 1], prefetch_distance = 64>
// TILED-LABEL: func.func @decode_streams
//       TILED:   scf.forall
//       TILED:     scf.for
//       TILED:       vector.transfer_read {{.*}} : tensor<1x1x64xf32>, vector<1x1x1x64xf32>
//       TILED:     } {tfm.prefetch_distance = 64 : i64}
//       TILED:     scf.for %{{.*}} step %c512
//       TILED:       scf.for
//       TILED:       } {tfm.prefetch_distance = 64 : i64}
func.func @decode_streams(%q: tensor<?x1x64xf32>, %k: tensor<?x?x64xf32>,
                          %v: tensor<?x?x64xf32>, %out: tensor<?x1x64xf32>)
    -> tensor<?x1x64xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %q, %c0 : tensor<?x1x64xf32>
  %len = tensor.dim %k, %c1 : tensor<?x?x64xf32>
  %r = scf.forall (%b) in (%n) shared_outs(%o = %out) -> (tensor<?x1x64xf32>) {
    %qb = tensor.extract_slice %q[%b, 0, 0] [1, 1, 64] [1, 1, 1] : tensor<?x1x64xf32> to tensor<1x1x64xf32>
    %kb = tensor.extract_slice %k[%b, 0, 0] [1, %len, 64] [1, 1, 1] : tensor<?x?x64xf32> to tensor<1x?x64xf32>
    %vb = tensor.extract_slice %v[%b, 0, 0] [1, %len, 64] [1, 1, 1] : tensor<?x?x64xf32> to tensor<1x?x64xf32>
    %e = tensor.empty(%len) : tensor<1x1x?xf32>
    %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x1x?xf32>) -> tensor<1x1x?xf32>
    %s = linalg.generic {indexing_maps = [affine_map<(b, i, j, d) -> (b, i, d)>,
                                          affine_map<(b, i, j, d) -> (b, j, d)>,
                                          affine_map<(b, i, j, d) -> (b, i, j)>],
                         iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
        ins(%qb, %kb : tensor<1x1x64xf32>, tensor<1x?x64xf32>) outs(%z : tensor<1x1x?xf32>) {
    ^bb0(%x: f32, %y: f32, %acc: f32):
      %m = arith.mulf %x, %y : f32
      %a = arith.addf %m, %acc : f32
      linalg.yield %a : f32
    } -> tensor<1x1x?xf32>
    %ob = tensor.extract_slice %o[%b, 0, 0] [1, 1, 64] [1, 1, 1] : tensor<?x1x64xf32> to tensor<1x1x64xf32>
    %p = linalg.batch_matmul ins(%s, %vb : tensor<1x1x?xf32>, tensor<1x?x64xf32>)
        outs(%ob : tensor<1x1x64xf32>) -> tensor<1x1x64xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %p into %o[%b, 0, 0] [1, 1, 64] [1, 1, 1] : tensor<1x1x64xf32> into tensor<?x1x64xf32>
    }
  }
  return %r : tensor<?x1x64xf32>
}

// CHECK-LABEL: func.func @static_positions
//   CHECK-NOT:   prefetch_distance
//       CHECK:   return
func.func @static_positions(%k: tensor<16x128x64xf32>, %q: tensor<16x1x64xf32>,
                            %out: tensor<16x1x128xf32>) -> tensor<16x1x128xf32> {
  %r = scf.forall (%b) in (16) shared_outs(%o = %out) -> (tensor<16x1x128xf32>) {
    %qb = tensor.extract_slice %q[%b, 0, 0] [1, 1, 64] [1, 1, 1] : tensor<16x1x64xf32> to tensor<1x1x64xf32>
    %kb = tensor.extract_slice %k[%b, 0, 0] [1, 128, 64] [1, 1, 1] : tensor<16x128x64xf32> to tensor<1x128x64xf32>
    %ob = tensor.extract_slice %o[%b, 0, 0] [1, 1, 128] [1, 1, 1] : tensor<16x1x128xf32> to tensor<1x1x128xf32>
    %s = linalg.generic {indexing_maps = [affine_map<(b, i, j, d) -> (b, i, d)>,
                                          affine_map<(b, i, j, d) -> (b, j, d)>,
                                          affine_map<(b, i, j, d) -> (b, i, j)>],
                         iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
        ins(%qb, %kb : tensor<1x1x64xf32>, tensor<1x128x64xf32>) outs(%ob : tensor<1x1x128xf32>) {
    ^bb0(%x: f32, %y: f32, %acc: f32):
      %m = arith.mulf %x, %y : f32
      %a = arith.addf %m, %acc : f32
      linalg.yield %a : f32
    } -> tensor<1x1x128xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %s into %o[%b, 0, 0] [1, 1, 128] [1, 1, 1] : tensor<1x1x128xf32> into tensor<16x1x128xf32>
    }
  }
  return %r : tensor<16x1x128xf32>
}

// -----

// An op with 2^15 iterations or more is first cut into parallel tiles, one
// iteration of every parallel loop outside the vector (the threads take
// blocks of them); a reduction loop stays whole in each tile. An innermost
// reduction of up to four whole vectors is one vector (its lanes reduced
// across once, not at every vector); with AVX2's 8 lanes 64 is eight
// vectors, taken a vector at a time.

// CHECK-LABEL: func.func @parallel_tiles
//       CHECK:   parallel = [1, 1, 0], vector = [1, 1, 16]
//       CHECK:   parallel = [1, 1, 0], vector = [1, 1, 64]
// AVX2-LABEL: func.func @parallel_tiles
//       AVX2:   parallel = [1, 1, 0], vector = [1, 1, 8]
//       AVX2:   parallel = [1, 1, 0], vector = [1, 1, 8]
// TILED-LABEL: func.func @parallel_tiles
//       TILED:   scf.forall (%{{.*}}, %{{.*}}) in (12, 197)
//       TILED:     math.exp {{.*}} : vector<1x1x16xf32>
//       TILED:   scf.forall (%{{.*}}, %{{.*}}) in (12, 197)
//   TILED-NOT:     scf.for
//       TILED:     vector.multi_reduction <add>, {{.*}} [2] : vector<1x1x64xf32> to vector<1x1xf32>
func.func @parallel_tiles(%x: tensor<12x197x64xf32>, %y: tensor<12x197x64xf32>,
                          %s: tensor<12x197xf32>) -> (tensor<12x197x64xf32>, tensor<12x197xf32>) {
  %0 = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, j)>],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : tensor<12x197x64xf32>) outs(%y : tensor<12x197x64xf32>) {
  ^bb0(%a: f32, %b: f32):
    %e = math.exp %a : f32
    linalg.yield %e : f32
  } -> tensor<12x197x64xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : tensor<12x197x64xf32>) outs(%s : tensor<12x197xf32>) {
  ^bb0(%a: f32, %b: f32):
    %e = arith.addf %a, %b : f32
    linalg.yield %e : f32
  } -> tensor<12x197xf32>
  return %0, %1 : tensor<12x197x64xf32>, tensor<12x197xf32>
}

// -----

// Inside a parallel loop (an attention's query tile) neither a matmul nor
// an elementwise op gets parallel tiles of its own: OpenMP would only nest
// a serialized region in every iteration.

// CHECK-LABEL: func.func @nested
//       CHECK:   scf.forall
//       CHECK:     linalg.matmul {lowering_config = #tfm.lowering_config<parallel = [0, 0, 0], vector = [12, 32, 0]{{( interchange \[[0-9, ]*\])?}}, reduction = [0, 0, 1]
//       CHECK:     linalg.generic {{.*}}parallel = [0, 0], vector = [1, 16]
func.func @nested(%a: tensor<4x256x64xf32>, %b: tensor<64x768xf32>,
                  %c: tensor<4x256x768xf32>) -> tensor<4x256x768xf32> {
  %0 = scf.forall (%i) in (4) shared_outs(%out = %c) -> (tensor<4x256x768xf32>) {
    %ai = tensor.extract_slice %a[%i, 0, 0] [1, 256, 64] [1, 1, 1] : tensor<4x256x64xf32> to tensor<256x64xf32>
    %ci = tensor.extract_slice %out[%i, 0, 0] [1, 256, 768] [1, 1, 1] : tensor<4x256x768xf32> to tensor<256x768xf32>
    %p = linalg.matmul ins(%ai, %b : tensor<256x64xf32>, tensor<64x768xf32>)
        outs(%ci : tensor<256x768xf32>) -> tensor<256x768xf32>
    %e = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>],
                         iterator_types = ["parallel", "parallel"]}
        outs(%p : tensor<256x768xf32>) {
    ^bb0(%x: f32):
      %y = math.exp %x : f32
      linalg.yield %y : f32
    } -> tensor<256x768xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %e into %out[%i, 0, 0] [1, 256, 768] [1, 1, 1] : tensor<256x768xf32> into tensor<4x256x768xf32>
    }
  }
  return %0 : tensor<4x256x768xf32>
}

// -----

// A transpose reads square blocks: one vector along the innermost loop and
// one along the loop its input is contiguous in (the transposed keys of
// attention, [12, 197, 64] to [12, 64, 197]). The parallel tiles leave
// both whole.

// CHECK-LABEL: func.func @transpose
//       CHECK:   linalg.transpose {{.*}}parallel = [1, 0, 0], vector = [1, 16, 16]
// AVX2-LABEL: func.func @transpose
//       AVX2:   parallel = [1, 0, 0], vector = [1, 8, 8]
// TILED-LABEL: func.func @transpose
//       TILED:   scf.forall (%{{.*}}) in (12)
//       TILED:     vector.transfer_read {{.*}}permutation_map = #{{.*}} : tensor<1x16x16xf32>, vector<1x16x16xf32>
func.func @transpose(%k: tensor<12x197x64xf32>, %kt: tensor<12x64x197xf32>) -> tensor<12x64x197xf32> {
  %0 = linalg.transpose ins(%k : tensor<12x197x64xf32>)
      outs(%kt : tensor<12x64x197xf32>) permutation = [0, 2, 1]
  return %0 : tensor<12x64x197xf32>
}

// -----

// A long reduction is blocked for the caches first: 512 steps at a time (a
// register tile's strip of the right operand, 512 x 32 f32, streams from
// L2), and blocks of 120 rows (10 register tiles: their 120 x 512 part of
// the left operand stays in L2) when there are more; in a column panel the
// row blocks are outermost (their accumulators stay in L2 across the
// reduction blocks), and so are the row tiles in the block. The remainders
// are peeled. A reduction of 768 (no longer than 1.5 blocks) is one block.

// CHECK-LABEL: func.func @cache_blocks
//       CHECK:   parallel = [0, 64, 0], cache = [120, 0, 512] interchange [1, 0, 2], vector = [12, 32, 0] interchange [0, 1, 2], reduction = [0, 0, 1]
//       CHECK:   parallel = [0, 64, 0], cache = [0, 0, 512]{{( interchange \[[0-9, ]*\])?}}, vector = [12, 32, 0]{{( interchange \[[0-9, ]*\])?}}, reduction = [0, 0, 1]
// AVX2-LABEL: func.func @cache_blocks
//       AVX2:   parallel = [0, 64, 0], cache = [126, 0, 512]{{( interchange \[[0-9, ]*\])?}}, vector = [6, 16, 0]{{( interchange \[[0-9, ]*\])?}}, reduction = [0, 0, 1]
// TILED-LABEL: func.func @cache_blocks
//       TILED: scf.forall (%{{.*}}) = (0) to (256) step (64)
//       TILED:   scf.for %{{.*}} = %{{.*}} to %c600 step %c120
//       TILED:     scf.for %{{.*}} = %{{.*}} to %c2048 step %c512
//       TILED:       scf.for %{{.*}} = %{{.*}} to %c120 step %c12
//       TILED:         scf.for %{{.*}} = %{{.*}} to %c64 step %c32
//       TILED:           scf.for %{{.*}} = %{{.*}} to %c512 step %c1 {{.*}} -> (tensor<12x32xf32>)
func.func @cache_blocks(%a: tensor<650x2048xf32>, %b: tensor<2048x256xf32>,
                        %c: tensor<650x256xf32>, %x: tensor<64x2048xf32>,
                        %z: tensor<64x256xf32>) -> (tensor<650x256xf32>, tensor<64x256xf32>) {
  %0 = linalg.matmul ins(%a, %b : tensor<650x2048xf32>, tensor<2048x256xf32>)
      outs(%c : tensor<650x256xf32>) -> tensor<650x256xf32>
  %1 = linalg.matmul ins(%x, %b : tensor<64x2048xf32>, tensor<2048x256xf32>)
      outs(%z : tensor<64x256xf32>) -> tensor<64x256xf32>
  return %0, %1 : tensor<650x256xf32>, tensor<64x256xf32>
}

// -----

// A matmul of a dynamic number of rows (a model's batch x sequence) is split
// by rows into parts of one register tile height each, so that no tile has
// a dynamic remainder: the rows that tiles of the micro-kernel's 12 cover
// (M floordiv 12 * 12, an affine map, so that the tiles peel no remainder),
// then at most one tile of 8 rows, one of 4 and one of 2, and the last row
// alone (a decoding step's one token per sequence, streaming the weights
// with no masked-off rows). Each part runs only when it has rows; each
// keeps the parallel column panels. On AVX2 the parts are of 6, 4, 2 and 1
// rows.

// CHECK-LABEL: func.func @matmul_dynamic_rows(
//  CHECK-SAME:     %[[A:.*]]: tensor<?x64xf32>
//       CHECK:   %[[M:.*]] = tensor.dim %[[A]], %c0
//       CHECK:   affine.apply #{{.*}}()[%[[M]]]
//       CHECK:   %[[ANY12:.*]] = arith.cmpi ugt
//       CHECK:   scf.if %[[ANY12]] -> (tensor<?x768xf32>) {
//       CHECK:     linalg.matmul {lowering_config = #tfm.lowering_config<parallel = [0, 64, 0], vector = [12, 32, 0]{{( interchange \[[0-9, ]*\])?}}, reduction = [0, 0, 1]
//       CHECK:   scf.if
//       CHECK:     linalg.matmul {lowering_config = #tfm.lowering_config<parallel = [0, 64, 0], vector = [8, 32, 0]{{( interchange \[[0-9, ]*\])?}}, reduction = [0, 0, 1]
//       CHECK:   scf.if
//       CHECK:     linalg.matmul {lowering_config = #tfm.lowering_config<parallel = [0, 64, 0], vector = [4, 32, 0]{{( interchange \[[0-9, ]*\])?}}, reduction = [0, 0, 1]
//       CHECK:   scf.if
//       CHECK:     linalg.matmul {lowering_config = #tfm.lowering_config<parallel = [0, 64, 0], vector = [2, 32, 0]{{( interchange \[[0-9, ]*\])?}}, reduction = [0, 0, 1]
//       CHECK:   scf.if
//       CHECK:     linalg.matmul {lowering_config = #tfm.lowering_config<parallel = [0, 64, 0], vector = [1, 32, 0]{{( interchange \[[0-9, ]*\])?}}, reduction = [0, 0, 1]
//   CHECK-NOT:   linalg.matmul
//       CHECK:   return
// AVX2-LABEL: func.func @matmul_dynamic_rows(
//       AVX2:     linalg.matmul {lowering_config = #tfm.lowering_config<parallel = [0, 64, 0], vector = [6, 16, 0]{{( interchange \[[0-9, ]*\])?}}, reduction = [0, 0, 1]
//       AVX2:     linalg.matmul {lowering_config = #tfm.lowering_config<parallel = [0, 64, 0], vector = [4, 16, 0]{{( interchange \[[0-9, ]*\])?}}, reduction = [0, 0, 1]
//       AVX2:     linalg.matmul {lowering_config = #tfm.lowering_config<parallel = [0, 64, 0], vector = [2, 16, 0]{{( interchange \[[0-9, ]*\])?}}, reduction = [0, 0, 1]
//       AVX2:     linalg.matmul {lowering_config = #tfm.lowering_config<parallel = [0, 64, 0], vector = [1, 16, 0]{{( interchange \[[0-9, ]*\])?}}, reduction = [0, 0, 1]
//   AVX2-NOT:   linalg.matmul
//       AVX2:   return
func.func @matmul_dynamic_rows(%a: tensor<?x64xf32>, %b: tensor<64x768xf32>,
                               %c: tensor<?x768xf32>) -> tensor<?x768xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<?x64xf32>, tensor<64x768xf32>)
      outs(%c : tensor<?x768xf32>) -> tensor<?x768xf32>
  return %0 : tensor<?x768xf32>
}

// -----

// A reduction of 3072 steps (an FFN's second product) is cut into cache
// blocks of 512 for the Mr-row tiles, which reuse each block's strip of a
// panel row tile after row tile; the parts of fewer rows are one register
// tile high, reuse nothing, and stream each panel once, their
// accumulators in registers from the first step to the last.

// CHECK-LABEL: func.func @matmul_dynamic_rows_long_reduction(
//       CHECK:     linalg.matmul {lowering_config = #tfm.lowering_config<parallel = [0, 64, 0], cache = [120, 0, 512]{{( interchange \[[0-9, ]*\])?}}, vector = [12, 32, 0]{{( interchange \[[0-9, ]*\])?}}, reduction = [0, 0, 1]
//       CHECK:     linalg.matmul {lowering_config = #tfm.lowering_config<parallel = [0, 64, 0], vector = [8, 32, 0]{{( interchange \[[0-9, ]*\])?}}, reduction = [0, 0, 1]
//       CHECK:     linalg.matmul {lowering_config = #tfm.lowering_config<parallel = [0, 64, 0], vector = [4, 32, 0]{{( interchange \[[0-9, ]*\])?}}, reduction = [0, 0, 1]
//       CHECK:     linalg.matmul {lowering_config = #tfm.lowering_config<parallel = [0, 64, 0], vector = [2, 32, 0]{{( interchange \[[0-9, ]*\])?}}, reduction = [0, 0, 1]
//       CHECK:     linalg.matmul {lowering_config = #tfm.lowering_config<parallel = [0, 64, 0], vector = [1, 32, 0]{{( interchange \[[0-9, ]*\])?}}, reduction = [0, 0, 1]
// AVX2-LABEL: func.func @matmul_dynamic_rows_long_reduction(
//       AVX2:     linalg.matmul {lowering_config = #tfm.lowering_config<parallel = [0, 64, 0], cache = [126, 0, 512]{{( interchange \[[0-9, ]*\])?}}, vector = [6, 16, 0]{{( interchange \[[0-9, ]*\])?}}, reduction = [0, 0, 1]
//       AVX2:     linalg.matmul {lowering_config = #tfm.lowering_config<parallel = [0, 64, 0], vector = [4, 16, 0]{{( interchange \[[0-9, ]*\])?}}, reduction = [0, 0, 1]
//       AVX2:     linalg.matmul {lowering_config = #tfm.lowering_config<parallel = [0, 64, 0], vector = [2, 16, 0]{{( interchange \[[0-9, ]*\])?}}, reduction = [0, 0, 1]
//       AVX2:     linalg.matmul {lowering_config = #tfm.lowering_config<parallel = [0, 64, 0], vector = [1, 16, 0]{{( interchange \[[0-9, ]*\])?}}, reduction = [0, 0, 1]
func.func @matmul_dynamic_rows_long_reduction(%a: tensor<?x3072xf32>, %b: tensor<3072x768xf32>,
                                              %c: tensor<?x768xf32>) -> tensor<?x768xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<?x3072xf32>, tensor<3072x768xf32>)
      outs(%c : tensor<?x768xf32>) -> tensor<?x768xf32>
  return %0 : tensor<?x768xf32>
}

// -----

// Columns that no panel width divides (an LM head's vocabulary of 50257)
// still go parallel: panels of 128 (the last columns a tile of their own
// when applied).

// CHECK-LABEL: func.func @matmul_odd_columns
//       CHECK:   linalg.matmul {lowering_config = #tfm.lowering_config<parallel = [0, 128, 0], vector = [1, 32, 0]{{( interchange \[[0-9, ]*\])?}}, reduction = [0, 0, 1]
// TILED-LABEL: func.func @matmul_odd_columns
//       TILED:   scf.forall (%{{.*}}) = (0) to (1408) step (128)
func.func @matmul_odd_columns(%a: tensor<1x64xf32>, %b: tensor<64x1409xf32>,
                              %c: tensor<1x1409xf32>) -> tensor<1x1409xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<1x64xf32>, tensor<64x1409xf32>)
      outs(%c : tensor<1x1409xf32>) -> tensor<1x1409xf32>
  return %0 : tensor<1x1409xf32>
}

// -----

// A matmul whose right operand tfm-cpu-pack-panels packed, (m, nb, nr, k),
// takes the micro-kernel one panel per register tile: 12 x 1 x 32 with
// AVX-512, whose 24 panels of 32 columns go parallel two at a time (12
// parallel tiles, which 2 or 4 threads share evenly); 6 x 1 x 16 with AVX2.
// Each row tile reads the parallel tile's panels again from L2, prefetching
// them into L1 128 steps ahead (here, with panels of 64 steps, two panels
// on).

// CHECK-LABEL: func.func @packed
//       CHECK:   parallel = [0, 2, 0, 0], vector = [12, 1, 32, 0] interchange [0, 1, 2, 3], reduction = [0, 0, 0, 1], prefetch_distance = 128>
// AVX2-LABEL: func.func @packed
//       AVX2:   parallel = [0, 2, 0, 0], vector = [6, 1, 16, 0] interchange [0, 1, 2, 3], reduction = [0, 0, 0, 1], prefetch_distance = 128>
// TILED-LABEL: func.func @packed
//       TILED: scf.forall (%{{.*}}) = (0) to (24) step (2)
//       TILED:   scf.for %{{.*}} = %{{.*}} to %c192 step %c12
//       TILED:     scf.for %{{.*}} = %{{.*}} to %c2 step %c1
//       TILED:       scf.for %{{.*}} = %{{.*}} to %c64 step %c1 {{.*}} -> (tensor<12x1x32xf32>)
//       TILED:         vector.transfer_read {{.*}} : tensor<1x1x32xf32>, vector<12x1x32x1xf32>
func.func @packed(%a: tensor<197x64xf32>, %b: tensor<24x64x32xf32>,
                  %c: tensor<197x24x32xf32>) -> tensor<197x24x32xf32> {
  %0 = linalg.generic {
      indexing_maps = [affine_map<(m, nb, nr, k) -> (m, k)>,
                       affine_map<(m, nb, nr, k) -> (nb, k, nr)>,
                       affine_map<(m, nb, nr, k) -> (m, nb, nr)>],
      iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<197x64xf32>, tensor<24x64x32xf32>)
      outs(%c : tensor<197x24x32xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %z, %p : f32
    linalg.yield %s : f32
  } -> tensor<197x24x32xf32>
  return %0 : tensor<197x24x32xf32>
}

// -----

// A decoding step's product: a dynamic number of rows against packed
// panels. The parts of fewer rows than Mr stream each panel once from
// memory, Mr's part reads it again from L2 for each of its row tiles; the
// tiles that do 4 FMAs or more per 64-byte line of it prefetch the panel
// 128 steps ahead (AVX-512: the 12-, 8- and 4-row parts, 12, 8 and 4 FMAs
// a line, not the 2 or 1 rows' 2 and 1; AVX2, 16-column tiles of one line
// a step: the 6-, 4- and 2-row parts, 12, 8 and 4 a line, not the single
// rows' 2; here the panels are 32 wide, as AVX-512 packed them, and AVX2
// reads half of one a tile). Applied, the marker goes on the reduction
// loop, for tfm-cpu-prefetch-weights.

// CHECK-LABEL: func.func @packed_dynamic_rows
//       CHECK:   parallel = [0, 2, 0, 0], vector = [12, 1, 32, 0] interchange [0, 1, 2, 3], reduction = [0, 0, 0, 1], prefetch_distance = 128>
//       CHECK:   parallel = [0, 2, 0, 0], vector = [8, 1, 32, 0] interchange [0, 1, 2, 3], reduction = [0, 0, 0, 1], prefetch_distance = 128>
//       CHECK:   parallel = [0, 2, 0, 0], vector = [4, 1, 32, 0] interchange [0, 1, 2, 3], reduction = [0, 0, 0, 1], prefetch_distance = 128>
//       CHECK:   parallel = [0, 2, 0, 0], vector = [2, 1, 32, 0] interchange [0, 1, 2, 3], reduction = [0, 0, 0, 1]>
//       CHECK:   parallel = [0, 2, 0, 0], vector = [1, 1, 32, 0] interchange [0, 1, 2, 3], reduction = [0, 0, 0, 1]>
// AVX2-LABEL: func.func @packed_dynamic_rows
//       AVX2:   parallel = [0, 2, 0, 0], vector = [6, 1, 16, 0] interchange [0, 1, 2, 3], reduction = [0, 0, 0, 1], prefetch_distance = 128>
//       AVX2:   parallel = [0, 2, 0, 0], vector = [4, 1, 16, 0] interchange [0, 1, 2, 3], reduction = [0, 0, 0, 1], prefetch_distance = 128>
//       AVX2:   parallel = [0, 2, 0, 0], vector = [2, 1, 16, 0] interchange [0, 1, 2, 3], reduction = [0, 0, 0, 1], prefetch_distance = 128>
//       AVX2:   parallel = [0, 2, 0, 0], vector = [1, 1, 16, 0] interchange [0, 1, 2, 3], reduction = [0, 0, 0, 1]>
// TILED-LABEL: func.func @packed_dynamic_rows
//       TILED:   scf.for {{.*}} to %c64 step %c1 {{.*}} -> (tensor<12x1x32xf32>) {
//       TILED:   } {tfm.prefetch_distance = 128 : i64}
//       TILED:   scf.for {{.*}} to %c64 step %c1 {{.*}} -> (tensor<8x1x32xf32>) {
//       TILED:   } {tfm.prefetch_distance = 128 : i64}
//       TILED:   scf.for {{.*}} to %c64 step %c1 {{.*}} -> (tensor<4x1x32xf32>) {
//       TILED:   } {tfm.prefetch_distance = 128 : i64}
//       TILED:   scf.for {{.*}} to %c64 step %c1 {{.*}} -> (tensor<2x1x32xf32>) {
//   TILED-NOT:   prefetch_distance
//       TILED:   scf.for {{.*}} to %c64 step %c1 {{.*}} -> (tensor<1x1x32xf32>) {
//   TILED-NOT:   prefetch_distance
//       TILED:   return
func.func @packed_dynamic_rows(%a: tensor<?x64xf32>, %b: tensor<24x64x32xf32>,
                               %c: tensor<?x24x32xf32>) -> tensor<?x24x32xf32> {
  %0 = linalg.generic {
      indexing_maps = [affine_map<(m, nb, nr, k) -> (m, k)>,
                       affine_map<(m, nb, nr, k) -> (nb, k, nr)>,
                       affine_map<(m, nb, nr, k) -> (m, nb, nr)>],
      iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<?x64xf32>, tensor<24x64x32xf32>)
      outs(%c : tensor<?x24x32xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %z, %p : f32
    linalg.yield %s : f32
  } -> tensor<?x24x32xf32>
  return %0 : tensor<?x24x32xf32>
}

// -----

// Swin's first FC2: 3 panels of 32 columns would be 3 parallel tiles, which
// leave one of 2 threads idle a third of the time; its 3136 rows are many,
// so they are cut into 4 blocks of 784 too: 12 parallel tiles. Applied,
// one parallel loop over row blocks and panels, with no block split off.

// CHECK-LABEL: func.func @few_panels
//       CHECK:   parallel = [784, 1, 0, 0], vector = [12, 1, 32, 0]{{( interchange \[[0-9, ]*\])?}}, reduction = [0, 0, 0, 1]
// AVX2-LABEL: func.func @few_panels
//       AVX2:   parallel = [784, 1, 0, 0], vector = [6, 1, 16, 0]{{( interchange \[[0-9, ]*\])?}}, reduction = [0, 0, 0, 1]
// TILED-LABEL: func.func @few_panels
//       TILED: scf.forall (%{{.*}}, %{{.*}}) = (0, 0) to (3136, 3) step (784, 1) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<3136x3x32xf32>)
//       TILED:   scf.for %{{.*}} = %{{.*}} to %c780 step %c12
func.func @few_panels(%a: tensor<3136x384xf32>, %b: tensor<3x384x32xf32>,
                      %c: tensor<3136x3x32xf32>) -> tensor<3136x3x32xf32> {
  %0 = linalg.generic {
      indexing_maps = [affine_map<(m, nb, nr, k) -> (m, k)>,
                       affine_map<(m, nb, nr, k) -> (nb, k, nr)>,
                       affine_map<(m, nb, nr, k) -> (m, nb, nr)>],
      iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<3136x384xf32>, tensor<3x384x32xf32>)
      outs(%c : tensor<3136x3x32xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %z, %p : f32
    linalg.yield %s : f32
  } -> tensor<3136x3x32xf32>
  return %0 : tensor<3136x3x32xf32>
}

// -----

// A LayerNorm's ops, row by row: the mean's and the variance's reductions
// (and the fills of their accumulators) are read only by the normalization,
// one row at a time, so they are marked to be fused into its parallel
// tiles. The normalization reads the mean along its rows: a broadcast along
// the vector, not a transpose, so it keeps row vectors and its rows go
// parallel. Applied, the group is one parallel loop over the rows with the
// three passes over a row inside.

// CHECK-LABEL: func.func @layer_norm_rows
//       CHECK:   linalg.fill {lowering_config = {{.*}}, tfm.fuse_into_consumer}
//       CHECK:   linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]{{.*}}lowering_config = {{.*}}tfm.fuse_into_consumer
//       CHECK:   linalg.fill {lowering_config = {{.*}}, tfm.fuse_into_consumer}
//       CHECK:   linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]{{.*}}lowering_config = {{.*}}tfm.fuse_into_consumer
//       CHECK:   linalg.generic
//  CHECK-SAME:     lowering_config = #tfm.lowering_config<parallel = [1, 0], vector = [1, 16]>}
//   CHECK-NOT:     tfm.fuse_into_consumer
// TILED-LABEL: func.func @layer_norm_rows
//       TILED:   scf.forall (%[[ROW:.*]]) in (197)
//       TILED:     scf.for {{.*}} -> (tensor<1xf32>)
//       TILED:       vector.multi_reduction <add>
//       TILED:     scf.for {{.*}} -> (tensor<1xf32>)
//       TILED:       vector.multi_reduction <add>
//       TILED:     scf.for {{.*}} -> (tensor<1x192xf32>)
//       TILED:       math.sqrt {{.*}} : vector<1x16xf32>
//       TILED:     scf.forall.in_parallel
//   TILED-NOT:   scf.forall
//       TILED:   return
func.func @layer_norm_rows(%x: tensor<197x192xf32>, %g: tensor<192xf32>)
    -> tensor<197x192xf32> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 192.0 : f32
  %e0 = tensor.empty() : tensor<197xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<197xf32>) -> tensor<197xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                         iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<197x192xf32>) outs(%f0 : tensor<197xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<197xf32>
  %e1 = tensor.empty() : tensor<197xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<197xf32>) -> tensor<197xf32>
  %var = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>],
                         iterator_types = ["parallel", "reduction"]}
      ins(%x, %sum : tensor<197x192xf32>, tensor<197xf32>) outs(%f1 : tensor<197xf32>) {
  ^bb0(%a: f32, %s: f32, %acc: f32):
    %m = arith.divf %s, %n : f32
    %d = arith.subf %a, %m : f32
    %q = arith.mulf %d, %d : f32
    %r = arith.addf %acc, %q : f32
    linalg.yield %r : f32
  } -> tensor<197xf32>
  %e2 = tensor.empty() : tensor<197x192xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x, %sum, %var, %g : tensor<197x192xf32>, tensor<197xf32>, tensor<197xf32>, tensor<192xf32>)
      outs(%e2 : tensor<197x192xf32>) {
  ^bb0(%a: f32, %s: f32, %v: f32, %w: f32, %o: f32):
    %m = arith.divf %s, %n : f32
    %vn = arith.divf %v, %n : f32
    %sd = math.sqrt %vn : f32
    %d = arith.subf %a, %m : f32
    %z = arith.divf %d, %sd : f32
    %r = arith.mulf %z, %w : f32
    linalg.yield %r : f32
  } -> tensor<197x192xf32>
  return %y : tensor<197x192xf32>
}

// -----

// A producer that an op outside the group reads as well (the sum, returned)
// stays whole: it is the root of a group of its own, with the fill of its
// accumulator. A micro-kernel contraction is never fused into a row-wise
// group (its tiles are blocks of rows and columns), and neither is a
// transpose (square blocks); the fill of its accumulator goes into its
// register tiles, which then start from zeros.

// CHECK-LABEL: func.func @rows_not_fused
//       CHECK:   linalg.fill {lowering_config = {{.*}}, tfm.fuse_into_consumer} {{.*}} -> tensor<197xf32>
//       CHECK:   linalg.generic
//   CHECK-NOT:     tfm.fuse_into_consumer
//       CHECK:   linalg.fill {lowering_config = {{.*}}, tfm.fuse_into_consumer} {{.*}} -> tensor<197x192xf32>
//       CHECK:   linalg.matmul
//   CHECK-NOT:   tfm.fuse_into_consumer
//       CHECK:   return
func.func @rows_not_fused(%x: tensor<197x192xf32>, %w: tensor<192x192xf32>)
    -> (tensor<197x192xf32>, tensor<197xf32>, tensor<192x197xf32>) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<197xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<197xf32>) -> tensor<197xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                         iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<197x192xf32>) outs(%f0 : tensor<197xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<197xf32>
  %e1 = tensor.empty() : tensor<197x192xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<197x192xf32>) -> tensor<197x192xf32>
  %p = linalg.matmul ins(%x, %w : tensor<197x192xf32>, tensor<192x192xf32>)
      outs(%f1 : tensor<197x192xf32>) -> tensor<197x192xf32>
  %e2 = tensor.empty() : tensor<197x192xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%p, %sum : tensor<197x192xf32>, tensor<197xf32>) outs(%e2 : tensor<197x192xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %r = arith.subf %a, %s : f32
    linalg.yield %r : f32
  } -> tensor<197x192xf32>
  %e3 = tensor.empty() : tensor<192x197xf32>
  %t = linalg.transpose ins(%y : tensor<197x192xf32>) outs(%e3 : tensor<192x197xf32>) permutation = [1, 0]
  %e4 = tensor.empty() : tensor<192x197xf32>
  %u = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%t : tensor<192x197xf32>) outs(%e4 : tensor<192x197xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  } -> tensor<192x197xf32>
  return %y, %sum, %u : tensor<197x192xf32>, tensor<197xf32>, tensor<192x197xf32>
}

// -----

// A packed product's epilogue: the op that computes its accumulator (the
// bias, broadcast) is marked to be fused into it, and the op that reads its
// result (a GELU) to take in its tiles. Applied, each register tile starts
// from the bias read into registers, runs its reduction and applies the
// GELU before its store: no pass over the result of its own. A 20-row
// product: the 8 rows past the 12-row tiles are a peeled tile that does the
// same.

// CHECK-LABEL: func.func @epilogue
//       CHECK:   linalg.generic {{.*}}lowering_config = {{.*}}tfm.fuse_into_consumer
//       CHECK:   linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "reduction"]
//   CHECK-NOT:     tfm.fuse_into
//       CHECK:   linalg.generic {{.*}}lowering_config = {{.*}}tfm.fuse_into_producer
// TILED-LABEL: func.func @epilogue
//       TILED:   scf.forall (%{{.*}}) in (2)
//       TILED:     vector.transfer_read {{.*}} : tensor<1x32xf32>, vector<12x1x32xf32>
//       TILED:     scf.for %{{.*}} = %c0 to %c16 step %c1
//       TILED:     math.erf {{.*}} : vector<12x1x32xf32>
//       TILED:     vector.transfer_read {{.*}} : tensor<1x32xf32>, vector<8x1x32xf32>
//       TILED:     scf.for %{{.*}} = %c0 to %c16 step %c1 {{.*}} -> (tensor<8x1x32xf32>)
//       TILED:     math.erf {{.*}} : vector<8x1x32xf32>
//       TILED:     scf.forall.in_parallel
//   TILED-NOT:   math.erf
//       TILED:   return
func.func @epilogue(%x: tensor<20x16xf32>, %w: tensor<2x16x32xf32>, %b: tensor<2x32xf32>)
    -> tensor<20x2x32xf32> {
  %e0 = tensor.empty() : tensor<20x2x32xf32>
  %init = linalg.generic {indexing_maps = [affine_map<(m, p, n) -> (p, n)>, affine_map<(m, p, n) -> (m, p, n)>],
                          iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%b : tensor<2x32xf32>) outs(%e0 : tensor<20x2x32xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<20x2x32xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(m, p, n, k) -> (m, k)>, affine_map<(m, p, n, k) -> (p, k, n)>, affine_map<(m, p, n, k) -> (m, p, n)>],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<20x16xf32>, tensor<2x16x32xf32>) outs(%init : tensor<20x2x32xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %m = arith.mulf %a, %c : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<20x2x32xf32>
  %e1 = tensor.empty() : tensor<20x2x32xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(m, p, n) -> (m, p, n)>, affine_map<(m, p, n) -> (m, p, n)>],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%p : tensor<20x2x32xf32>) outs(%e1 : tensor<20x2x32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = math.erf %a : f32
    linalg.yield %v : f32
  } -> tensor<20x2x32xf32>
  return %g : tensor<20x2x32xf32>
}

// -----

// A product whose reduction is cut into cache blocks (800 steps) keeps its
// epilogue apart: its sums are finished only after the last block.

// CHECK-LABEL: func.func @blocked_epilogue
//   CHECK-NOT:   tfm.fuse_into
//       CHECK:   return
func.func @blocked_epilogue(%x: tensor<20x800xf32>, %w: tensor<2x800x32xf32>, %b: tensor<2x32xf32>)
    -> tensor<20x2x32xf32> {
  %e0 = tensor.empty() : tensor<20x2x32xf32>
  %init = linalg.generic {indexing_maps = [affine_map<(m, p, n) -> (p, n)>, affine_map<(m, p, n) -> (m, p, n)>],
                          iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%b : tensor<2x32xf32>) outs(%e0 : tensor<20x2x32xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<20x2x32xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(m, p, n, k) -> (m, k)>, affine_map<(m, p, n, k) -> (p, k, n)>, affine_map<(m, p, n, k) -> (m, p, n)>],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<20x800xf32>, tensor<2x800x32xf32>) outs(%init : tensor<20x2x32xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %m = arith.mulf %a, %c : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<20x2x32xf32>
  %e1 = tensor.empty() : tensor<20x2x32xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(m, p, n) -> (m, p, n)>, affine_map<(m, p, n) -> (m, p, n)>],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%p : tensor<20x2x32xf32>) outs(%e1 : tensor<20x2x32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = math.erf %a : f32
    linalg.yield %v : f32
  } -> tensor<20x2x32xf32>
  return %g : tensor<20x2x32xf32>
}

// -----

// A packed product of a dynamic number of rows is split with its epilogue:
// each part (12, 8, 4, 2 and 1 rows with AVX-512; 6, 4, 2 and 1 with
// AVX2) computes its rows' bias, product and GELU in an scf.if of its own,
// the bias and the GELU marked to be computed in its register tiles, and
// no whole op is left to make a pass (and a kernel) of its own. Applied,
// each part's tiles are static, with no remainder loop (its rows are a
// multiple of its tile height), start from the bias and store the GELU of
// their sums.

// CHECK-LABEL: func.func @epilogue_dynamic_rows
//   CHECK-NOT:   linalg.generic
//       CHECK:   scf.if
//  CHECK-NEXT:     linalg.generic {{.*}}tfm.fuse_into_consumer
//       CHECK:     linalg.generic {{.*}}"reduction"]{{.*}}parallel = [0, 1, 0, 0], vector = [12, 1, 32, 0]{{( interchange \[[0-9, ]*\])?}}, reduction = [0, 0, 0, 1]
//       CHECK:     linalg.generic {{.*}}tfm.fuse_into_producer
//       CHECK:   } else {
//       CHECK:   scf.if
//  CHECK-NEXT:     linalg.generic {{.*}}tfm.fuse_into_consumer
//       CHECK:     linalg.generic {{.*}}"reduction"]{{.*}}parallel = [0, 1, 0, 0], vector = [8, 1, 32, 0]{{( interchange \[[0-9, ]*\])?}}, reduction = [0, 0, 0, 1]
//       CHECK:     linalg.generic {{.*}}tfm.fuse_into_producer
//       CHECK:   scf.if
//  CHECK-NEXT:     linalg.generic {{.*}}tfm.fuse_into_consumer
//       CHECK:     linalg.generic {{.*}}"reduction"]{{.*}}parallel = [0, 1, 0, 0], vector = [4, 1, 32, 0]{{( interchange \[[0-9, ]*\])?}}, reduction = [0, 0, 0, 1]
//       CHECK:     linalg.generic {{.*}}tfm.fuse_into_producer
//       CHECK:   scf.if
//  CHECK-NEXT:     linalg.generic {{.*}}tfm.fuse_into_consumer
//       CHECK:     linalg.generic {{.*}}"reduction"]{{.*}}parallel = [0, 1, 0, 0], vector = [2, 1, 32, 0]{{( interchange \[[0-9, ]*\])?}}, reduction = [0, 0, 0, 1]
//       CHECK:     linalg.generic {{.*}}tfm.fuse_into_producer
//       CHECK:   scf.if
//  CHECK-NEXT:     linalg.generic {{.*}}tfm.fuse_into_consumer
//       CHECK:     linalg.generic {{.*}}"reduction"]{{.*}}parallel = [0, 1, 0, 0], vector = [1, 1, 32, 0]{{( interchange \[[0-9, ]*\])?}}, reduction = [0, 0, 0, 1]
//       CHECK:     linalg.generic {{.*}}tfm.fuse_into_producer
//   CHECK-NOT:   linalg.generic
//       CHECK:   return
// AVX2-LABEL: func.func @epilogue_dynamic_rows
//       AVX2:     linalg.generic {{.*}}tfm.fuse_into_consumer
//       AVX2:     linalg.generic {{.*}}"reduction"]{{.*}}parallel = [0, 1, 0, 0], vector = [6, 1, 16, 0]{{( interchange \[[0-9, ]*\])?}}, reduction = [0, 0, 0, 1]
//       AVX2:     linalg.generic {{.*}}tfm.fuse_into_producer
//       AVX2:     linalg.generic {{.*}}"reduction"]{{.*}}parallel = [0, 1, 0, 0], vector = [4, 1, 16, 0]{{( interchange \[[0-9, ]*\])?}}, reduction = [0, 0, 0, 1]
//       AVX2:     linalg.generic {{.*}}"reduction"]{{.*}}parallel = [0, 1, 0, 0], vector = [2, 1, 16, 0]{{( interchange \[[0-9, ]*\])?}}, reduction = [0, 0, 0, 1]
//       AVX2:     linalg.generic {{.*}}"reduction"]{{.*}}parallel = [0, 1, 0, 0], vector = [1, 1, 16, 0]{{( interchange \[[0-9, ]*\])?}}, reduction = [0, 0, 0, 1]
//       AVX2:     linalg.generic {{.*}}tfm.fuse_into_producer
//   AVX2-NOT:   linalg.generic
//       AVX2:   return
// TILED-LABEL: func.func @epilogue_dynamic_rows
//       TILED:   scf.if
//       TILED:     scf.for %{{.*}} = %c0 to %{{.*}} step %c12
//       TILED:       vector.transfer_read {{.*}} : tensor<1x32xf32>, vector<12x1x32xf32>
//       TILED:       math.erf {{.*}} : vector<12x1x32xf32>
//   TILED-NOT:     step %c12
//       TILED:   scf.if
//       TILED:     scf.for %{{.*}} = %c0 to %{{.*}} step %c8
//       TILED:       vector.transfer_read {{.*}} : tensor<1x32xf32>, vector<8x1x32xf32>
//       TILED:       math.erf {{.*}} : vector<8x1x32xf32>
//   TILED-NOT:     step %c8
//       TILED:   scf.if
//       TILED:       math.erf {{.*}} : vector<4x1x32xf32>
//       TILED:   scf.if
//       TILED:       math.erf {{.*}} : vector<2x1x32xf32>
//       TILED:   scf.if
//       TILED:       math.erf {{.*}} : vector<1x1x32xf32>
//   TILED-NOT:   math.erf
//       TILED:   return
func.func @epilogue_dynamic_rows(%x: tensor<?x16xf32>, %w: tensor<2x16x32xf32>, %b: tensor<2x32xf32>)
    -> tensor<?x2x32xf32> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x16xf32>
  %e0 = tensor.empty(%m) : tensor<?x2x32xf32>
  %init = linalg.generic {indexing_maps = [affine_map<(m, p, n) -> (p, n)>, affine_map<(m, p, n) -> (m, p, n)>],
                          iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%b : tensor<2x32xf32>) outs(%e0 : tensor<?x2x32xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<?x2x32xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(m, p, n, k) -> (m, k)>, affine_map<(m, p, n, k) -> (p, k, n)>, affine_map<(m, p, n, k) -> (m, p, n)>],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<?x16xf32>, tensor<2x16x32xf32>) outs(%init : tensor<?x2x32xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %mm = arith.mulf %a, %c : f32
    %s = arith.addf %o, %mm : f32
    linalg.yield %s : f32
  } -> tensor<?x2x32xf32>
  %e1 = tensor.empty(%m) : tensor<?x2x32xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(m, p, n) -> (m, p, n)>, affine_map<(m, p, n) -> (m, p, n)>],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%p : tensor<?x2x32xf32>) outs(%e1 : tensor<?x2x32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = math.erf %a : f32
    linalg.yield %v : f32
  } -> tensor<?x2x32xf32>
  return %g : tensor<?x2x32xf32>
}

// -----

// A product of a dynamic number of rows that starts from zeros (an LM
// head) and whose result nothing elementwise reads: each part fills its
// own rows' accumulator (in its tiles: a zero vector). The parts write
// into the fill's destination, each into a slice of the result of the
// parts before it, so that bufferization puts them all in one buffer.

// CHECK-LABEL: func.func @zeros_dynamic_rows
//       CHECK:   %[[EMPTY:.*]] = tensor.empty(%{{.*}}) : tensor<?x2x32xf32>
//   CHECK-NOT:   linalg.fill
//       CHECK:   %[[DEST:.*]] = tensor.extract_slice %[[EMPTY]]
//       CHECK:   scf.if
//  CHECK-NEXT:     linalg.fill {lowering_config = {{.*}}, tfm.fuse_into_consumer} ins(%{{.*}} : f32) outs(%[[DEST]] :
//  CHECK-NEXT:     linalg.generic {{.*}}"reduction"]{{.*}}parallel = [0, 1, 0, 0], vector = [12, 1, 32, 0]{{( interchange \[[0-9, ]*\])?}}, reduction = [0, 0, 0, 1]
//       CHECK:   } else {
//  CHECK-NEXT:     scf.yield %[[DEST]] : tensor<?x2x32xf32>
//       CHECK:   %[[PARTS:.*]] = tensor.insert_slice %{{.*}} into %[[EMPTY]]
//       CHECK:   %[[DEST8:.*]] = tensor.extract_slice %[[PARTS]]
//       CHECK:   scf.if
//  CHECK-NEXT:     linalg.fill {lowering_config = {{.*}}, tfm.fuse_into_consumer} ins(%{{.*}} : f32) outs(%[[DEST8]] :
//  CHECK-NEXT:     linalg.generic {{.*}}"reduction"]{{.*}}parallel = [0, 1, 0, 0], vector = [8, 1, 32, 0]{{( interchange \[[0-9, ]*\])?}}, reduction = [0, 0, 0, 1]
// CHECK-COUNT-3:   linalg.fill {lowering_config = {{.*}}, tfm.fuse_into_consumer}
//   CHECK-NOT:   linalg.fill
//       CHECK:   return
// TILED-LABEL: func.func @zeros_dynamic_rows
//   TILED-NOT:   linalg.fill
//       TILED:   return
func.func @zeros_dynamic_rows(%x: tensor<?x16xf32>, %w: tensor<2x16x32xf32>) -> tensor<?x2x32xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %m = tensor.dim %x, %c0 : tensor<?x16xf32>
  %e0 = tensor.empty(%m) : tensor<?x2x32xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e0 : tensor<?x2x32xf32>) -> tensor<?x2x32xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(m, p, n, k) -> (m, k)>, affine_map<(m, p, n, k) -> (p, k, n)>, affine_map<(m, p, n, k) -> (m, p, n)>],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<?x16xf32>, tensor<2x16x32xf32>) outs(%init : tensor<?x2x32xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %mm = arith.mulf %a, %c : f32
    %s = arith.addf %o, %mm : f32
    linalg.yield %s : f32
  } -> tensor<?x2x32xf32>
  return %p : tensor<?x2x32xf32>
}

// -----

// The products of a flash attention's step, inside its parallel query tile:
// the scores' product starts from zeros (its fill is marked to be fused:
// applied, the register tiles start from a zero vector, no pass writes
// zeros and none reads them back) and the scale that reads its sums is
// applied in its tiles; the values' product takes the rescale of the
// running accumulator (acc * correction, one per row) in its tiles.

// CHECK-LABEL: func.func @attention_step_products
//       CHECK:   scf.forall
//       CHECK:     linalg.fill {lowering_config = {{.*}}, tfm.fuse_into_consumer}
//       CHECK:     linalg.matmul {lowering_config
//       CHECK:     linalg.generic {{.*}}lowering_config = {{.*}}tfm.fuse_into_producer
//       CHECK:     linalg.generic {{.*}}lowering_config = {{.*}}tfm.fuse_into_consumer
//       CHECK:     linalg.matmul {lowering_config
// TILED-LABEL: func.func @attention_step_products
//       TILED:   scf.forall
//       TILED:     scf.for %{{.*}} = %c0 to %c24 step %c12
//       TILED:       vector.transfer_write %{{.*}} : vector<12x32xf32>, tensor<12x32xf32>
//  TILED-NEXT:       scf.for %{{.*}} = %c0 to %c64 step %c1
//       TILED:       arith.mulf %{{.*}}, %{{.*}} : vector<12x32xf32>
//       TILED:     scf.for %{{.*}} = %c0 to %c24 step %c12
//       TILED:       vector.transfer_read {{.*}} : tensor<12xf32>, vector<12x32xf32>
//       TILED:       arith.mulf {{.*}} : vector<12x32xf32>
//       TILED:       scf.for %{{.*}} = %c0 to %c64 step %c1
func.func @attention_step_products(%q: tensor<2x24x64xf32>, %kt: tensor<64x64xf32>,
                                   %v: tensor<64x64xf32>, %p: tensor<2x24x64xf32>,
                                   %corr: tensor<2x24xf32>, %acc: tensor<2x24x64xf32>)
    -> (tensor<2x24x64xf32>, tensor<2x24x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %scale = arith.constant 0.125 : f32
  %e = tensor.empty() : tensor<2x24x64xf32>
  %r:2 = scf.forall (%t) in (2) shared_outs(%o1 = %e, %o2 = %acc) -> (tensor<2x24x64xf32>, tensor<2x24x64xf32>) {
    %qt = tensor.extract_slice %q[%t, 0, 0] [1, 24, 64] [1, 1, 1] : tensor<2x24x64xf32> to tensor<24x64xf32>
    %pt = tensor.extract_slice %p[%t, 0, 0] [1, 24, 64] [1, 1, 1] : tensor<2x24x64xf32> to tensor<24x64xf32>
    %ct = tensor.extract_slice %corr[%t, 0] [1, 24] [1, 1] : tensor<2x24xf32> to tensor<24xf32>
    %at = tensor.extract_slice %o2[%t, 0, 0] [1, 24, 64] [1, 1, 1] : tensor<2x24x64xf32> to tensor<24x64xf32>
    %se = tensor.empty() : tensor<24x64xf32>
    %sf = linalg.fill ins(%zero : f32) outs(%se : tensor<24x64xf32>) -> tensor<24x64xf32>
    %s = linalg.matmul ins(%qt, %kt : tensor<24x64xf32>, tensor<64x64xf32>) outs(%sf : tensor<24x64xf32>) -> tensor<24x64xf32>
    %scaled = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                              iterator_types = ["parallel", "parallel"]}
        ins(%s : tensor<24x64xf32>) outs(%se : tensor<24x64xf32>) {
    ^bb0(%a: f32, %o: f32):
      %m = arith.mulf %a, %scale : f32
      linalg.yield %m : f32
    } -> tensor<24x64xf32>
    %rescaled = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>],
                                iterator_types = ["parallel", "parallel"]}
        ins(%ct : tensor<24xf32>) outs(%at : tensor<24x64xf32>) {
    ^bb0(%c: f32, %a: f32):
      %m = arith.mulf %a, %c : f32
      linalg.yield %m : f32
    } -> tensor<24x64xf32>
    %new = linalg.matmul ins(%pt, %v : tensor<24x64xf32>, tensor<64x64xf32>) outs(%rescaled : tensor<24x64xf32>) -> tensor<24x64xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %scaled into %o1[%t, 0, 0] [1, 24, 64] [1, 1, 1] : tensor<24x64xf32> into tensor<2x24x64xf32>
      tensor.parallel_insert_slice %new into %o2[%t, 0, 0] [1, 24, 64] [1, 1, 1] : tensor<24x64xf32> into tensor<2x24x64xf32>
    }
  }
  return %r#0, %r#1 : tensor<2x24x64xf32>, tensor<2x24x64xf32>
}

// -----

// A product in a parallel loop whose extent is dynamic (a flash attention's
// block of a dynamic number of keys) takes no epilogue in: its tiles'
// sizes are known only at run time, and the op taken in could not be
// vectorized on them.

// CHECK-LABEL: func.func @dynamic_step_product
//   CHECK-NOT:   tfm.fuse_into
//       CHECK:   return
func.func @dynamic_step_product(%q: tensor<2x24x64xf32>, %kt: tensor<64x?xf32>)
    -> tensor<2x24x?xf32> {
  %zero = arith.constant 0.0 : f32
  %scale = arith.constant 0.125 : f32
  %c1 = arith.constant 1 : index
  %n = tensor.dim %kt, %c1 : tensor<64x?xf32>
  %e = tensor.empty(%n) : tensor<2x24x?xf32>
  %r = scf.forall (%t) in (2) shared_outs(%o = %e) -> (tensor<2x24x?xf32>) {
    %qt = tensor.extract_slice %q[%t, 0, 0] [1, 24, 64] [1, 1, 1] : tensor<2x24x64xf32> to tensor<24x64xf32>
    %se = tensor.empty(%n) : tensor<24x?xf32>
    %sf = linalg.fill ins(%zero : f32) outs(%se : tensor<24x?xf32>) -> tensor<24x?xf32>
    %s = linalg.matmul ins(%qt, %kt : tensor<24x64xf32>, tensor<64x?xf32>) outs(%sf : tensor<24x?xf32>) -> tensor<24x?xf32>
    %scaled = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                              iterator_types = ["parallel", "parallel"]}
        ins(%s : tensor<24x?xf32>) outs(%se : tensor<24x?xf32>) {
    ^bb0(%a: f32, %b: f32):
      %m = arith.mulf %a, %scale : f32
      linalg.yield %m : f32
    } -> tensor<24x?xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %scaled into %o[%t, 0, 0] [1, 24, %n] [1, 1, 1] : tensor<24x?xf32> into tensor<2x24x?xf32>
    }
  }
  return %r : tensor<2x24x?xf32>
}
// -----

// In a parallel loop, a reduction of up to eight vectors along rows whose
// results are contiguous (flash attention's row maxima over a key block)
// takes a vector's worth of rows at a time, for tfm-cpu-reduce-row-blocks:
// 16 rows of 64 with AVX-512, 8 with AVX2 (eight vectors a row). 24 rows
// are not a multiple of 16: a row at a time with AVX-512.

// CHECK-LABEL: func.func @row_blocks
//       CHECK:   parallel = [0, 0], vector = [16, 64]
//       CHECK:   parallel = [0, 0], vector = [1, 64]
// AVX2-LABEL: func.func @row_blocks
//       AVX2:   parallel = [0, 0], vector = [8, 64]
//       AVX2:   parallel = [0, 0], vector = [8, 64]
// TILED-LABEL: func.func @row_blocks
//       TILED:   scf.for %{{.*}} = %c0 to %c32 step %c16
//       TILED:     vector.multi_reduction <maxnumf>, {{.*}} [1] : vector<16x64xf32> to vector<16xf32>
//       TILED:   scf.for %{{.*}} = %c0 to %c24 step %c1
//       TILED:     vector.multi_reduction <maxnumf>, {{.*}} [1] : vector<1x64xf32> to vector<1xf32>
func.func @row_blocks(%x: tensor<4x32x64xf32>, %m: tensor<4x32xf32>,
                      %y: tensor<4x24x64xf32>, %n: tensor<4x24xf32>)
    -> (tensor<4x32xf32>, tensor<4x24xf32>) {
  %0 = scf.forall (%b) in (4) shared_outs(%out = %m) -> tensor<4x32xf32> {
    %xs = tensor.extract_slice %x[%b, 0, 0] [1, 32, 64] [1, 1, 1] : tensor<4x32x64xf32> to tensor<32x64xf32>
    %ms = tensor.extract_slice %out[%b, 0] [1, 32] [1, 1] : tensor<4x32xf32> to tensor<32xf32>
    %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                         iterator_types = ["parallel", "reduction"]}
        ins(%xs : tensor<32x64xf32>) outs(%ms : tensor<32xf32>) {
    ^bb0(%a: f32, %acc: f32):
      %v = arith.maxnumf %a, %acc : f32
      linalg.yield %v : f32
    } -> tensor<32xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %r into %out[%b, 0] [1, 32] [1, 1] : tensor<32xf32> into tensor<4x32xf32>
    }
  }
  %1 = scf.forall (%b) in (4) shared_outs(%out = %n) -> tensor<4x24xf32> {
    %ys = tensor.extract_slice %y[%b, 0, 0] [1, 24, 64] [1, 1, 1] : tensor<4x24x64xf32> to tensor<24x64xf32>
    %ns = tensor.extract_slice %out[%b, 0] [1, 24] [1, 1] : tensor<4x24xf32> to tensor<24xf32>
    %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                         iterator_types = ["parallel", "reduction"]}
        ins(%ys : tensor<24x64xf32>) outs(%ns : tensor<24xf32>) {
    ^bb0(%a: f32, %acc: f32):
      %v = arith.maxnumf %a, %acc : f32
      linalg.yield %v : f32
    } -> tensor<24xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %r into %out[%b, 0] [1, 24] [1, 1] : tensor<24xf32> into tensor<4x24xf32>
    }
  }
  return %0, %1 : tensor<4x32xf32>, tensor<4x24xf32>
}

// -----

// A product with cache blocks whose right operand tfm-cpu-pack-panels packs
// at run time (a transpose into panels of 32 columns) takes the pack and
// the fill of its accumulator into its parallel tiles: each tile of 2
// panels reads only its own panels and columns of them, so it packs them
// (into a tensor of its own) and zeroes them right before its cache blocks,
// rather than two passes over the whole before the product. Without cache
// blocks the fill goes to the register tiles (markEpilogue) and the pack
// stays a pass of its own; so does a pack that two products read.

#lhs = affine_map<(m, nb, nr, k) -> (m, k)>
#rhs = affine_map<(m, nb, nr, k) -> (nb, k, nr)>
#out = affine_map<(m, nb, nr, k) -> (m, nb, nr)>

// CHECK-LABEL: func.func @runtime_packing(
//       CHECK:   linalg.transpose {{.*}}tfm.fuse_into_consumer
//       CHECK:   linalg.fill {{.*}}tfm.fuse_into_consumer
//       CHECK:   linalg.generic {{.*}}parallel = [0, 2, 0, 0], cache = [120, 0, 0, 512]
// AVX2-LABEL: func.func @runtime_packing(
//       AVX2:   linalg.transpose {{.*}}tfm.fuse_into_consumer
//       AVX2:   linalg.fill {{.*}}tfm.fuse_into_consumer
// TILED-LABEL: func.func @runtime_packing(
//       TILED: scf.forall (%{{.*}}) = (0) to (8) step (2)
//       TILED:   scf.for %{{.*}} = %c0 to %c2 step %c1 {{.*}} -> (tensor<2x2048x32xf32>)
//       TILED:     scf.for %{{.*}} = %c0 to %c2048 step %c1
//       TILED:   scf.for %{{.*}} = %c0 to %c240 step %c1 {{.*}} -> (tensor<240x2x32xf32>)
//       TILED:         vector.transfer_write %cst
//       TILED:   scf.for %{{.*}} = %c0 to %c240 step %c120
//       TILED:     scf.for %{{.*}} = %c0 to %c2048 step %c512
//       TILED:   scf.forall.in_parallel
//   TILED-NOT: linalg.transpose
//   TILED-NOT: linalg.fill
//       TILED: return
func.func @runtime_packing(%a: tensor<240x2048xf32>, %b: tensor<2048x256xf32>) -> tensor<240x8x32xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x2048x32xf32>
  %x = tensor.expand_shape %b [[0], [1, 2]] output_shape [2048, 8, 32] : tensor<2048x256xf32> into tensor<2048x8x32xf32>
  %p = linalg.transpose ins(%x : tensor<2048x8x32xf32>) outs(%e : tensor<8x2048x32xf32>) permutation = [1, 0, 2]
  %c = tensor.empty() : tensor<240x8x32xf32>
  %f = linalg.fill ins(%cst : f32) outs(%c : tensor<240x8x32xf32>) -> tensor<240x8x32xf32>
  %r = linalg.generic {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %p : tensor<240x2048xf32>, tensor<8x2048x32xf32>) outs(%f : tensor<240x8x32xf32>) {
  ^bb0(%i: f32, %j: f32, %o: f32):
    %m = arith.mulf %i, %j : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<240x8x32xf32>
  return %r : tensor<240x8x32xf32>
}

// CHECK-LABEL: func.func @runtime_packing_kept(
//   CHECK-NOT:   linalg.transpose {{.*}}tfm.fuse_into_consumer
//       CHECK:   linalg.transpose
//   CHECK-NOT:   linalg.transpose {{.*}}tfm.fuse_into_consumer
//       CHECK:   linalg.transpose
//   CHECK-NOT:   linalg.transpose {{.*}}tfm.fuse_into_consumer
//       CHECK:   return
func.func @runtime_packing_kept(%a: tensor<240x768xf32>, %b: tensor<768x256xf32>,
                                %a2: tensor<240x2048xf32>, %b2: tensor<2048x256xf32>)
    -> (tensor<240x8x32xf32>, tensor<240x8x32xf32>, tensor<240x8x32xf32>) {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x768x32xf32>
  %x = tensor.expand_shape %b [[0], [1, 2]] output_shape [768, 8, 32] : tensor<768x256xf32> into tensor<768x8x32xf32>
  %p = linalg.transpose ins(%x : tensor<768x8x32xf32>) outs(%e : tensor<8x768x32xf32>) permutation = [1, 0, 2]
  %c = tensor.empty() : tensor<240x8x32xf32>
  %f = linalg.fill ins(%cst : f32) outs(%c : tensor<240x8x32xf32>) -> tensor<240x8x32xf32>
  %r = linalg.generic {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %p : tensor<240x768xf32>, tensor<8x768x32xf32>) outs(%f : tensor<240x8x32xf32>) {
  ^bb0(%i: f32, %j: f32, %o: f32):
    %m = arith.mulf %i, %j : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<240x8x32xf32>
  %e2 = tensor.empty() : tensor<8x2048x32xf32>
  %x2 = tensor.expand_shape %b2 [[0], [1, 2]] output_shape [2048, 8, 32] : tensor<2048x256xf32> into tensor<2048x8x32xf32>
  %p2 = linalg.transpose ins(%x2 : tensor<2048x8x32xf32>) outs(%e2 : tensor<8x2048x32xf32>) permutation = [1, 0, 2]
  %f2 = linalg.fill ins(%cst : f32) outs(%c : tensor<240x8x32xf32>) -> tensor<240x8x32xf32>
  %r2 = linalg.generic {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a2, %p2 : tensor<240x2048xf32>, tensor<8x2048x32xf32>) outs(%f2 : tensor<240x8x32xf32>) {
  ^bb0(%i: f32, %j: f32, %o: f32):
    %m = arith.mulf %i, %j : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<240x8x32xf32>
  %f3 = linalg.fill ins(%cst : f32) outs(%c : tensor<240x8x32xf32>) -> tensor<240x8x32xf32>
  %r3 = linalg.generic {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a2, %p2 : tensor<240x2048xf32>, tensor<8x2048x32xf32>) outs(%f3 : tensor<240x8x32xf32>) {
  ^bb0(%i: f32, %j: f32, %o: f32):
    %m = arith.mulf %i, %j : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<240x8x32xf32>
  return %r, %r2, %r3 : tensor<240x8x32xf32>, tensor<240x8x32xf32>, tensor<240x8x32xf32>
}
