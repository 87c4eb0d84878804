// RUN: tfm-opt %s --tfm-cpu-select-strategy -split-input-file | FileCheck %s
// RUN: tfm-opt %s --tfm-cpu-select-strategy="q-tile=16 kv-tile=8" -split-input-file | FileCheck %s --check-prefix=OPTIONS

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

// A strategy set by hand is kept. Dynamic sizes get the default tiles, the
// last of them partial (static ones are clamped: 8 queries, 8 keys).

// CHECK-LABEL: func.func @kept
//       CHECK:   lowering_config = #tfm.lowering_config<parallel = [1, 2, 0]>
// CHECK-LABEL: func.func @dynamic
//       CHECK:   lowering_config = #tfm.lowering_config<parallel = [1, 8, 0], reduction = [0, 0, 8]>
// CHECK-LABEL: func.func @dynamic_sequences
//       CHECK:   lowering_config = #tfm.lowering_config<parallel = [1, 32, 0], reduction = [0, 0, 64]>
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
func.func @dynamic_sequences(%q: tensor<?x?x16xf32>, %kt: tensor<?x16x?xf32>, %v: tensor<?x?x16xf32>, %acc: tensor<?x?x16xf32>, %max: tensor<?x?xf32>, %sum: tensor<?x?xf32>) -> tensor<?x?x16xf32> {
  %r:3 = tfm.online_attention %q, %kt, %v
      outs(%acc, %max, %sum : tensor<?x?x16xf32>, tensor<?x?xf32>, tensor<?x?xf32>)
      : tensor<?x?x16xf32>, tensor<?x16x?xf32>, tensor<?x?x16xf32> -> tensor<?x?x16xf32>, tensor<?x?xf32>, tensor<?x?xf32>
  return %r#0 : tensor<?x?x16xf32>
}

// -----

// The fills that start the state and the normalization that reads it are
// marked for fusion into the query tiles; a fill with another reader is not.

// CHECK-LABEL: func.func @state
//       CHECK:   %[[ACC:.*]] = linalg.fill {tfm.fuse_into_consumer}
//       CHECK:   %[[MAX:.*]] = linalg.fill {tfm.fuse_into_consumer}
//       CHECK:   %[[SUM:.*]] = linalg.fill ins
//       CHECK:   tfm.online_attention {{.*}}lowering_config
//       CHECK:   linalg.generic
//  CHECK-SAME:     tfm.fuse_into_producer
// CHECK-LABEL: func.func @state_read_twice
//   CHECK-NOT:   tfm.fuse_into_producer
#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#rows = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @state(%q: tensor<2x64x16xf32>, %kt: tensor<2x16x64xf32>, %v: tensor<2x64x16xf32>) -> (tensor<2x64x16xf32>, tensor<2x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e0 = tensor.empty() : tensor<2x64x16xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e0 : tensor<2x64x16xf32>) -> tensor<2x64x16xf32>
  %e1 = tensor.empty() : tensor<2x64xf32>
  %max = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<2x64xf32>) -> tensor<2x64xf32>
  %sum = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x64xf32>) -> tensor<2x64xf32>
  %r:3 = tfm.online_attention %q, %kt, %v
      outs(%acc, %max, %sum : tensor<2x64x16xf32>, tensor<2x64xf32>, tensor<2x64xf32>)
      : tensor<2x64x16xf32>, tensor<2x16x64xf32>, tensor<2x64x16xf32> -> tensor<2x64x16xf32>, tensor<2x64xf32>, tensor<2x64xf32>
  %out = linalg.generic {indexing_maps = [#map, #rows, #map], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%r#0, %r#2 : tensor<2x64x16xf32>, tensor<2x64xf32>) outs(%e0 : tensor<2x64x16xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %d = arith.divf %a, %s : f32
    linalg.yield %d : f32
  } -> tensor<2x64x16xf32>
  return %out, %sum : tensor<2x64x16xf32>, tensor<2x64xf32>
}

// The sums are also returned: the normalization is not their only reader.
func.func @state_read_twice(%q: tensor<2x64x16xf32>, %kt: tensor<2x16x64xf32>, %v: tensor<2x64x16xf32>, %acc: tensor<2x64x16xf32>, %max: tensor<2x64xf32>, %sum: tensor<2x64xf32>) -> (tensor<2x64x16xf32>, tensor<2x64xf32>) {
  %r:3 = tfm.online_attention %q, %kt, %v
      outs(%acc, %max, %sum : tensor<2x64x16xf32>, tensor<2x64xf32>, tensor<2x64xf32>)
      : tensor<2x64x16xf32>, tensor<2x16x64xf32>, tensor<2x64x16xf32> -> tensor<2x64x16xf32>, tensor<2x64xf32>, tensor<2x64xf32>
  %e0 = tensor.empty() : tensor<2x64x16xf32>
  %out = linalg.generic {indexing_maps = [#map, #rows, #map], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%r#0, %r#2 : tensor<2x64x16xf32>, tensor<2x64xf32>) outs(%e0 : tensor<2x64x16xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %d = arith.divf %a, %s : f32
    linalg.yield %d : f32
  } -> tensor<2x64x16xf32>
  return %out, %r#2 : tensor<2x64x16xf32>, tensor<2x64xf32>
}
