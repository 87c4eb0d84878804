func.func @main(%x: tensor<4xf32> {tfm.name = "x"}) -> (tensor<4xf32> {tfm.name = "y"}) {
  %y = arith.addf %x, %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
