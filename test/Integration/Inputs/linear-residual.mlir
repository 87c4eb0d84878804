// A pre-norm block's MLP without the norm: x + fc2(gelu(fc1(x))), with the
// weights as arguments (packed at run time: 74 rows read each).
func.func @main(%x: tensor<2x37x64xf32>, %w1: tensor<96x64xf32>,
                %b1: tensor<96xf32>, %w2: tensor<64x96xf32>,
                %b2: tensor<64xf32>) -> tensor<2x37x64xf32> {
  %h = tfm.linear %x, %w1, %b1 {activation = #tfm.activation<gelu>}
      : (tensor<2x37x64xf32>, tensor<96x64xf32>, tensor<96xf32>)
      -> tensor<2x37x96xf32>
  %y = tfm.linear %h, %w2, %b2
      : (tensor<2x37x96xf32>, tensor<64x96xf32>, tensor<64xf32>)
      -> tensor<2x37x64xf32>
  %r = arith.addf %y, %x : tensor<2x37x64xf32>
  return %r : tensor<2x37x64xf32>
}
