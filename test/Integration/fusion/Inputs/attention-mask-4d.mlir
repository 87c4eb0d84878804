// d2l's layout [batch * heads, S, D] for Q, K, V, with Q scaled before the
// product and a [batch, keys] padding mask added in PyTorch's layout
// [batch, heads, S, S]: the fused attention is built in 4D.
func.func @main(%q: tensor<4x5x8xf32>, %k: tensor<4x6x8xf32>,
                %v: tensor<4x6x3xf32>, %m: tensor<2x6xf32>)
    -> tensor<4x5x3xf32> {
  %c = arith.constant dense<0.35355339> : tensor<4x5x8xf32>
  %qs = arith.mulf %q, %c : tensor<4x5x8xf32>
  %s = tfm.batch_matmul %qs, %k {transpose_rhs}
      : (tensor<4x5x8xf32>, tensor<4x6x8xf32>) -> tensor<4x5x6xf32>
  %s4 = tensor.expand_shape %s [[0, 1], [2], [3]] output_shape [2, 2, 5, 6]
      : tensor<4x5x6xf32> into tensor<2x2x5x6xf32>
  %e = tensor.empty() : tensor<2x2x5x6xf32>
  %mb = linalg.broadcast ins(%m : tensor<2x6xf32>)
      outs(%e : tensor<2x2x5x6xf32>) dimensions = [1, 2]
  %masked = arith.addf %s4, %mb : tensor<2x2x5x6xf32>
  %s3 = tensor.collapse_shape %masked [[0, 1], [2], [3]]
      : tensor<2x2x5x6xf32> into tensor<4x5x6xf32>
  %w = tfm.masked_softmax %s3 : (tensor<4x5x6xf32>) -> tensor<4x5x6xf32>
  %o = tfm.batch_matmul %w, %v
      : (tensor<4x5x6xf32>, tensor<4x6x3xf32>) -> tensor<4x5x3xf32>
  return %o : tensor<4x5x3xf32>
}
