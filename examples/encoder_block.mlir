// d2l's TransformerEncoderBlock (d2l 11.7.4), post-norm, at inference:
//
//   Y = addnorm1(X, attention(X, X, X, valid_lens))
//   Z = addnorm2(Y, ffn(Y))
//
// with num_hiddens = 32, num_heads = 4 (head_dim 8), ffn_num_hiddens = 64
// and dropout 0.5 (the identity at inference, carried for fidelity).
// Shapes:
//
//   X            [batch = 2, seq = 10, num_hiddens = 32]   f32
//   valid_lens   [2]                                       i64
//   result       [2, 10, 32]                               f32
//
// d2l's MultiHeadAttention uses bias=False, so only its four nn.Linear
// weights are present; its PositionWiseFFN (nn.LazyLinear) has biases. Every
// parameter is a function argument, in the order of the PyTorch state_dict,
// marked {tfm.weight = "<its state_dict name>"} so that tfm-compile binds it
// from a weights file (examples/make_weights.py writes one):
//
//   %w_q, %w_k, %w_v, %w_o   attention.W_{q,k,v,o}.weight   [32, 32]
//   %ln1_g, %ln1_b           addnorm1.ln.{weight,bias}      [32]
//   %ffn_w1, %ffn_b1         ffn.dense1.{weight,bias}       [64, 32], [64]
//   %ffn_w2, %ffn_b2         ffn.dense2.{weight,bias}       [32, 64], [32]
//   %ln2_g, %ln2_b           addnorm2.ln.{weight,bias}      [32]

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
  // Self-attention: queries, keys and values are all X.
  %attn = tfm.multi_head_attention %X, %X, %X
      weights(%w_q, %w_k, %w_v, %w_o) valid_lens(%valid_lens)
      {num_heads = 4 : i64, dropout = 5.0e-01 : f64}
      : (tensor<2x10x32xf32>, tensor<2x10x32xf32>, tensor<2x10x32xf32>,
         tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>,
         tensor<32x32xf32>, tensor<2xi64>) -> tensor<2x10x32xf32>
  %Y = tfm.add_norm %X, %attn, %ln1_g, %ln1_b {dropout = 5.0e-01 : f64}
      : (tensor<2x10x32xf32>, tensor<2x10x32xf32>, tensor<32xf32>,
         tensor<32xf32>) -> tensor<2x10x32xf32>

  // Position-wise FFN: dense2(relu(dense1(Y))).
  %ffn = tfm.ffn %Y dense1(%ffn_w1, %ffn_b1) dense2(%ffn_w2, %ffn_b2)
      {activation = #tfm.activation<relu>}
      : (tensor<2x10x32xf32>, tensor<64x32xf32>, tensor<64xf32>,
         tensor<32x64xf32>, tensor<32xf32>) -> tensor<2x10x32xf32>
  %Z = tfm.add_norm %Y, %ffn, %ln2_g, %ln2_b {dropout = 5.0e-01 : f64}
      : (tensor<2x10x32xf32>, tensor<2x10x32xf32>, tensor<32xf32>,
         tensor<32xf32>) -> tensor<2x10x32xf32>
  return %Z : tensor<2x10x32xf32>
}
