// A model that exchanges float64: y = x * x + b, b a constant whose value
// float32 cannot hold (1 + 2^-40).
func.func @main(%x: tensor<3xf64>) -> tensor<3xf64> {
  %b = arith.constant dense<1.0000000000009095> : tensor<3xf64>
  %sq = arith.mulf %x, %x : tensor<3xf64>
  %y = arith.addf %sq, %b : tensor<3xf64>
  return %y : tensor<3xf64>
}
