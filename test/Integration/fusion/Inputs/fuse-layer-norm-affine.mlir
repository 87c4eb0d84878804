// Layer normalization over the last dimension: mean and biased variance as
// sums divided by D, (x - mean) · rsqrt(var + 1e-5), then γ and β.
func.func @main(%x: tensor<2x5x24xf32>, %g: tensor<24xf32>,
                %b: tensor<24xf32>) -> tensor<2x5x24xf32> {
  %zero = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<2x5xf32>
  %e3 = tensor.empty() : tensor<2x5x24xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2x5xf32>) -> tensor<2x5xf32>
  %dim = arith.constant dense<24.0> : tensor<2x5xf32>
  %eps = arith.constant dense<1.0e-5> : tensor<2x5xf32>
  %sum = linalg.reduce { arith.addf } ins(%x : tensor<2x5x24xf32>)
      outs(%init : tensor<2x5xf32>) dimensions = [2]
  %mean = arith.divf %sum, %dim : tensor<2x5xf32>
  %mean_b = linalg.broadcast ins(%mean : tensor<2x5xf32>)
      outs(%e3 : tensor<2x5x24xf32>) dimensions = [2]
  %d = arith.subf %x, %mean_b : tensor<2x5x24xf32>
  %sq = arith.mulf %d, %d : tensor<2x5x24xf32>
  %sq_sum = linalg.reduce { arith.addf } ins(%sq : tensor<2x5x24xf32>)
      outs(%init : tensor<2x5xf32>) dimensions = [2]
  %var = arith.divf %sq_sum, %dim : tensor<2x5xf32>
  %var_eps = arith.addf %var, %eps : tensor<2x5xf32>
  %rstd = math.rsqrt %var_eps : tensor<2x5xf32>
  %rstd_b = linalg.broadcast ins(%rstd : tensor<2x5xf32>)
      outs(%e3 : tensor<2x5x24xf32>) dimensions = [2]
  %n = arith.mulf %d, %rstd_b : tensor<2x5x24xf32>
  %g_b = linalg.broadcast ins(%g : tensor<24xf32>)
      outs(%e3 : tensor<2x5x24xf32>) dimensions = [0, 1]
  %scaled = arith.mulf %n, %g_b : tensor<2x5x24xf32>
  %b_b = linalg.broadcast ins(%b : tensor<24xf32>)
      outs(%e3 : tensor<2x5x24xf32>) dimensions = [0, 1]
  %y = arith.addf %scaled, %b_b : tensor<2x5x24xf32>
  return %y : tensor<2x5x24xf32>
}
