// tfm.linear without bias, a bias broadcast along the rows, then ReLU.
func.func @main(%x: tensor<2x7x9xf32>, %w: tensor<13x9xf32>,
                %b: tensor<13xf32>) -> tensor<2x7x13xf32> {
  %zero = arith.constant dense<0.0> : tensor<2x7x13xf32>
  %e = tensor.empty() : tensor<2x7x13xf32>
  %0 = tfm.linear %x, %w : (tensor<2x7x9xf32>, tensor<13x9xf32>)
      -> tensor<2x7x13xf32>
  %bb = linalg.broadcast ins(%b : tensor<13xf32>)
      outs(%e : tensor<2x7x13xf32>) dimensions = [0, 1]
  %1 = arith.addf %0, %bb : tensor<2x7x13xf32>
  %2 = arith.maximumf %1, %zero : tensor<2x7x13xf32>
  return %2 : tensor<2x7x13xf32>
}
