// Layer normalization without affine part, eps 1e-6: the mean is a sum
// times 1/D kept as [3, 1] (keep-dims), the variance uses powf(d, 2), and
// d is divided by sqrt(var + eps) after the broadcast.
func.func @main(%x: tensor<3x40xf32>) -> tensor<3x40xf32> {
  %zero = arith.constant dense<0.0> : tensor<3xf32>
  %e2 = tensor.empty() : tensor<3x40xf32>
  %inv = arith.constant dense<0.025> : tensor<3x1xf32>
  %inv2 = arith.constant dense<0.025> : tensor<3x40xf32>
  %two = arith.constant dense<2.0> : tensor<3x40xf32>
  %eps = arith.constant dense<1.0e-6> : tensor<3x40xf32>
  %sum = linalg.reduce { arith.addf } ins(%x : tensor<3x40xf32>)
      outs(%zero : tensor<3xf32>) dimensions = [1]
  %sum_k = tensor.expand_shape %sum [[0, 1]] output_shape [3, 1]
      : tensor<3xf32> into tensor<3x1xf32>
  %mean_k = arith.mulf %sum_k, %inv : tensor<3x1xf32>
  %mean = tensor.collapse_shape %mean_k [[0, 1]]
      : tensor<3x1xf32> into tensor<3xf32>
  %mean_b = linalg.broadcast ins(%mean : tensor<3xf32>)
      outs(%e2 : tensor<3x40xf32>) dimensions = [1]
  %d = arith.subf %x, %mean_b : tensor<3x40xf32>
  %sq = math.powf %d, %two : tensor<3x40xf32>
  %sq_sum = linalg.reduce { arith.addf } ins(%sq : tensor<3x40xf32>)
      outs(%zero : tensor<3xf32>) dimensions = [1]
  %sq_sum_b = linalg.broadcast ins(%sq_sum : tensor<3xf32>)
      outs(%e2 : tensor<3x40xf32>) dimensions = [1]
  %var = arith.mulf %inv2, %sq_sum_b : tensor<3x40xf32>
  %var_eps = arith.addf %var, %eps : tensor<3x40xf32>
  %std = math.sqrt %var_eps : tensor<3x40xf32>
  %y = arith.divf %d, %std : tensor<3x40xf32>
  return %y : tensor<3x40xf32>
}
