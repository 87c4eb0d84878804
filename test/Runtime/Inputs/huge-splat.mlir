// A 40 GB splat returned next to a small result: written at run time
// (tfm-splat-constants-to-fill), not stored in the binary.
func.func @main(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<100000x100000xf32>) {
  %c = arith.constant dense<1.5> : tensor<100000x100000xf32>
  return %x, %c : tensor<2xf32>, tensor<100000x100000xf32>
}
