// RUN: tfm-opt %s --tfm-tile-by-config --canonicalize | FileCheck %s --check-prefix=CPU
// RUN: tfm-opt %s --tfm-tile-by-config=map-tile-loops --canonicalize | FileCheck %s --check-prefix=GPU

// One batch of 8 queries in tiles of 8: a tile loop of one iteration. For
// the CPU the canonicalizer folds it away; for the GPU it is the grid (of
// one block), mapped to GPU blocks, and stays.

// CPU-LABEL: func.func @one_tile
//   CPU-NOT:   scf.forall
//       CPU:   tfm.online_attention

// GPU-LABEL: func.func @one_tile
//       GPU:   scf.forall ({{.*}}) = (0, 0) to (1, 8) step (1, 8)
//       GPU:     tfm.online_attention
//       GPU:   } {mapping = [#gpu.block<linear_dim_0>, #gpu.block<linear_dim_1>]}
func.func @one_tile(%q: tensor<1x8x16xf32>, %kt: tensor<1x16x8xf32>, %v: tensor<1x8x16xf32>, %acc: tensor<1x8x16xf32>, %max: tensor<1x8xf32>, %sum: tensor<1x8xf32>) -> tensor<1x8x16xf32> {
  %r:3 = tfm.online_attention %q, %kt, %v
      {lowering_config = #tfm.lowering_config<parallel = [1, 8, 0], reduction = [0, 0, 8]>}
      outs(%acc, %max, %sum : tensor<1x8x16xf32>, tensor<1x8xf32>, tensor<1x8xf32>)
      : tensor<1x8x16xf32>, tensor<1x16x8xf32>, tensor<1x8x16xf32> -> tensor<1x8x16xf32>, tensor<1x8xf32>, tensor<1x8xf32>
  return %r#0 : tensor<1x8x16xf32>
}
