// d2l's TransformerEncoderBlock written out op by op, as the seed's PyTorch
// code computes it, for the graph optimizer to fuse. The same model, shapes
// and weights as examples/encoder_block.mlir:
//
//   queries = transpose_qkv(W_q(X))             tfm.linear + tfm.split_heads
//   keys, values likewise
//   valid_lens = repeat_interleave(valid_lens, num_heads, dim=0)
//   scores = bmm(queries, keys.transpose(1, 2)) / sqrt(d)
//   weights = masked_softmax(scores, valid_lens)
//   output = bmm(dropout(weights), values)
//   attn = W_o(transpose_output(output))
//   Y = ln1(dropout(attn) + X)
//   Z = ln2(dropout(dense2(relu(dense1(Y)))) + Y)
//
// tfm-compile's graph optimizer turns the attention into tfm.attention, the
// projections around it into tfm.multi_head_attention, and the ReLU into
// its linear: compare `tfm-compile THIS --emit=mlir --stage=graph` with
// `--no-fusion` (docs/fusion.md).

func.func @main(
    %X: tensor<2x10x32xf32>,
    %valid_lens: tensor<2xi64>,
    %w_q: tensor<32x32xf32> {tfm.weight = "attention.W_q.weight"},
    %w_k: tensor<32x32xf32> {tfm.weight = "attention.W_k.weight"},
    %w_v: tensor<32x32xf32> {tfm.weight = "attention.W_v.weight"},
    %w_o: tensor<32x32xf32> {tfm.weight = "attention.W_o.weight"},
    %ln1_g: tensor<32xf32> {tfm.weight = "addnorm1.ln.weight"},
    %ln1_b: tensor<32xf32> {tfm.weight = "addnorm1.ln.bias"},
    %ffn_w1: tensor<64x32xf32> {tfm.weight = "ffn.dense1.weight"},
    %ffn_b1: tensor<64xf32> {tfm.weight = "ffn.dense1.bias"},
    %ffn_w2: tensor<32x64xf32> {tfm.weight = "ffn.dense2.weight"},
    %ffn_b2: tensor<32xf32> {tfm.weight = "ffn.dense2.bias"},
    %ln2_g: tensor<32xf32> {tfm.weight = "addnorm2.ln.weight"},
    %ln2_b: tensor<32xf32> {tfm.weight = "addnorm2.ln.bias"})
    -> tensor<2x10x32xf32> {
  // MultiHeadAttention.forward: project, then split into 4 heads of 8.
  %q = tfm.linear %X, %w_q
      : (tensor<2x10x32xf32>, tensor<32x32xf32>) -> tensor<2x10x32xf32>
  %k = tfm.linear %X, %w_k
      : (tensor<2x10x32xf32>, tensor<32x32xf32>) -> tensor<2x10x32xf32>
  %v = tfm.linear %X, %w_v
      : (tensor<2x10x32xf32>, tensor<32x32xf32>) -> tensor<2x10x32xf32>
  %queries = tfm.split_heads %q {num_heads = 4 : i64}
      : (tensor<2x10x32xf32>) -> tensor<8x10x8xf32>
  %keys = tfm.split_heads %k {num_heads = 4 : i64}
      : (tensor<2x10x32xf32>) -> tensor<8x10x8xf32>
  %values = tfm.split_heads %v {num_heads = 4 : i64}
      : (tensor<2x10x32xf32>) -> tensor<8x10x8xf32>

  // torch.repeat_interleave(valid_lens, repeats=4, dim=0)
  %lens_init = tensor.empty() : tensor<2x4xi64>
  %lens_wide = linalg.broadcast ins(%valid_lens : tensor<2xi64>)
      outs(%lens_init : tensor<2x4xi64>) dimensions = [1]
  %lens = tensor.collapse_shape %lens_wide [[0, 1]]
      : tensor<2x4xi64> into tensor<8xi64>

  // DotProductAttention.forward
  %scores = tfm.batch_matmul %queries, %keys {transpose_rhs}
      : (tensor<8x10x8xf32>, tensor<8x10x8xf32>) -> tensor<8x10x10xf32>
  %sqrt_d = arith.constant dense<2.82842712> : tensor<8x10x10xf32>
  %scaled = arith.divf %scores, %sqrt_d : tensor<8x10x10xf32>
  %weights = tfm.masked_softmax %scaled valid_lens(%lens)
      : (tensor<8x10x10xf32>, tensor<8xi64>) -> tensor<8x10x10xf32>
  %dropped = tfm.dropout %weights {rate = 5.0e-01 : f64} : tensor<8x10x10xf32>
  %output = tfm.batch_matmul %dropped, %values
      : (tensor<8x10x10xf32>, tensor<8x10x8xf32>) -> tensor<8x10x8xf32>

  // transpose_output, then W_o.
  %concat = tfm.merge_heads %output {num_heads = 4 : i64}
      : (tensor<8x10x8xf32>) -> tensor<2x10x32xf32>
  %attn = tfm.linear %concat, %w_o
      : (tensor<2x10x32xf32>, tensor<32x32xf32>) -> tensor<2x10x32xf32>

  // AddNorm: ln(dropout(Y) + X).
  %attn_d = tfm.dropout %attn {rate = 5.0e-01 : f64} : tensor<2x10x32xf32>
  %sum1 = arith.addf %attn_d, %X : tensor<2x10x32xf32>
  %Y = tfm.layer_norm %sum1, %ln1_g, %ln1_b
      : (tensor<2x10x32xf32>, tensor<32xf32>, tensor<32xf32>)
      -> tensor<2x10x32xf32>

  // PositionWiseFFN: dense2(relu(dense1(Y))).
  %h = tfm.linear %Y, %ffn_w1, %ffn_b1
      : (tensor<2x10x32xf32>, tensor<64x32xf32>, tensor<64xf32>)
      -> tensor<2x10x64xf32>
  %zero = arith.constant dense<0.0> : tensor<2x10x64xf32>
  %relu = arith.maximumf %h, %zero : tensor<2x10x64xf32>
  %ffn = tfm.linear %relu, %ffn_w2, %ffn_b2
      : (tensor<2x10x64xf32>, tensor<32x64xf32>, tensor<32xf32>)
      -> tensor<2x10x32xf32>
  %ffn_d = tfm.dropout %ffn {rate = 5.0e-01 : f64} : tensor<2x10x32xf32>
  %sum2 = arith.addf %ffn_d, %Y : tensor<2x10x32xf32>
  %Z = tfm.layer_norm %sum2, %ln2_g, %ln2_b
      : (tensor<2x10x32xf32>, tensor<32xf32>, tensor<32xf32>)
      -> tensor<2x10x32xf32>
  return %Z : tensor<2x10x32xf32>
}
