// d2l's DotProductAttention with tfm ops: bmm(Q, Kᵀ) / sqrt(d), masked_softmax
// with per-batch valid_lens, dropout, bmm with V.
func.func @main(%q: tensor<6x7x16xf32>, %k: tensor<6x9x16xf32>,
                %v: tensor<6x9x8xf32>, %lens: tensor<6xi32>)
    -> tensor<6x7x8xf32> {
  %s = tfm.batch_matmul %q, %k {transpose_rhs}
      : (tensor<6x7x16xf32>, tensor<6x9x16xf32>) -> tensor<6x7x9xf32>
  %sqrt_d = arith.constant dense<4.0> : tensor<6x7x9xf32>
  %scaled = arith.divf %s, %sqrt_d : tensor<6x7x9xf32>
  %w = tfm.masked_softmax %scaled valid_lens(%lens)
      : (tensor<6x7x9xf32>, tensor<6xi32>) -> tensor<6x7x9xf32>
  %d = tfm.dropout %w {rate = 1.0e-01 : f64} : tensor<6x7x9xf32>
  %o = tfm.batch_matmul %d, %v
      : (tensor<6x7x9xf32>, tensor<6x9x8xf32>) -> tensor<6x7x8xf32>
  return %o : tensor<6x7x8xf32>
}
