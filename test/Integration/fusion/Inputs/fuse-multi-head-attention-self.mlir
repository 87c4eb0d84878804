// d2l's MultiHeadAttention as a self-attention: projections without bias,
// split into 4 heads, valid_lens repeated for every head, the attention,
// the heads merged and the output projection. Fused, it is one
// tfm.multi_head_attention, which the lowering computes with one GEMM on
// the packed [W_q; W_k; W_v].
func.func @main(%x: tensor<2x6x16xf32>, %wq: tensor<16x16xf32>,
                %wk: tensor<16x16xf32>, %wv: tensor<16x16xf32>,
                %wo: tensor<16x16xf32>, %lens: tensor<2xi32>)
    -> tensor<2x6x16xf32> {
  %pq = tfm.linear %x, %wq : (tensor<2x6x16xf32>, tensor<16x16xf32>)
      -> tensor<2x6x16xf32>
  %q = tfm.split_heads %pq {num_heads = 4 : i64}
      : (tensor<2x6x16xf32>) -> tensor<8x6x4xf32>
  %pk = tfm.linear %x, %wk : (tensor<2x6x16xf32>, tensor<16x16xf32>)
      -> tensor<2x6x16xf32>
  %k = tfm.split_heads %pk {num_heads = 4 : i64}
      : (tensor<2x6x16xf32>) -> tensor<8x6x4xf32>
  %pv = tfm.linear %x, %wv : (tensor<2x6x16xf32>, tensor<16x16xf32>)
      -> tensor<2x6x16xf32>
  %v = tfm.split_heads %pv {num_heads = 4 : i64}
      : (tensor<2x6x16xf32>) -> tensor<8x6x4xf32>
  %init = tensor.empty() : tensor<2x4xi32>
  %wide = linalg.broadcast ins(%lens : tensor<2xi32>)
      outs(%init : tensor<2x4xi32>) dimensions = [1]
  %rep = tensor.collapse_shape %wide [[0, 1]]
      : tensor<2x4xi32> into tensor<8xi32>
  %a = tfm.attention %q, %k, %v valid_lens(%rep)
      : (tensor<8x6x4xf32>, tensor<8x6x4xf32>, tensor<8x6x4xf32>,
         tensor<8xi32>) -> tensor<8x6x4xf32>
  %m = tfm.merge_heads %a {num_heads = 4 : i64}
      : (tensor<8x6x4xf32>) -> tensor<2x6x16xf32>
  %y = tfm.linear %m, %wo : (tensor<2x6x16xf32>, tensor<16x16xf32>)
      -> tensor<2x6x16xf32>
  return %y : tensor<2x6x16xf32>
}
