// A mask from a comparison, broadcast over the last dimension, selects
// elements of x (test/Integration/i1-masks.test).
func.func @main(%ids: tensor<2x8xi32>, %x: tensor<2x8x4xf32>) -> tensor<2x8x4xf32> {
  %c40 = arith.constant dense<40> : tensor<2x8xi32>
  %c = arith.cmpi slt, %ids, %c40 : tensor<2x8xi32>
  %e = tensor.empty() : tensor<2x8x4xi1>
  %b = linalg.broadcast ins(%c : tensor<2x8xi1>) outs(%e : tensor<2x8x4xi1>) dimensions = [2]
  %zero = arith.constant dense<0.0> : tensor<2x8x4xf32>
  %y = arith.select %b, %x, %zero : tensor<2x8x4xi1>, tensor<2x8x4xf32>
  return %y : tensor<2x8x4xf32>
}
