// A Vision Transformer as in d2l 11.8 and torchvision's VisionTransformer,
// at inference:
//
//   X = patch_embedding(image)                  conv 8x8, stride 8, with bias
//   X = cat(cls_token, X)                       prepend the class token
//   X = dropout(X + pos_embedding)              learned position embedding
//   for blk in blks:                            pre-norm blocks
//     X = X + attention(ln1(X), ln1(X), ln1(X))
//     X = X + mlp(ln2(X))                       dense2(gelu(dense1(.)))
//   logits = head_linear(head_ln(X)[:, 0])      class token only
//
// with img_size = 32, patch_size = 8, num_hiddens = 48, num_heads = 3
// (head_dim 16), mlp_num_hiddens = 96, num_blks = 2 and 10 classes. As in
// torchvision's nn.MultiheadAttention (d2l's ViT with use_bias=True) the four
// projections have biases; torchvision's in_proj_weight [3 * 48, 48] and
// in_proj_bias [3 * 48] split into W_q, W_k, W_v and b_q, b_k, b_v. The GELU
// is the exact one, LayerNorm's epsilon the nn.LayerNorm default 1e-5
// (torchvision uses 1e-6), and dropout 0.1 is the identity at inference,
// carried for fidelity. Shapes:
//
//   image            [batch = 1, channels = 3, 32, 32]   f32, NCHW
//   patches          [1, (32/8) * (32/8) = 16, 48]
//   tokens           [1, 17, 48]                          class token first
//   result           [1, 10]                              logits
//
// The head normalises every token and then keeps the class token; LayerNorm
// works token by token, so this equals d2l's head(X[:, 0]).
//
// The image and the result are named (`tfm.name`): the executable's --help,
// its messages and the library's C parameters use the names.
//
// Parameters are function arguments after the image, in the order of the
// PyTorch state_dict of d2l's ViT, each marked
// {tfm.weight = "<its state_dict name>"} so that tfm-compile binds it from a
// weights file (examples/make_weights.py writes one):
//
//   %cls_token          cls_token                        [1, 1, 48]
//   %pos_embedding      pos_embedding                    [1, 17, 48]
//   %patch_w, %patch_b  patch_embedding.conv.{weight,bias} [48, 3, 8, 8], [48]
//   %bK_*               blks.blockK.* (K = 0, 1), in the order of @vit_block's
//                       arguments: ln1, attention.W_q.{weight,bias} ...
//                       attention.W_o.*, ln2, mlp.dense1.*, mlp.dense2.*
//   %head_ln_g, _b      head.0 (LayerNorm) {weight,bias}   [48]
//   %head_w, %head_b    head.1 (Linear) {weight,bias}      [10, 48], [10]

func.func @main(
    %image: tensor<1x3x32x32xf32> {tfm.name = "image"},
    %cls_token: tensor<1x1x48xf32> {tfm.weight = "cls_token"},
    %pos_embedding: tensor<1x17x48xf32> {tfm.weight = "pos_embedding"},
    %patch_w: tensor<48x3x8x8xf32> {tfm.weight = "patch_embedding.conv.weight"},
    %patch_b: tensor<48xf32> {tfm.weight = "patch_embedding.conv.bias"},
    // blks.block0
    %b0_ln1_g: tensor<48xf32> {tfm.weight = "blks.block0.ln1.weight"},
    %b0_ln1_b: tensor<48xf32> {tfm.weight = "blks.block0.ln1.bias"},
    %b0_w_q: tensor<48x48xf32> {tfm.weight = "blks.block0.attention.W_q.weight"},
    %b0_b_q: tensor<48xf32> {tfm.weight = "blks.block0.attention.W_q.bias"},
    %b0_w_k: tensor<48x48xf32> {tfm.weight = "blks.block0.attention.W_k.weight"},
    %b0_b_k: tensor<48xf32> {tfm.weight = "blks.block0.attention.W_k.bias"},
    %b0_w_v: tensor<48x48xf32> {tfm.weight = "blks.block0.attention.W_v.weight"},
    %b0_b_v: tensor<48xf32> {tfm.weight = "blks.block0.attention.W_v.bias"},
    %b0_w_o: tensor<48x48xf32> {tfm.weight = "blks.block0.attention.W_o.weight"},
    %b0_b_o: tensor<48xf32> {tfm.weight = "blks.block0.attention.W_o.bias"},
    %b0_ln2_g: tensor<48xf32> {tfm.weight = "blks.block0.ln2.weight"},
    %b0_ln2_b: tensor<48xf32> {tfm.weight = "blks.block0.ln2.bias"},
    %b0_mlp_w1: tensor<96x48xf32> {tfm.weight = "blks.block0.mlp.dense1.weight"},
    %b0_mlp_b1: tensor<96xf32> {tfm.weight = "blks.block0.mlp.dense1.bias"},
    %b0_mlp_w2: tensor<48x96xf32> {tfm.weight = "blks.block0.mlp.dense2.weight"},
    %b0_mlp_b2: tensor<48xf32> {tfm.weight = "blks.block0.mlp.dense2.bias"},
    // blks.block1
    %b1_ln1_g: tensor<48xf32> {tfm.weight = "blks.block1.ln1.weight"},
    %b1_ln1_b: tensor<48xf32> {tfm.weight = "blks.block1.ln1.bias"},
    %b1_w_q: tensor<48x48xf32> {tfm.weight = "blks.block1.attention.W_q.weight"},
    %b1_b_q: tensor<48xf32> {tfm.weight = "blks.block1.attention.W_q.bias"},
    %b1_w_k: tensor<48x48xf32> {tfm.weight = "blks.block1.attention.W_k.weight"},
    %b1_b_k: tensor<48xf32> {tfm.weight = "blks.block1.attention.W_k.bias"},
    %b1_w_v: tensor<48x48xf32> {tfm.weight = "blks.block1.attention.W_v.weight"},
    %b1_b_v: tensor<48xf32> {tfm.weight = "blks.block1.attention.W_v.bias"},
    %b1_w_o: tensor<48x48xf32> {tfm.weight = "blks.block1.attention.W_o.weight"},
    %b1_b_o: tensor<48xf32> {tfm.weight = "blks.block1.attention.W_o.bias"},
    %b1_ln2_g: tensor<48xf32> {tfm.weight = "blks.block1.ln2.weight"},
    %b1_ln2_b: tensor<48xf32> {tfm.weight = "blks.block1.ln2.bias"},
    %b1_mlp_w1: tensor<96x48xf32> {tfm.weight = "blks.block1.mlp.dense1.weight"},
    %b1_mlp_b1: tensor<96xf32> {tfm.weight = "blks.block1.mlp.dense1.bias"},
    %b1_mlp_w2: tensor<48x96xf32> {tfm.weight = "blks.block1.mlp.dense2.weight"},
    %b1_mlp_b2: tensor<48xf32> {tfm.weight = "blks.block1.mlp.dense2.bias"},
    // head
    %head_ln_g: tensor<48xf32> {tfm.weight = "head.0.weight"},
    %head_ln_b: tensor<48xf32> {tfm.weight = "head.0.bias"},
    %head_w: tensor<10x48xf32> {tfm.weight = "head.1.weight"},
    %head_b: tensor<10xf32> {tfm.weight = "head.1.bias"})
    -> (tensor<1x10xf32> {tfm.name = "logits"}) {
  // [1, 3, 32, 32] -> 16 patches of 3 * 8 * 8 pixels -> [1, 16, 48].
  %patches = tfm.patch_embed %image, %patch_w, %patch_b
      : (tensor<1x3x32x32xf32>, tensor<48x3x8x8xf32>, tensor<48xf32>)
      -> tensor<1x16x48xf32>
  %tokens = tfm.prepend_class_token %patches, %cls_token
      : (tensor<1x16x48xf32>, tensor<1x1x48xf32>) -> tensor<1x17x48xf32>
  // The batch is 1, so the [1, 17, 48] parameter adds without broadcasting
  // (examples/vit_stem.mlir broadcasts it over a batch of 4).
  %pos = arith.addf %tokens, %pos_embedding : tensor<1x17x48xf32>
  %X0 = tfm.dropout %pos {rate = 1.0e-01 : f64} : tensor<1x17x48xf32>

  %X1 = func.call @vit_block(%X0,
      %b0_ln1_g, %b0_ln1_b,
      %b0_w_q, %b0_b_q, %b0_w_k, %b0_b_k, %b0_w_v, %b0_b_v, %b0_w_o, %b0_b_o,
      %b0_ln2_g, %b0_ln2_b, %b0_mlp_w1, %b0_mlp_b1, %b0_mlp_w2, %b0_mlp_b2)
      : (tensor<1x17x48xf32>, tensor<48xf32>, tensor<48xf32>,
         tensor<48x48xf32>, tensor<48xf32>, tensor<48x48xf32>, tensor<48xf32>,
         tensor<48x48xf32>, tensor<48xf32>, tensor<48x48xf32>, tensor<48xf32>,
         tensor<48xf32>, tensor<48xf32>, tensor<96x48xf32>, tensor<96xf32>,
         tensor<48x96xf32>, tensor<48xf32>) -> tensor<1x17x48xf32>
  %X2 = func.call @vit_block(%X1,
      %b1_ln1_g, %b1_ln1_b,
      %b1_w_q, %b1_b_q, %b1_w_k, %b1_b_k, %b1_w_v, %b1_b_v, %b1_w_o, %b1_b_o,
      %b1_ln2_g, %b1_ln2_b, %b1_mlp_w1, %b1_mlp_b1, %b1_mlp_w2, %b1_mlp_b2)
      : (tensor<1x17x48xf32>, tensor<48xf32>, tensor<48xf32>,
         tensor<48x48xf32>, tensor<48xf32>, tensor<48x48xf32>, tensor<48xf32>,
         tensor<48x48xf32>, tensor<48xf32>, tensor<48x48xf32>, tensor<48xf32>,
         tensor<48xf32>, tensor<48xf32>, tensor<96x48xf32>, tensor<96xf32>,
         tensor<48x96xf32>, tensor<48xf32>) -> tensor<1x17x48xf32>

  // head: LayerNorm, then the class token X[:, 0], then Linear(48, 10).
  %norm = tfm.layer_norm %X2, %head_ln_g, %head_ln_b
      : (tensor<1x17x48xf32>, tensor<48xf32>, tensor<48xf32>)
      -> tensor<1x17x48xf32>
  %cls = tensor.extract_slice %norm[0, 0, 0] [1, 1, 48] [1, 1, 1]
      : tensor<1x17x48xf32> to tensor<1x1x48xf32>
  %cls_flat = tensor.collapse_shape %cls [[0, 1], [2]]
      : tensor<1x1x48xf32> into tensor<1x48xf32>
  %logits = tfm.linear %cls_flat, %head_w, %head_b
      : (tensor<1x48xf32>, tensor<10x48xf32>, tensor<10xf32>)
      -> tensor<1x10xf32>
  return %logits : tensor<1x10xf32>
}

// One ViTBlock (pre-norm): X + attention(ln1(X)), then X + mlp(ln2(X)).
func.func private @vit_block(
    %X: tensor<1x17x48xf32>,
    %ln1_g: tensor<48xf32>, %ln1_b: tensor<48xf32>,
    %w_q: tensor<48x48xf32>, %b_q: tensor<48xf32>,
    %w_k: tensor<48x48xf32>, %b_k: tensor<48xf32>,
    %w_v: tensor<48x48xf32>, %b_v: tensor<48xf32>,
    %w_o: tensor<48x48xf32>, %b_o: tensor<48xf32>,
    %ln2_g: tensor<48xf32>, %ln2_b: tensor<48xf32>,
    %mlp_w1: tensor<96x48xf32>, %mlp_b1: tensor<96xf32>,
    %mlp_w2: tensor<48x96xf32>, %mlp_b2: tensor<48xf32>)
    -> tensor<1x17x48xf32> {
  %n1 = tfm.layer_norm %X, %ln1_g, %ln1_b
      : (tensor<1x17x48xf32>, tensor<48xf32>, tensor<48xf32>)
      -> tensor<1x17x48xf32>
  %attn = tfm.multi_head_attention %n1, %n1, %n1
      weights(%w_q, %w_k, %w_v, %w_o) biases(%b_q, %b_k, %b_v, %b_o)
      {num_heads = 3 : i64, dropout = 1.0e-01 : f64}
      : (tensor<1x17x48xf32>, tensor<1x17x48xf32>, tensor<1x17x48xf32>,
         tensor<48x48xf32>, tensor<48x48xf32>, tensor<48x48xf32>,
         tensor<48x48xf32>, tensor<48xf32>, tensor<48xf32>, tensor<48xf32>,
         tensor<48xf32>) -> tensor<1x17x48xf32>
  %Y = arith.addf %X, %attn : tensor<1x17x48xf32>

  %n2 = tfm.layer_norm %Y, %ln2_g, %ln2_b
      : (tensor<1x17x48xf32>, tensor<48xf32>, tensor<48xf32>)
      -> tensor<1x17x48xf32>
  %mlp = tfm.ffn %n2 dense1(%mlp_w1, %mlp_b1) dense2(%mlp_w2, %mlp_b2)
      {activation = #tfm.activation<gelu>, dropout = 1.0e-01 : f64}
      : (tensor<1x17x48xf32>, tensor<96x48xf32>, tensor<96xf32>,
         tensor<48x96xf32>, tensor<48xf32>) -> tensor<1x17x48xf32>
  %Z = arith.addf %Y, %mlp : tensor<1x17x48xf32>
  return %Z : tensor<1x17x48xf32>
}
