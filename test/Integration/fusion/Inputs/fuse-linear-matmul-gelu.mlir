// x · Wᵀ as linalg.matmul with the transposing indexing map, plus a bias,
// then GELU from its erf formula: tfm-fuse-gelu makes the tfm.gelu that
// tfm-fuse-linear then folds, with the bias, into one tfm.linear.
func.func @main(%x: tensor<6x9xf32>, %w: tensor<13x9xf32>,
                %b: tensor<13xf32>) -> tensor<6x13xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<6x13xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<6x13xf32>) -> tensor<6x13xf32>
  %half = arith.constant dense<0.5> : tensor<6x13xf32>
  %one = arith.constant dense<1.0> : tensor<6x13xf32>
  %c = arith.constant dense<0.707106769> : tensor<6x13xf32>
  %0 = linalg.matmul
      indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                       affine_map<(m, n, k) -> (n, k)>,
                       affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<6x9xf32>, tensor<13x9xf32>)
      outs(%init : tensor<6x13xf32>) -> tensor<6x13xf32>
  %bb = linalg.broadcast ins(%b : tensor<13xf32>)
      outs(%e : tensor<6x13xf32>) dimensions = [0]
  %y = arith.addf %0, %bb : tensor<6x13xf32>
  %1 = arith.mulf %half, %y : tensor<6x13xf32>
  %2 = arith.mulf %y, %c : tensor<6x13xf32>
  %3 = math.erf %2 : tensor<6x13xf32>
  %4 = arith.addf %one, %3 : tensor<6x13xf32>
  %5 = arith.mulf %1, %4 : tensor<6x13xf32>
  return %5 : tensor<6x13xf32>
}
