//===- Passes.td - tfm graph transformations ---------------*- tablegen -*-===//

#ifndef TFM_TRANSFORMS_PASSES_TD
#define TFM_TRANSFORMS_PASSES_TD

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
      second `tfm.linear`.
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

//===----------------------------------------------------------------------===//
// Graph optimizer: fusion
//===----------------------------------------------------------------------===//

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
  let summary = "Fuse a decomposed layer normalization into tfm.layer_norm";
  let description = [{
    Recognises `(x - mean(x)) / sqrt(mean((x - mean(x))²) + eps) · γ + β`
    over the last dimension, written with upstream ops, as importers and
    hand-written graphs do, and replaces it with `tfm.layer_norm`.

    Recognised pieces:
    - The mean over the last dimension: `linalg.reduce` with an
      `arith.addf` body into zeros, then `arith.divf` by a splat D or
      `arith.mulf` by a splat 1/D, before or after the `linalg.broadcast`
      back to `[..., D]`; reshapes that only add or remove unit dimensions
      (keep-dims forms) anywhere between the reduction and the broadcast.
    - The biased variance: the mean of `d · d` or `math.powf(d, 2)` with
      `d = x - mean(x)`.
    - The normalization: `d / sqrt(var + eps)`, `d · rsqrt(var + eps)`,
      `d · (1 / sqrt(var + eps))` or `math.powf` by ±0.5, with a constant
      `eps`, which becomes the op's `epsilon`.
    - The affine part, each optional: `· γ` and then `+ β`, where γ and β
      are `[D]` vectors broadcast along the leading dimensions, or splat
      constants. Without them the op gets constant ones and zeros.

    Nothing is fused for a reduction over another dimension, the unbiased
    variance (a division by D - 1), an `eps` that is not a constant, a
    dynamic D, or an intermediate with a user outside the normalization.
  }];
  let statistics = [
    Statistic<"numFused", "fused", "Layer normalizations fused">,
  ];
  let dependentDialects = [
    "::mlir::tfm::TfmDialect",
    "::mlir::arith::ArithDialect",
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
    transposed weight) and a following ReLU or GELU into one `tfm.linear`
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
      `arith.maximumf` (or `arith.maxnumf`) with a splat zero, and
      `tfm.gelu` (`gelu`, or `gelu_tanh` for its tanh form).

    Nothing is fused when the intermediate has another user, or into a
    linear that already has an activation (nor a bias after an activation,
    nor a second bias).
  }];
  let statistics = [
    Statistic<"numFused", "fused", "Bias additions and activations fused">,
  ];
  let dependentDialects = [
    "::mlir::tfm::TfmDialect",
    "::mlir::arith::ArithDialect",
  ];
}

//===----------------------------------------------------------------------===//
// Code generation
//===----------------------------------------------------------------------===//

def TfmTileAttention : Pass<"tfm-tile-attention"> {
  let summary = "Lower tfm.attention to a tiled online-softmax loop nest";
  let description = [{
    Rewrites each `tfm.attention` into flash attention on tensors: an
    `scf.forall` over (batch · heads, query tiles), and inside it a loop over
    key/value blocks that keeps the running row maximum and sum and rescales
    the accumulator, so that the score matrix never exists beyond one
    `q-tile × kv-tile` block (memory O(S · D) instead of O(S²)). The block
    products are `linalg.matmul`s on row-major operands (K is transposed
    once), which `tfm-cpu-vectorize` turns into register-blocked
    micro-kernels.

    - `causal` skips the key blocks above the diagonal of each query tile;
    - a per-batch `valid_lens` skips the blocks past the length (a length of
      0 keeps d2l's uniform weights over all keys);
    - the scale, the additive mask, `valid_lens` and `causal` are applied
      to each block in the order of the op's definition;
    - sizes that are not a multiple of a tile get a remainder tile of static
      size, so every block has a static shape.

    f16 and bf16 operands are computed in f32. Attention with dynamic sizes,
    or with a mask that varies over batch dimensions, keeps the reference
    lowering of `convert-tfm-to-linalg` (with a remark).
  }];
  let options = [
    Option<"qTileSize", "q-tile", "int64_t", /*default=*/"0",
           "Query rows per tile (0: chosen from the shape)">,
    Option<"kvTileSize", "kv-tile", "int64_t", /*default=*/"0",
           "Keys per block (0: chosen from the shape)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def TfmFuseElementwise : Pass<"tfm-fuse-elementwise"> {
  let summary = "Fuse elementwise linalg producers into their consumers, "
                "except into contractions";
  let description = [{
    Upstream's elementwise fusion, with reshapes propagated by expansion,
    under one rule: an elementwise producer is never fused into a
    contraction (a matmul written as a linalg.generic). There it would be
    recomputed once per column of the product and would take the matmul off
    the register-blocked micro-kernel; a LayerNorm feeding a linear is the
    usual case.
  }];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def TfmCpuVectorize : Pass<"tfm-cpu-vectorize"> {
  let summary = "Tile linalg ops on tensors and vectorize every tile";
  let description = [{
    The CPU code generator's generic path. Every linalg op on tensors is
    tiled with `scf.for` loops so that a tile spans `vector-width` elements
    of the innermost loop and one element of every other loop, and the tile
    is vectorized with the vector dialect. Sizes that are not a multiple of
    the vector width, and dynamic sizes, are handled by masked vectors, so
    every shape gets vector code.

    An op the vectorizer rejects is left as it is for the loop lowering, with
    a remark.
  }];
  let options = [
    Option<"vectorWidthBits", "vector-width-bits", "unsigned",
           /*default=*/"512",
           "Width of the target's vector registers in bits (512 for "
           "AVX-512, 256 for AVX2)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def TfmApproximateMath : Pass<"tfm-approximate-math"> {
  let summary = "Replace transcendental math ops by polynomial approximations";
  let description = [{
    Rewrites `math.exp`, `math.erf` and `math.tanh`, scalar or vector, into
    the polynomial approximations of upstream's math dialect, so that they
    vectorize instead of becoming calls into libm (f16 and bf16 are computed
    in f32). `math.sin` and `math.cos` are left precise: the positional
    encoding needs them at large angles.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def TfmMapToGpu : Pass<"tfm-map-to-gpu", "::mlir::func::FuncOp"> {
  let summary = "Map a bufferized function onto the GPU: tiles to blocks, "
                "loops to threads, buffers to device memory";
  let description = [{
    The GPU code generator's mapping step. Its input is a bufferized function
    whose linalg ops are still ops (they become loops here) and whose tiled
    ops, such as flash attention's query tiles, are top-level `scf.forall`
    loops. It produces `gpu.launch` regions that `gpu-kernel-outlining`
    turns into kernels:

    - A top-level `scf.forall` becomes one launch with one block per
      iteration. Inside the block, every parallel loop is spread over the
      block's threads (a thread-strided loop over its linearized iteration
      space) between `gpu.barrier`s; other code that writes memory runs on
      thread 0; buffers allocated inside the block live in the block's
      dynamic shared memory (`gpu.dynamic_shared_memory`), so the block's
      tiles never leave the multiprocessor. The global-memory operands of
      the contractions in the tile (flash attention's query, key and value
      tiles) are staged through shared memory too, while they fit.
    - Any other top-level parallel loop (an elementwise op, a matmul, a
      normalization's rows) becomes one launch with one thread per
      iteration; sequential code that writes memory runs in a launch of one
      thread.
    - The host keeps allocation and views only. Arguments and constants get
      device copies on entry, buffers are `gpu.alloc`ed, and the arguments
      the function writes (its results) are copied back before it returns.
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", /*default=*/"128",
           "Threads per block">,
    Option<"sharedMemoryBytes", "shared-memory-bytes", "int64_t",
           /*default=*/"49152",
           "Shared memory a block may use, in bytes (the target's limit; "
           "above 48 KiB the runtime opts the kernel in)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
  ];
}

def TfmEmulateGpuOnCpu : Pass<"tfm-emulate-gpu-on-cpu", "::mlir::func::FuncOp"> {
  let summary = "Run the GPU mapping's launches as loops on the CPU "
                "(testing only)";
  let description = [{
    Turns the `gpu.launch` regions that `tfm-map-to-gpu{block-size=1}`
    produces into loops over the grid that the CPU pipeline can compile:
    block ids become induction variables, the one thread's id is 0, shared
    memory (workgroup attributions or dynamic shared memory) becomes a stack
    buffer per block, barriers disappear, and device
    allocations and copies become host ones. The result computes what the
    kernels compute, one block after another, so the GPU mapping (staging,
    tiling into blocks, index arithmetic, shared buffers) can be checked
    numerically on a machine without a GPU. It cannot find races between
    threads: each block has one.
  }];
  let dependentDialects = [
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
  ];
}

def TfmMergeGpuModules : Pass<"tfm-merge-gpu-modules", "::mlir::ModuleOp"> {
  let summary = "Gather the outlined kernels into one gpu.module";
  let description = [{
    `gpu-kernel-outlining` puts every kernel in a `gpu.module` of its own.
    This pass moves them all into the first one, renaming kernels whose
    names clash and updating the `gpu.launch_func` ops, so that a binary
    embeds one PTX or cubin image: one module to load at startup, one file
    for `tfm-compile --emit=ptx`, one ptxas run.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def TfmGpuTileContractions : Pass<"tfm-gpu-tile-contractions",
                                  "::mlir::func::FuncOp"> {
  let summary = "Tile contractions into output tiles for GPU blocks";
  let description = [{
    Every contraction on tensors at the top level of a function (a matmul,
    a batched matmul, a linear layer's product) becomes an `scf.forall`
    over `tile-size` x `tile-size` tiles of its output (and one batch
    element at a time), which `tfm-map-to-gpu` maps to one block per tile.
    Inside a block, the tile's rows of the left operand and columns of the
    right one are staged through shared memory, so that each element read
    from global memory serves a whole row or column of the tile instead of
    one output. Contractions that would need more than three grid
    dimensions are left alone.
  }];
  let options = [
    Option<"tileSize", "tile-size", "int64_t", /*default=*/"32",
           "Rows and columns of an output tile">,
  ];
  let dependentDialects = [
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def TfmGpuNativeMath : Pass<"tfm-gpu-native-math"> {
  let summary = "Define the libdevice functions that PTX has instructions "
                "for";
  let description = [{
    `convert-gpu-to-nvvm` turns math ops into calls to CUDA's libdevice
    (`__nv_sqrtf`, `__nv_floorf`, `__nv_fmaf`, ...), which only a CUDA
    toolkit provides. Where PTX computes the function with one instruction
    (`sqrt.rn`, `cvt.rmi`, `cvt.rpi`, `abs`, `fma.rn`), this pass gives the
    declaration a body that calls the LLVM intrinsic, with the same IEEE
    semantics as libdevice's. With `tfm-approximate-math` before the
    conversion, kernels then need libdevice only for functions such as
    `sin`, `cos` and `pow` (the positional encoding). Run it on the kernel
    modules after `convert-gpu-to-nvvm`. With `libdevice=false` (no CUDA
    toolkit was found), a call to any other libdevice function is an error
    that names it.
  }];
  let options = [
    Option<"libdevice", "libdevice", "bool", /*default=*/"true",
           "Whether CUDA's libdevice will be linked">,
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

#endif // TFM_TRANSFORMS_PASSES_TD
