// attention-weights-dynamic.test: an attention with valid_lens at dynamic
// batch and sequence sizes.
func.func @main(%q: tensor<?x?x8xf32> {tfm.name = "q", tfm.dims = ["batch", "seq", ""]},
                %k: tensor<?x?x8xf32> {tfm.name = "k", tfm.dims = ["batch", "seq", ""]},
                %v: tensor<?x?x8xf32> {tfm.name = "v", tfm.dims = ["batch", "seq", ""]},
                %lens: tensor<?xi32> {tfm.name = "lens", tfm.dims = ["batch"]})
    -> (tensor<?x?x8xf32> {tfm.name = "out"}) {
  %0 = tfm.attention %q, %k, %v valid_lens(%lens) : (tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?xi32>) -> tensor<?x?x8xf32>
  return %0 : tensor<?x?x8xf32>
}
