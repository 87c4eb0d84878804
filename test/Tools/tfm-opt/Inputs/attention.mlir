func.func @attention(%q: tensor<2x4x8xf32>, %k: tensor<2x6x8xf32>,
                     %v: tensor<2x6x8xf32>) -> tensor<2x4x8xf32> {
  %0 = tfm.attention %q, %k, %v
      : (tensor<2x4x8xf32>, tensor<2x6x8xf32>, tensor<2x6x8xf32>)
      -> tensor<2x4x8xf32>
  return %0 : tensor<2x4x8xf32>
}
