// y = tanh(x · wᵀ) with the weight w bound from a safetensors file.
func.func @main(%x: tensor<3x20xf32> {tfm.name = "x"},
                %w: tensor<5x20xf32> {tfm.weight = "proj.weight"})
    -> (tensor<3x5xf32> {tfm.name = "y"}) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x5xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<3x5xf32>) -> tensor<3x5xf32>
  %m = linalg.matmul
      indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                       affine_map<(m, n, k) -> (n, k)>,
                       affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<3x20xf32>, tensor<5x20xf32>)
      outs(%f : tensor<3x5xf32>) -> tensor<3x5xf32>
  %t = math.tanh %m : tensor<3x5xf32>
  return %t : tensor<3x5xf32>
}
