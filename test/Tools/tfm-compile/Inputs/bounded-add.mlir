func.func @main(%x: tensor<?x?x4xf32> {tfm.name = "x", tfm.dims = ["batch", "seq", ""]})
    -> (tensor<?x?x4xf32> {tfm.name = "y"}) {
  %y = arith.addf %x, %x : tensor<?x?x4xf32>
  return %y : tensor<?x?x4xf32>
}
