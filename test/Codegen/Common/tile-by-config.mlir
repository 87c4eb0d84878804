// RUN: tfm-opt %s --tfm-tile-by-config --canonicalize -split-input-file | FileCheck %s

// Flash attention is a strategy: its parallel level tiles (batch, 8 queries)
// in an scf.forall, its reduction level tiles the tiles into blocks of 16
// keys with scf.for.
// 20 queries are 2 full tiles and a remainder of 4, split off first so that
// every tile is static; likewise 20 keys are one full block (a loop of one
// iteration, which the canonicalizer removes) and a remainder of 4. Each tile
// is a tfm.online_attention that knows its position.

// CHECK-LABEL: func.func @flash
//       CHECK:   scf.forall (%[[B:.*]], %[[Q0:.*]]) = (0, 0) to (2, 16) step (1, 8)
//       CHECK:     tfm.online_attention {{.*}} offsets(%[[Q0]], %c0) {causal} outs({{.*}}) : tensor<1x8x16xf32>, tensor<1x16x16xf32>, tensor<1x16x16xf32>
//       CHECK:     tfm.online_attention {{.*}} offsets(%[[Q0]], %c16) {causal} outs({{.*}}) : tensor<1x8x16xf32>, tensor<1x16x4xf32>, tensor<1x4x16xf32>
//       CHECK:   scf.forall (%{{.*}}) in (2)
//       CHECK:     tfm.online_attention {{.*}} offsets(%c16, %c0) {causal} outs({{.*}}) : tensor<1x4x16xf32>, tensor<1x16x16xf32>, tensor<1x16x16xf32>
//       CHECK:     tfm.online_attention {{.*}} offsets(%c16, %c16) {causal} outs({{.*}}) : tensor<1x4x16xf32>, tensor<1x16x4xf32>, tensor<1x4x16xf32>
//   CHECK-NOT:   lowering_config
func.func @flash(%q: tensor<2x20x16xf32>, %kt: tensor<2x16x20xf32>, %v: tensor<2x20x16xf32>, %acc: tensor<2x20x16xf32>, %max: tensor<2x20xf32>, %sum: tensor<2x20xf32>) -> tensor<2x20x16xf32> {
  %r:3 = tfm.online_attention %q, %kt, %v
      {causal, lowering_config = #tfm.lowering_config<parallel = [1, 8, 0], reduction = [0, 0, 16]>}
      outs(%acc, %max, %sum : tensor<2x20x16xf32>, tensor<2x20xf32>, tensor<2x20xf32>)
      : tensor<2x20x16xf32>, tensor<2x16x20xf32>, tensor<2x20x16xf32> -> tensor<2x20x16xf32>, tensor<2x20xf32>, tensor<2x20xf32>
  return %r#0 : tensor<2x20x16xf32>
}

// -----

// The masks follow the tile: per-query lengths by (batch, query), a mask
// shared by every batch at batch 0.

// CHECK-LABEL: func.func @masks
//       CHECK:   scf.forall (%[[B:.*]], %[[Q0:.*]]) = (0, 0) to (2, 8) step (1, 4)
//       CHECK:     tensor.extract_slice %{{.*}}[%[[B]], %[[Q0]]] [1, 4] [1, 1] : tensor<2x8xi32> to tensor<1x4xi32>
//       CHECK:     tensor.extract_slice %{{.*}}[0, %[[Q0]], 0] [1, 4, 8] [1, 1, 1] : tensor<1x8x8xf32> to tensor<1x4x8xf32>
//       CHECK:     tfm.online_attention {{.*}} valid_lens(%{{.*}} : tensor<1x4xi32>) mask(%{{.*}} : tensor<1x4x8xf32>) offsets(%[[Q0]], %c0)
func.func @masks(%q: tensor<2x8x16xf32>, %kt: tensor<2x16x8xf32>, %v: tensor<2x8x16xf32>, %lens: tensor<2x8xi32>, %mask: tensor<1x8x8xf32>, %acc: tensor<2x8x16xf32>, %max: tensor<2x8xf32>, %sum: tensor<2x8xf32>) -> tensor<2x8x16xf32> {
  %r:3 = tfm.online_attention %q, %kt, %v valid_lens(%lens : tensor<2x8xi32>) mask(%mask : tensor<1x8x8xf32>)
      {lowering_config = #tfm.lowering_config<parallel = [1, 4, 0]>}
      outs(%acc, %max, %sum : tensor<2x8x16xf32>, tensor<2x8xf32>, tensor<2x8xf32>)
      : tensor<2x8x16xf32>, tensor<2x16x8xf32>, tensor<2x8x16xf32> -> tensor<2x8x16xf32>, tensor<2x8xf32>, tensor<2x8xf32>
  return %r#0 : tensor<2x8x16xf32>
}

// -----

// Without a lowering_config nothing is tiled.

// CHECK-LABEL: func.func @no_config
//   CHECK-NOT:   scf.for
//       CHECK:   tfm.online_attention
//   CHECK-NOT:   offsets
func.func @no_config(%q: tensor<2x8x16xf32>, %kt: tensor<2x16x8xf32>, %v: tensor<2x8x16xf32>, %acc: tensor<2x8x16xf32>, %max: tensor<2x8xf32>, %sum: tensor<2x8xf32>) -> tensor<2x8x16xf32> {
  %r:3 = tfm.online_attention %q, %kt, %v
      outs(%acc, %max, %sum : tensor<2x8x16xf32>, tensor<2x8xf32>, tensor<2x8xf32>)
      : tensor<2x8x16xf32>, tensor<2x16x8xf32>, tensor<2x8x16xf32> -> tensor<2x8x16xf32>, tensor<2x8xf32>, tensor<2x8xf32>
  return %r#0 : tensor<2x8x16xf32>
}

// -----

// Any TilingInterface op takes a config: a linalg.matmul with an
// interchanged level. A config without a parallel level makes no forall.

// CHECK-LABEL: func.func @matmul
//   CHECK-NOT:   scf.forall
//       CHECK:   scf.for %{{.*}} = %c0 to %c32 step %c16
//       CHECK:     scf.for %{{.*}} = %c0 to %c8 step %c4
//       CHECK:       linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x12xf32>, tensor<12x16xf32>) outs(%{{.*}} : tensor<4x16xf32>)
func.func @matmul(%a: tensor<8x12xf32>, %b: tensor<12x32xf32>, %c: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %0 = linalg.matmul {lowering_config = #tfm.lowering_config<vector = [4, 16, 0] interchange [1, 0, 2]>}
      ins(%a, %b : tensor<8x12xf32>, tensor<12x32xf32>) outs(%c : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}

// -----

// A producer marked tfm.fuse_into_consumer is computed inside its reader's
// parallel tiles: the row sums of 2 rows per tile, in the forall of the
// op that reads them, then tiled by their own next level (vectors of 4 along
// the reduction) next to the reader's tiles (vectors of 8). Nothing is left
// outside the forall.

// CHECK-LABEL: func.func @fused_rows
//       CHECK:   scf.forall (%[[R:.*]]) = (0) to (6) step (2)
//       CHECK:     %[[X:.*]] = tensor.extract_slice %{{.*}}[%[[R]], 0] [2, 16] [1, 1]
//       CHECK:     scf.for %{{.*}} = %c0 to %c16 step %c4 {{.*}} -> (tensor<2xf32>)
//       CHECK:       linalg.generic {{.*}} ins(%{{.*}} : tensor<2x4xf32>) outs(%{{.*}} : tensor<2xf32>)
//       CHECK:     scf.for %{{.*}} = %c0 to %c16 step %c8 {{.*}} -> (tensor<2x16xf32>)
//       CHECK:       linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<2x8xf32>, tensor<2xf32>)
//       CHECK:     scf.forall.in_parallel
//   CHECK-NOT:   linalg.generic
//   CHECK-NOT:   tfm.fuse_into_consumer
//       CHECK:   return
func.func @fused_rows(%x: tensor<6x16xf32>, %init: tensor<6xf32>) -> tensor<6x16xf32> {
  %sum = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                         iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<6x16xf32>) outs(%init : tensor<6xf32>)
      attrs = {lowering_config = #tfm.lowering_config<parallel = [1, 0], reduction = [0, 4]>, tfm.fuse_into_consumer} {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<6xf32>
  %e = tensor.empty() : tensor<6x16xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x, %sum : tensor<6x16xf32>, tensor<6xf32>) outs(%e : tensor<6x16xf32>)
      attrs = {lowering_config = #tfm.lowering_config<parallel = [2, 0], reduction = [0, 8]>} {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %r = arith.subf %a, %s : f32
    linalg.yield %r : f32
  } -> tensor<6x16xf32>
  return %y : tensor<6x16xf32>
}

// -----

// A reader whose parallel tiles do not divide its rows (2 of 5) is split
// first, into the 4 rows whole tiles cover and the last one, and each part
// takes the rows of its marked producer that it reads: each tile computes
// its rows' sums and then the reader's rows (the last row's one-iteration
// forall folds away), no sum over all rows before them.

// CHECK-LABEL: func.func @split_rows
//   CHECK-NOT:   linalg.generic
//       CHECK:   scf.forall (%{{.*}}) = (0) to (4) step (2)
//       CHECK:     %[[SUM:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<2xf32>)
//       CHECK:     linalg.generic {{.*}} ins(%{{.*}}, %[[SUM]] : tensor<2x16xf32>, tensor<2xf32>)
//       CHECK:   %[[MAIN:.*]] = tensor.insert_slice %{{.*}}[0, 0] [4, 16]
//       CHECK:   %[[LAST:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<1xf32>)
//       CHECK:   linalg.generic {{.*}} ins(%{{.*}}, %[[LAST]] : tensor<1x16xf32>, tensor<1xf32>)
//       CHECK:   tensor.insert_slice %{{.*}} into %[[MAIN]][4, 0] [1, 16]
//   CHECK-NOT:   tfm.fuse_into_consumer
func.func @split_rows(%x: tensor<5x16xf32>, %init: tensor<5xf32>) -> tensor<5x16xf32> {
  %sum = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                         iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<5x16xf32>) outs(%init : tensor<5xf32>)
      attrs = {lowering_config = #tfm.lowering_config<parallel = [1, 0]>, tfm.fuse_into_consumer} {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<5xf32>
  %e = tensor.empty() : tensor<5x16xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x, %sum : tensor<5x16xf32>, tensor<5xf32>) outs(%e : tensor<5x16xf32>)
      attrs = {lowering_config = #tfm.lowering_config<parallel = [2, 0]>} {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %r = arith.subf %a, %s : f32
    linalg.yield %r : f32
  } -> tensor<5x16xf32>
  return %y : tensor<5x16xf32>
}

// -----

// A flash attention's state fused into its query tiles: the fills that start
// it (tfm.fuse_into_consumer) and the normalization that reads it
// (tfm.fuse_into_producer) run in the tile's forall, on tensors of the
// tile's size. The forall's one output is the normalized result: the state
// never exists at full size.

// CHECK-LABEL: func.func @fused_state
//   CHECK-NOT:   linalg.fill
//       CHECK:   scf.forall (%[[B:.*]], %[[Q0:.*]]) = (0, 0) to (2, 16) step (1, 8) shared_outs(%[[OUT:.*]] = %{{.*}}) -> (tensor<2x16x16xf32>)
//   CHECK-DAG:     %[[ACC:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x8x16xf32>)
//   CHECK-DAG:     %[[MAX:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x8xf32>)
//   CHECK-DAG:     %[[SUM:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x8xf32>)
//       CHECK:     %[[STATE:.*]]:3 = scf.for {{.*}} iter_args(%{{.*}} = %[[ACC]], %{{.*}} = %[[MAX]], %{{.*}} = %[[SUM]])
//       CHECK:       tfm.online_attention
//       CHECK:     %[[SLICE:.*]] = tensor.extract_slice %[[OUT]][%[[B]], %[[Q0]], 0] [1, 8, 16]
//       CHECK:     %[[NORM:.*]] = linalg.generic {{.*}} ins(%[[STATE]]#0, %[[STATE]]#2 : tensor<1x8x16xf32>, tensor<1x8xf32>) outs(%[[SLICE]] : tensor<1x8x16xf32>)
//       CHECK:       arith.divf
//       CHECK:     scf.forall.in_parallel
//  CHECK-NEXT:       tensor.parallel_insert_slice %[[NORM]] into %[[OUT]][%[[B]], %[[Q0]], 0] [1, 8, 16]
//  CHECK-NEXT:     }
//  CHECK-NEXT:   }
//  CHECK-NEXT:   return
//   CHECK-NOT:   tfm.fuse_into
#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#rows = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @fused_state(%q: tensor<2x16x16xf32>, %kt: tensor<2x16x32xf32>, %v: tensor<2x32x16xf32>) -> tensor<2x16x16xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e0 = tensor.empty() : tensor<2x16x16xf32>
  %acc = linalg.fill {tfm.fuse_into_consumer} ins(%zero : f32) outs(%e0 : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %e1 = tensor.empty() : tensor<2x16xf32>
  %max = linalg.fill {tfm.fuse_into_consumer} ins(%ninf : f32) outs(%e1 : tensor<2x16xf32>) -> tensor<2x16xf32>
  %sum = linalg.fill {tfm.fuse_into_consumer} ins(%zero : f32) outs(%e1 : tensor<2x16xf32>) -> tensor<2x16xf32>
  %r:3 = tfm.online_attention %q, %kt, %v
      {lowering_config = #tfm.lowering_config<parallel = [1, 8, 0], reduction = [0, 0, 16]>}
      outs(%acc, %max, %sum : tensor<2x16x16xf32>, tensor<2x16xf32>, tensor<2x16xf32>)
      : tensor<2x16x16xf32>, tensor<2x16x32xf32>, tensor<2x32x16xf32> -> tensor<2x16x16xf32>, tensor<2x16xf32>, tensor<2x16xf32>
  %e2 = tensor.empty() : tensor<2x16x16xf32>
  %out = linalg.generic {indexing_maps = [#map, #rows, #map], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%r#0, %r#2 : tensor<2x16x16xf32>, tensor<2x16xf32>) outs(%e2 : tensor<2x16x16xf32>) attrs = {tfm.fuse_into_producer} {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %d = arith.divf %a, %s : f32
    linalg.yield %d : f32
  } -> tensor<2x16x16xf32>
  return %out : tensor<2x16x16xf32>
}

// -----

// 20 queries in tiles of 8 are split (two tiles, then 4 queries), which
// leaves the state and its normalization outside the tiles, unmarked.

// CHECK-LABEL: func.func @split_state
//       CHECK:   linalg.fill
//       CHECK:   scf.forall
//       CHECK:   scf.forall
//       CHECK:   linalg.generic
//       CHECK:     arith.divf
//   CHECK-NOT:   tfm.fuse_into
#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#rows = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @split_state(%q: tensor<2x20x16xf32>, %kt: tensor<2x16x32xf32>, %v: tensor<2x32x16xf32>) -> tensor<2x20x16xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e0 = tensor.empty() : tensor<2x20x16xf32>
  %acc = linalg.fill {tfm.fuse_into_consumer} ins(%zero : f32) outs(%e0 : tensor<2x20x16xf32>) -> tensor<2x20x16xf32>
  %e1 = tensor.empty() : tensor<2x20xf32>
  %max = linalg.fill {tfm.fuse_into_consumer} ins(%ninf : f32) outs(%e1 : tensor<2x20xf32>) -> tensor<2x20xf32>
  %sum = linalg.fill {tfm.fuse_into_consumer} ins(%zero : f32) outs(%e1 : tensor<2x20xf32>) -> tensor<2x20xf32>
  %r:3 = tfm.online_attention %q, %kt, %v
      {lowering_config = #tfm.lowering_config<parallel = [1, 8, 0], reduction = [0, 0, 16]>}
      outs(%acc, %max, %sum : tensor<2x20x16xf32>, tensor<2x20xf32>, tensor<2x20xf32>)
      : tensor<2x20x16xf32>, tensor<2x16x32xf32>, tensor<2x32x16xf32> -> tensor<2x20x16xf32>, tensor<2x20xf32>, tensor<2x20xf32>
  %e2 = tensor.empty() : tensor<2x20x16xf32>
  %out = linalg.generic {indexing_maps = [#map, #rows, #map], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%r#0, %r#2 : tensor<2x20x16xf32>, tensor<2x20xf32>) outs(%e2 : tensor<2x20x16xf32>) attrs = {tfm.fuse_into_producer} {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %d = arith.divf %a, %s : f32
    linalg.yield %d : f32
  } -> tensor<2x20x16xf32>
  return %out : tensor<2x20x16xf32>
}
