// d2l's ViT (d2l 11.8) written out op by op, as the seed's PyTorch code
// computes it, for the graph optimizer to fuse. The same model, shapes and
// weights as examples/vit.mlir:
//
//   X = patch_embedding(image); X = cat(cls_token, X)
//   X = dropout(X + pos_embedding)
//   for blk in blks:                                 ViTBlock, pre-norm
//     X = X + attention(ln1(X), ln1(X), ln1(X))     valid_lens = None
//     X = X + mlp(ln2(X))
//   logits = head_linear(head_ln(X)[:, 0])
//
// where attention is d2l's MultiHeadAttention (with biases, as torchvision's)
//
//   queries = transpose_qkv(W_q(queries))       tfm.linear + tfm.split_heads
//   keys, values likewise
//   scores = bmm(queries, keys.transpose(1, 2)) / sqrt(d)
//   weights = masked_softmax(scores, None)      a plain softmax
//   output = bmm(dropout(weights), values)
//   return W_o(transpose_output(output))
//
// and ViTMLP is dropout(dense2(dropout(gelu(dense1(x))))), with nn.GELU()
// written from its formula, 0.5 · x · (1 + erf(x / √2)). The head's
// nn.LayerNorm is written out too, as (x - mean) / sqrt(var + eps) · γ + β
// with the mean and the biased variance as linalg.reduce sums divided by D;
// the blocks' ln1 and ln2 stay tfm.layer_norm.
//
// tfm-compile's graph optimizer inlines @vit_block into @main and turns each
// attention into tfm.attention, the projections around it into
// tfm.multi_head_attention, each GELU into tfm.gelu carried by its linear,
// and the head's LayerNorm into tfm.layer_norm: compare
// `tfm-compile THIS --emit=mlir --stage=graph` with `--no-fusion`
// (docs/fusion.md).

func.func @main(
    %image: tensor<1x3x32x32xf32>,
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
    -> tensor<1x10xf32> {
  // [1, 3, 32, 32] -> 16 patches of 3 * 8 * 8 pixels -> [1, 16, 48].
  %patches = tfm.patch_embed %image, %patch_w, %patch_b
      : (tensor<1x3x32x32xf32>, tensor<48x3x8x8xf32>, tensor<48xf32>)
      -> tensor<1x16x48xf32>
  %tokens = tfm.prepend_class_token %patches, %cls_token
      : (tensor<1x16x48xf32>, tensor<1x1x48xf32>) -> tensor<1x17x48xf32>
  // The batch is 1, so the [1, 17, 48] parameter adds without broadcasting.
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

  // head.0, nn.LayerNorm(48) written out over the last dimension:
  //   mean = sum(x) / 48,  var = sum((x - mean)²) / 48  (biased, as PyTorch)
  //   y = (x - mean) / sqrt(var + 1e-5) · γ + β
  %zero = arith.constant 0.0 : f32
  %red_empty = tensor.empty() : tensor<1x17xf32>
  %red_init = linalg.fill ins(%zero : f32) outs(%red_empty : tensor<1x17xf32>)
      -> tensor<1x17xf32>
  %full_empty = tensor.empty() : tensor<1x17x48xf32>
  %dim = arith.constant dense<48.0> : tensor<1x17xf32>
  %eps = arith.constant dense<1.0e-5> : tensor<1x17xf32>
  %sum = linalg.reduce { arith.addf } ins(%X2 : tensor<1x17x48xf32>)
      outs(%red_init : tensor<1x17xf32>) dimensions = [2]
  %mean = arith.divf %sum, %dim : tensor<1x17xf32>
  %mean_b = linalg.broadcast ins(%mean : tensor<1x17xf32>)
      outs(%full_empty : tensor<1x17x48xf32>) dimensions = [2]
  %centered = arith.subf %X2, %mean_b : tensor<1x17x48xf32>
  %sq = arith.mulf %centered, %centered : tensor<1x17x48xf32>
  %sq_sum = linalg.reduce { arith.addf } ins(%sq : tensor<1x17x48xf32>)
      outs(%red_init : tensor<1x17xf32>) dimensions = [2]
  %var = arith.divf %sq_sum, %dim : tensor<1x17xf32>
  %var_eps = arith.addf %var, %eps : tensor<1x17xf32>
  %std = math.sqrt %var_eps : tensor<1x17xf32>
  %std_b = linalg.broadcast ins(%std : tensor<1x17xf32>)
      outs(%full_empty : tensor<1x17x48xf32>) dimensions = [2]
  %normed = arith.divf %centered, %std_b : tensor<1x17x48xf32>
  %g_b = linalg.broadcast ins(%head_ln_g : tensor<48xf32>)
      outs(%full_empty : tensor<1x17x48xf32>) dimensions = [0, 1]
  %scaled = arith.mulf %normed, %g_b : tensor<1x17x48xf32>
  %b_b = linalg.broadcast ins(%head_ln_b : tensor<48xf32>)
      outs(%full_empty : tensor<1x17x48xf32>) dimensions = [0, 1]
  %norm = arith.addf %scaled, %b_b : tensor<1x17x48xf32>

  // The class token X[:, 0], then head.1, Linear(48, 10).
  %cls = tensor.extract_slice %norm[0, 0, 0] [1, 1, 48] [1, 1, 1]
      : tensor<1x17x48xf32> to tensor<1x1x48xf32>
  %cls_flat = tensor.collapse_shape %cls [[0, 1], [2]]
      : tensor<1x1x48xf32> into tensor<1x48xf32>
  %logits = tfm.linear %cls_flat, %head_w, %head_b
      : (tensor<1x48xf32>, tensor<10x48xf32>, tensor<10xf32>)
      -> tensor<1x10xf32>
  return %logits : tensor<1x10xf32>
}

// One ViTBlock (pre-norm), op by op: X + attention(ln1(X)), then
// X + mlp(ln2(X)).
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

  // MultiHeadAttention.forward: project (with biases), then split into 3
  // heads of 16.
  %q = tfm.linear %n1, %w_q, %b_q
      : (tensor<1x17x48xf32>, tensor<48x48xf32>, tensor<48xf32>)
      -> tensor<1x17x48xf32>
  %k = tfm.linear %n1, %w_k, %b_k
      : (tensor<1x17x48xf32>, tensor<48x48xf32>, tensor<48xf32>)
      -> tensor<1x17x48xf32>
  %v = tfm.linear %n1, %w_v, %b_v
      : (tensor<1x17x48xf32>, tensor<48x48xf32>, tensor<48xf32>)
      -> tensor<1x17x48xf32>
  %queries = tfm.split_heads %q {num_heads = 3 : i64}
      : (tensor<1x17x48xf32>) -> tensor<3x17x16xf32>
  %keys = tfm.split_heads %k {num_heads = 3 : i64}
      : (tensor<1x17x48xf32>) -> tensor<3x17x16xf32>
  %values = tfm.split_heads %v {num_heads = 3 : i64}
      : (tensor<1x17x48xf32>) -> tensor<3x17x16xf32>

  // DotProductAttention.forward with valid_lens = None: masked_softmax is a
  // plain softmax over the keys.
  %scores = tfm.batch_matmul %queries, %keys {transpose_rhs}
      : (tensor<3x17x16xf32>, tensor<3x17x16xf32>) -> tensor<3x17x17xf32>
  %sqrt_d = arith.constant dense<4.0> : tensor<3x17x17xf32>
  %scaled = arith.divf %scores, %sqrt_d : tensor<3x17x17xf32>
  %weights = tfm.masked_softmax %scaled
      : (tensor<3x17x17xf32>) -> tensor<3x17x17xf32>
  %dropped = tfm.dropout %weights {rate = 1.0e-01 : f64} : tensor<3x17x17xf32>
  %output = tfm.batch_matmul %dropped, %values
      : (tensor<3x17x17xf32>, tensor<3x17x16xf32>) -> tensor<3x17x16xf32>

  // transpose_output, then W_o.
  %concat = tfm.merge_heads %output {num_heads = 3 : i64}
      : (tensor<3x17x16xf32>) -> tensor<1x17x48xf32>
  %attn = tfm.linear %concat, %w_o, %b_o
      : (tensor<1x17x48xf32>, tensor<48x48xf32>, tensor<48xf32>)
      -> tensor<1x17x48xf32>
  %Y = arith.addf %X, %attn : tensor<1x17x48xf32>

  // ViTMLP: dropout(dense2(dropout(gelu(dense1(ln2(Y)))))), with the exact
  // GELU 0.5 · x · (1 + erf(x / √2)).
  %n2 = tfm.layer_norm %Y, %ln2_g, %ln2_b
      : (tensor<1x17x48xf32>, tensor<48xf32>, tensor<48xf32>)
      -> tensor<1x17x48xf32>
  %h = tfm.linear %n2, %mlp_w1, %mlp_b1
      : (tensor<1x17x48xf32>, tensor<96x48xf32>, tensor<96xf32>)
      -> tensor<1x17x96xf32>
  %half = arith.constant dense<0.5> : tensor<1x17x96xf32>
  %one = arith.constant dense<1.0> : tensor<1x17x96xf32>
  %sqrt2 = arith.constant dense<1.41421354> : tensor<1x17x96xf32>
  %h_half = arith.mulf %half, %h : tensor<1x17x96xf32>
  %h_scaled = arith.divf %h, %sqrt2 : tensor<1x17x96xf32>
  %erf = math.erf %h_scaled : tensor<1x17x96xf32>
  %erf_1 = arith.addf %one, %erf : tensor<1x17x96xf32>
  %gelu = arith.mulf %h_half, %erf_1 : tensor<1x17x96xf32>
  %gelu_d = tfm.dropout %gelu {rate = 1.0e-01 : f64} : tensor<1x17x96xf32>
  %mlp = tfm.linear %gelu_d, %mlp_w2, %mlp_b2
      : (tensor<1x17x96xf32>, tensor<48x96xf32>, tensor<48xf32>)
      -> tensor<1x17x48xf32>
  %mlp_d = tfm.dropout %mlp {rate = 1.0e-01 : f64} : tensor<1x17x48xf32>
  %Z = arith.addf %Y, %mlp_d : tensor<1x17x48xf32>
  return %Z : tensor<1x17x48xf32>
}
