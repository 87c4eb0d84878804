// Unfused (--no-fusion), the 40000 x 40000 scores of this attention are a
// 6.4 GB buffer inside the model.
func.func @main(%x: tensor<1x40000x1xf32>, %y: tensor<1x1x40000xf32>) -> tensor<1x40000x1xf32> {
  %p = tfm.batch_matmul %x, %y : (tensor<1x40000x1xf32>, tensor<1x1x40000xf32>) -> tensor<1x40000x40000xf32>
  %s = tfm.masked_softmax %p : (tensor<1x40000x40000xf32>) -> tensor<1x40000x40000xf32>
  %r = tfm.batch_matmul %s, %x : (tensor<1x40000x40000xf32>, tensor<1x40000x1xf32>) -> tensor<1x40000x1xf32>
  return %r : tensor<1x40000x1xf32>
}
