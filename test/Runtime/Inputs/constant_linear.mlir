func.func @main(%input: tensor<2x4xf32> {tfm.name = "input"})
    -> (tensor<2x3xf32> {tfm.name = "result"}) {
  %weight = arith.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0]]> : tensor<3x4xf32>
  %result = tfm.linear %input, %weight
      : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
  return %result : tensor<2x3xf32>
}
