// RUN: tfm-opt %s --tfm-gpu-select-strategy -split-input-file | FileCheck %s
// RUN: tfm-opt %s --tfm-gpu-select-strategy="q-tile=16 kv-tile=8 contraction-tile=16 reduction-tile=32" -split-input-file | FileCheck %s --check-prefix=OPTIONS
// RUN: tfm-opt %s --tfm-gpu-select-strategy --tfm-tile-by-config --canonicalize -split-input-file | FileCheck %s --check-prefix=TILED
// RUN: tfm-opt %s --tfm-gpu-select-strategy=tensor-cores=true -split-input-file | FileCheck %s --check-prefix=TENSOR
// RUN: tfm-opt %s --tfm-gpu-select-strategy="tensor-cores=true tf32=true" -split-input-file | FileCheck %s --check-prefix=TF32

// The default strategy of flash attention: (1 batch, 32 queries) tiles in
// parallel, blocks of 64 keys; the options change the sizes, which are
// clamped to the sizes they tile.

// CHECK-LABEL: func.func @flash
//       CHECK:   tfm.online_attention {{.*}}lowering_config = #tfm.lowering_config<parallel = [1, 32, 0], reduction = [0, 0, 48]>
// OPTIONS-LABEL: func.func @flash
//       OPTIONS:   lowering_config = #tfm.lowering_config<parallel = [1, 16, 0], reduction = [0, 0, 8]>
func.func @flash(%q: tensor<12x197x64xf32>, %kt: tensor<12x64x48xf32>, %v: tensor<12x48x64xf32>, %acc: tensor<12x197x64xf32>, %max: tensor<12x197xf32>, %sum: tensor<12x197xf32>) -> tensor<12x197x64xf32> {
  %r:3 = tfm.online_attention %q, %kt, %v
      outs(%acc, %max, %sum : tensor<12x197x64xf32>, tensor<12x197xf32>, tensor<12x197xf32>)
      : tensor<12x197x64xf32>, tensor<12x64x48xf32>, tensor<12x48x64xf32> -> tensor<12x197x64xf32>, tensor<12x197xf32>, tensor<12x197xf32>
  return %r#0 : tensor<12x197x64xf32>
}

// -----

// A strategy set by hand is kept; dynamic shapes get none (they are
// decomposed untiled).

// CHECK-LABEL: func.func @kept
//       CHECK:   lowering_config = #tfm.lowering_config<parallel = [1, 2, 0]>
// CHECK-LABEL: func.func @dynamic
//   CHECK-NOT:   lowering_config
func.func @kept(%q: tensor<2x8x16xf32>, %kt: tensor<2x16x8xf32>, %v: tensor<2x8x16xf32>, %acc: tensor<2x8x16xf32>, %max: tensor<2x8xf32>, %sum: tensor<2x8xf32>) -> tensor<2x8x16xf32> {
  %r:3 = tfm.online_attention %q, %kt, %v
      {lowering_config = #tfm.lowering_config<parallel = [1, 2, 0]>}
      outs(%acc, %max, %sum : tensor<2x8x16xf32>, tensor<2x8xf32>, tensor<2x8xf32>)
      : tensor<2x8x16xf32>, tensor<2x16x8xf32>, tensor<2x8x16xf32> -> tensor<2x8x16xf32>, tensor<2x8xf32>, tensor<2x8xf32>
  return %r#0 : tensor<2x8x16xf32>
}
func.func @dynamic(%q: tensor<?x8x16xf32>, %kt: tensor<?x16x8xf32>, %v: tensor<?x8x16xf32>, %acc: tensor<?x8x16xf32>, %max: tensor<?x8xf32>, %sum: tensor<?x8xf32>) -> tensor<?x8x16xf32> {
  %r:3 = tfm.online_attention %q, %kt, %v
      outs(%acc, %max, %sum : tensor<?x8x16xf32>, tensor<?x8xf32>, tensor<?x8xf32>)
      : tensor<?x8x16xf32>, tensor<?x16x8xf32>, tensor<?x8x16xf32> -> tensor<?x8x16xf32>, tensor<?x8xf32>, tensor<?x8xf32>
  return %r#0 : tensor<?x8x16xf32>
}

// -----

// A matmul at the top level of a function: 32 x 32 output tiles (a small
// product: fewer 64 x 64 tiles than an H100 has multiprocessors), one block
// each (`contraction-tile` changes the size), and its 96 reduction steps
// in chunks of 64 (`reduction-tile`), staged one after the other. Applied,
// the 16 columns that 32 does not divide are split off into tiles of their
// own, and the 32 steps that 64 does not divide into a product of their
// own, so that every tile has a static shape and `tfm-map-to-gpu` can
// stage its operands in shared memory.

// CHECK-LABEL: func.func @matmul(
//       CHECK:   linalg.matmul {lowering_config = #tfm.lowering_config<parallel = [32, 32, 0], reduction = [0, 0, 64]>}
// OPTIONS-LABEL: func.func @matmul(
//       OPTIONS:   parallel = [16, 16, 0], reduction = [0, 0, 32]
// TILED-LABEL: func.func @matmul(
//       TILED:   scf.forall (%{{.*}}, %{{.*}}) = (0, 0) to (64, 64) step (32, 32)
//       TILED:     %[[CHUNK:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<32x64xf32>, tensor<64x32xf32>) outs(%{{.*}} : tensor<32x32xf32>)
//       TILED:     linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<32x32xf32>, tensor<32x32xf32>) outs(%[[CHUNK]] : tensor<32x32xf32>)
//       TILED:   scf.forall (%{{.*}}) = (0) to (64) step (32)
//       TILED:     linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<32x64xf32>, tensor<64x16xf32>) outs(%{{.*}} : tensor<32x16xf32>)
//       TILED:     linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<32x32xf32>, tensor<32x16xf32>)
func.func @matmul(%a: tensor<64x96xf32>, %b: tensor<96x80xf32>, %c: tensor<64x80xf32>) -> tensor<64x80xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<64x96xf32>, tensor<96x80xf32>) outs(%c : tensor<64x80xf32>) -> tensor<64x80xf32>
  return %0 : tensor<64x80xf32>
}

// -----

// A product with at least 132 tiles of 64 x 64 (12 x 12 here; a batch
// counts too, 33 x 1 x 4) gets those: four warps of 32 x 32 in each block.
// One tile short of 132 (131 batch elements of one tile each) keeps 32 x 32.

// CHECK-LABEL: func.func @large_products(
//       CHECK:   linalg.matmul {lowering_config = #tfm.lowering_config<parallel = [64, 64, 0], reduction = [0, 0, 64]>}
//       CHECK:   linalg.batch_matmul {lowering_config = #tfm.lowering_config<parallel = [1, 64, 64, 0]>}
//       CHECK:   linalg.batch_matmul {lowering_config = #tfm.lowering_config<parallel = [1, 32, 32, 0]>}
// OPTIONS-LABEL: func.func @large_products(
//       OPTIONS:   parallel = [16, 16, 0], reduction = [0, 0, 32]
func.func @large_products(%a: tensor<768x128xf16>, %b: tensor<128x768xf16>, %c: tensor<768x768xf32>,
                          %ba: tensor<33x64x32xf16>, %bb: tensor<33x32x256xf16>, %bc: tensor<33x64x256xf32>,
                          %sa: tensor<131x64x32xf16>, %sb: tensor<131x32x64xf16>, %sc: tensor<131x64x64xf32>)
    -> (tensor<768x768xf32>, tensor<33x64x256xf32>, tensor<131x64x64xf32>) {
  %0 = linalg.matmul ins(%a, %b : tensor<768x128xf16>, tensor<128x768xf16>) outs(%c : tensor<768x768xf32>) -> tensor<768x768xf32>
  %1 = linalg.batch_matmul ins(%ba, %bb : tensor<33x64x32xf16>, tensor<33x32x256xf16>) outs(%bc : tensor<33x64x256xf32>) -> tensor<33x64x256xf32>
  %2 = linalg.batch_matmul ins(%sa, %sb : tensor<131x64x32xf16>, tensor<131x32x64xf16>) outs(%sc : tensor<131x64x64xf32>) -> tensor<131x64x64xf32>
  return %0, %1, %2 : tensor<768x768xf32>, tensor<33x64x256xf32>, tensor<131x64x64xf32>
}

// -----

// For tensor cores, a product with at least 132 tiles of 128 x 128 (12 x 11
// here; a batch counts too, 132 x 1 x 1) gets those, its reduction staged
// 32 steps at a time: four warps of 64 x 64 in each block. Without them it
// keeps 64 x 64, and so does a product with one 128 x 128 tile too few
// (131 x 1 x 1), whose 64 x 64 tiles are enough, and a float32 product,
// which stays on the threads' loops unless it runs as TF32.

// CHECK-LABEL: func.func @tensor_core_tiles(
//       CHECK:   linalg.matmul {lowering_config = #tfm.lowering_config<parallel = [64, 64, 0], reduction = [0, 0, 64]>}
//  CHECK-COUNT-2:   linalg.batch_matmul {lowering_config = #tfm.lowering_config<parallel = [1, 64, 64, 0], reduction = [0, 0, 0, 64]>}
//       CHECK:   linalg.matmul {lowering_config = #tfm.lowering_config<parallel = [64, 64, 0], reduction = [0, 0, 64]>}
// TENSOR-LABEL: func.func @tensor_core_tiles(
//       TENSOR:   linalg.matmul {lowering_config = #tfm.lowering_config<parallel = [128, 128, 0], reduction = [0, 0, 32]>}
//       TENSOR:   linalg.batch_matmul {lowering_config = #tfm.lowering_config<parallel = [1, 128, 128, 0], reduction = [0, 0, 0, 32]>}
//       TENSOR:   linalg.batch_matmul {lowering_config = #tfm.lowering_config<parallel = [1, 64, 64, 0], reduction = [0, 0, 0, 64]>}
//       TENSOR:   linalg.matmul {lowering_config = #tfm.lowering_config<parallel = [64, 64, 0], reduction = [0, 0, 64]>}
// TF32-LABEL: func.func @tensor_core_tiles(
//       TF32:   linalg.matmul {lowering_config = #tfm.lowering_config<parallel = [128, 128, 0], reduction = [0, 0, 32]>}
//       TF32:   linalg.batch_matmul
//       TF32:   linalg.batch_matmul
//       TF32:   linalg.matmul {lowering_config = #tfm.lowering_config<parallel = [128, 128, 0], reduction = [0, 0, 32]>}
func.func @tensor_core_tiles(%a: tensor<1536x768xf16>, %b: tensor<768x1408xf16>, %c: tensor<1536x1408xf32>,
                             %ba: tensor<132x128x80xf16>, %bb: tensor<132x80x128xf16>, %bc: tensor<132x128x128xf32>,
                             %sa: tensor<131x128x80xf16>, %sb: tensor<131x80x128xf16>, %sc: tensor<131x128x128xf32>,
                             %fa: tensor<1536x768xf32>, %fb: tensor<768x1408xf32>)
    -> (tensor<1536x1408xf32>, tensor<132x128x128xf32>, tensor<131x128x128xf32>, tensor<1536x1408xf32>) {
  %0 = linalg.matmul ins(%a, %b : tensor<1536x768xf16>, tensor<768x1408xf16>) outs(%c : tensor<1536x1408xf32>) -> tensor<1536x1408xf32>
  %1 = linalg.batch_matmul ins(%ba, %bb : tensor<132x128x80xf16>, tensor<132x80x128xf16>) outs(%bc : tensor<132x128x128xf32>) -> tensor<132x128x128xf32>
  %2 = linalg.batch_matmul ins(%sa, %sb : tensor<131x128x80xf16>, tensor<131x80x128xf16>) outs(%sc : tensor<131x128x128xf32>) -> tensor<131x128x128xf32>
  %3 = linalg.matmul ins(%fa, %fb : tensor<1536x768xf32>, tensor<768x1408xf32>) outs(%c : tensor<1536x1408xf32>) -> tensor<1536x1408xf32>
  return %0, %1, %2, %3 : tensor<1536x1408xf32>, tensor<132x128x128xf32>, tensor<131x128x128xf32>, tensor<1536x1408xf32>
}

// -----

// A batched matmul: one batch element and one output tile per block.

// CHECK-LABEL: func.func @batch_matmul(
//       CHECK:   parallel = [1, 32, 32, 0]>
// TILED-LABEL: func.func @batch_matmul(
//       TILED:   scf.forall (%{{.*}}, %{{.*}}, %{{.*}}) = (0, 0, 0) to (8, 64, 64) step (1, 32, 32)
//       TILED:     linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<1x32x16xf32>, tensor<1x16x32xf32>) outs(%{{.*}} : tensor<1x32x32xf32>)
func.func @batch_matmul(%a: tensor<8x64x16xf32>, %b: tensor<8x16x64xf32>, %c: tensor<8x64x64xf32>) -> tensor<8x64x64xf32> {
  %0 = linalg.batch_matmul ins(%a, %b : tensor<8x64x16xf32>, tensor<8x16x64xf32>) outs(%c : tensor<8x64x64xf32>) -> tensor<8x64x64xf32>
  return %0 : tensor<8x64x64xf32>
}

// -----

// Two batch dimensions would need a fourth grid dimension: no config, as for
// ops that are not contractions and contractions inside a tile (flash
// attention's products).

// CHECK-LABEL: func.func @two_batch_dims(
//   CHECK-NOT:   lowering_config
// CHECK-LABEL: func.func @nested(
//   CHECK-NOT:   lowering_config
func.func @two_batch_dims(%a: tensor<2x4x8x16xf32>, %b: tensor<2x4x16x8xf32>, %c: tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(b, h, m, n, k) -> (b, h, m, k)>, affine_map<(b, h, m, n, k) -> (b, h, k, n)>, affine_map<(b, h, m, n, k) -> (b, h, m, n)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%a, %b : tensor<2x4x8x16xf32>, tensor<2x4x16x8xf32>) outs(%c : tensor<2x4x8x8xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x4x8x8xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(b, h, m, n) -> (b, h, m, n)>, affine_map<(b, h, m, n) -> (b, h, m, n)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%0 : tensor<2x4x8x8xf32>) outs(%c : tensor<2x4x8x8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %e = math.exp %x : f32
    linalg.yield %e : f32
  } -> tensor<2x4x8x8xf32>
  return %1 : tensor<2x4x8x8xf32>
}
func.func @nested(%a: tensor<64x96xf32>, %b: tensor<96x80xf32>, %c: tensor<64x80xf32>) -> tensor<64x80xf32> {
  %0 = scf.forall (%i) in (2) shared_outs(%out = %c) -> (tensor<64x80xf32>) {
    %r = linalg.matmul ins(%a, %b : tensor<64x96xf32>, tensor<96x80xf32>) outs(%c : tensor<64x80xf32>) -> tensor<64x80xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %r into %out[0, 0] [64, 80] [1, 1] : tensor<64x80xf32> into tensor<64x80xf32>
    }
  }
  return %0 : tensor<64x80xf32>
}

// -----

// A product whose result only an elementwise op reads (a bias and a cast):
// the reader takes the product's 32 x 32 tiles, and the product and the
// fill of its accumulator are fused into them, so that one block computes
// its tile's accumulator, product and epilogue (one kernel, not three).
// Where the tiles do not divide the product (80 columns), the three ops
// are split into the 64 columns whole tiles cover and the 16 left, and
// each part is fused into tiles of its own (32 x 16 for the rest): two
// kernels, each computing its tiles' accumulator, product and epilogue.

// CHECK-LABEL: func.func @epilogue(
//       CHECK:   linalg.fill {{.*}}tfm.fuse_into_consumer
//       CHECK:   linalg.matmul {lowering_config = #tfm.lowering_config<parallel = [32, 32, 0], reduction = [0, 0, 64]>, tfm.fuse_into_consumer}
//       CHECK:   linalg.generic {{.*}}lowering_config = #tfm.lowering_config<parallel = [32, 32]>
// TILED-LABEL: func.func @epilogue(
//       TILED:   scf.forall (%{{.*}}, %{{.*}}) = (0, 0) to (64, 64) step (32, 32)
//   TILED-NOT:     scf.forall
//       TILED:     %[[ACC:.*]] = linalg.fill {{.*}} -> tensor<32x32xf32>
//  TILED-NEXT:     tensor.extract_slice
//  TILED-NEXT:     tensor.extract_slice
//  TILED-NEXT:     %[[CHUNK:.*]] = linalg.matmul {{.*}} outs(%[[ACC]] : tensor<32x32xf32>)
//       TILED:     %[[PRODUCT:.*]] = linalg.matmul {{.*}} outs(%[[CHUNK]] : tensor<32x32xf32>)
//       TILED:     linalg.generic {{.*}} ins(%[[PRODUCT]], {{.*}} : tensor<32x32xf32>, tensor<32xf16>)
//       TILED:     scf.forall.in_parallel
//   TILED-NOT:   scf.forall
//       TILED:   return
// CHECK-LABEL: func.func @remainder_tiles(
//       CHECK:   linalg.fill {{.*}}tfm.fuse_into_consumer
//       CHECK:   linalg.matmul {lowering_config = #tfm.lowering_config<parallel = [32, 32, 0], reduction = [0, 0, 64]>, tfm.fuse_into_consumer}
//       CHECK:   linalg.generic {{.*}}lowering_config = #tfm.lowering_config<parallel = [32, 32]>
// TILED-LABEL: func.func @remainder_tiles(
//       TILED:   scf.forall (%{{.*}}, %{{.*}}) = (0, 0) to (64, 64) step (32, 32)
//       TILED:     linalg.fill {{.*}} -> tensor<32x32xf32>
//       TILED:     linalg.matmul {{.*}} -> tensor<32x32xf32>
//       TILED:     linalg.matmul {{.*}} -> tensor<32x32xf32>
//       TILED:     linalg.generic {{.*}} outs(%{{.*}} : tensor<32x32xf16>)
//       TILED:   %[[MAIN:.*]] = tensor.insert_slice %{{.*}}[0, 0] [64, 64]
//       TILED:   scf.forall (%{{.*}}) = (0) to (64) step (32)
//       TILED:     linalg.fill {{.*}} -> tensor<32x16xf32>
//       TILED:     linalg.matmul {{.*}} -> tensor<32x16xf32>
//       TILED:     linalg.matmul {{.*}} -> tensor<32x16xf32>
//       TILED:     linalg.generic {{.*}} outs(%{{.*}} : tensor<32x16xf16>)
//       TILED:   %[[ALL:.*]] = tensor.insert_slice %{{.*}} into %[[MAIN]][0, 64] [64, 16]
//   TILED-NOT:   linalg
//       TILED:   return %[[ALL]]
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @epilogue(%a: tensor<64x96xf16>, %b: tensor<96x64xf16>, %bias: tensor<64xf16>) -> tensor<64x64xf16> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<64x64xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<64x64xf32>) -> tensor<64x64xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<64x96xf16>, tensor<96x64xf16>) outs(%acc : tensor<64x64xf32>) -> tensor<64x64xf32>
  %out = tensor.empty() : tensor<64x64xf16>
  %1 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%0, %bias : tensor<64x64xf32>, tensor<64xf16>) outs(%out : tensor<64x64xf16>) {
  ^bb0(%x: f32, %c: f16, %o: f16):
    %e = arith.extf %c : f16 to f32
    %s = arith.addf %x, %e : f32
    %t = arith.truncf %s : f32 to f16
    linalg.yield %t : f16
  } -> tensor<64x64xf16>
  return %1 : tensor<64x64xf16>
}
func.func @remainder_tiles(%a: tensor<64x96xf16>, %b: tensor<96x80xf16>, %bias: tensor<80xf16>) -> tensor<64x80xf16> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<64x80xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<64x80xf32>) -> tensor<64x80xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<64x96xf16>, tensor<96x80xf16>) outs(%acc : tensor<64x80xf32>) -> tensor<64x80xf32>
  %out = tensor.empty() : tensor<64x80xf16>
  %1 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%0, %bias : tensor<64x80xf32>, tensor<80xf16>) outs(%out : tensor<64x80xf16>) {
  ^bb0(%x: f32, %c: f16, %o: f16):
    %e = arith.extf %c : f16 to f32
    %s = arith.addf %x, %e : f32
    %t = arith.truncf %s : f32 to f16
    linalg.yield %t : f16
  } -> tensor<64x80xf16>
  return %1 : tensor<64x80xf16>
}

// -----

// An epilogue with a strategy set by hand keeps it, and the product is
// tiled on its own.

// CHECK-LABEL: func.func @reader_kept(
//   CHECK-NOT:   tfm.fuse_into_consumer
//       CHECK:   linalg.generic {{.*}}lowering_config = #tfm.lowering_config<parallel = [16, 64]>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @reader_kept(%a: tensor<64x32xf32>, %b: tensor<32x64xf32>) -> tensor<64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<64x64xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<64x64xf32>) -> tensor<64x64xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<64x32xf32>, tensor<32x64xf32>) outs(%acc : tensor<64x64xf32>) -> tensor<64x64xf32>
  %out = tensor.empty() : tensor<64x64xf32>
  %1 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%0 : tensor<64x64xf32>) outs(%out : tensor<64x64xf32>)
      attrs = {lowering_config = #tfm.lowering_config<parallel = [16, 64]>} {
  ^bb0(%x: f32, %o: f32):
    %r = arith.maximumf %x, %zero : f32
    linalg.yield %r : f32
  } -> tensor<64x64xf32>
  return %1 : tensor<64x64xf32>
}

// -----

// A LayerNorm's normalization takes the row-wise ops it reads into blocks of
// 4 rows (one a warp of 128 threads; 1024 rows make 256 blocks, at least
// one for each of an H100's 132 multiprocessors): the mean and the variance
// and the fills of their accumulators. Tiled, one forall over the rows
// computes the group; no op is left outside it.

// CHECK-LABEL: func.func @layer_norm(
//       CHECK:   linalg.fill {{.*}}tfm.fuse_into_consumer
//       CHECK:   linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]{{.*}}tfm.fuse_into_consumer
//       CHECK:   linalg.fill {{.*}}tfm.fuse_into_consumer
//       CHECK:   linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]{{.*}}tfm.fuse_into_consumer
//       CHECK:   linalg.generic {{.*}}lowering_config = #tfm.lowering_config<parallel = [4, 0]>
// TILED-LABEL: func.func @layer_norm(
//       TILED:   scf.forall (%[[R:.*]]) = (0) to (1024) step (4)
//       TILED:     linalg.fill
//       TILED:     linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]{{.*}} outs(%{{.*}} : tensor<4xf32>)
//       TILED:     linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]{{.*}} outs(%{{.*}} : tensor<4xf32>)
//       TILED:     linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]{{.*}} outs(%{{.*}} : tensor<4x64xf32>)
//       TILED:   scf.forall.in_parallel
//   TILED-NOT:   linalg.
//       TILED:   return
#rows = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @layer_norm(%x: tensor<1024x64xf32>) -> tensor<1024x64xf32> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 64.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %e = tensor.empty() : tensor<1024xf32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e : tensor<1024xf32>) -> tensor<1024xf32>
  %sum = linalg.generic {indexing_maps = [#rows, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<1024x64xf32>) outs(%z0 : tensor<1024xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %r = arith.addf %v, %acc : f32
    linalg.yield %r : f32
  } -> tensor<1024xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e : tensor<1024xf32>) -> tensor<1024xf32>
  %sq = linalg.generic {indexing_maps = [#rows, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x, %sum : tensor<1024x64xf32>, tensor<1024xf32>) outs(%z1 : tensor<1024xf32>) {
  ^bb0(%v: f32, %s: f32, %acc: f32):
    %mean = arith.divf %s, %n : f32
    %d = arith.subf %v, %mean : f32
    %d2 = arith.mulf %d, %d : f32
    %r = arith.addf %d2, %acc : f32
    linalg.yield %r : f32
  } -> tensor<1024xf32>
  %out = tensor.empty() : tensor<1024x64xf32>
  %y = linalg.generic {indexing_maps = [#rows, #row, #row, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%x, %sum, %sq : tensor<1024x64xf32>, tensor<1024xf32>, tensor<1024xf32>) outs(%out : tensor<1024x64xf32>) {
  ^bb0(%v: f32, %s: f32, %q: f32, %o: f32):
    %mean = arith.divf %s, %n : f32
    %var = arith.divf %q, %n : f32
    %ve = arith.addf %var, %eps : f32
    %rs = math.rsqrt %ve : f32
    %d = arith.subf %v, %mean : f32
    %r = arith.mulf %d, %rs : f32
    linalg.yield %r : f32
  } -> tensor<1024x64xf32>
  return %y : tensor<1024x64xf32>
}


// 197 rows (a batch-1 ViT-B's tokens): 4 rows a block would leave most
// multiprocessors idle (50 blocks) and 4 does not divide them (two
// kernels); one row a block, 197 blocks, one forall.

// CHECK-LABEL: func.func @layer_norm_197(
//       CHECK:   linalg.generic {{.*}}lowering_config = #tfm.lowering_config<parallel = [1, 0]>
// TILED-LABEL: func.func @layer_norm_197(
//       TILED:   scf.forall (%{{.*}}) in (197)
//   TILED-NOT:   scf.forall (
//       TILED:   return
func.func @layer_norm_197(%x: tensor<197x64xf32>) -> tensor<197x64xf32> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 64.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %e = tensor.empty() : tensor<197xf32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e : tensor<197xf32>) -> tensor<197xf32>
  %sum = linalg.generic {indexing_maps = [#rows, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<197x64xf32>) outs(%z0 : tensor<197xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %r = arith.addf %v, %acc : f32
    linalg.yield %r : f32
  } -> tensor<197xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e : tensor<197xf32>) -> tensor<197xf32>
  %sq = linalg.generic {indexing_maps = [#rows, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x, %sum : tensor<197x64xf32>, tensor<197xf32>) outs(%z1 : tensor<197xf32>) {
  ^bb0(%v: f32, %s: f32, %acc: f32):
    %mean = arith.divf %s, %n : f32
    %d = arith.subf %v, %mean : f32
    %d2 = arith.mulf %d, %d : f32
    %r = arith.addf %d2, %acc : f32
    linalg.yield %r : f32
  } -> tensor<197xf32>
  %out = tensor.empty() : tensor<197x64xf32>
  %y = linalg.generic {indexing_maps = [#rows, #row, #row, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%x, %sum, %sq : tensor<197x64xf32>, tensor<197xf32>, tensor<197xf32>) outs(%out : tensor<197x64xf32>) {
  ^bb0(%v: f32, %s: f32, %q: f32, %o: f32):
    %mean = arith.divf %s, %n : f32
    %var = arith.divf %q, %n : f32
    %ve = arith.addf %var, %eps : f32
    %rs = math.rsqrt %ve : f32
    %d = arith.subf %v, %mean : f32
    %r = arith.mulf %d, %rs : f32
    linalg.yield %r : f32
  } -> tensor<197x64xf32>
  return %y : tensor<197x64xf32>
}


// -----

// Elementwise ops without a reduction among them stay as they are (a
// thread per element, no block tiles), and so does a group whose rows are
// dynamic, or whose reduction another op reads too (the sums are returned).

// CHECK-LABEL: func.func @no_rowwise_group(
//   CHECK-NOT:   lowering_config
//   CHECK-NOT:   tfm.fuse_into_consumer
//       CHECK:   return
#rows2 = affine_map<(d0, d1) -> (d0, d1)>
#row2 = affine_map<(d0, d1) -> (d0)>
func.func @no_rowwise_group(%x: tensor<12x64xf32>, %d: tensor<?x64xf32>) -> (tensor<12x64xf32>, tensor<?xf32>, tensor<12xf32>, tensor<12x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %out = tensor.empty() : tensor<12x64xf32>
  %a = linalg.generic {indexing_maps = [#rows2, #rows2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<12x64xf32>) outs(%out : tensor<12x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.mulf %v, %v : f32
    linalg.yield %r : f32
  } -> tensor<12x64xf32>
  %b = linalg.generic {indexing_maps = [#rows2, #rows2], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<12x64xf32>) outs(%out : tensor<12x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.addf %v, %v : f32
    linalg.yield %r : f32
  } -> tensor<12x64xf32>
  %c0 = arith.constant 0 : index
  %rows = tensor.dim %d, %c0 : tensor<?x64xf32>
  %e = tensor.empty(%rows) : tensor<?xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %s = linalg.generic {indexing_maps = [#rows2, #row2], iterator_types = ["parallel", "reduction"]}
      ins(%d : tensor<?x64xf32>) outs(%z : tensor<?xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %r = arith.addf %v, %acc : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  %e12 = tensor.empty() : tensor<12xf32>
  %z12 = linalg.fill ins(%zero : f32) outs(%e12 : tensor<12xf32>) -> tensor<12xf32>
  %s12 = linalg.generic {indexing_maps = [#rows2, #row2], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<12x64xf32>) outs(%z12 : tensor<12xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %r = arith.addf %v, %acc : f32
    linalg.yield %r : f32
  } -> tensor<12xf32>
  %c = linalg.generic {indexing_maps = [#rows2, #row2, #rows2], iterator_types = ["parallel", "parallel"]}
      ins(%x, %s12 : tensor<12x64xf32>, tensor<12xf32>) outs(%out : tensor<12x64xf32>) {
  ^bb0(%v: f32, %t: f32, %o: f32):
    %r = arith.subf %v, %t : f32
    linalg.yield %r : f32
  } -> tensor<12x64xf32>
  return %b, %s, %s12, %c : tensor<12x64xf32>, tensor<?xf32>, tensor<12xf32>, tensor<12x64xf32>
}

// -----

// A softmax's block keeps its rows' exponentials in shared memory: four
// rows of 4096 keys (1024 rows: enough for 4 a block) would take 64 KiB,
// so a block takes one row (16 KiB);
// a row of 16384 keys (64 KiB) would not fit even alone, and the ops stay
// unfused.

// CHECK-LABEL: func.func @softmax_rows(
//       CHECK:   linalg.generic {{.*}}tfm.fuse_into_consumer
//       CHECK:   linalg.generic {{.*}}lowering_config = #tfm.lowering_config<parallel = [1, 0]>
// CHECK-LABEL: func.func @softmax_rows_too_long(
//   CHECK-NOT:   lowering_config
//   CHECK-NOT:   tfm.fuse_into_consumer
//       CHECK:   return
#srows = affine_map<(d0, d1) -> (d0, d1)>
#srow = affine_map<(d0, d1) -> (d0)>
func.func @softmax_rows(%x: tensor<1024x4096xf32>) -> tensor<1024x4096xf32> {
  %zero = arith.constant 0.0 : f32
  %out = tensor.empty() : tensor<1024x4096xf32>
  %ex = linalg.generic {indexing_maps = [#srows, #srows], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<1024x4096xf32>) outs(%out : tensor<1024x4096xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = math.exp %v : f32
    linalg.yield %r : f32
  } -> tensor<1024x4096xf32>
  %e = tensor.empty() : tensor<1024xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1024xf32>) -> tensor<1024xf32>
  %sum = linalg.generic {indexing_maps = [#srows, #srow], iterator_types = ["parallel", "reduction"]}
      ins(%ex : tensor<1024x4096xf32>) outs(%z : tensor<1024xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %r = arith.addf %v, %acc : f32
    linalg.yield %r : f32
  } -> tensor<1024xf32>
  %y = linalg.generic {indexing_maps = [#srows, #srow, #srows], iterator_types = ["parallel", "parallel"]}
      ins(%ex, %sum : tensor<1024x4096xf32>, tensor<1024xf32>) outs(%out : tensor<1024x4096xf32>) {
  ^bb0(%v: f32, %s: f32, %o: f32):
    %r = arith.divf %v, %s : f32
    linalg.yield %r : f32
  } -> tensor<1024x4096xf32>
  return %y : tensor<1024x4096xf32>
}
func.func @softmax_rows_too_long(%x: tensor<2x16384xf32>) -> tensor<2x16384xf32> {
  %zero = arith.constant 0.0 : f32
  %out = tensor.empty() : tensor<2x16384xf32>
  %ex = linalg.generic {indexing_maps = [#srows, #srows], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<2x16384xf32>) outs(%out : tensor<2x16384xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = math.exp %v : f32
    linalg.yield %r : f32
  } -> tensor<2x16384xf32>
  %e = tensor.empty() : tensor<2xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2xf32>) -> tensor<2xf32>
  %sum = linalg.generic {indexing_maps = [#srows, #srow], iterator_types = ["parallel", "reduction"]}
      ins(%ex : tensor<2x16384xf32>) outs(%z : tensor<2xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %r = arith.addf %v, %acc : f32
    linalg.yield %r : f32
  } -> tensor<2xf32>
  %y = linalg.generic {indexing_maps = [#srows, #srow, #srows], iterator_types = ["parallel", "parallel"]}
      ins(%ex, %sum : tensor<2x16384xf32>, tensor<2xf32>) outs(%out : tensor<2x16384xf32>) {
  ^bb0(%v: f32, %s: f32, %o: f32):
    %r = arith.divf %v, %s : f32
    linalg.yield %r : f32
  } -> tensor<2x16384xf32>
  return %y : tensor<2x16384xf32>
}
