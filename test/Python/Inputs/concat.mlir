// An output whose size is the sum of two inputs' (`sum n_plus_m n m` in the
// signature).
func.func @main(%x: tensor<?x4xf32> {tfm.name = "x", tfm.dims = ["n", ""]},
                %z: tensor<?x4xf32> {tfm.name = "z", tfm.dims = ["m", ""]})
    -> (tensor<?x4xf32> {tfm.name = "y"}) {
  %r = tensor.concat dim(0) %x, %z : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}
