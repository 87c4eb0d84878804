// d2l's TransformerEncoder (d2l 11.7.4) with two blocks, at inference:
//
//   X = pos_encoding(embedding(tokens) * sqrt(num_hiddens))
//   for blk in blks: X = blk(X, valid_lens)
//
// with vocab_size = 200, num_hiddens = 32, ffn_num_hiddens = 64,
// num_heads = 4, num_blks = 2 and dropout 0.5 (the identity at inference,
// carried for fidelity). Shapes:
//
//   tokens       [batch = 2, seq = 10]                  i64 token ids
//   valid_lens   [2]                                    i64
//   embedding    [vocab = 200, num_hiddens = 32]        f32
//   result       [2, 10, 32]                            f32
//
// Every parameter is a function argument, in the order of the PyTorch
// state_dict, marked {tfm.weight = "<its state_dict name>"} so that
// tfm-compile binds it from a weights file (examples/make_weights.py writes
// one): embedding.weight, then the twelve parameters of blks.block0 and of
// blks.block1, each in the order of @encoder_block's arguments (the same as
// examples/encoder_block.mlir, under the prefix blks.blockK.):
//
//   W_q, W_k, W_v, W_o       attention.W_{q,k,v,o}.weight   [32, 32]
//   ln1 gamma, beta          addnorm1.ln.{weight,bias}      [32]
//   dense1 weight, bias      ffn.dense1.{weight,bias}       [64, 32], [64]
//   dense2 weight, bias      ffn.dense2.{weight,bias}       [32, 64], [32]
//   ln2 gamma, beta          addnorm2.ln.{weight,bias}      [32]
//
// The two blocks have separate weights and share the code of the private
// function @encoder_block.

func.func @main(
    %tokens: tensor<2x10xi64>,
    %valid_lens: tensor<2xi64>,
    %embedding: tensor<200x32xf32> {tfm.weight = "embedding.weight"},
    // blks.block0
    %b0_w_q: tensor<32x32xf32> {tfm.weight = "blks.block0.attention.W_q.weight"},
    %b0_w_k: tensor<32x32xf32> {tfm.weight = "blks.block0.attention.W_k.weight"},
    %b0_w_v: tensor<32x32xf32> {tfm.weight = "blks.block0.attention.W_v.weight"},
    %b0_w_o: tensor<32x32xf32> {tfm.weight = "blks.block0.attention.W_o.weight"},
    %b0_ln1_g: tensor<32xf32> {tfm.weight = "blks.block0.addnorm1.ln.weight"},
    %b0_ln1_b: tensor<32xf32> {tfm.weight = "blks.block0.addnorm1.ln.bias"},
    %b0_ffn_w1: tensor<64x32xf32> {tfm.weight = "blks.block0.ffn.dense1.weight"},
    %b0_ffn_b1: tensor<64xf32> {tfm.weight = "blks.block0.ffn.dense1.bias"},
    %b0_ffn_w2: tensor<32x64xf32> {tfm.weight = "blks.block0.ffn.dense2.weight"},
    %b0_ffn_b2: tensor<32xf32> {tfm.weight = "blks.block0.ffn.dense2.bias"},
    %b0_ln2_g: tensor<32xf32> {tfm.weight = "blks.block0.addnorm2.ln.weight"},
    %b0_ln2_b: tensor<32xf32> {tfm.weight = "blks.block0.addnorm2.ln.bias"},
    // blks.block1
    %b1_w_q: tensor<32x32xf32> {tfm.weight = "blks.block1.attention.W_q.weight"},
    %b1_w_k: tensor<32x32xf32> {tfm.weight = "blks.block1.attention.W_k.weight"},
    %b1_w_v: tensor<32x32xf32> {tfm.weight = "blks.block1.attention.W_v.weight"},
    %b1_w_o: tensor<32x32xf32> {tfm.weight = "blks.block1.attention.W_o.weight"},
    %b1_ln1_g: tensor<32xf32> {tfm.weight = "blks.block1.addnorm1.ln.weight"},
    %b1_ln1_b: tensor<32xf32> {tfm.weight = "blks.block1.addnorm1.ln.bias"},
    %b1_ffn_w1: tensor<64x32xf32> {tfm.weight = "blks.block1.ffn.dense1.weight"},
    %b1_ffn_b1: tensor<64xf32> {tfm.weight = "blks.block1.ffn.dense1.bias"},
    %b1_ffn_w2: tensor<32x64xf32> {tfm.weight = "blks.block1.ffn.dense2.weight"},
    %b1_ffn_b2: tensor<32xf32> {tfm.weight = "blks.block1.ffn.dense2.bias"},
    %b1_ln2_g: tensor<32xf32> {tfm.weight = "blks.block1.addnorm2.ln.weight"},
    %b1_ln2_b: tensor<32xf32> {tfm.weight = "blks.block1.addnorm2.ln.bias"})
    -> tensor<2x10x32xf32> {
  // embedding(tokens) * sqrt(32), then + P and PositionalEncoding's dropout.
  %emb = tfm.embedding %tokens, %embedding {scale_by_sqrt_dim}
      : (tensor<2x10xi64>, tensor<200x32xf32>) -> tensor<2x10x32xf32>
  %pos = tfm.positional_encoding %emb : tensor<2x10x32xf32>
  %X0 = tfm.dropout %pos {rate = 5.0e-01 : f64} : tensor<2x10x32xf32>

  %X1 = func.call @encoder_block(%X0, %valid_lens,
      %b0_w_q, %b0_w_k, %b0_w_v, %b0_w_o, %b0_ln1_g, %b0_ln1_b,
      %b0_ffn_w1, %b0_ffn_b1, %b0_ffn_w2, %b0_ffn_b2, %b0_ln2_g, %b0_ln2_b)
      : (tensor<2x10x32xf32>, tensor<2xi64>,
         tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>,
         tensor<32x32xf32>, tensor<32xf32>, tensor<32xf32>,
         tensor<64x32xf32>, tensor<64xf32>, tensor<32x64xf32>, tensor<32xf32>,
         tensor<32xf32>, tensor<32xf32>) -> tensor<2x10x32xf32>
  %X2 = func.call @encoder_block(%X1, %valid_lens,
      %b1_w_q, %b1_w_k, %b1_w_v, %b1_w_o, %b1_ln1_g, %b1_ln1_b,
      %b1_ffn_w1, %b1_ffn_b1, %b1_ffn_w2, %b1_ffn_b2, %b1_ln2_g, %b1_ln2_b)
      : (tensor<2x10x32xf32>, tensor<2xi64>,
         tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>,
         tensor<32x32xf32>, tensor<32xf32>, tensor<32xf32>,
         tensor<64x32xf32>, tensor<64xf32>, tensor<32x64xf32>, tensor<32xf32>,
         tensor<32xf32>, tensor<32xf32>) -> tensor<2x10x32xf32>
  return %X2 : tensor<2x10x32xf32>
}

// One TransformerEncoderBlock: post-norm self-attention (4 heads, no
// biases) and position-wise FFN (relu), as in examples/encoder_block.mlir.
func.func private @encoder_block(
    %X: tensor<2x10x32xf32>, %valid_lens: tensor<2xi64>,
    %w_q: tensor<32x32xf32>, %w_k: tensor<32x32xf32>,
    %w_v: tensor<32x32xf32>, %w_o: tensor<32x32xf32>,
    %ln1_g: tensor<32xf32>, %ln1_b: tensor<32xf32>,
    %ffn_w1: tensor<64x32xf32>, %ffn_b1: tensor<64xf32>,
    %ffn_w2: tensor<32x64xf32>, %ffn_b2: tensor<32xf32>,
    %ln2_g: tensor<32xf32>, %ln2_b: tensor<32xf32>) -> tensor<2x10x32xf32> {
  %attn = tfm.multi_head_attention %X, %X, %X
      weights(%w_q, %w_k, %w_v, %w_o) valid_lens(%valid_lens)
      {num_heads = 4 : i64, dropout = 5.0e-01 : f64}
      : (tensor<2x10x32xf32>, tensor<2x10x32xf32>, tensor<2x10x32xf32>,
         tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>,
         tensor<32x32xf32>, tensor<2xi64>) -> tensor<2x10x32xf32>
  %Y = tfm.add_norm %X, %attn, %ln1_g, %ln1_b {dropout = 5.0e-01 : f64}
      : (tensor<2x10x32xf32>, tensor<2x10x32xf32>, tensor<32xf32>,
         tensor<32xf32>) -> tensor<2x10x32xf32>
  %ffn = tfm.ffn %Y dense1(%ffn_w1, %ffn_b1) dense2(%ffn_w2, %ffn_b2)
      {activation = #tfm.activation<relu>}
      : (tensor<2x10x32xf32>, tensor<64x32xf32>, tensor<64xf32>,
         tensor<32x64xf32>, tensor<32xf32>) -> tensor<2x10x32xf32>
  %Z = tfm.add_norm %Y, %ffn, %ln2_g, %ln2_b {dropout = 5.0e-01 : f64}
      : (tensor<2x10x32xf32>, tensor<2x10x32xf32>, tensor<32xf32>,
         tensor<32xf32>) -> tensor<2x10x32xf32>
  return %Z : tensor<2x10x32xf32>
}
