// Bool tensors at the entry: a padding mask in (True: padding, NumPy's
// `|b1`) and the mask of the kept scores out.
func.func @main(%x: tensor<2x8xf32> {tfm.name = "x"},
                %padding: tensor<2x8xi1> {tfm.name = "padding"})
    -> (tensor<2x8xf32> {tfm.name = "y"}, tensor<2x8xi1> {tfm.name = "kept"}) {
  %zero = arith.constant dense<0.0> : tensor<2x8xf32>
  %y = arith.select %padding, %zero, %x : tensor<2x8xi1>, tensor<2x8xf32>
  %true = arith.constant dense<true> : tensor<2x8xi1>
  %kept = arith.xori %padding, %true : tensor<2x8xi1>
  return %y, %kept : tensor<2x8xf32>, tensor<2x8xi1>
}
