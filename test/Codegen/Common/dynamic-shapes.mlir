// Every tfm op with dynamic batch and sequence dimensions goes through both
// pipelines to the LLVM dialect. On the CPU, the tiles that the dynamic
// sizes leave partial along a vector become masked vector loads and stores
// (tiles partial along other loops are cut into rows of whole vectors).
// Numerics at several sizes: test/Integration/dynamic-shapes.test.

// RUN: tfm-opt %s --split-input-file --tfm-set-cpu-target=cpu=avx2 --tfm-cpu-pipeline | FileCheck %s --check-prefix=CPU
// RUN: tfm-opt %s --split-input-file --tfm-gpu-pipeline | FileCheck %s --check-prefix=GPU

// -----

// CPU-LABEL: llvm.func @batch_matmul(
//       CPU:   llvm.intr.masked.load
// GPU-LABEL: llvm.func @batch_matmul(
//       GPU:   gpu.launch_func
func.func @batch_matmul(%a: tensor<?x?x64xf32>, %b: tensor<?x64x?xf32>) -> tensor<?x?x?xf32> {
  %r = tfm.batch_matmul %a, %b : (tensor<?x?x64xf32>, tensor<?x64x?xf32>) -> tensor<?x?x?xf32>
  return %r : tensor<?x?x?xf32>
}

// -----

// CPU-LABEL: llvm.func @batch_matmul_t(
//       CPU:   llvm.intr.masked.load
// GPU-LABEL: llvm.func @batch_matmul_t(
//       GPU:   gpu.launch_func
func.func @batch_matmul_t(%a: tensor<?x?x64xf32>, %b: tensor<?x?x64xf32>) -> tensor<?x?x?xf32> {
  %r = tfm.batch_matmul %a, %b {transpose_rhs} : (tensor<?x?x64xf32>, tensor<?x?x64xf32>) -> tensor<?x?x?xf32>
  return %r : tensor<?x?x?xf32>
}

// -----

// CPU-LABEL: llvm.func @masked_softmax(
//       CPU:   llvm.intr.masked.load
// GPU-LABEL: llvm.func @masked_softmax(
//       GPU:   gpu.launch_func
func.func @masked_softmax(%x: tensor<?x?x?xf32>, %l: tensor<?xi32>) -> tensor<?x?x?xf32> {
  %r = tfm.masked_softmax %x valid_lens(%l) : (tensor<?x?x?xf32>, tensor<?xi32>) -> tensor<?x?x?xf32>
  return %r : tensor<?x?x?xf32>
}

// -----

// CPU-LABEL: llvm.func @attention(
//       CPU:   llvm.intr.masked.load
// GPU-LABEL: llvm.func @attention(
//       GPU:   gpu.launch_func
func.func @attention(%q: tensor<?x?x64xf32>, %k: tensor<?x?x64xf32>, %v: tensor<?x?x64xf32>, %l: tensor<?xi32>) -> tensor<?x?x64xf32> {
  %r = tfm.attention %q, %k, %v valid_lens(%l) : (tensor<?x?x64xf32>, tensor<?x?x64xf32>, tensor<?x?x64xf32>, tensor<?xi32>) -> tensor<?x?x64xf32>
  return %r : tensor<?x?x64xf32>
}

// -----

// CPU-LABEL: llvm.func @attention_causal(
//       CPU:   llvm.intr.masked.load
// GPU-LABEL: llvm.func @attention_causal(
//       GPU:   gpu.launch_func
func.func @attention_causal(%q: tensor<?x12x?x64xf32>, %k: tensor<?x12x?x64xf32>, %v: tensor<?x12x?x64xf32>) -> tensor<?x12x?x64xf32> {
  %r = tfm.attention %q, %k, %v {causal} : (tensor<?x12x?x64xf32>, tensor<?x12x?x64xf32>, tensor<?x12x?x64xf32>) -> tensor<?x12x?x64xf32>
  return %r : tensor<?x12x?x64xf32>
}

// -----

// CPU-LABEL: llvm.func @attention_mask(
//       CPU:   llvm.intr.masked.load
// GPU-LABEL: llvm.func @attention_mask(
//       GPU:   gpu.launch_func
func.func @attention_mask(%q: tensor<?x?x64xf32>, %k: tensor<?x?x64xf32>, %v: tensor<?x?x64xf32>, %m: tensor<?x?x?xf32>) -> tensor<?x?x64xf32> {
  %r = tfm.attention %q, %k, %v mask(%m) : (tensor<?x?x64xf32>, tensor<?x?x64xf32>, tensor<?x?x64xf32>, tensor<?x?x?xf32>) -> tensor<?x?x64xf32>
  return %r : tensor<?x?x64xf32>
}

// -----

// CPU-LABEL: llvm.func @additive_attention(
//       CPU:   llvm.intr.masked.load
// GPU-LABEL: llvm.func @additive_attention(
//       GPU:   gpu.launch_func
func.func @additive_attention(%q: tensor<?x?x20xf32>, %k: tensor<?x?x2xf32>, %v: tensor<?x?x4xf32>, %wq: tensor<8x20xf32>, %wk: tensor<8x2xf32>, %wv: tensor<1x8xf32>, %l: tensor<?xi32>) -> tensor<?x?x4xf32> {
  %r = tfm.additive_attention %q, %k, %v weights(%wq, %wk, %wv) valid_lens(%l) : (tensor<?x?x20xf32>, tensor<?x?x2xf32>, tensor<?x?x4xf32>, tensor<8x20xf32>, tensor<8x2xf32>, tensor<1x8xf32>, tensor<?xi32>) -> tensor<?x?x4xf32>
  return %r : tensor<?x?x4xf32>
}

// -----

// CPU-LABEL: llvm.func @kernel_pooling(
//       CPU:   llvm.intr.masked.load
// GPU-LABEL: llvm.func @kernel_pooling(
//       GPU:   gpu.launch_func
func.func @kernel_pooling(%xq: tensor<?x?xf32>, %xk: tensor<?x?xf32>, %y: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = tfm.kernel_pooling %xq, %xk, %y {kernel = #tfm.kernel<gaussian>} : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// CPU-LABEL: llvm.func @split_heads(
// GPU-LABEL: llvm.func @split_heads(
//       GPU:   gpu.launch_func
func.func @split_heads(%x: tensor<?x?x64xf32>) -> tensor<?x?x8xf32> {
  %r = tfm.split_heads %x {num_heads = 8 : i64} : (tensor<?x?x64xf32>) -> tensor<?x?x8xf32>
  return %r : tensor<?x?x8xf32>
}

// -----

// CPU-LABEL: llvm.func @merge_heads(
// GPU-LABEL: llvm.func @merge_heads(
//       GPU:   gpu.launch_func
func.func @merge_heads(%x: tensor<?x?x8xf32>) -> tensor<?x?x64xf32> {
  %r = tfm.merge_heads %x {num_heads = 8 : i64} : (tensor<?x?x8xf32>) -> tensor<?x?x64xf32>
  return %r : tensor<?x?x64xf32>
}

// -----

// CPU-LABEL: llvm.func @mha(
//       CPU:   llvm.intr.masked.load
// GPU-LABEL: llvm.func @mha(
//       GPU:   gpu.launch_func
func.func @mha(%x: tensor<?x?x32xf32>, %w: tensor<32x32xf32>, %b: tensor<32xf32>, %l: tensor<?xi32>) -> tensor<?x?x32xf32> {
  %r = tfm.multi_head_attention %x, %x, %x weights(%w, %w, %w, %w) biases(%b, %b, %b, %b) valid_lens(%l) {num_heads = 4 : i64} : (tensor<?x?x32xf32>, tensor<?x?x32xf32>, tensor<?x?x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<?xi32>) -> tensor<?x?x32xf32>
  return %r : tensor<?x?x32xf32>
}

// -----

// CPU-LABEL: llvm.func @linear(
//       CPU:   vector<16xf32>
// GPU-LABEL: llvm.func @linear(
//       GPU:   gpu.launch_func
func.func @linear(%x: tensor<?x?x64xf32>, %w: tensor<128x64xf32>, %b: tensor<128xf32>) -> tensor<?x?x128xf32> {
  %r = tfm.linear %x, %w, %b {activation = #tfm.activation<gelu>} : (tensor<?x?x64xf32>, tensor<128x64xf32>, tensor<128xf32>) -> tensor<?x?x128xf32>
  return %r : tensor<?x?x128xf32>
}

// -----

// CPU-LABEL: llvm.func @ffn(
//       CPU:   vector<16xf32>
// GPU-LABEL: llvm.func @ffn(
//       GPU:   gpu.launch_func
func.func @ffn(%x: tensor<?x?x64xf32>, %w1: tensor<128x64xf32>, %b1: tensor<128xf32>, %w2: tensor<64x128xf32>, %b2: tensor<64xf32>) -> tensor<?x?x64xf32> {
  %r = tfm.ffn %x dense1(%w1, %b1) dense2(%w2, %b2) : (tensor<?x?x64xf32>, tensor<128x64xf32>, tensor<128xf32>, tensor<64x128xf32>, tensor<64xf32>) -> tensor<?x?x64xf32>
  return %r : tensor<?x?x64xf32>
}

// -----

// CPU-LABEL: llvm.func @layer_norm(
//       CPU:   vector<8xf32>
// GPU-LABEL: llvm.func @layer_norm(
//       GPU:   gpu.launch_func
func.func @layer_norm(%x: tensor<?x?x64xf32>, %g: tensor<64xf32>, %b: tensor<64xf32>) -> tensor<?x?x64xf32> {
  %r = tfm.layer_norm %x, %g, %b : (tensor<?x?x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<?x?x64xf32>
  return %r : tensor<?x?x64xf32>
}

// -----

// CPU-LABEL: llvm.func @add_norm(
//       CPU:   vector<8xf32>
// GPU-LABEL: llvm.func @add_norm(
//       GPU:   gpu.launch_func
func.func @add_norm(%x: tensor<?x?x64xf32>, %y: tensor<?x?x64xf32>, %g: tensor<64xf32>, %b: tensor<64xf32>) -> tensor<?x?x64xf32> {
  %r = tfm.add_norm %x, %y, %g, %b : (tensor<?x?x64xf32>, tensor<?x?x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<?x?x64xf32>
  return %r : tensor<?x?x64xf32>
}

// -----

// CPU-LABEL: llvm.func @gelu(
// GPU-LABEL: llvm.func @gelu(
//       GPU:   gpu.launch_func
func.func @gelu(%x: tensor<?x?x64xf32>) -> tensor<?x?x64xf32> {
  %r = tfm.gelu %x : tensor<?x?x64xf32>
  return %r : tensor<?x?x64xf32>
}

// -----

// CPU-LABEL: llvm.func @dropout(
// GPU-LABEL: llvm.func @dropout(
//       GPU:   gpu.launch_func
func.func @dropout(%x: tensor<?x?x64xf32>) -> tensor<?x?x64xf32> {
  %r = tfm.dropout %x {rate = 1.000000e-01 : f64} : tensor<?x?x64xf32>
  return %r : tensor<?x?x64xf32>
}

// -----

// CPU-LABEL: llvm.func @embedding(
// GPU-LABEL: llvm.func @embedding(
//       GPU:   gpu.launch_func
func.func @embedding(%ids: tensor<?x?xi64>, %t: tensor<200x64xf32>) -> tensor<?x?x64xf32> {
  %r = tfm.embedding %ids, %t {scale_by_sqrt_dim} : (tensor<?x?xi64>, tensor<200x64xf32>) -> tensor<?x?x64xf32>
  return %r : tensor<?x?x64xf32>
}

// -----

// CPU-LABEL: llvm.func @positional_encoding(
// GPU-LABEL: llvm.func @positional_encoding(
//       GPU:   gpu.launch_func
func.func @positional_encoding(%x: tensor<?x?x64xf32>) -> tensor<?x?x64xf32> {
  %r = tfm.positional_encoding %x : tensor<?x?x64xf32>
  return %r : tensor<?x?x64xf32>
}

// -----

// CPU-LABEL: llvm.func @patch_embed(
//       CPU:   vector<16xf32>
// GPU-LABEL: llvm.func @patch_embed(
//       GPU:   gpu.launch_func
func.func @patch_embed(%img: tensor<?x3x32x32xf32>, %w: tensor<64x3x16x16xf32>, %b: tensor<64xf32>) -> tensor<?x4x64xf32> {
  %r = tfm.patch_embed %img, %w, %b : (tensor<?x3x32x32xf32>, tensor<64x3x16x16xf32>, tensor<64xf32>) -> tensor<?x4x64xf32>
  return %r : tensor<?x4x64xf32>
}

// -----

// CPU-LABEL: llvm.func @prepend_class_token(
// GPU-LABEL: llvm.func @prepend_class_token(
//       GPU:   gpu.launch_func
func.func @prepend_class_token(%x: tensor<?x?x64xf32>, %c: tensor<1x1x64xf32>) -> tensor<?x?x64xf32> {
  %r = tfm.prepend_class_token %x, %c : (tensor<?x?x64xf32>, tensor<1x1x64xf32>) -> tensor<?x?x64xf32>
  return %r : tensor<?x?x64xf32>
}
