// GELU from its tanh approximation,
// 0.5 · x · (1 + tanh(√(2/π) · (x + 0.044715 · x³))), with x³ as powf.
func.func @main(%x: tensor<2x3x40xf32>) -> tensor<2x3x40xf32> {
  %half = arith.constant dense<0.5> : tensor<2x3x40xf32>
  %one = arith.constant dense<1.0> : tensor<2x3x40xf32>
  %three = arith.constant dense<3.0> : tensor<2x3x40xf32>
  %k = arith.constant dense<0.797884583> : tensor<2x3x40xf32>
  %a = arith.constant dense<0.044715> : tensor<2x3x40xf32>
  %x3 = math.powf %x, %three : tensor<2x3x40xf32>
  %ax3 = arith.mulf %a, %x3 : tensor<2x3x40xf32>
  %inner = arith.addf %x, %ax3 : tensor<2x3x40xf32>
  %arg = arith.mulf %k, %inner : tensor<2x3x40xf32>
  %t = math.tanh %arg : tensor<2x3x40xf32>
  %onet = arith.addf %one, %t : tensor<2x3x40xf32>
  %hx = arith.mulf %half, %x : tensor<2x3x40xf32>
  %y = arith.mulf %hx, %onet : tensor<2x3x40xf32>
  return %y : tensor<2x3x40xf32>
}
