// A Llama-style decoder-only language model with key/value caches, in tfm
// IR: the architecture of python/tfm_tools/llama.py (Llama 2/3, Mistral,
// Qwen2 small): token embeddings, pre-norm blocks of RMSNorm, grouped-query
// causal self-attention with rotary position embeddings and a SwiGLU MLP, a
// final RMSNorm and an untied LM head, no biases. 2 layers, d_model 64, 8
// query heads and 2 key/value heads (head_dim 8, groups of 4), an MLP of
// 172, a vocabulary of 97, caches of 64 positions:
//
//   ids          [1, seq]          int64   the new tokens
//   past         []                int64   positions the caches hold
//   cache_k_<i>  [2, 64, 8]        f32     layer i's keys and values, by
//   cache_v_<i>  [2, 64, 8]        f32     key/value head
//   logits       [1, seq, 97]      f32
//
// Per layer, with p = past:
//
//   h = rms_norm(x)
//   q = rope(split_heads(linear(h), 8)) at p          [8, seq, 8]
//   k = rope(split_heads(linear(h), 2)) at p          [2, seq, 8]
//   cache_k, keys   = kv_cache_append(cache_k, k) at p
//   cache_v, values = kv_cache_append(cache_v, split_heads(linear(h), 2)) at p
//   x = x + linear(merge_heads(attention(q, keys, values, causal after p)))
//   h = rms_norm(x)
//   x = x + down(silu(gate(h)) * up(h))               SwiGLU, the gated tfm.ffn
//
// The attention is grouped-query: its keys and values have 2 heads for the
// query's 8, and each is read once for its 4 query heads (no repeat_kv).
// The rotary tables `rope.cos` and `rope.sin` ([64, 4]: cos and sin of
// position x inverse frequency, for the caches' 64 positions) are weights
// like the others; llama.rope_tables computes them from the PyTorch model,
// and gencheck.py --model llama --graph writes them with its state_dict.
//
//   tfm-compile examples/llama_decoder.mlir --weights llama.safetensors -o llama
//   ./llama --generate 32 --prompt prompt.npy -o tokens.npy

func.func @main(
    %ids: tensor<1x?xi64> {tfm.name = "ids", tfm.dims = ["", "seq"]},
    %past: tensor<i64> {tfm.name = "past", tfm.kv_position},
    %cache_k_0: tensor<2x64x8xf32> {tfm.name = "cache_k_0", tfm.kv_cache},
    %cache_v_0: tensor<2x64x8xf32> {tfm.name = "cache_v_0", tfm.kv_cache},
    %cache_k_1: tensor<2x64x8xf32> {tfm.name = "cache_k_1", tfm.kv_cache},
    %cache_v_1: tensor<2x64x8xf32> {tfm.name = "cache_v_1", tfm.kv_cache},
    %embed: tensor<97x64xf32> {tfm.weight = "embed_tokens.weight"},
    %cos: tensor<64x4xf32> {tfm.weight = "rope.cos"},
    %sin: tensor<64x4xf32> {tfm.weight = "rope.sin"},
    %in_w_0: tensor<64xf32> {tfm.weight = "blocks.0.input_layernorm.weight"},
    %q_w_0: tensor<64x64xf32> {tfm.weight = "blocks.0.q_proj.weight"},
    %k_w_0: tensor<16x64xf32> {tfm.weight = "blocks.0.k_proj.weight"},
    %v_w_0: tensor<16x64xf32> {tfm.weight = "blocks.0.v_proj.weight"},
    %o_w_0: tensor<64x64xf32> {tfm.weight = "blocks.0.o_proj.weight"},
    %post_w_0: tensor<64xf32> {tfm.weight = "blocks.0.post_attention_layernorm.weight"},
    %gate_w_0: tensor<172x64xf32> {tfm.weight = "blocks.0.gate_proj.weight"},
    %up_w_0: tensor<172x64xf32> {tfm.weight = "blocks.0.up_proj.weight"},
    %down_w_0: tensor<64x172xf32> {tfm.weight = "blocks.0.down_proj.weight"},
    %in_w_1: tensor<64xf32> {tfm.weight = "blocks.1.input_layernorm.weight"},
    %q_w_1: tensor<64x64xf32> {tfm.weight = "blocks.1.q_proj.weight"},
    %k_w_1: tensor<16x64xf32> {tfm.weight = "blocks.1.k_proj.weight"},
    %v_w_1: tensor<16x64xf32> {tfm.weight = "blocks.1.v_proj.weight"},
    %o_w_1: tensor<64x64xf32> {tfm.weight = "blocks.1.o_proj.weight"},
    %post_w_1: tensor<64xf32> {tfm.weight = "blocks.1.post_attention_layernorm.weight"},
    %gate_w_1: tensor<172x64xf32> {tfm.weight = "blocks.1.gate_proj.weight"},
    %up_w_1: tensor<172x64xf32> {tfm.weight = "blocks.1.up_proj.weight"},
    %down_w_1: tensor<64x172xf32> {tfm.weight = "blocks.1.down_proj.weight"},
    %norm_w: tensor<64xf32> {tfm.weight = "norm.weight"},
    %head_w: tensor<97x64xf32> {tfm.weight = "lm_head.weight"})
    -> (tensor<1x?x97xf32> {tfm.name = "logits"},
        tensor<2x64x8xf32> {tfm.name = "cache_k_0", tfm.kv_cache = 2 : i64},
        tensor<2x64x8xf32> {tfm.name = "cache_v_0", tfm.kv_cache = 3 : i64},
        tensor<2x64x8xf32> {tfm.name = "cache_k_1", tfm.kv_cache = 4 : i64},
        tensor<2x64x8xf32> {tfm.name = "cache_v_1", tfm.kv_cache = 5 : i64}) {
  %past_i64 = tensor.extract %past[] : tensor<i64>
  %p = arith.index_cast %past_i64 : i64 to index
  %x_0 = tfm.embedding %ids, %embed : (tensor<1x?xi64>, tensor<97x64xf32>) -> tensor<1x?x64xf32>

  // Block 0.
  %h_0 = tfm.rms_norm %x_0, %in_w_0 {epsilon = 1.0e-05 : f64} : (tensor<1x?x64xf32>, tensor<64xf32>) -> tensor<1x?x64xf32>
  %q_0 = tfm.linear %h_0, %q_w_0 : (tensor<1x?x64xf32>, tensor<64x64xf32>) -> tensor<1x?x64xf32>
  %k_0 = tfm.linear %h_0, %k_w_0 : (tensor<1x?x64xf32>, tensor<16x64xf32>) -> tensor<1x?x16xf32>
  %v_0 = tfm.linear %h_0, %v_w_0 : (tensor<1x?x64xf32>, tensor<16x64xf32>) -> tensor<1x?x16xf32>
  %qh_0 = tfm.split_heads %q_0 {num_heads = 8 : i64} : (tensor<1x?x64xf32>) -> tensor<8x?x8xf32>
  %kh_0 = tfm.split_heads %k_0 {num_heads = 2 : i64} : (tensor<1x?x16xf32>) -> tensor<2x?x8xf32>
  %vh_0 = tfm.split_heads %v_0 {num_heads = 2 : i64} : (tensor<1x?x16xf32>) -> tensor<2x?x8xf32>
  %qr_0 = tfm.rotary_embedding %qh_0, %cos, %sin offset(%p) : (tensor<8x?x8xf32>, tensor<64x4xf32>, tensor<64x4xf32>, index) -> tensor<8x?x8xf32>
  %kr_0 = tfm.rotary_embedding %kh_0, %cos, %sin offset(%p) : (tensor<2x?x8xf32>, tensor<64x4xf32>, tensor<64x4xf32>, index) -> tensor<2x?x8xf32>
  %cache_k_0_next, %keys_0 = tfm.kv_cache_append %cache_k_0, %kr_0 at %p : tensor<2x64x8xf32>, tensor<2x?x8xf32> -> tensor<2x64x8xf32>, tensor<2x?x8xf32>
  %cache_v_0_next, %values_0 = tfm.kv_cache_append %cache_v_0, %vh_0 at %p : tensor<2x64x8xf32>, tensor<2x?x8xf32> -> tensor<2x64x8xf32>, tensor<2x?x8xf32>
  %o_0 = tfm.attention %qr_0, %keys_0, %values_0 query_offset(%p) {causal} : (tensor<8x?x8xf32>, tensor<2x?x8xf32>, tensor<2x?x8xf32>, index) -> tensor<8x?x8xf32>
  %m_0 = tfm.merge_heads %o_0 {num_heads = 8 : i64} : (tensor<8x?x8xf32>) -> tensor<1x?x64xf32>
  %a_0 = tfm.linear %m_0, %o_w_0 : (tensor<1x?x64xf32>, tensor<64x64xf32>) -> tensor<1x?x64xf32>
  %y_0 = arith.addf %x_0, %a_0 : tensor<1x?x64xf32>
  %h2_0 = tfm.rms_norm %y_0, %post_w_0 {epsilon = 1.0e-05 : f64} : (tensor<1x?x64xf32>, tensor<64xf32>) -> tensor<1x?x64xf32>
  %d_0 = tfm.ffn %h2_0 gate(%gate_w_0) dense1(%up_w_0) dense2(%down_w_0) {activation = #tfm.activation<silu>} : (tensor<1x?x64xf32>, tensor<172x64xf32>, tensor<172x64xf32>, tensor<64x172xf32>) -> tensor<1x?x64xf32>
  %x_1 = arith.addf %y_0, %d_0 : tensor<1x?x64xf32>

  // Block 1.
  %h_1 = tfm.rms_norm %x_1, %in_w_1 {epsilon = 1.0e-05 : f64} : (tensor<1x?x64xf32>, tensor<64xf32>) -> tensor<1x?x64xf32>
  %q_1 = tfm.linear %h_1, %q_w_1 : (tensor<1x?x64xf32>, tensor<64x64xf32>) -> tensor<1x?x64xf32>
  %k_1 = tfm.linear %h_1, %k_w_1 : (tensor<1x?x64xf32>, tensor<16x64xf32>) -> tensor<1x?x16xf32>
  %v_1 = tfm.linear %h_1, %v_w_1 : (tensor<1x?x64xf32>, tensor<16x64xf32>) -> tensor<1x?x16xf32>
  %qh_1 = tfm.split_heads %q_1 {num_heads = 8 : i64} : (tensor<1x?x64xf32>) -> tensor<8x?x8xf32>
  %kh_1 = tfm.split_heads %k_1 {num_heads = 2 : i64} : (tensor<1x?x16xf32>) -> tensor<2x?x8xf32>
  %vh_1 = tfm.split_heads %v_1 {num_heads = 2 : i64} : (tensor<1x?x16xf32>) -> tensor<2x?x8xf32>
  %qr_1 = tfm.rotary_embedding %qh_1, %cos, %sin offset(%p) : (tensor<8x?x8xf32>, tensor<64x4xf32>, tensor<64x4xf32>, index) -> tensor<8x?x8xf32>
  %kr_1 = tfm.rotary_embedding %kh_1, %cos, %sin offset(%p) : (tensor<2x?x8xf32>, tensor<64x4xf32>, tensor<64x4xf32>, index) -> tensor<2x?x8xf32>
  %cache_k_1_next, %keys_1 = tfm.kv_cache_append %cache_k_1, %kr_1 at %p : tensor<2x64x8xf32>, tensor<2x?x8xf32> -> tensor<2x64x8xf32>, tensor<2x?x8xf32>
  %cache_v_1_next, %values_1 = tfm.kv_cache_append %cache_v_1, %vh_1 at %p : tensor<2x64x8xf32>, tensor<2x?x8xf32> -> tensor<2x64x8xf32>, tensor<2x?x8xf32>
  %o_1 = tfm.attention %qr_1, %keys_1, %values_1 query_offset(%p) {causal} : (tensor<8x?x8xf32>, tensor<2x?x8xf32>, tensor<2x?x8xf32>, index) -> tensor<8x?x8xf32>
  %m_1 = tfm.merge_heads %o_1 {num_heads = 8 : i64} : (tensor<8x?x8xf32>) -> tensor<1x?x64xf32>
  %a_1 = tfm.linear %m_1, %o_w_1 : (tensor<1x?x64xf32>, tensor<64x64xf32>) -> tensor<1x?x64xf32>
  %y_1 = arith.addf %x_1, %a_1 : tensor<1x?x64xf32>
  %h2_1 = tfm.rms_norm %y_1, %post_w_1 {epsilon = 1.0e-05 : f64} : (tensor<1x?x64xf32>, tensor<64xf32>) -> tensor<1x?x64xf32>
  %d_1 = tfm.ffn %h2_1 gate(%gate_w_1) dense1(%up_w_1) dense2(%down_w_1) {activation = #tfm.activation<silu>} : (tensor<1x?x64xf32>, tensor<172x64xf32>, tensor<172x64xf32>, tensor<64x172xf32>) -> tensor<1x?x64xf32>
  %x_2 = arith.addf %y_1, %d_1 : tensor<1x?x64xf32>

  // The final norm and the LM head (untied).
  %hf = tfm.rms_norm %x_2, %norm_w {epsilon = 1.0e-05 : f64} : (tensor<1x?x64xf32>, tensor<64xf32>) -> tensor<1x?x64xf32>
  %logits = tfm.linear %hf, %head_w : (tensor<1x?x64xf32>, tensor<97x64xf32>) -> tensor<1x?x97xf32>
  return %logits, %cache_k_0_next, %cache_v_0_next, %cache_k_1_next, %cache_v_1_next
      : tensor<1x?x97xf32>, tensor<2x64x8xf32>, tensor<2x64x8xf32>, tensor<2x64x8xf32>, tensor<2x64x8xf32>
}
