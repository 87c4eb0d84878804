// RUN: tfm-opt %s --tfm-tile-by-config -split-input-file -verify-diagnostics

func.func @wrong_loop_count(%q: tensor<2x8x16xf32>, %kt: tensor<2x16x8xf32>, %v: tensor<2x8x16xf32>, %acc: tensor<2x8x16xf32>, %max: tensor<2x8xf32>, %sum: tensor<2x8xf32>) -> tensor<2x8x16xf32> {
  // expected-error @+1 {{'tfm.online_attention' op has 3 loops, but its lowering_config tiles 2}}
  %r:3 = tfm.online_attention %q, %kt, %v
      {lowering_config = #tfm.lowering_config<parallel = [1, 4]>}
      outs(%acc, %max, %sum : tensor<2x8x16xf32>, tensor<2x8xf32>, tensor<2x8xf32>)
      : tensor<2x8x16xf32>, tensor<2x16x8xf32>, tensor<2x8x16xf32> -> tensor<2x8x16xf32>, tensor<2x8xf32>, tensor<2x8xf32>
  return %r#0 : tensor<2x8x16xf32>
}

// -----

func.func @not_tileable(%x: f32) -> f32 {
  // expected-error @+1 {{'arith.addf' op has a lowering_config but cannot be tiled}}
  %0 = arith.addf %x, %x {lowering_config = #tfm.lowering_config<parallel = [1]>} : f32
  return %0 : f32
}
