// RUN: tfm-opt %s --tfm-tile-by-config --canonicalize -split-input-file | FileCheck %s

// Flash attention is a strategy: level 0 tiles (batch, 8 queries) in an
// scf.forall, level 1 tiles the tiles into blocks of 16 keys with scf.for.
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
      {causal, lowering_config = #tfm.lowering_config<tile_sizes = [[1, 8, 0], [0, 0, 16]]>}
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
      {lowering_config = #tfm.lowering_config<tile_sizes = [[1, 4, 0]]>}
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
// interchanged level.

// CHECK-LABEL: func.func @matmul
//       CHECK:   scf.for %{{.*}} = %c0 to %c32 step %c16
//       CHECK:     scf.for %{{.*}} = %c0 to %c8 step %c4
//       CHECK:       linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x12xf32>, tensor<12x16xf32>) outs(%{{.*}} : tensor<4x16xf32>)
func.func @matmul(%a: tensor<8x12xf32>, %b: tensor<12x32xf32>, %c: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %0 = linalg.matmul {lowering_config = #tfm.lowering_config<tile_sizes = [[0, 0, 0], [4, 16, 0]], interchange = [[0, 1, 2], [1, 0, 2]]>}
      ins(%a, %b : tensor<8x12xf32>, tensor<12x32xf32>) outs(%c : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}
