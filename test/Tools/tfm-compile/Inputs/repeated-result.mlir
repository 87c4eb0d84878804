// One value returned twice: CSE makes this of two equal computations.
func.func @main(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %y = arith.addf %x, %x : tensor<4xf32>
  return %y, %y : tensor<4xf32>, tensor<4xf32>
}
