// A dynamic size named `scalar` (the signature's word for rank 0) on a
// rank-1 input, next to a rank-0 input.
func.func @main(%x: tensor<?xf32> {tfm.name = "x", tfm.dims = ["scalar"]},
                %s: tensor<f32> {tfm.name = "s"})
    -> (tensor<?xf32> {tfm.name = "y"}) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %b = linalg.broadcast ins(%s : tensor<f32>) outs(%e : tensor<?xf32>) dimensions = [0]
  %y = arith.mulf %x, %b : tensor<?xf32>
  return %y : tensor<?xf32>
}
