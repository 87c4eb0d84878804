//===- Passes.td - graph rewrites on tfm -------------------*- tablegen -*-===//

#ifndef TFM_DIALECT_TFM_TRANSFORMS_PASSES_TD
#define TFM_DIALECT_TFM_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TfmDecompose : Pass<"tfm-decompose"> {
  let summary = "Decompose composite tfm ops into the primitives they are "
                "built from";
  let description = [{
    Rewrites the composite layers of the tfm dialect into the primitive tfm
    and upstream ops that d2l builds them from:

    - `tfm.multi_head_attention` becomes three `tfm.linear` projections
      (for a self-attention, where query, key and value are one value, a
      single `tfm.linear` on the `tensor.concat` of W_q, W_k and W_v, and of
      their biases, whose `[..., 3 · D]` result `tensor.extract_slice` cuts
      into the three), `tfm.split_heads` on each, one `tfm.attention` over
      `[batch * heads, seq, head_dim]`, `tfm.merge_heads` and the output
      `tfm.linear`. `valid_lens` is repeated for every head as d2l's
      `repeat_interleave` does.
    - `tfm.ffn` becomes a `tfm.linear` carrying the activation followed by a
      second `tfm.linear`; the gated form the gate's `tfm.linear` with the
      activation times dense1's (`arith.mulf`), then the second.
    - `tfm.add_norm` becomes an `arith.addf` of the residual and the
      sub-layer followed by `tfm.layer_norm`.

    Dropout is the identity at inference and disappears. After this pass the
    code generators only see primitive ops.

    ```mlir
    %y = tfm.ffn %x dense1(%w1, %b1) dense2(%w2, %b2) : ...
    // becomes
    %h = tfm.linear %x, %w1, %b1 {activation = #tfm.activation<relu>} : ...
    %y = tfm.linear %h, %w2, %b2 : ...
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def TfmTensorParallel : Pass<"tfm-tensor-parallel", "::mlir::ModuleOp"> {
  let summary = "Split a Transformer over the ranks of a 1-D grid "
                "(Megatron-LM tensor parallelism)";
  let description = [{
    Splits each attention block and feed-forward of the public functions
    over `ranks` processes, as Megatron-LM does: the products on the way in
    by output features (whole heads, whole hidden units per rank), the
    products on the way out by input features, followed by one
    `shard.all_reduce` of their partial sums on the grid `@tfm_tp`. What it
    splits:

    - `tfm.multi_head_attention` (its heads; grouped-query attention's
      key/value heads too) and `tfm.ffn` (its hidden units, gated or not)
      whose weights are constants;
    - chains of primitives: a `tfm.linear` whose output flows, through
      reshapes, transposes, `tfm.split_heads`/`tfm.merge_heads`,
      `tfm.attention`, `tfm.rotary_embedding` and elementwise ops, into the
      input of another `tfm.linear`. A fused projection whose output
      `tensor.extract_slice` cuts into Q, K and V (as ONNX exports of
      `nn.MultiheadAttention` have it) is split per segment. A
      `tfm.kv_cache_append` of a rank's heads into a whole cache (an
      argument of the entry) appends to the rank's heads' part of it and
      writes that part back, so that the caches stay the entry's
      interface and are updated in place.

    Everything else runs whole on every rank. The entry's body becomes one
    private function per rank (`@main_rank0`, ...), whose weights are
    constants of that rank's slices; the entry calls its rank's
    (`shard.process_linear_index`). The bias of a product split by input
    features stays on rank 0 (zeros elsewhere), so the sum counts it once.
    The module records `tfm.tensor_parallel = ranks` and the MPI flavour
    (`dlti.map`, Open MPI) for `convert-shard-to-mpi`.

    Heads, hidden units or output features that `ranks` does not divide
    are dealt out as evenly as they go, the first ranks holding one more
    (a warning says so once per kind of block); fewer of them than ranks
    is an error, as is an op between the products with no rule.
  }];
  let options = [
    Option<"ranks", "ranks", "int64_t", /*default=*/"2",
           "The number of ranks (processes) to split over">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::DLTIDialect",
    "::mlir::func::FuncDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::shard::ShardDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

//===----------------------------------------------------------------------===//
// Graph optimizer: fusion
//===----------------------------------------------------------------------===//

def TfmExposeAttentionWeights : Pass<"tfm-expose-attention-weights",
                                      "::mlir::ModuleOp"> {
  let summary = "Return every attention's weights as extra results";
  let description = [{
    For attention heatmaps (d2l's `show_heatmaps`): every `tfm.attention`
    in a public function's body (after `tfm.multi_head_attention` is
    decomposed into one) also gets its weights computed, the softmax
    probabilities `[..., Sq, Sk]`, which the function returns after its own
    results, each with `tfm.name = "attention_<i>"` and the attention's
    location as `tfm.attention` (a string). The weights are recomputed
    beside the attention from its operands, in the order `tfm.attention`
    defines (`Q Kᵀ · scale`, plus the mask, `valid_lens`' -1e6, causal's
    -inf, softmax over the keys), so the fused attention itself is
    unchanged. `tfm-compile --attention-weights` runs it after the graph
    optimizer; the executable writes the extra results with
    `--dump-attention DIR`.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def TfmFuseMaskedSoftmax : Pass<"tfm-fuse-masked-softmax"> {
  let summary = "Fuse sequence masks before a softmax into tfm.masked_softmax";
  let description = [{
    Recognises d2l's `masked_softmax` as `torch.onnx.export` writes it:

    ```python
    mask = torch.arange(K, dtype=torch.float32)[None, :] < valid_len[:, None]
    X[~mask] = -1e6
    softmax(X.reshape(shape), dim=-1)
    ```

    that is a `linalg.softmax` over the last dimension of an `arith.select`
    (through reshapes that merge or split the rows and keep the last
    dimension) between the scores and a splat fill, whose condition compares
    the key index (a constant `0, ..., K-1` along the last dimension,
    through broadcasts) with lengths broadcast along the keys. `<`, `>` with
    the operands swapped, `>=` with the sides of the select swapped, and
    negations (`arith.xori` with true) are accepted, on floats or signed
    integers. The select and the softmax become
    `tfm.masked_softmax %scores valid_lens(%lens)`, with one length per row
    of the softmax (a per-batch length broadcast over the queries stays
    broadcast), and attention fusion then treats it as any masked softmax.

    The rewrite keeps the results exactly when the fill is at most -1e4 and
    finite: masked_softmax fills with -1e6, whose exp() is 0 next to any
    real score as the original fill's is, and a row without any valid key
    is uniform in both. Lengths compared as floats must come from 32- or
    64-bit integers through `arith.sitofp` (PyTorch's `valid_lens` are
    int64); float lengths, `-inf` fills (NaN rows) and dynamic shapes are
    left alone.
  }];
  let statistics = [
    Statistic<"numFused", "fused", "sequence masks fused into masked_softmax">,
  ];
  let dependentDialects = ["::mlir::tfm::TfmDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def TfmFuseAttention : Pass<"tfm-fuse-attention"> {
  let summary = "Fuse unfused scaled dot-product attention into tfm.attention";
  let description = [{
    Finds `softmax(mask(Q Kᵀ · scale)) V` written out op by op, as d2l's
    `DotProductAttention` and importers write it, and replaces it with one
    `tfm.attention`, which code generation can tile without materialising
    the score matrix. The match is anchored on the product with V and goes
    backwards.

    Recognised pieces:
    - Q·Kᵀ: `tfm.batch_matmul` (with `transpose_rhs` or an explicit
      transpose of K), `linalg.batch_matmul` / `linalg.matmul` with a
      transposing indexing map or a `linalg.transpose` of K. A product with
      a K that is not transposed at all (`Q · X`) is attention with
      `K = Xᵀ`, and a Q transposed by the indexing map is Q too; the pass
      transposes them.
    - The scale: a multiplication by a constant scalar, or a division by one,
      of the scores, or of Q (or K) before the product: `arith.mulf` /
      `arith.divf` by a splat constant, or an elementwise `linalg.generic`
      by a captured scalar constant or a splat or rank-0 constant input. The
      fused op always carries `scale` explicitly, 1.0 when there was none.
    - The softmax over the last dimension: `tfm.masked_softmax` (its
      `valid_lens` become the attention's), or `linalg.softmax` after an
      optional additive mask (`arith.addf`, through a `linalg.broadcast`, or
      an elementwise `linalg.generic` reading the mask through a broadcast
      map). A mask built from index comparisons (key index greater than
      query index selects a large negative value, else 0) or a constant that
      is 0 on and below the diagonal and at most -1e4 above it becomes
      `causal`; any other mask stays an additive `mask` operand.
    - The product with V: `tfm.batch_matmul`, `linalg.batch_matmul` or
      `linalg.matmul` (linalg products accumulating into zero, or into
      `tensor.empty`), with V plain or transposed (`transpose_rhs`, the
      indexing map).
    - Reshapes that only split or merge leading (batch or head) dimensions
      between the pieces. The fused op is built at the batch dimensions of
      Q·Kᵀ (or of the mask, when the mask has batch dimensions), with Q, K,
      V and valid_lens reshaped to them, and its result is reshaped back.
    - `tfm.dropout` anywhere in the chain; on the weights its rate becomes
      the attention's `dropout`.
    - Grouped-query attention: keys and values whose heads are repeated for
      groups of query heads (Hugging Face's `repeat_kv`, imported as a
      `linalg.broadcast` of a new dimension after the heads collapsed into
      them) are read unrepeated by the attention, of any origin (fused here
      or written in tfm IR), when both are repeated alike; counted in
      `grouped-query`.

    Nothing is fused when the semantics would change: a softmax over another
    dimension (`rejected-softmax-axis`); a scale that is not a constant
    scalar (`rejected-scale`); an intermediate (scores, weights, anything
    between them) with another user (`rejected-multi-use`); shapes that do
    not line up, such as a reshape that touches the last two dimensions or
    batch dimensions that cannot be regrouped (`rejected-shape`); a masking
    that is not additive (a select), a mask added before the scale, two
    additive masks, or a mask together with `valid_lens`
    (`rejected-mask`). Each rejection is counted in that pass statistic
    and, with `remarks`, reported as a remark at the product with V:
    `attention not fused (<statistic>): <reason>`; a fusion is reported as
    `fused attention`. Ops that are not a candidate (no softmax behind the
    product, or an unrecognised op on the scores) are left alone silently.
  }];
  let options = [
    Option<"remarks", "remarks", "bool", /*default=*/"false",
           "Emit a remark for every candidate fused or rejected, with the "
           "reason">,
  ];
  let statistics = [
    Statistic<"numFused", "fused", "Attention subgraphs fused">,
    Statistic<"numRejectedSoftmaxAxis", "rejected-softmax-axis",
              "Candidates rejected: softmax over another dimension">,
    Statistic<"numRejectedScale", "rejected-scale",
              "Candidates rejected: scale is not a constant scalar">,
    Statistic<"numRejectedMultiUse", "rejected-multi-use",
              "Candidates rejected: an intermediate has another user">,
    Statistic<"numRejectedShape", "rejected-shape",
              "Candidates rejected: shapes do not line up">,
    Statistic<"numRejectedMask", "rejected-mask",
              "Candidates rejected: a mask that is not additive">,
    Statistic<"numGroupedQuery", "grouped-query",
              "Attentions that read repeated key/value heads unrepeated">,
  ];
  let dependentDialects = [
    "::mlir::tfm::TfmDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def TfmFuseMultiHeadAttention : Pass<"tfm-fuse-multi-head-attention"> {
  let summary = "Fuse projections, head split/merge and attention into "
                "tfm.multi_head_attention";
  let description = [{
    Rewrites `linear(q) → split_heads`, the same for keys and values,
    `tfm.attention`, `merge_heads` and the output `linear` into one
    `tfm.multi_head_attention`, recovering d2l's per-batch `valid_lens` from
    their per-head repetition. The decomposition then computes the three
    projections of a self-attention with one GEMM on the packed
    `[W_q; W_k; W_v]` weight.

    Recognised pieces:
    - The projections: `tfm.linear` without activation, with or without a
      bias, each followed by `tfm.split_heads` with the head count of the
      `tfm.merge_heads`; or one `tfm.linear` on `tensor.concat` of the
      three weights (and biases) along dimension 0 whose result is cut with
      `tensor.extract_slice` into the three projections, the form
      `tfm-decompose` gives self-attention.
    - `valid_lens` of the attention: a `linalg.broadcast` of `[B]` or
      `[B, Sq]` to `[B, H, ...]` (`dimensions = [1]`) collapsed on its first
      two dimensions (`repeat_interleave`); the fused op takes the
      per-batch tensor. An additive `mask`, `causal` and `dropout` pass
      through. A `scale` equal to `1/sqrt(head_dim)` (to 1e-6) becomes the
      default; any other is kept.
    - Biases: `tfm.multi_head_attention` has all four or none. When only
      some projections have one, the others get a constant bias of zeros.

    Nothing is fused when an intermediate (a projection, the split or merged
    heads, the attention) has a user outside the block, when the three
    projections have different model dimensions (or a dynamic one), when the
    output projection has an activation, or when `valid_lens` are not the
    repetition of a per-batch tensor.
  }];
  let statistics = [
    Statistic<"numFused", "fused", "Multi-head attention blocks fused">,
  ];
  let dependentDialects = [
    "::mlir::tfm::TfmDialect",
    "::mlir::arith::ArithDialect",
  ];
}

def TfmFuseLayerNorm : Pass<"tfm-fuse-layer-norm"> {
  let summary = "Fuse decomposed layer and RMS normalizations into tfm ops";
  let description = [{
    Recognises `(x - mean(x)) / sqrt(mean((x - mean(x))²) + eps) · γ + β`
    over the last dimension, written with upstream ops, as importers and
    hand-written graphs do, and replaces it with `tfm.layer_norm`; and,
    where that does not match, `x / sqrt(mean(x²) + eps) · γ` (Llama's
    RMSNorm, as `torch.onnx.export` writes `x * rsqrt(mean(x²) + eps) * w`)
    with `tfm.rms_norm`.

    Recognised pieces:
    - The mean over the last dimension: `linalg.reduce` with an
      `arith.addf` body into zeros, then `arith.divf` by a splat D or
      `arith.mulf` by a splat 1/D, before or after the `linalg.broadcast`
      back to `[..., D]`; reshapes that only add or remove unit dimensions
      (keep-dims forms) anywhere between the reduction and the broadcast.
    - The biased variance: the mean of `d · d` or `math.powf(d, 2)` with
      `d = x - mean(x)` (`d = x`: the mean square of an RMS norm).
    - The normalization: `d / sqrt(var + eps)`, `d · rsqrt(var + eps)`,
      `d · (1 / sqrt(var + eps))` or `math.powf` by ±0.5, with a constant
      `eps`, which becomes the op's `epsilon`.
    - The affine part, each optional: `· γ` and then (a layer norm only)
      `+ β`, where γ and β are `[D]` vectors broadcast along the leading
      dimensions, or splat constants. Without them the op gets constant
      ones and zeros.

    Nothing is fused for a reduction over another dimension, the unbiased
    variance (a division by D - 1), an `eps` that is not a constant, a
    dynamic D, or an intermediate with a user outside the normalization.
  }];
  let statistics = [
    Statistic<"numFused", "fused", "Layer and RMS normalizations fused">,
  ];
  let dependentDialects = [
    "::mlir::tfm::TfmDialect",
    "::mlir::arith::ArithDialect",
  ];
}

def TfmFuseRotaryEmbedding : Pass<"tfm-fuse-rotary-embedding"> {
  let summary = "Fuse rotate-half rotary position embeddings into "
                "tfm.rotary_embedding";
  let description = [{
    Recognises Llama's and GPT-NeoX's rotary embedding as PyTorch exports
    it, `x · cos + rotate_half(x) · sin` with
    `rotate_half(x) = concat(-x[..., D/2:], x[..., :D/2])` (a `tensor.concat`
    of an `arith.negf` of one `tensor.extract_slice` and the other), and
    `cos`, `sin` the cosines and sines of one table of angles that repeats
    its half along the last dimension (`cat(freqs, freqs)`, Hugging Face's
    `emb`), `[S, D]` with a row per position of x, possibly broadcast along
    x's leading dimensions. It becomes
    `tfm.rotary_embedding x, cos(freqs), sin(freqs)`, whose tables are
    `[S, D/2]`.

    Either order of the sum and of the products is recognised. Nothing is
    fused when the two tables come from different angles, when the slices
    are not the two halves of x, or when the angles do not repeat their
    half. The interleaved layout (GPT-J) is not recognised.
  }];
  let statistics = [
    Statistic<"numFused", "fused", "Rotary embeddings fused">,
  ];
  let dependentDialects = [
    "::mlir::tfm::TfmDialect",
    "::mlir::math::MathDialect",
  ];
}

def TfmFuseGelu : Pass<"tfm-fuse-gelu"> {
  let summary = "Fuse GELU written from its erf or tanh formula into tfm.gelu";
  let description = [{
    Recognises `0.5 · x · (1 + erf(x / √2))` and
    `0.5 · x · (1 + tanh(√(2/π) · (x + 0.044715 · x³)))` in their common
    arrangements and replaces them with `tfm.gelu` (with
    `approximate = tanh` for the second).

    The product is matched whatever its bracketing and the order of its
    factors (`arith.mulf` on tensors, and `arith.divf` by a constant, so
    that `(x · (1 + erf(...))) / 2` is recognised too); erf's argument may
    be `x · (1/√2)` or `x / √2`, tanh's `c · (x + c' · x³)` or
    `a · x + b · x³`, with x³ as `x · x · x`, `x · x²` or `math.powf(x, 3)`.
    Constants are splat `arith.constant`s, compared with the formula's to a
    relative 1e-6 (a few units in the last place for f16 and bf16).

    Nothing is fused when a constant differs, when the factor outside is
    not the value inside erf or tanh, or when an intermediate has a user
    outside the formula.
  }];
  let statistics = [
    Statistic<"numFused", "fused", "GELUs fused">,
  ];
  let dependentDialects = ["::mlir::tfm::TfmDialect"];
}

def TfmFuseLinear : Pass<"tfm-fuse-linear"> {
  let summary = "Fuse bias additions and activations into tfm.linear";
  let description = [{
    Folds a bias added after a `tfm.linear` (or after a matmul with a
    transposed weight) and a following ReLU, GELU or SiLU into one `tfm.linear`
    with its `bias` and `activation`, which the code generator applies while
    the output tile is still in registers.

    Recognised pieces:
    - The bias: `arith.addf` (either order) of a `tfm.linear` without bias
      or activation and a `[N]` vector broadcast along the leading
      dimensions by `linalg.broadcast`, or a splat constant.
    - A matmul with a transposed weight, followed by such a bias: a
      `linalg.matmul` into zeros of `x` (`[M, K]`) and `W` (`[N, K]`) with
      the indexing map that transposes `W`, or of `x` and
      `linalg.transpose(W)`.
    - The activation of a `tfm.linear` without one: ReLU as
      `arith.maximumf` (or `arith.maxnumf`) with a splat zero,
      `tfm.gelu` (`gelu`, or `gelu_tanh` for its tanh form), and SiLU as
      `y · (1 / (1 + exp(-y)))` (either order; ONNX's `Mul(y, Sigmoid(y))`
      as imported), `silu`.

    - A GLU feed-forward, `down(act(gate(x)) * up(x))` (either order of the
      product): three `tfm.linear`s of which the gate has an activation,
      the up projection none and the same input, and the down projection
      none, becomes the gated `tfm.ffn` (Llama's SwiGLU, T5's GeGLU), once
      the activation has been fused into the gate's linear.

    Nothing is fused when the intermediate has another user, or into a
    linear that already has an activation (nor a bias after an activation,
    nor a second bias). A gated feed-forward is not fused when the gate,
    the up projection or their product has another user, when the two
    read different inputs, or when the down projection has an activation.
  }];
  let statistics = [
    Statistic<"numFused", "fused", "Bias additions and activations fused">,
    Statistic<"numGatedFfn", "gated-ffn", "GLU feed-forwards fused">,
  ];
  let dependentDialects = [
    "::mlir::tfm::TfmDialect",
    "::mlir::arith::ArithDialect",
  ];
}

#endif // TFM_DIALECT_TFM_TRANSFORMS_PASSES_TD
