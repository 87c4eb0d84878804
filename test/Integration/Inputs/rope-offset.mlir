// A rotary embedding whose offset is the length of a run-time tensor (a
// cache's), with tables of 6 positions.
func.func @main(%x: tensor<1x2x3x8xf32>, %cos: tensor<6x4xf32>,
                %sin: tensor<6x4xf32>, %past: tensor<?xf32>)
    -> tensor<1x2x3x8xf32> {
  %c0 = arith.constant 0 : index
  %offset = tensor.dim %past, %c0 : tensor<?xf32>
  %y = tfm.rotary_embedding %x, %cos, %sin offset(%offset)
      : (tensor<1x2x3x8xf32>, tensor<6x4xf32>, tensor<6x4xf32>, index)
      -> tensor<1x2x3x8xf32>
  return %y : tensor<1x2x3x8xf32>
}
