// A GPT-style decoder-only language model with a key/value cache, in tfm IR:
// one call runs S new tokens against the keys and values of the `past`
// positions before them, which the caches hold, and appends its own. The
// executable's --generate (or a library's prefill and step) calls it with
// the prompt, then with one token at a time: d2l's TransformerDecoder at
// prediction time ("one word at a time, each step's output is the next
// step's input"), with its `state` as preallocated caches.
//
// The architecture is GPT-2's, that of python/tfm_tools/gpt.py: learned
// token and position embeddings, pre-norm blocks of causal self-attention
// and a GELU MLP, a final LayerNorm and an LM head tied to the token
// embedding. 2 layers, d_model 64, 4 heads (head_dim 16), a vocabulary of
// 97, caches of 64 positions:
//
//   ids          [1, seq]          int64   the new tokens
//   past         []                int64   positions the caches hold
//   cache_k_<i>  [4, 64, 16]       f32     layer i's keys, by head (d2l's
//   cache_v_<i>  [4, 64, 16]       f32     [batch * heads, len, head_dim])
//   logits       [1, seq, 97]      f32
//
// Per layer, with p = past:
//
//   q, k, v = split(linear(layer_norm(x)))            [1, seq, 64] each
//   cache_k, keys   = kv_cache_append(cache_k, split_heads(k)) at p
//   cache_v, values = kv_cache_append(cache_v, split_heads(v)) at p
//   x = x + linear(merge_heads(attention(split_heads(q), keys, values,
//                                        causal after p)))
//   x = x + linear(gelu(linear(layer_norm(x))))
//
// The caches are arguments marked {tfm.kv_cache} and returned updated
// ({tfm.kv_cache = <argument index>}): bufferization writes the new rows
// into the caller's buffers in place. Weights are marked with their
// state_dict names (gpt.py's); gencheck.py --graph writes them from the
// PyTorch model and compares the generated tokens with PyTorch's.
//
//   tfm-compile examples/gpt_decoder.mlir --weights gpt.safetensors -o gpt
//   ./gpt --generate 32 --prompt prompt.npy -o tokens.npy

func.func @main(
    %ids: tensor<1x?xi64> {tfm.name = "ids", tfm.dims = ["", "seq"]},
    %past: tensor<i64> {tfm.name = "past", tfm.kv_position},
    %cache_k_0: tensor<4x64x16xf32> {tfm.name = "cache_k_0", tfm.kv_cache},
    %cache_v_0: tensor<4x64x16xf32> {tfm.name = "cache_v_0", tfm.kv_cache},
    %cache_k_1: tensor<4x64x16xf32> {tfm.name = "cache_k_1", tfm.kv_cache},
    %cache_v_1: tensor<4x64x16xf32> {tfm.name = "cache_v_1", tfm.kv_cache},
    %wte: tensor<97x64xf32> {tfm.weight = "wte.weight"},
    %wpe: tensor<128x64xf32> {tfm.weight = "wpe.weight"},
    %ln1_w_0: tensor<64xf32> {tfm.weight = "blocks.0.ln1.weight"},
    %ln1_b_0: tensor<64xf32> {tfm.weight = "blocks.0.ln1.bias"},
    %qkv_w_0: tensor<192x64xf32> {tfm.weight = "blocks.0.qkv.weight"},
    %qkv_b_0: tensor<192xf32> {tfm.weight = "blocks.0.qkv.bias"},
    %proj_w_0: tensor<64x64xf32> {tfm.weight = "blocks.0.proj.weight"},
    %proj_b_0: tensor<64xf32> {tfm.weight = "blocks.0.proj.bias"},
    %ln2_w_0: tensor<64xf32> {tfm.weight = "blocks.0.ln2.weight"},
    %ln2_b_0: tensor<64xf32> {tfm.weight = "blocks.0.ln2.bias"},
    %fc_w_0: tensor<256x64xf32> {tfm.weight = "blocks.0.fc.weight"},
    %fc_b_0: tensor<256xf32> {tfm.weight = "blocks.0.fc.bias"},
    %out_w_0: tensor<64x256xf32> {tfm.weight = "blocks.0.out.weight"},
    %out_b_0: tensor<64xf32> {tfm.weight = "blocks.0.out.bias"},
    %ln1_w_1: tensor<64xf32> {tfm.weight = "blocks.1.ln1.weight"},
    %ln1_b_1: tensor<64xf32> {tfm.weight = "blocks.1.ln1.bias"},
    %qkv_w_1: tensor<192x64xf32> {tfm.weight = "blocks.1.qkv.weight"},
    %qkv_b_1: tensor<192xf32> {tfm.weight = "blocks.1.qkv.bias"},
    %proj_w_1: tensor<64x64xf32> {tfm.weight = "blocks.1.proj.weight"},
    %proj_b_1: tensor<64xf32> {tfm.weight = "blocks.1.proj.bias"},
    %ln2_w_1: tensor<64xf32> {tfm.weight = "blocks.1.ln2.weight"},
    %ln2_b_1: tensor<64xf32> {tfm.weight = "blocks.1.ln2.bias"},
    %fc_w_1: tensor<256x64xf32> {tfm.weight = "blocks.1.fc.weight"},
    %fc_b_1: tensor<256xf32> {tfm.weight = "blocks.1.fc.bias"},
    %out_w_1: tensor<64x256xf32> {tfm.weight = "blocks.1.out.weight"},
    %out_b_1: tensor<64xf32> {tfm.weight = "blocks.1.out.bias"},
    %lnf_w: tensor<64xf32> {tfm.weight = "ln_f.weight"},
    %lnf_b: tensor<64xf32> {tfm.weight = "ln_f.bias"})
    -> (tensor<1x?x97xf32> {tfm.name = "logits"},
        tensor<4x64x16xf32> {tfm.name = "cache_k_0", tfm.kv_cache = 2 : i64},
        tensor<4x64x16xf32> {tfm.name = "cache_v_0", tfm.kv_cache = 3 : i64},
        tensor<4x64x16xf32> {tfm.name = "cache_k_1", tfm.kv_cache = 4 : i64},
        tensor<4x64x16xf32> {tfm.name = "cache_v_1", tfm.kv_cache = 5 : i64}) {
  %c1 = arith.constant 1 : index
  %seq = tensor.dim %ids, %c1 : tensor<1x?xi64>
  %past_i64 = tensor.extract %past[] : tensor<i64>
  %p = arith.index_cast %past_i64 : i64 to index

  // Positions past .. past + seq - 1, and the embeddings.
  %pos_init = tensor.empty(%seq) : tensor<1x?xi64>
  %positions = linalg.generic {
      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>],
      iterator_types = ["parallel", "parallel"]} outs(%pos_init : tensor<1x?xi64>) {
  ^bb0(%out: i64):
    %j = linalg.index 1 : index
    %at = arith.addi %j, %p : index
    %at_i64 = arith.index_cast %at : index to i64
    linalg.yield %at_i64 : i64
  } -> tensor<1x?xi64>
  %tok = tfm.embedding %ids, %wte : (tensor<1x?xi64>, tensor<97x64xf32>) -> tensor<1x?x64xf32>
  %pos = tfm.embedding %positions, %wpe : (tensor<1x?xi64>, tensor<128x64xf32>) -> tensor<1x?x64xf32>
  %x_0 = arith.addf %tok, %pos : tensor<1x?x64xf32>

  // Block 0.
  %h_0 = tfm.layer_norm %x_0, %ln1_w_0, %ln1_b_0 : (tensor<1x?x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<1x?x64xf32>
  %qkv_0 = tfm.linear %h_0, %qkv_w_0, %qkv_b_0 : (tensor<1x?x64xf32>, tensor<192x64xf32>, tensor<192xf32>) -> tensor<1x?x192xf32>
  %q_0 = tensor.extract_slice %qkv_0[0, 0, 0] [1, %seq, 64] [1, 1, 1] : tensor<1x?x192xf32> to tensor<1x?x64xf32>
  %k_0 = tensor.extract_slice %qkv_0[0, 0, 64] [1, %seq, 64] [1, 1, 1] : tensor<1x?x192xf32> to tensor<1x?x64xf32>
  %v_0 = tensor.extract_slice %qkv_0[0, 0, 128] [1, %seq, 64] [1, 1, 1] : tensor<1x?x192xf32> to tensor<1x?x64xf32>
  %qh_0 = tfm.split_heads %q_0 {num_heads = 4 : i64} : (tensor<1x?x64xf32>) -> tensor<4x?x16xf32>
  %kh_0 = tfm.split_heads %k_0 {num_heads = 4 : i64} : (tensor<1x?x64xf32>) -> tensor<4x?x16xf32>
  %vh_0 = tfm.split_heads %v_0 {num_heads = 4 : i64} : (tensor<1x?x64xf32>) -> tensor<4x?x16xf32>
  %cache_k_0_next, %keys_0 = tfm.kv_cache_append %cache_k_0, %kh_0 at %p : tensor<4x64x16xf32>, tensor<4x?x16xf32> -> tensor<4x64x16xf32>, tensor<4x?x16xf32>
  %cache_v_0_next, %values_0 = tfm.kv_cache_append %cache_v_0, %vh_0 at %p : tensor<4x64x16xf32>, tensor<4x?x16xf32> -> tensor<4x64x16xf32>, tensor<4x?x16xf32>
  %o_0 = tfm.attention %qh_0, %keys_0, %values_0 query_offset(%p) {causal} : (tensor<4x?x16xf32>, tensor<4x?x16xf32>, tensor<4x?x16xf32>, index) -> tensor<4x?x16xf32>
  %m_0 = tfm.merge_heads %o_0 {num_heads = 4 : i64} : (tensor<4x?x16xf32>) -> tensor<1x?x64xf32>
  %a_0 = tfm.linear %m_0, %proj_w_0, %proj_b_0 : (tensor<1x?x64xf32>, tensor<64x64xf32>, tensor<64xf32>) -> tensor<1x?x64xf32>
  %y_0 = arith.addf %x_0, %a_0 : tensor<1x?x64xf32>
  %h2_0 = tfm.layer_norm %y_0, %ln2_w_0, %ln2_b_0 : (tensor<1x?x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<1x?x64xf32>
  %f_0 = tfm.linear %h2_0, %fc_w_0, %fc_b_0 {activation = #tfm.activation<gelu>} : (tensor<1x?x64xf32>, tensor<256x64xf32>, tensor<256xf32>) -> tensor<1x?x256xf32>
  %g_0 = tfm.linear %f_0, %out_w_0, %out_b_0 : (tensor<1x?x256xf32>, tensor<64x256xf32>, tensor<64xf32>) -> tensor<1x?x64xf32>
  %x_1 = arith.addf %y_0, %g_0 : tensor<1x?x64xf32>

  // Block 1.
  %h_1 = tfm.layer_norm %x_1, %ln1_w_1, %ln1_b_1 : (tensor<1x?x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<1x?x64xf32>
  %qkv_1 = tfm.linear %h_1, %qkv_w_1, %qkv_b_1 : (tensor<1x?x64xf32>, tensor<192x64xf32>, tensor<192xf32>) -> tensor<1x?x192xf32>
  %q_1 = tensor.extract_slice %qkv_1[0, 0, 0] [1, %seq, 64] [1, 1, 1] : tensor<1x?x192xf32> to tensor<1x?x64xf32>
  %k_1 = tensor.extract_slice %qkv_1[0, 0, 64] [1, %seq, 64] [1, 1, 1] : tensor<1x?x192xf32> to tensor<1x?x64xf32>
  %v_1 = tensor.extract_slice %qkv_1[0, 0, 128] [1, %seq, 64] [1, 1, 1] : tensor<1x?x192xf32> to tensor<1x?x64xf32>
  %qh_1 = tfm.split_heads %q_1 {num_heads = 4 : i64} : (tensor<1x?x64xf32>) -> tensor<4x?x16xf32>
  %kh_1 = tfm.split_heads %k_1 {num_heads = 4 : i64} : (tensor<1x?x64xf32>) -> tensor<4x?x16xf32>
  %vh_1 = tfm.split_heads %v_1 {num_heads = 4 : i64} : (tensor<1x?x64xf32>) -> tensor<4x?x16xf32>
  %cache_k_1_next, %keys_1 = tfm.kv_cache_append %cache_k_1, %kh_1 at %p : tensor<4x64x16xf32>, tensor<4x?x16xf32> -> tensor<4x64x16xf32>, tensor<4x?x16xf32>
  %cache_v_1_next, %values_1 = tfm.kv_cache_append %cache_v_1, %vh_1 at %p : tensor<4x64x16xf32>, tensor<4x?x16xf32> -> tensor<4x64x16xf32>, tensor<4x?x16xf32>
  %o_1 = tfm.attention %qh_1, %keys_1, %values_1 query_offset(%p) {causal} : (tensor<4x?x16xf32>, tensor<4x?x16xf32>, tensor<4x?x16xf32>, index) -> tensor<4x?x16xf32>
  %m_1 = tfm.merge_heads %o_1 {num_heads = 4 : i64} : (tensor<4x?x16xf32>) -> tensor<1x?x64xf32>
  %a_1 = tfm.linear %m_1, %proj_w_1, %proj_b_1 : (tensor<1x?x64xf32>, tensor<64x64xf32>, tensor<64xf32>) -> tensor<1x?x64xf32>
  %y_1 = arith.addf %x_1, %a_1 : tensor<1x?x64xf32>
  %h2_1 = tfm.layer_norm %y_1, %ln2_w_1, %ln2_b_1 : (tensor<1x?x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<1x?x64xf32>
  %f_1 = tfm.linear %h2_1, %fc_w_1, %fc_b_1 {activation = #tfm.activation<gelu>} : (tensor<1x?x64xf32>, tensor<256x64xf32>, tensor<256xf32>) -> tensor<1x?x256xf32>
  %g_1 = tfm.linear %f_1, %out_w_1, %out_b_1 : (tensor<1x?x256xf32>, tensor<64x256xf32>, tensor<64xf32>) -> tensor<1x?x64xf32>
  %x_2 = arith.addf %y_1, %g_1 : tensor<1x?x64xf32>

  // The LM head, tied to the token embedding.
  %hf = tfm.layer_norm %x_2, %lnf_w, %lnf_b : (tensor<1x?x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<1x?x64xf32>
  %logits = tfm.linear %hf, %wte : (tensor<1x?x64xf32>, tensor<97x64xf32>) -> tensor<1x?x97xf32>
  return %logits, %cache_k_0_next, %cache_v_0_next, %cache_k_1_next, %cache_v_1_next
      : tensor<1x?x97xf32>, tensor<4x64x16xf32>, tensor<4x64x16xf32>, tensor<4x64x16xf32>, tensor<4x64x16xf32>
}
