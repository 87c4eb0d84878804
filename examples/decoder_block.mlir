// d2l's TransformerDecoderBlock (d2l 11.7.5), post-norm, at inference over
// the whole target sequence at once (teacher forcing, as in training):
//
//   X2 = attention1(X, X, X, dec_valid_lens)          masked self-attention
//   Y  = addnorm1(X, X2)
//   Y2 = attention2(Y, enc_outputs, enc_outputs, enc_valid_lens)
//   Z  = addnorm2(Y, Y2)                                cross-attention
//   result = addnorm3(Z, ffn(Z))
//
// d2l masks the self-attention with dec_valid_lens = [1, 2, ..., num_steps]
// for every batch, so that position i only sees positions 0..i; that is the
// `causal` flag of tfm.multi_head_attention. The cross-attention masks the
// encoder's padding with the encoder's valid_lens.
//
// num_hiddens = 32, num_heads = 4 (head_dim 8), ffn_num_hiddens = 64,
// dropout 0.5 (the identity at inference, carried for fidelity). Shapes:
//
//   X                [batch = 2, tgt_seq = 10, num_hiddens = 32]   f32
//   enc_outputs      [2, src_seq = 12, 32]                         f32
//   enc_valid_lens   [2]                                           i64
//   result           [2, 10, 32]                                   f32
//
// Both attentions use bias=False as in d2l; the FFN has biases. Parameters
// are function arguments in the order of the PyTorch state_dict, each marked
// {tfm.weight = "<its state_dict name>"} so that tfm-compile binds it from a
// weights file (examples/make_weights.py writes one):
//
//   %a1_w_{q,k,v,o}    attention1.W_{q,k,v,o}.weight   [32, 32]
//   %ln1_g, %ln1_b     addnorm1.ln.{weight,bias}       [32]
//   %a2_w_{q,k,v,o}    attention2.W_{q,k,v,o}.weight   [32, 32]
//   %ln2_g, %ln2_b     addnorm2.ln.{weight,bias}       [32]
//   %ffn_w1, %ffn_b1   ffn.dense1.{weight,bias}        [64, 32], [64]
//   %ffn_w2, %ffn_b2   ffn.dense2.{weight,bias}        [32, 64], [32]
//   %ln3_g, %ln3_b     addnorm3.ln.{weight,bias}       [32]

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
  // Masked (causal) self-attention over the target sequence.
  %self = tfm.multi_head_attention %X, %X, %X
      weights(%a1_w_q, %a1_w_k, %a1_w_v, %a1_w_o)
      {num_heads = 4 : i64, causal, dropout = 5.0e-01 : f64}
      : (tensor<2x10x32xf32>, tensor<2x10x32xf32>, tensor<2x10x32xf32>,
         tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>,
         tensor<32x32xf32>) -> tensor<2x10x32xf32>
  %Y = tfm.add_norm %X, %self, %ln1_g, %ln1_b {dropout = 5.0e-01 : f64}
      : (tensor<2x10x32xf32>, tensor<2x10x32xf32>, tensor<32xf32>,
         tensor<32xf32>) -> tensor<2x10x32xf32>

  // Cross-attention: target queries, encoder keys and values, masked by the
  // encoder's valid lengths.
  %cross = tfm.multi_head_attention %Y, %enc_outputs, %enc_outputs
      weights(%a2_w_q, %a2_w_k, %a2_w_v, %a2_w_o)
      valid_lens(%enc_valid_lens)
      {num_heads = 4 : i64, dropout = 5.0e-01 : f64}
      : (tensor<2x10x32xf32>, tensor<2x12x32xf32>, tensor<2x12x32xf32>,
         tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>,
         tensor<32x32xf32>, tensor<2xi64>) -> tensor<2x10x32xf32>
  %Z = tfm.add_norm %Y, %cross, %ln2_g, %ln2_b {dropout = 5.0e-01 : f64}
      : (tensor<2x10x32xf32>, tensor<2x10x32xf32>, tensor<32xf32>,
         tensor<32xf32>) -> tensor<2x10x32xf32>

  // Position-wise FFN: dense2(relu(dense1(Z))).
  %ffn = tfm.ffn %Z dense1(%ffn_w1, %ffn_b1) dense2(%ffn_w2, %ffn_b2)
      {activation = #tfm.activation<relu>}
      : (tensor<2x10x32xf32>, tensor<64x32xf32>, tensor<64xf32>,
         tensor<32x64xf32>, tensor<32xf32>) -> tensor<2x10x32xf32>
  %out = tfm.add_norm %Z, %ffn, %ln3_g, %ln3_b {dropout = 5.0e-01 : f64}
      : (tensor<2x10x32xf32>, tensor<2x10x32xf32>, tensor<32xf32>,
         tensor<32xf32>) -> tensor<2x10x32xf32>
  return %out : tensor<2x10x32xf32>
}
