// GELU from its erf formula, (x · (1 + erf(x / √2))) · 0.5, on a row size
// that is not a multiple of the vector width.
func.func @main(%x: tensor<4x33xf32>) -> tensor<4x33xf32> {
  %half = arith.constant dense<0.5> : tensor<4x33xf32>
  %one = arith.constant dense<1.0> : tensor<4x33xf32>
  %sqrt2 = arith.constant dense<1.41421354> : tensor<4x33xf32>
  %0 = arith.divf %x, %sqrt2 : tensor<4x33xf32>
  %1 = math.erf %0 : tensor<4x33xf32>
  %2 = arith.addf %one, %1 : tensor<4x33xf32>
  %3 = arith.mulf %x, %2 : tensor<4x33xf32>
  %4 = arith.mulf %3, %half : tensor<4x33xf32>
  return %4 : tensor<4x33xf32>
}
