//===- TfmOps.td - tfm operations --------------------------*- tablegen -*-===//
//
// Operations are grouped by family, as the C++ that verifies them is:
// attention (AttentionOps.cpp), layers (LayerOps.cpp) and embeddings
// (EmbeddingOps.cpp). The structured ops that code generation tiles come
// last (OnlineAttention.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef TFM_DIALECT_TFM_IR_TFMOPS_TD
#define TFM_DIALECT_TFM_IR_TFMOPS_TD

include "tfm/Dialect/Tfm/IR/TfmDialect.td"
include "tfm/Dialect/Tfm/IR/TfmAttrs.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/DestinationStyleOpInterface.td"
include "mlir/Interfaces/TilingInterface.td"
include "mlir/Dialect/Linalg/IR/LinalgInterfaces.td"

/// A tfm op whose result type is computed from its operands; the verifier
/// checks the rest of the operands against it. A declared result type must be
/// compatible with the inferred one: equal where both sizes are static, so
/// that either may refine a `?` of the other.
class Tfm_InferredOp<string mnemonic, list<Trait> traits = []>
    : Tfm_Op<mnemonic, !listconcat(traits,
          [Pure, InferTypeOpAdaptorWithIsCompatible])> {
  let hasVerifier = 1;
  let extraClassDefinition = [{
    bool $cppClass::isCompatibleReturnTypes(::mlir::TypeRange l,
                                            ::mlir::TypeRange r) {
      return ::mlir::tfm::areCompatibleTensorTypes(l, r);
    }
  }];
}

//===----------------------------------------------------------------------===//
// Attention family
//===----------------------------------------------------------------------===//

def Tfm_BatchMatmulOp : Tfm_InferredOp<"batch_matmul"> {
  let summary = "batched matrix product (torch.bmm)";
  let description = [{
    Multiplies the matrices in the last two dimensions of `lhs` and `rhs`,
    batch by batch: `lhs` is `[..., M, K]` and `rhs` is `[..., K, N]`, or
    `[..., N, K]` when `transpose_rhs` is set, as in the seed's
    `torch.bmm(queries, keys.transpose(1, 2))`. Both operands have the same
    rank (at least 3) and the same batch dimensions; the result is
    `[..., M, N]`.

    ```mlir
    %s = tfm.batch_matmul %q, %k {transpose_rhs}
        : (tensor<2x3x4xf32>, tensor<2x6x4xf32>) -> tensor<2x3x6xf32>
    ```
  }];
  let arguments = (ins Tfm_FloatTensor:$lhs, Tfm_FloatTensor:$rhs,
                       UnitAttr:$transpose_rhs);
  let results = (outs Tfm_FloatTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` functional-type(operands, results)
  }];
}

def Tfm_MaskedSoftmaxOp : Tfm_InferredOp<"masked_softmax"> {
  let summary = "softmax over the last dimension, masked by valid lengths";
  let description = [{
    d2l's `masked_softmax`: the softmax over the last dimension of `input`,
    where the scores of key positions at or past the row's valid length are
    replaced by -1e6 before the softmax. A row whose valid length is 0 thus
    becomes the uniform distribution over all keys, exactly as in d2l.

    `valid_lens` is optional. For an input of shape `[..., Q, K]` it is
    either `[...]` (one length per batch, shared by all its queries) or
    `[..., Q]` (one length per query), of `i32` or `i64`.

    ```mlir
    %w = tfm.masked_softmax %scores valid_lens(%lens)
        : (tensor<2x2x4xf32>, tensor<2xi32>) -> tensor<2x2x4xf32>
    ```
  }];
  let arguments = (ins Tfm_FloatTensor:$input,
                       Optional<Tfm_IntTensor>:$valid_lens);
  let results = (outs Tfm_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`valid_lens` `(` $valid_lens^ `)`)? attr-dict `:`
    functional-type(operands, results)
  }];
  let hasCanonicalizer = 1;
}

def Tfm_AttentionOp : Tfm_InferredOp<"attention", [AttrSizedOperandSegments]> {
  let summary = "scaled dot-product attention";
  let description = [{
    `softmax(mask(Q Kᵀ · scale)) V` over the last two dimensions of `query`
    (`[..., Sq, D]`), `key` (`[..., Sk, D]`) and `value` (`[..., Sk, Dv]`),
    giving `[..., Sq, Dv]`. All three have the same rank (at least 2) and the
    same leading batch dimensions; d2l's layout is `[batch * heads, S, D]`,
    PyTorch's `[batch, heads, S, D]`, and both are accepted.

    Grouped-query attention (Llama 2/3, Mistral, Qwen): `key` and `value`
    may have fewer heads than `query` in the last batch dimension, a static
    divisor `H_kv` of the query's `H_q`. Query head `h` then attends with
    key/value head `h / (H_q / H_kv)`, as after PyTorch's `repeat_kv`
    (`repeat_interleave` along the heads), but the repeats are never
    materialised: the lowering reads each key/value head once for the query
    heads of its group. `mask` and `valid_lens` are the query's.

    The scores are formed in this order:

    1. `Q Kᵀ · scale`, where `scale` defaults to `1/sqrt(D)`;
    2. plus `mask`, an additive float mask broadcastable to the score shape
       `[..., Sq, Sk]` (numpy rules, aligned on the right);
    3. `valid_lens` (`[...]` per batch or `[..., Sq]` per query,
       `i32`/`i64`) replaces the scores of keys at or past the length by
       -1e6, with d2l's semantics (see `tfm.masked_softmax`): a row of length
       0 attends uniformly;
    4. `causal` sets the score of key `j > i + query_offset` to -inf for
       query `i`, so that even a row of length 0 attends only to the keys
       before it. Without `query_offset` (0) the mask is aligned at the top
       left, as PyTorch's `is_causal`; a decoder with a key/value cache
       passes the number of positions before this call's queries (the
       cache's length), so that query `i` is position `query_offset + i`
       and sees the keys up to it.
    - `dropout` is the rate of the dropout on the attention weights in the
      source model; it is the identity at inference.

    This is the op that attention fusion produces. Its iteration space is
    batch dimensions × `Sq` (parallel) × `Sk` (reduction, online softmax) ×
    `Dv` (parallel), which is what tiled lowerings split into blocks.

    ```mlir
    %o = tfm.attention %q, %k, %v valid_lens(%lens) {causal}
        : (tensor<8x10x16xf32>, tensor<8x10x16xf32>, tensor<8x10x16xf32>,
           tensor<8xi32>) -> tensor<8x10x16xf32>
    // One new query against the cache's %past earlier keys and itself.
    %d = tfm.attention %q1, %keys, %values query_offset(%past) {causal}
        : (tensor<1x12x1x64xf32>, tensor<1x12x?x64xf32>,
           tensor<1x12x?x64xf32>, index) -> tensor<1x12x1x64xf32>
    // Eight query heads sharing two key/value heads.
    %g = tfm.attention %q8, %k2, %v2 {causal}
        : (tensor<1x8x16x64xf32>, tensor<1x2x16x64xf32>,
           tensor<1x2x16x64xf32>) -> tensor<1x8x16x64xf32>
    ```
  }];
  let arguments = (ins Tfm_FloatTensor:$query, Tfm_FloatTensor:$key,
                       Tfm_FloatTensor:$value,
                       Optional<Tfm_IntTensor>:$valid_lens,
                       Optional<Tfm_FloatTensor>:$mask,
                       Optional<Index>:$query_offset,
                       OptionalAttr<F64Attr>:$scale,
                       UnitAttr:$causal,
                       Tfm_DefaultF64<"0.0">:$dropout);
  let results = (outs Tfm_FloatTensor:$result);
  let assemblyFormat = [{
    $query `,` $key `,` $value
    (`valid_lens` `(` $valid_lens^ `)`)?
    (`mask` `(` $mask^ `)`)?
    (`query_offset` `(` $query_offset^ `)`)?
    attr-dict `:` functional-type(operands, results)
  }];
  let extraClassDeclaration = [{
    /// The scale applied to Q Kᵀ: `scale` if given, else 1/sqrt(D), or
    /// std::nullopt when D is dynamic and no scale is given.
    std::optional<double> getEffectiveScale();

    /// The query heads per key/value head: 1, or H_q / H_kv for a
    /// grouped-query attention.
    int64_t getQueryGroup();
  }];
  let hasCanonicalizer = 1;
}

def Tfm_KvCacheAppendOp : Tfm_Op<"kv_cache_append", [Pure]> {
  let summary = "write a step's keys or values into a key/value cache";
  let description = [{
    A decoder's key/value cache: `cache` (`[..., max_len, D]`, e.g.
    Hugging Face's `[batch, heads, max_len, head_dim]`) holds the keys (or
    values) of the `position` earlier positions in its first rows along the
    second-to-last dimension. The op writes `update` (`[..., S, D]`, this
    call's S positions) at rows `position .. position + S` and returns the
    cache so written (`updated`) and its first `position + S` rows
    (`prefix`), the keys an attention over everything so far reads:

    ```mlir
    %cache1, %keys = tfm.kv_cache_append %cache, %k at %past
        : tensor<1x12x1024x64xf32>, tensor<1x12x?x64xf32>
        -> tensor<1x12x1024x64xf32>, tensor<1x12x?x64xf32>
    %o = tfm.attention %q, %keys, %values query_offset(%past) {causal} ...
    ```

    The leading dimensions and `D` of `update` are the cache's. `updated`
    is returned by the function that takes `cache`, so that bufferization
    writes the S new rows into the caller's buffer in place: a step copies
    no more of the cache than its own positions. `position + S` must be at
    most `max_len`; the lowering checks it at run time.
  }];
  let arguments = (ins Tfm_FloatTensor:$cache, Tfm_FloatTensor:$update,
                       Index:$position);
  let results = (outs Tfm_FloatTensor:$updated, Tfm_FloatTensor:$prefix);
  let assemblyFormat = [{
    $cache `,` $update `at` $position attr-dict `:` type($cache) `,`
    type($update) `->` type($updated) `,` type($prefix)
  }];
  let hasVerifier = 1;
}

def Tfm_AdditiveAttentionOp : Tfm_InferredOp<"additive_attention"> {
  let summary = "additive (Bahdanau) attention";
  let description = [{
    d2l's `AdditiveAttention`: the score of query `q` and key `k` is
    `w_v · tanh(W_q q + W_k k)`, the weights are the masked softmax of the
    scores over the keys, and the result is their weighted sum of `value`.

    `query` is `[..., Sq, Dq]`, `key` `[..., Sk, Dk]`, `value`
    `[..., Sk, Dv]`; the weights are in `nn.Linear` layout without bias:
    `w_q` `[H, Dq]`, `w_k` `[H, Dk]` and `w_v` `[1, H]`. `valid_lens` is as
    for `tfm.masked_softmax`. The result is `[..., Sq, Dv]`.

    ```mlir
    %o = tfm.additive_attention %q, %k, %v weights(%wq, %wk, %wv)
        : (tensor<2x1x20xf32>, tensor<2x10x2xf32>, tensor<2x10x4xf32>,
           tensor<8x20xf32>, tensor<8x2xf32>, tensor<1x8xf32>)
        -> tensor<2x1x4xf32>
    ```
  }];
  let arguments = (ins Tfm_FloatTensor:$query, Tfm_FloatTensor:$key,
                       Tfm_FloatTensor:$value, Tfm_FloatTensor:$w_q,
                       Tfm_FloatTensor:$w_k, Tfm_FloatTensor:$w_v,
                       Optional<Tfm_IntTensor>:$valid_lens,
                       Tfm_DefaultF64<"0.0">:$dropout);
  let results = (outs Tfm_FloatTensor:$result);
  let assemblyFormat = [{
    $query `,` $key `,` $value `weights` `(` $w_q `,` $w_k `,` $w_v `)`
    (`valid_lens` `(` $valid_lens^ `)`)?
    attr-dict `:` functional-type(operands, results)
  }];
}

def Tfm_KernelPoolingOp : Tfm_InferredOp<"kernel_pooling"> {
  let summary = "attention pooling by similarity (Nadaraya-Watson)";
  let description = [{
    d2l 11.2: each query `q` pools the values with weights
    `α(q, kᵢ) = K((q - kᵢ) / bandwidth) / Σⱼ K((q - kⱼ) / bandwidth)`, where
    the kernel `K` is one of

    - `gaussian`: `exp(-x²/2)`,
    - `boxcar`: `1 if |x| < 1 else 0`,
    - `constant`: `1`,
    - `epanechikov`: `max(0, 1 - |x|)`.

    `queries` is `[..., Q]` and `keys` `[..., K]` (scalar features, as in
    d2l); `values` is `[..., K]` for scalar values or `[..., K, Dv]` for
    vector values, giving `[..., Q]` or `[..., Q, Dv]`. As in d2l, a query
    with no key inside a compact kernel's support has weights 0/0 (NaN).

    ```mlir
    %y = tfm.kernel_pooling %x_val, %x_train, %y_train
        {kernel = #tfm.kernel<gaussian>}
        : (tensor<40xf32>, tensor<50xf32>, tensor<50xf32>) -> tensor<40xf32>
    ```
  }];
  let arguments = (ins Tfm_FloatTensor:$queries, Tfm_FloatTensor:$keys,
                       Tfm_FloatTensor:$values,
                       Tfm_PoolingKernelAttr:$kernel,
                       Tfm_DefaultF64<"1.0">:$bandwidth);
  let results = (outs Tfm_FloatTensor:$result);
  let assemblyFormat = [{
    $queries `,` $keys `,` $values attr-dict `:`
    functional-type(operands, results)
  }];
}

def Tfm_SplitHeadsOp : Tfm_InferredOp<"split_heads"> {
  let summary = "split the model dimension into heads (d2l's transpose_qkv)";
  let description = [{
    Reshapes `[B, S, H * Dh]` to `[B, S, H, Dh]`, permutes it to
    `[B, H, S, Dh]` and flattens it to `[B * H, S, Dh]`, where
    `H = num_heads`: the seed's `transpose_qkv`.

    ```mlir
    %h = tfm.split_heads %x {num_heads = 5 : i64}
        : (tensor<2x4x100xf32>) -> tensor<10x4x20xf32>
    ```
  }];
  let arguments = (ins Tfm_FloatTensor:$input,
                       ConfinedAttr<I64Attr, [IntPositive]>:$num_heads);
  let results = (outs Tfm_FloatTensor:$result);
  let assemblyFormat = [{
    $input attr-dict `:` functional-type(operands, results)
  }];
  let hasFolder = 1;
}

def Tfm_MergeHeadsOp : Tfm_InferredOp<"merge_heads"> {
  let summary = "concatenate heads again (d2l's transpose_output)";
  let description = [{
    The inverse of `tfm.split_heads`: `[B * H, S, Dh]` to `[B, S, H * Dh]`,
    where `H = num_heads`: the seed's `transpose_output`.

    ```mlir
    %x = tfm.merge_heads %h {num_heads = 5 : i64}
        : (tensor<10x4x20xf32>) -> tensor<2x4x100xf32>
    ```
  }];
  let arguments = (ins Tfm_FloatTensor:$input,
                       ConfinedAttr<I64Attr, [IntPositive]>:$num_heads);
  let results = (outs Tfm_FloatTensor:$result);
  let assemblyFormat = [{
    $input attr-dict `:` functional-type(operands, results)
  }];
  let hasFolder = 1;
}

def Tfm_MultiHeadAttentionOp
    : Tfm_InferredOp<"multi_head_attention", [AttrSizedOperandSegments]> {
  let summary = "multi-head attention with input and output projections";
  let description = [{
    d2l's `MultiHeadAttention`:
    `W_o · merge_heads(attention(split_heads(W_q q), split_heads(W_k k),
    split_heads(W_v v)))`, with `num_heads` heads.

    `query` is `[B, Sq, Dq]`, `key` `[B, Sk, Dk]`, `value` `[B, Sk, Dv]`.
    The projections are in `nn.Linear` layout: `w_q` `[D, Dq]`, `w_k`
    `[D, Dk]`, `w_v` `[D, Dv]` and `w_o` `[Do, D]`, where `num_heads`
    divides the model dimension `D`. Biases are optional, all four or none
    (`[D]`, `[D]`, `[D]`, `[Do]`). The result is `[B, Sq, Do]`.

    `valid_lens` (`[B]` or `[B, Sq]`) applies to every head, like d2l's
    `repeat_interleave`; `mask` is an additive mask broadcastable to the
    per-head scores `[B * num_heads, Sq, Sk]`; `causal`, `scale` and
    `dropout` are as for `tfm.attention`, where `scale` defaults to
    `1/sqrt(D / num_heads)`.

    Grouped-query attention: with `num_kv_heads` (a divisor of `num_heads`,
    which it defaults to), `w_k` and `w_v` project to that many heads,
    `[num_kv_heads · D / num_heads, Dk]` (and `[num_kv_heads · D /
    num_heads]` biases), each shared by `num_heads / num_kv_heads`
    consecutive query heads as in `tfm.attention`; `num_kv_heads = 1` is
    multi-query attention.

    ```mlir
    %y = tfm.multi_head_attention %x, %x, %x
        weights(%wq, %wk, %wv, %wo) valid_lens(%lens) {num_heads = 4 : i64}
        : (tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<2x4x32xf32>,
           tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>,
           tensor<32x32xf32>, tensor<2xi32>) -> tensor<2x4x32xf32>
    ```
  }];
  let arguments = (ins Tfm_FloatTensor:$query, Tfm_FloatTensor:$key,
                       Tfm_FloatTensor:$value,
                       Tfm_FloatTensor:$w_q, Tfm_FloatTensor:$w_k,
                       Tfm_FloatTensor:$w_v, Tfm_FloatTensor:$w_o,
                       Optional<Tfm_FloatTensor>:$b_q,
                       Optional<Tfm_FloatTensor>:$b_k,
                       Optional<Tfm_FloatTensor>:$b_v,
                       Optional<Tfm_FloatTensor>:$b_o,
                       Optional<Tfm_IntTensor>:$valid_lens,
                       Optional<Tfm_FloatTensor>:$mask,
                       ConfinedAttr<I64Attr, [IntPositive]>:$num_heads,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntPositive]>>
                           :$num_kv_heads,
                       OptionalAttr<F64Attr>:$scale,
                       UnitAttr:$causal,
                       Tfm_DefaultF64<"0.0">:$dropout);
  let results = (outs Tfm_FloatTensor:$result);
  let extraClassDeclaration = [{
    /// The key/value heads: `num_kv_heads`, or `num_heads` without it.
    int64_t getKeyValueHeads() {
      return getNumKvHeads().value_or(getNumHeads());
    }
  }];
  let assemblyFormat = [{
    $query `,` $key `,` $value
    `weights` `(` $w_q `,` $w_k `,` $w_v `,` $w_o `)`
    (`biases` `(` $b_q^ `,` $b_k `,` $b_v `,` $b_o `)`)?
    (`valid_lens` `(` $valid_lens^ `)`)?
    (`mask` `(` $mask^ `)`)?
    attr-dict `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Layer family
//===----------------------------------------------------------------------===//

def Tfm_LinearOp : Tfm_InferredOp<"linear"> {
  let summary = "fully connected layer: x·Wᵀ + b, then an activation";
  let description = [{
    `nn.Linear` over the last dimension: `input` is `[..., K]`, `weight` is
    `[N, K]` and the optional `bias` is `[N]`; the result is `[..., N]`.
    `activation` (default `none`) is applied to the result, which is how the
    graph optimizer fuses a following ReLU, GELU or SiLU (`x · sigmoid(x)`,
    Llama's gate).

    ```mlir
    %y = tfm.linear %x, %w, %b {activation = #tfm.activation<relu>}
        : (tensor<2x4x8xf32>, tensor<16x8xf32>, tensor<16xf32>)
        -> tensor<2x4x16xf32>
    ```
  }];
  let arguments = (ins Tfm_FloatTensor:$input, Tfm_FloatTensor:$weight,
                       Optional<Tfm_FloatTensor>:$bias,
                       Tfm_Default<Tfm_ActivationAttr,
                                   "::mlir::tfm::Activation::none", "none">
                           :$activation);
  let results = (outs Tfm_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? attr-dict `:`
    functional-type(operands, results)
  }];
}

def Tfm_FfnOp : Tfm_InferredOp<"ffn", [AttrSizedOperandSegments]> {
  let summary = "position-wise feed-forward network";
  let description = [{
    d2l's `PositionWiseFFN` and ViT's MLP:
    `dense2(dropout(activation(dense1(x))))`. `input` is `[..., D]`, `w1`
    `[F, D]` with optional bias `b1` `[F]`, `w2` `[Do, F]` with optional
    bias `b2` `[Do]`; the result is `[..., Do]`. `activation` is `relu`
    (d2l, the default), `gelu` or `gelu_tanh` (ViT), or `silu`.

    The gated form (GLU variants: SwiGLU in Llama, Mistral and Qwen, GeGLU
    in T5 v1.1 and Gemma) has a third projection, the gate `w_gate`
    (`[F, D]`, with optional bias `b_gate` `[F]`), whose activation
    multiplies dense1's output elementwise:
    `dense2(dropout(activation(gate(x)) * dense1(x)))`, Llama's
    `down_proj(silu(gate_proj(x)) * up_proj(x))`.

    ```mlir
    %y = tfm.ffn %x dense1(%w1, %b1) dense2(%w2, %b2)
        {activation = #tfm.activation<gelu>}
        : (tensor<2x3x4xf32>, tensor<8x4xf32>, tensor<8xf32>,
           tensor<4x8xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
    %z = tfm.ffn %x gate(%wg) dense1(%wu) dense2(%wd)
        {activation = #tfm.activation<silu>}
        : (tensor<2x3x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>,
           tensor<4x8xf32>) -> tensor<2x3x4xf32>
    ```
  }];
  let arguments = (ins Tfm_FloatTensor:$input,
                       Optional<Tfm_FloatTensor>:$w_gate,
                       Optional<Tfm_FloatTensor>:$b_gate,
                       Tfm_FloatTensor:$w1, Optional<Tfm_FloatTensor>:$b1,
                       Tfm_FloatTensor:$w2, Optional<Tfm_FloatTensor>:$b2,
                       Tfm_Default<Tfm_ActivationAttr,
                                   "::mlir::tfm::Activation::relu", "relu">
                           :$activation,
                       Tfm_DefaultF64<"0.0">:$dropout);
  let results = (outs Tfm_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`gate` `(` $w_gate^ (`,` $b_gate^)? `)`)?
    `dense1` `(` $w1 (`,` $b1^)? `)` `dense2` `(` $w2 (`,` $b2^)? `)`
    attr-dict `:` functional-type(operands, results)
  }];
}

def Tfm_LayerNormOp : Tfm_InferredOp<"layer_norm"> {
  let summary = "layer normalization over the last dimension";
  let description = [{
    `(x - mean) / sqrt(var + epsilon) * gamma + beta` over the last
    dimension of `input` (`[..., D]`), with the biased variance, as
    `nn.LayerNorm(D)`. `gamma` and `beta` are `[D]`; `epsilon` defaults to
    1e-5, as `nn.LayerNorm`'s (ViT uses 1e-6).

    ```mlir
    %y = tfm.layer_norm %x, %gamma, %beta {epsilon = 1.0e-06 : f64}
        : (tensor<2x3x4xf32>, tensor<4xf32>, tensor<4xf32>)
        -> tensor<2x3x4xf32>
    ```
  }];
  let arguments = (ins Tfm_FloatTensor:$input, Tfm_FloatTensor:$gamma,
                       Tfm_FloatTensor:$beta,
                       Tfm_DefaultF64<"1.0e-5">:$epsilon);
  let results = (outs Tfm_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $gamma `,` $beta attr-dict `:`
    functional-type(operands, results)
  }];
}

def Tfm_RmsNormOp : Tfm_InferredOp<"rms_norm"> {
  let summary = "root-mean-square normalization over the last dimension";
  let description = [{
    `x / sqrt(mean(x²) + epsilon) * gamma` over the last dimension of
    `input` (`[..., D]`), as `nn.RMSNorm(D)` and the norms of Llama-style
    decoders: no centring and no bias. `gamma` is `[D]`; `epsilon`
    defaults to 1e-6 (Llama's). Computed in f32 for f16 inputs.

    ```mlir
    %y = tfm.rms_norm %x, %gamma {epsilon = 1.0e-05 : f64}
        : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
    ```
  }];
  let arguments = (ins Tfm_FloatTensor:$input, Tfm_FloatTensor:$gamma,
                       Tfm_DefaultF64<"1.0e-6">:$epsilon);
  let results = (outs Tfm_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $gamma attr-dict `:` functional-type(operands, results)
  }];
}

def Tfm_AddNormOp : Tfm_InferredOp<"add_norm"> {
  let summary = "residual connection then layer norm (post-norm)";
  let description = [{
    d2l's `AddNorm`: `layer_norm(dropout(sublayer) + residual)`, with
    `residual` and `sublayer` of the same shape `[..., D]` and `gamma`,
    `beta` of shape `[D]`.

    ```mlir
    %y = tfm.add_norm %x, %attn, %gamma, %beta
        : (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<4xf32>,
           tensor<4xf32>) -> tensor<2x3x4xf32>
    ```
  }];
  let arguments = (ins Tfm_FloatTensor:$residual, Tfm_FloatTensor:$sublayer,
                       Tfm_FloatTensor:$gamma, Tfm_FloatTensor:$beta,
                       Tfm_DefaultF64<"1.0e-5">:$epsilon,
                       Tfm_DefaultF64<"0.0">:$dropout);
  let results = (outs Tfm_FloatTensor:$result);
  let assemblyFormat = [{
    $residual `,` $sublayer `,` $gamma `,` $beta attr-dict `:`
    functional-type(operands, results)
  }];
}

def Tfm_GeluOp : Tfm_Op<"gelu",
    [Pure, SameOperandsAndResultType, InferTypeOpInterface]> {
  let summary = "Gaussian error linear unit";
  let description = [{
    `x · Φ(x) = 0.5 x (1 + erf(x / sqrt(2)))` elementwise, or with
    `approximate = tanh` the form
    `0.5 x (1 + tanh(sqrt(2/π) (x + 0.044715 x³)))`, as PyTorch's
    `nn.GELU(approximate=...)`.

    ```mlir
    %y = tfm.gelu %x {approximate = #tfm.gelu_approximation<tanh>}
        : tensor<2x3xf32>
    ```
  }];
  let arguments = (ins Tfm_FloatTensor:$input,
                       Tfm_Default<Tfm_GeluApproximationAttr,
                                   "::mlir::tfm::GeluApproximation::none",
                                   "none">
                           :$approximate);
  let results = (outs Tfm_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def Tfm_DropoutOp : Tfm_Op<"dropout",
    [Pure, SameOperandsAndResultType, InferTypeOpInterface]> {
  let summary = "dropout, the identity at inference";
  let description = [{
    Dropout with probability `rate` in `[0, 1)`, kept so that graphs mirror
    their source model. tfm compiles for inference, where dropout is the
    identity, so the op folds to its input.

    ```mlir
    %y = tfm.dropout %x {rate = 1.0e-01 : f64} : tensor<2x3xf32>
    ```
  }];
  let arguments = (ins Tfm_FloatTensor:$input, F64Attr:$rate);
  let results = (outs Tfm_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Embedding family
//===----------------------------------------------------------------------===//

def Tfm_EmbeddingOp : Tfm_InferredOp<"embedding"> {
  let summary = "token embedding lookup";
  let description = [{
    Gathers rows of `table` (`[V, D]`) at the token ids in `indices`
    (`[...]`, `i32` or `i64`), giving `[..., D]`. With `scale_by_sqrt_dim`
    the result is multiplied by `sqrt(D)`, as d2l's `TransformerEncoder`
    does before adding the positional encoding. An id outside `[0, V)`
    stops the compiled program with a message naming the op, as PyTorch
    raises an IndexError (the lowering checks the ids first).

    ```mlir
    %e = tfm.embedding %ids, %table {scale_by_sqrt_dim}
        : (tensor<2x100xi64>, tensor<200x24xf32>) -> tensor<2x100x24xf32>
    ```
  }];
  let arguments = (ins Tfm_IntTensor:$indices, Tfm_FloatTensor:$table,
                       UnitAttr:$scale_by_sqrt_dim);
  let results = (outs Tfm_FloatTensor:$result);
  let assemblyFormat = [{
    $indices `,` $table attr-dict `:` functional-type(operands, results)
  }];
}

def Tfm_PositionalEncodingOp : Tfm_Op<"positional_encoding",
    [Pure, SameOperandsAndResultType, InferTypeOpInterface]> {
  let summary = "add the sinusoidal positional encoding";
  let description = [{
    d2l's `PositionalEncoding` without its dropout: `X + P` for `X` of shape
    `[..., S, D]`, where `P[i, 2j] = sin(i / 10000^(2j/D))` and
    `P[i, 2j+1] = cos(i / 10000^(2j/D))`. `D` must be even, as in d2l.

    ```mlir
    %y = tfm.positional_encoding %x : tensor<1x60x32xf32>
    ```
  }];
  let arguments = (ins Tfm_FloatTensor:$input);
  let results = (outs Tfm_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def Tfm_RotaryEmbeddingOp : Tfm_InferredOp<"rotary_embedding"> {
  let summary = "rotary position embedding (RoPE)";
  let description = [{
    Rotates each pair of features `(a, b)` of `input` (`[..., S, D]`, D
    even and static) at position `p = offset + s` by the angle whose cosine
    and sine are `cos[p, i]` and `sin[p, i]` (tables `[P, D/2]`, one
    frequency `i` per pair): `(a, b) -> (a cos - b sin, b cos + a sin)`.
    The pairs are `(x[i], x[i + D/2])`, the rotate-half layout of Llama and
    GPT-NeoX (the default), or `(x[2i], x[2i + 1])` with `interleaved`
    (GPT-J, the RoFormer paper). `offset` (default 0) is the position of
    the first row, the cache's length in a decoding step; `offset + S` must
    be at most `P`, which the lowering checks at run time. Computed in f32
    for f16 inputs.

    ```mlir
    %q = tfm.rotary_embedding %x, %cos, %sin offset(%past)
        : (tensor<1x8x1x64xf32>, tensor<2048x32xf32>, tensor<2048x32xf32>,
           index) -> tensor<1x8x1x64xf32>
    ```
  }];
  let arguments = (ins Tfm_FloatTensor:$input, Tfm_FloatTensor:$cos,
                       Tfm_FloatTensor:$sin, Optional<Index>:$offset,
                       UnitAttr:$interleaved);
  let results = (outs Tfm_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $cos `,` $sin (`offset` `(` $offset^ `)`)? attr-dict `:`
    functional-type(operands, results)
  }];
}

def Tfm_PatchEmbedOp : Tfm_InferredOp<"patch_embed"> {
  let summary = "ViT patch embedding";
  let description = [{
    Cuts the NCHW `image` (`[B, C, H, W]`) into non-overlapping `ph × pw`
    patches and projects each flattened patch to `D` features: a
    convolution with kernel and stride `ph × pw` (`weight` is
    `[D, C, ph, pw]`, the layout of `nn.Conv2d`, with optional `bias` `[D]`)
    whose output is flattened to `[B, (H/ph) · (W/pw), D]` in row-major
    patch order, as d2l's and torchvision's ViT do. `H` and `W` must be
    multiples of the patch size.

    ```mlir
    %p = tfm.patch_embed %img, %w, %b
        : (tensor<1x3x32x32xf32>, tensor<24x3x16x16xf32>, tensor<24xf32>)
        -> tensor<1x4x24xf32>
    ```
  }];
  let arguments = (ins Tfm_FloatTensor:$image, Tfm_FloatTensor:$weight,
                       Optional<Tfm_FloatTensor>:$bias);
  let results = (outs Tfm_FloatTensor:$result);
  let assemblyFormat = [{
    $image `,` $weight (`,` $bias^)? attr-dict `:`
    functional-type(operands, results)
  }];
}

def Tfm_PrependClassTokenOp : Tfm_InferredOp<"prepend_class_token"> {
  let summary = "prepend ViT's learned class token to every sequence";
  let description = [{
    Concatenates `class_token` (`[1, 1, D]`, the shape of the ViT
    parameter) in front of each sequence of `input` (`[B, N, D]`), giving
    `[B, N + 1, D]`.

    ```mlir
    %t = tfm.prepend_class_token %patches, %cls
        : (tensor<1x196x768xf32>, tensor<1x1x768xf32>) -> tensor<1x197x768xf32>
    ```
  }];
  let arguments = (ins Tfm_FloatTensor:$input, Tfm_FloatTensor:$class_token);
  let results = (outs Tfm_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $class_token attr-dict `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Structured ops for code generation
//===----------------------------------------------------------------------===//

def Tfm_OnlineAttentionOp : Tfm_Op<"online_attention", [
    Pure, AttrSizedOperandSegments,
    DestinationStyleOpInterface,
    DeclareOpInterfaceMethods<TilingInterface, [
        "getLoopIteratorTypes", "getIterationDomain",
        "getTiledImplementation", "getResultTilePosition"]>,
    DeclareOpInterfaceMethods<AggregatedOpInterface, ["decomposeOperation"]>
  ]> {
  let summary = "attention as a running softmax state, for tiling";
  let description = [{
    The structured form of `tfm.attention` that code generation tiles, and
    the one place where attention's arithmetic is written. It folds the keys
    of `key_t` and `value` into the running state of an online softmax:
    for every query row, `max` (the largest score so far), `sum` (the sum of
    `exp(score - max)`) and `acc` (the sum of `exp(score - max) · value`).
    With the state initialised to `-inf`, `0` and `0`, `acc / sum` after all
    keys is `softmax(scores) · value`. For a block of keys:

    ```
    s    = (Q · Kᵀ) · scale, then mask, valid_lens and causal as in
           tfm.attention
    m'   = max(max, rowmax(s))
    p    = exp(s - m')
    sum' = sum · exp(max - m') + rowsum(p)
    acc' = acc · exp(max - m') + p · V
    ```

    Operands, with `B...` one or more batch dimensions:
    - `query` `[B..., M, D]`, `key_t` (the keys transposed, so that both
      products read row-major operands) `[B..., D, K]` and `value`
      `[B..., K, N]`, of any float type;
    - `valid_lens` `[B...]` or `[B..., M]` (`i32`/`i64`): keys at or past
      the length get d2l's masked score -1e6;
    - `mask` `[B'..., M, K]`, an additive f32 mask whose batch dimensions
      are each 1 (shared) or the batch size;
    - `offsets(q, k)`: the positions of the first query and the first key
      of this op in the whole attention (0 when absent), which causal
      masking and `valid_lens` compare against; tiling sets them;
    - `acc` `[B..., M, N]`, `max` and `sum` `[B..., M]`, f32: the state;
    - `query_group` (default 1): the rows of one query position. A
      grouped-query attention lowers with the query heads of each key/value
      head interleaved as rows (`[B..., H_kv, S_q · g, D]`), so that a block
      of keys is read once for all of them; row `r` is then position
      `r / query_group` for the causal mask, and the query offset counts
      rows (`valid_lens` and `mask` are per row).

    `scale` defaults to `1/sqrt(D)`. The iteration space is `B...`
    (parallel) × `M` (parallel) × `K` (reduction): tiling `K` into a loop
    gives flash attention, and the decomposition of a tile is one key-block
    step of the online softmax. A step that no query of the tile can see
    (every key above the diagonal when `causal`, or past a per-batch
    length) leaves the state unchanged and does no work.

    The op has no fixed tile size: a `lowering_config` attribute (see
    `#tfm.lowering_config`) on it says how code generation tiles it.

    ```mlir
    %acc, %max, %sum = tfm.online_attention %q, %kt, %v {causal}
        outs(%acc0, %max0, %sum0 : tensor<12x64x64xf32>, tensor<12x64xf32>,
                                   tensor<12x64xf32>)
        : tensor<12x64x64xf32>, tensor<12x64x64xf32>, tensor<12x64x64xf32>
        -> tensor<12x64x64xf32>, tensor<12x64xf32>, tensor<12x64xf32>
    ```
  }];
  let arguments = (ins Tfm_FloatTensor:$query, Tfm_FloatTensor:$key_t,
                       Tfm_FloatTensor:$value,
                       Optional<Tfm_IntTensor>:$valid_lens,
                       Optional<F32Tensor>:$mask,
                       Optional<Index>:$query_offset,
                       Optional<Index>:$key_offset,
                       F32Tensor:$acc, F32Tensor:$max, F32Tensor:$sum,
                       OptionalAttr<F64Attr>:$scale,
                       UnitAttr:$causal,
                       Tfm_Default<I64Attr, "1">:$query_group);
  let results = (outs F32Tensor:$acc_result, F32Tensor:$max_result,
                      F32Tensor:$sum_result);
  let assemblyFormat = [{
    $query `,` $key_t `,` $value
    (`valid_lens` `(` $valid_lens^ `:` type($valid_lens) `)`)?
    (`mask` `(` $mask^ `:` type($mask) `)`)?
    (`offsets` `(` $query_offset^ `,` $key_offset `)`)?
    attr-dict
    `outs` `(` $acc `,` $max `,` $sum `:` type($acc) `,` type($max) `,`
    type($sum) `)`
    `:` type($query) `,` type($key_t) `,` type($value) `->` type(results)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The number of leading batch dimensions.
    int64_t getBatchRank() { return getQuery().getType().getRank() - 2; }

    /// The accumulators, the op's destinations: its last three operands.
    ::mlir::MutableOperandRange getDpsInitsMutable() {
      return ::mlir::MutableOperandRange(getOperation(),
                                         getOperation()->getNumOperands() - 3,
                                         3);
    }
  }];
}

#endif // TFM_DIALECT_TFM_IR_TFMOPS_TD
