// d2l's TransformerDecoderBlock written out op by op, as the seed's PyTorch
// code computes it, for the graph optimizer to fuse. The same model, shapes
// and weights as examples/decoder_block.mlir, over the whole target sequence
// at once (teacher forcing, as in training):
//
//   dec_valid_lens = arange(1, num_steps + 1).repeat(batch_size, 1)
//   X2 = attention1(X, X, X, dec_valid_lens)       per-query valid_lens
//   Y  = addnorm1(X, X2)
//   Y2 = attention2(Y, enc_outputs, enc_outputs, enc_valid_lens)
//   Z  = addnorm2(Y, Y2)
//   result = addnorm3(Z, ffn(Z))
//
// where each MultiHeadAttention is
//
//   queries = transpose_qkv(W_q(queries))       tfm.linear + tfm.split_heads
//   keys, values likewise
//   valid_lens = repeat_interleave(valid_lens, num_heads, dim=0)
//   scores = bmm(queries, keys.transpose(1, 2)) / sqrt(d)
//   weights = masked_softmax(scores, valid_lens)
//   output = bmm(dropout(weights), values)
//   return W_o(transpose_output(output))
//
// and addnorm(X, Y) = ln(dropout(Y) + X), ffn(X) = dense2(relu(dense1(X))).
// d2l's masked self-attention is the per-query dec_valid_lens [1, ..., 10]
// (query i sees keys 0..i), a [batch, num_steps] constant here; the fused
// graph keeps it as the valid_lens of tfm.multi_head_attention, which is the
// same masking as examples/decoder_block.mlir's `causal`.
//
// tfm-compile's graph optimizer turns each attention into tfm.attention, the
// projections around it into tfm.multi_head_attention, and the ReLU into
// its linear: compare `tfm-compile THIS --emit=mlir --stage=graph` with
// `--no-fusion` (docs/fusion.md).

func.func @main(
    %X: tensor<2x10x32xf32>,
    %enc_outputs: tensor<2x12x32xf32>,
    %enc_valid_lens: tensor<2xi64>,
    %a1_w_q: tensor<32x32xf32> {tfm.weight = "attention1.W_q.weight"},
    %a1_w_k: tensor<32x32xf32> {tfm.weight = "attention1.W_k.weight"},
    %a1_w_v: tensor<32x32xf32> {tfm.weight = "attention1.W_v.weight"},
    %a1_w_o: tensor<32x32xf32> {tfm.weight = "attention1.W_o.weight"},
    %ln1_g: tensor<32xf32> {tfm.weight = "addnorm1.ln.weight"},
    %ln1_b: tensor<32xf32> {tfm.weight = "addnorm1.ln.bias"},
    %a2_w_q: tensor<32x32xf32> {tfm.weight = "attention2.W_q.weight"},
    %a2_w_k: tensor<32x32xf32> {tfm.weight = "attention2.W_k.weight"},
    %a2_w_v: tensor<32x32xf32> {tfm.weight = "attention2.W_v.weight"},
    %a2_w_o: tensor<32x32xf32> {tfm.weight = "attention2.W_o.weight"},
    %ln2_g: tensor<32xf32> {tfm.weight = "addnorm2.ln.weight"},
    %ln2_b: tensor<32xf32> {tfm.weight = "addnorm2.ln.bias"},
    %ffn_w1: tensor<64x32xf32> {tfm.weight = "ffn.dense1.weight"},
    %ffn_b1: tensor<64xf32> {tfm.weight = "ffn.dense1.bias"},
    %ffn_w2: tensor<32x64xf32> {tfm.weight = "ffn.dense2.weight"},
    %ffn_b2: tensor<32xf32> {tfm.weight = "ffn.dense2.bias"},
    %ln3_g: tensor<32xf32> {tfm.weight = "addnorm3.ln.weight"},
    %ln3_b: tensor<32xf32> {tfm.weight = "addnorm3.ln.bias"})
    -> tensor<2x10x32xf32> {
  // sqrt(d) for d = head_dim = 8, as a splat of each attention's score shape.
  %sqrt_d_self = arith.constant dense<2.82842712> : tensor<8x10x10xf32>
  %sqrt_d_cross = arith.constant dense<2.82842712> : tensor<8x10x12xf32>

  //===--------------------------------------------------------------------===//
  // attention1: masked self-attention over the target sequence.
  //===--------------------------------------------------------------------===//
  %q1 = tfm.linear %X, %a1_w_q
      : (tensor<2x10x32xf32>, tensor<32x32xf32>) -> tensor<2x10x32xf32>
  %k1 = tfm.linear %X, %a1_w_k
      : (tensor<2x10x32xf32>, tensor<32x32xf32>) -> tensor<2x10x32xf32>
  %v1 = tfm.linear %X, %a1_w_v
      : (tensor<2x10x32xf32>, tensor<32x32xf32>) -> tensor<2x10x32xf32>
  %queries1 = tfm.split_heads %q1 {num_heads = 4 : i64}
      : (tensor<2x10x32xf32>) -> tensor<8x10x8xf32>
  %keys1 = tfm.split_heads %k1 {num_heads = 4 : i64}
      : (tensor<2x10x32xf32>) -> tensor<8x10x8xf32>
  %values1 = tfm.split_heads %v1 {num_heads = 4 : i64}
      : (tensor<2x10x32xf32>) -> tensor<8x10x8xf32>

  // dec_valid_lens = torch.arange(1, 11).repeat(2, 1): query i sees keys
  // 0..i. Then repeat_interleave(dec_valid_lens, repeats=4, dim=0).
  %dec_valid_lens = arith.constant dense<[[1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
                                          [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]]>
      : tensor<2x10xi64>
  %lens1_init = tensor.empty() : tensor<2x4x10xi64>
  %lens1_wide = linalg.broadcast ins(%dec_valid_lens : tensor<2x10xi64>)
      outs(%lens1_init : tensor<2x4x10xi64>) dimensions = [1]
  %lens1 = tensor.collapse_shape %lens1_wide [[0, 1], [2]]
      : tensor<2x4x10xi64> into tensor<8x10xi64>

  // DotProductAttention.forward
  %scores1 = tfm.batch_matmul %queries1, %keys1 {transpose_rhs}
      : (tensor<8x10x8xf32>, tensor<8x10x8xf32>) -> tensor<8x10x10xf32>
  %scaled1 = arith.divf %scores1, %sqrt_d_self : tensor<8x10x10xf32>
  %weights1 = tfm.masked_softmax %scaled1 valid_lens(%lens1)
      : (tensor<8x10x10xf32>, tensor<8x10xi64>) -> tensor<8x10x10xf32>
  %dropped1 = tfm.dropout %weights1 {rate = 5.0e-01 : f64}
      : tensor<8x10x10xf32>
  %output1 = tfm.batch_matmul %dropped1, %values1
      : (tensor<8x10x10xf32>, tensor<8x10x8xf32>) -> tensor<8x10x8xf32>

  // transpose_output, then W_o.
  %concat1 = tfm.merge_heads %output1 {num_heads = 4 : i64}
      : (tensor<8x10x8xf32>) -> tensor<2x10x32xf32>
  %X2 = tfm.linear %concat1, %a1_w_o
      : (tensor<2x10x32xf32>, tensor<32x32xf32>) -> tensor<2x10x32xf32>

  // addnorm1: ln(dropout(X2) + X).
  %X2_d = tfm.dropout %X2 {rate = 5.0e-01 : f64} : tensor<2x10x32xf32>
  %sum1 = arith.addf %X2_d, %X : tensor<2x10x32xf32>
  %Y = tfm.layer_norm %sum1, %ln1_g, %ln1_b
      : (tensor<2x10x32xf32>, tensor<32xf32>, tensor<32xf32>)
      -> tensor<2x10x32xf32>

  //===--------------------------------------------------------------------===//
  // attention2: target queries, encoder keys and values, masked by the
  // encoder's valid lengths.
  //===--------------------------------------------------------------------===//
  %q2 = tfm.linear %Y, %a2_w_q
      : (tensor<2x10x32xf32>, tensor<32x32xf32>) -> tensor<2x10x32xf32>
  %k2 = tfm.linear %enc_outputs, %a2_w_k
      : (tensor<2x12x32xf32>, tensor<32x32xf32>) -> tensor<2x12x32xf32>
  %v2 = tfm.linear %enc_outputs, %a2_w_v
      : (tensor<2x12x32xf32>, tensor<32x32xf32>) -> tensor<2x12x32xf32>
  %queries2 = tfm.split_heads %q2 {num_heads = 4 : i64}
      : (tensor<2x10x32xf32>) -> tensor<8x10x8xf32>
  %keys2 = tfm.split_heads %k2 {num_heads = 4 : i64}
      : (tensor<2x12x32xf32>) -> tensor<8x12x8xf32>
  %values2 = tfm.split_heads %v2 {num_heads = 4 : i64}
      : (tensor<2x12x32xf32>) -> tensor<8x12x8xf32>

  // torch.repeat_interleave(enc_valid_lens, repeats=4, dim=0)
  %lens2_init = tensor.empty() : tensor<2x4xi64>
  %lens2_wide = linalg.broadcast ins(%enc_valid_lens : tensor<2xi64>)
      outs(%lens2_init : tensor<2x4xi64>) dimensions = [1]
  %lens2 = tensor.collapse_shape %lens2_wide [[0, 1]]
      : tensor<2x4xi64> into tensor<8xi64>

  %scores2 = tfm.batch_matmul %queries2, %keys2 {transpose_rhs}
      : (tensor<8x10x8xf32>, tensor<8x12x8xf32>) -> tensor<8x10x12xf32>
  %scaled2 = arith.divf %scores2, %sqrt_d_cross : tensor<8x10x12xf32>
  %weights2 = tfm.masked_softmax %scaled2 valid_lens(%lens2)
      : (tensor<8x10x12xf32>, tensor<8xi64>) -> tensor<8x10x12xf32>
  %dropped2 = tfm.dropout %weights2 {rate = 5.0e-01 : f64}
      : tensor<8x10x12xf32>
  %output2 = tfm.batch_matmul %dropped2, %values2
      : (tensor<8x10x12xf32>, tensor<8x12x8xf32>) -> tensor<8x10x8xf32>

  %concat2 = tfm.merge_heads %output2 {num_heads = 4 : i64}
      : (tensor<8x10x8xf32>) -> tensor<2x10x32xf32>
  %Y2 = tfm.linear %concat2, %a2_w_o
      : (tensor<2x10x32xf32>, tensor<32x32xf32>) -> tensor<2x10x32xf32>

  // addnorm2: ln(dropout(Y2) + Y).
  %Y2_d = tfm.dropout %Y2 {rate = 5.0e-01 : f64} : tensor<2x10x32xf32>
  %sum2 = arith.addf %Y2_d, %Y : tensor<2x10x32xf32>
  %Z = tfm.layer_norm %sum2, %ln2_g, %ln2_b
      : (tensor<2x10x32xf32>, tensor<32xf32>, tensor<32xf32>)
      -> tensor<2x10x32xf32>

  //===--------------------------------------------------------------------===//
  // PositionWiseFFN: dense2(relu(dense1(Z))), then addnorm3.
  //===--------------------------------------------------------------------===//
  %h = tfm.linear %Z, %ffn_w1, %ffn_b1
      : (tensor<2x10x32xf32>, tensor<64x32xf32>, tensor<64xf32>)
      -> tensor<2x10x64xf32>
  %zero = arith.constant dense<0.0> : tensor<2x10x64xf32>
  %relu = arith.maximumf %h, %zero : tensor<2x10x64xf32>
  %ffn = tfm.linear %relu, %ffn_w2, %ffn_b2
      : (tensor<2x10x64xf32>, tensor<32x64xf32>, tensor<32xf32>)
      -> tensor<2x10x32xf32>
  %ffn_d = tfm.dropout %ffn {rate = 5.0e-01 : f64} : tensor<2x10x32xf32>
  %sum3 = arith.addf %ffn_d, %Z : tensor<2x10x32xf32>
  %out = tfm.layer_norm %sum3, %ln3_g, %ln3_b
      : (tensor<2x10x32xf32>, tensor<32xf32>, tensor<32xf32>)
      -> tensor<2x10x32xf32>
  return %out : tensor<2x10x32xf32>
}
