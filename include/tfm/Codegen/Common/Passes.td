//===- Passes.td - code generation for every target --------*- tablegen -*-===//

#ifndef TFM_CODEGEN_COMMON_PASSES_TD
#define TFM_CODEGEN_COMMON_PASSES_TD

include "mlir/Pass/PassBase.td"

def TfmTileByConfig : Pass<"tfm-tile-by-config"> {
  let summary = "Tile every op as its #tfm.lowering_config says";
  let description = [{
    Applies a code generation strategy and chooses nothing: every op with a
    `lowering_config` attribute (see `#tfm.lowering_config` in the dialect
    reference) is tiled through its `TilingInterface` with upstream's
    `scf::tileUsingSCF`, level by level. The `parallel` level becomes an
    `scf.forall` (the CPU's threads, the GPU's blocks); each other level
    (`cache`, `vector`, `reduction`) tiles the tiles of the level before it
    with `scf.for`. Where a tile size does not divide a loop of static size,
    every tile still gets a static shape:
    - at the `parallel` level, and at every level of an op that is not a
      linalg op
      (`tfm.online_attention`, decomposed right after), the op is first
      split (`linalg::splitOp`) into the part the tiles cover exactly and a
      remainder tiled by its own size;
    - at the other levels of a linalg op, the `scf.for` is peeled
      (`scf::peelForLoopAndSimplifyBounds`): a main loop and a last partial
      iteration in the same loop nest, which bufferization updates in place
      (split ops there cost copies); the canonicalizer then makes the
      remainder's tile static.

    The strategy comes from a target's selection pass
    (`tfm-cpu-select-strategy`, `tfm-cpu-select-vector-strategy`,
    `tfm-gpu-select-strategy`), or from a test
    or a user who writes the attribute by hand. On `tfm.online_attention`
    with `parallel = [1, Tq, 0], reduction = [0, 0, Tk]` this is flash
    attention:
    parallel query tiles, each a loop over key blocks.

    An op marked `tfm.fuse_into_consumer` is not tiled on its own: the op
    that reads it tiles its `parallel` level with upstream's
    `scf::tileConsumerAndFuseProducersUsingSCF`, which computes the slice
    of each marked producer (and, through their slices, of theirs) inside
    each parallel tile; copies of one producer read by two ops of the group
    are merged (CSE), and every op in the loop is then tiled by the levels
    after the `parallel` one of its own config. Readers go first (the ops
    are taken in reverse order). Where the reader's parallel tiles do not
    divide one of
    its loops (a GPU product's epilogue on 197 rows in tiles of 32), the
    reader is split first into
    the part whole tiles cover and the remainder, each part computes the
    slice of its marked producers that it reads, and each is tiled and
    fused as above (the remainder in one tile along that loop); a marked
    op whose reader does not take it is tiled on its own after all.

    A product of the levels `parallel`, `vector` and `reduction` (parallel
    tiles, register tiles, reduction steps) takes in its epilogue level by
    level: the op computing its
    accumulator (marked `tfm.fuse_into_consumer`) with upstream's
    `scf::tileAndFuseProducerOfSlice`, the op reading its result (marked
    `tfm.fuse_into_producer`) with `scf::tileAndFuseConsumer`, into the
    loops of its `parallel` and `vector` levels, before the latter is
    peeled; their
    register tiles are then vectorized as they are. One that could be
    fused into the parallel tiles only is tiled there by its own config.

    An op whose config does not fit its iteration space, or that does not
    implement `TilingInterface`, is an error.

    With `map-tile-loops` (the GPU pipeline), each outermost `scf.forall`
    is marked as mapped to GPU blocks (`#gpu.block<linear_dim_i>`), which
    keeps the canonicalizer from folding a loop of one iteration (a batch
    of 1 with one query tile) into its parent: the GPU mapping launches a
    kernel per tile loop and needs the loop to find the block's buffers.
  }];
  let options = [
    Option<"mapTileLoops", "map-tile-loops", "bool", /*default=*/"false",
           "Mark the parallel levels' loops as mapped to GPU blocks">,
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def TfmFoldEmptyLoops : Pass<"tfm-fold-empty-loops"> {
  let summary = "Replace linalg ops with a loop of extent 0 by their inits";
  let description = [{
    A linalg op on tensors one of whose loops has the static extent 0 never
    runs its body: each result is its init. A product whose reduction has
    length 0 (`tfm.linear` on `tensor<2x0xf32>`, an FFN without hidden
    units) is thus its accumulator, zeros or the bias, as in PyTorch and
    NumPy, and an op over an empty tensor is its (empty) init. Runs right
    after the lowering to linalg, so that no strategy or tiling has to
    handle tiles of a loop without iterations.
  }];
}

def TfmFoldTransposesIntoProducts
    : Pass<"tfm-fold-transposes-into-products"> {
  let summary = "Read a product's transposed operand through its indexing map";
  let description = [{
    A product on tensors (`linalg.matmul`, `linalg.batch_matmul`, a
    contraction `linalg.generic`) one of whose inputs is the result of a
    `linalg.transpose` reads the transpose's input instead, the permutation
    moved into that operand's indexing map; the transpose goes when nothing
    else reads it. The lowering to linalg transposes every transposed right
    operand (the weights of `x · wᵀ`) once so that the CPU's micro-kernel
    reads it by rows; the GPU's tensor-core path loads either layout
    (`ldmatrix` with or without `.trans`) and runs this pass instead of a
    transpose kernel at every call. A named product keeps its name where
    the permutation swaps its last two dimensions (its verifier's
    transposed operand); another permutation is left alone there.

    In tiled code, a `tensor.extract_slice` of a transpose whose users are
    slices or products becomes the transpose of the input's slice (a
    rank-reducing slice dropping the same unit dimensions of the input),
    so that a transpose sliced by tile loops (flash attention's keys,
    transposed for `Q·Kᵀ`) reaches the tiled product and folds there.
  }];
}

def TfmFoldTransposesIntoTiles : Pass<"tfm-fold-transposes-into-tiles"> {
  let summary = "Read and write tiles of a transposed tensor in place";
  let description = [{
    Tile loops that read a transposed tensor one tile at a time (a
    `tensor.extract_slice` of a `linalg.transpose`'s result), or build one
    that is then transposed (an `scf.forall` from an empty tensor, whose
    only reader is a `linalg.transpose`), where each tile's own transpose
    moves only dimensions of size 1, read or write the untransposed
    tensor's tile instead: the tile's transpose is a reshape, and the
    transpose over the whole tensor goes. A slice that only such tiles
    read (the rows that a loop of whole tiles covers) takes the transpose
    down to its tiles. Only a tile that one iteration of its `scf.forall`
    reads is read in place: one that several iterations read again (a
    head's keys and values, read by each of its query tiles) is read
    faster from the compact copy than at the untransposed tensor's stride.
    An elementwise `linalg.generic` whose result only a transpose reads
    (and that does not read its initial value) writes the transposed
    result through a permuted output map instead.

    Multi-head attention splits `[S, H, D]` into heads as `[H, S, D]` and
    merges its result back: each of its query tiles is `[1, Sq, D]` of one
    head, which is `[Sq, 1, D]` of `[S, H, D]`, read and written at
    a row stride of `H x D`. Runs after tiling, on every target.
  }];
}

def TfmFoldReshapesIntoTransposes
    : Pass<"tfm-fold-reshapes-into-transposes"> {
  let summary = "Transpose a split into heads before merging its dimensions";
  let description = [{
    PyTorch's attention reshapes each of Q, K and V, sliced out of the
    packed projection `[seq, batch, 3 * d]`, to `[seq, batch * heads, dh]`
    and transposes that to `[batch * heads, seq, dh]`: a collapse_shape of
    `[batch, d]` and an expand_shape to `[batch * heads, dh]` before a
    linalg.transpose. On a slice, whose rows are not contiguous, the
    collapse is a copy (four of them a layer, a tenth of a BERT-base layer's
    time at batch 1 with a dynamic batch). This pass rewrites

        transpose(expand_shape(collapse_shape(x)))

    as an expand_shape of `x` to the common refinement of both shapes
    (`[seq, batch, heads, dh]`, free on any strided view), the transpose of
    that, and a collapse_shape of its result (free: the transpose writes a
    fresh, contiguous tensor). A group pair is refined when it is one
    dimension on both sides, or `[A, C] -> [B, D]` with C and D static and
    D dividing C (`B = A * C / D`); otherwise the ops are left alone.

    A transpose that moves only dimensions of size 1 (PyTorch's
    `[seq, 1, d]` <-> `[1, seq, d]` around `nn.MultiheadAttention` at batch
    1) keeps every element in place: it becomes a collapse_shape dropping
    them and an expand_shape to the result, so that no copy separates the
    elementwise ops around it (a projection's bias and the residual add
    that follows fuse).
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def TfmFoldEpilogueIntoAccumulator
    : Pass<"tfm-fold-epilogue-into-accumulator"> {
  let summary = "Start a product's accumulator from the terms added to it";
  let description = [{
    A `nn.Linear` lowers to a product that accumulates into a fill of zero
    and an elementwise pass over its result that adds the bias, and, once
    fused with what follows, the residual of the block and an activation.
    Each is a pass over the output in memory. This pass rewrites

        epilogue(product(A, B, fill(0)) + t1 + ... + tn)

    where the additions are a chain in the epilogue's body, each the only
    user of the sum before it, into

        epilogue'(product(A, B, init(t1 + ... + tn)))

    `init` is an elementwise op over the epilogue's other operands that
    writes the terms' sum into the fill's buffer: the accumulator starts
    from bias + residual instead of zero, which costs what the fill did.
    `epilogue'` is what the epilogue does after the additions: if nothing,
    it is gone and the product's result replaces it; otherwise (GELU,
    ReLU) it applies that to the product's result alone.

    The product must be a whole contraction (not one inside the tiled loops
    of a strategy), in the epilogue's block, its result read only by the
    epilogue through an identity map and of the epilogue's result type;
    the epilogue must be elementwise with an identity result map and not
    read its destination. The product moves down to the epilogue, where
    the terms' operands are all defined. The sum is reassociated (bias +
    residual + A·B instead of (A·B + bias) + residual): results differ
    from the unfused order by rounding.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect"];
}

def TfmAllocateFillInits : Pass<"tfm-allocate-fill-inits"> {
  let summary = "Give every linalg.fill of a tensor.empty its own buffer";
  let description = [{
    Replaces the `tensor.empty` that a `linalg.fill` fills by a
    `bufferization.alloc_tensor` of the same shape. Two fills of equal
    empties with the same value are equal ops, and CSE merges them: the
    zero accumulators of every layer's products, reductions and attention
    would become one tensor, and bufferization would then copy it for every
    op that accumulates into it (through a slow strided copy where the op
    updates a slice). An allocation is never merged, so each fill stays its
    accumulator's own.

    It runs once the lowering's reshapes of empties are folded, before the
    first CSE.
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect"];
}

def TfmSplatConstantsToFill : Pass<"tfm-splat-constants-to-fill"> {
  let summary = "Write large splat constants at run time instead of storing them";
  let description = [{
    Replaces every splat `arith.constant` of a tensor type larger than
    `max-bytes` by a `linalg.fill` of a `tensor.empty`. Bufferization would
    make such a constant a global, and the translation to LLVM IR spells a
    global's value out element by element (unless it is zero): a returned
    `dense<1.0> : tensor<100000x100000xf32>` asks for a 40 GB array in the
    compiler and the binary. A fill costs one pass of writes where the
    constant is used and nothing in the binary.

    It runs in the lowering to linalg, before the fills get their own
    buffers (tfm-allocate-fill-inits), so that a large splat that is
    updated in place is copied from nowhere.
  }];
  let options = [
    Option<"maxBytes", "max-bytes", "int64_t", /*default=*/"4096",
           "Splat constants up to this size stay constants">,
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def TfmLowerAsserts : Pass<"tfm-lower-asserts", "::mlir::ModuleOp"> {
  let summary = "Failed checks of the model report their message and exit 1";
  let description = [{
    Lowers every `cf.assert` to a branch that calls the runtime's
    `tfm_check_failed(message)` (runtime/Checks.cpp), which prints
    `error: <message>` and ends the process with exit code 1, as the
    binaries do for other bad input. Upstream's lowering aborts without the
    message. The ONNX importer writes such checks where a symbolic size
    must respect a bound that it cannot know at import time (a Slice of
    the first `seq` rows of a position table).

    It runs in the LLVM stage, after the lowering of structured control
    flow and before that of `cf`.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::cf::ControlFlowDialect"];
}

def TfmDropKvCacheResults : Pass<"tfm-drop-kv-cache-results",
                                  "::mlir::ModuleOp"> {
  let summary = "Drop the results that are key/value caches updated in place";
  let description = [{
    After one-shot bufferization, a result marked `tfm.kv_cache = i` (an
    updated cache, see tfm-kv-cache) must be argument `i`'s buffer, which
    the function wrote in place: the result is dropped, so that the
    caller's cache is the one buffer of it and no step copies it. A cache
    that bufferization could not update in place is an error naming it.
  }];
}

def TfmResultsToOutParams : Pass<"tfm-results-to-out-params",
                                  "::mlir::ModuleOp"> {
  let summary = "Turn buffer results into out-parameters the callers allocate";
  let description = [{
    Upstream's `buffer-results-to-out-params` (static and dynamic
    allocations hoisted to the callers, public functions included), except
    that a private function's results of dynamic size stay results: their
    sizes are the callee's to compute (a tensor-parallel entry calls its
    rank's function on inputs of any size). Public functions still write
    every result into an out-parameter, which their caller allocates; where
    one only copies a dispatched call's result into its out-parameter
    (through an `scf.index_switch`), the callee takes that out-parameter
    in place of the buffer it allocated, and the copy goes.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def TfmCopyRepeatedResults : Pass<"tfm-copy-repeated-results",
                                   "::mlir::func::FuncOp"> {
  let summary = "Give each result of a function a tensor of its own";
  let description = [{
    A function that returns one value twice (`return %y, %y`, often what
    CSE makes of two equal computations) returns, in the second place and
    after, a copy (`bufferization.alloc_tensor() copy(%y)`). Each result
    becomes a caller's out-parameter after bufferization
    (buffer-results-to-out-params), which cannot give one allocation to two
    out-parameters (upstream crashes on it). Runs right before
    bufferization.
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect"];
}

def TfmDecomposeAggregates : Pass<"tfm-decompose-aggregates"> {
  let summary = "Replace aggregated ops by their decompositions";
  let description = [{
    Every op implementing linalg's `AggregatedOpInterface` is replaced by
    the ops of its decomposition: `tfm.online_attention` by one key-block
    step of the online softmax (the score product, the masks, the running
    max, sum and accumulator updates, and a skip of blocks that no query can
    see), `linalg.softmax` by its four generics. Untiled, the decomposition
    of `tfm.online_attention` is attention's reference lowering; after
    `tfm-tile-by-config`, it is the body of flash attention.
  }];
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


def TfmApproximateMath : Pass<"tfm-approximate-math"> {
  let summary = "Replace transcendental math ops by polynomial approximations";
  let description = [{
    Rewrites `math.exp`, `math.erf` and `math.tanh`, scalar or vector, into
    polynomial approximations, so that they vectorize instead of becoming
    calls into libm (f16 and bf16 are computed in f32): exp and tanh into
    upstream's, erf into a rational function of tfm's own, x * P(x^2) /
    Q(x^2) on x clamped to [-3.9375, 3.9375] (3.5e-7 from erf at most;
    `scripts/fit_erf.py` fits it), which takes a clamp, 11 fused
    multiply-adds and a division where upstream's selects each lane's
    coefficients from three intervals. On a module whose CPU target
    (`tfm.target`) is AVX-512, exp of 16-lane float32 vectors is 2^k exp(r)
    with exp(r) a polynomial of degree 6 (`scripts/fit_exp.py`: 8.7e-8
    relative at most) and 2^k applied by `vscalefps` (the LLVM intrinsic
    `llvm.x86.avx512.mask.scalef.ps.512`), about 13 instructions a vector
    where upstream's takes 24; other widths, targets and GPU modules keep
    upstream's. `math.sin` and `math.cos` are left precise: the positional
    encoding needs them at large angles.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::math::MathDialect",
    "::mlir::tfm::TfmDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def TfmBf16AsBits : Pass<"tfm-bf16-as-bits"> {
  let summary = "Widen and narrow bfloat16 as integer operations on its bits";
  let description = [{
    Rewrites `arith.extf` from bf16 and `arith.truncf` to bf16 into shifts,
    additions (to round to nearest even) and bitcasts of the 16 and 32 bit
    patterns (upstream's bf16 expansion patterns of `arith-expand`, without
    that pass's other expansions). Arithmetic on bfloat16 is done in f32
    before this stage, so the CPU code sees bfloat16 only in memory: LLVM's
    x86 back end aborts on some vector operations on `bfloat` (a shuffle of
    `<9 x bfloat>`).
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def TfmExpandShapeToReinterpretCast
    : Pass<"tfm-expand-shape-to-reinterpret-cast"> {
  let summary = "Rewrite memref.expand_shape ops whose groups hold several "
                "dynamic sizes as memref.reinterpret_cast";
  let description = [{
    MLIR 22's `expand-strided-metadata` computes an expanded group's sizes
    and strides from the source's size, which it can do for at most one
    dynamic size per group; with two (`memref<?x128xf32>` into
    `memref<?x?x128xf32>`, the result of a collapsed `[B, S, K]` product
    when batch and sequence are both dynamic) it crashes. Such an
    `expand_shape` carries every size in its `output_shape`, so it is the
    source's base buffer reinterpreted at the source's offset with those
    sizes and, within each group, strides that are the products of the
    sizes inside it. Other `expand_shape` ops are left alone. Runs right
    before `expand-strided-metadata`; upstream's fix (llvm/llvm-project
    #187844) makes it unnecessary from LLVM 23 on.
  }];
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

def TfmCollapseContractionDims : Pass<"tfm-collapse-contraction-dims"> {
  let summary = "Collapse the row and the column dimensions of top-level "
                "contractions";
  let description = [{
    A contraction at the top level of a function with several row (m)
    dimensions, or several column (n) dimensions, that are consecutive and
    contiguous in every operand is rewritten with one row dimension and one
    column dimension, with upstream's `linalg::collapseOpIterationDims`:
    its operands are collapsed, its result expanded back. Rows: a linear on
    `[B, S, K]`, or on the `[S, B, K]` layout that `nn.MultiheadAttention`'s
    export gives its in-projection, is one `[B * S, K]` product, whose
    weight the micro-kernel reads once per row block instead of once per
    batch element (the micro-kernel iterates any row dimension but the last
    like a batch; at `[128, 8, 768]` it would stream the whole weight for
    every 8 rows). Columns: a projection into heads, `[B, S, K] x [K, H, Dh]
    -> [B, S, H, Dh]`, gets one column dimension; the micro-kernel takes
    products with one only, and with two the product would be vectorized
    along its reduction, one dot product at a time. Contractions inside
    tiles are left alone.
  }];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def TfmDropUnitDims : Pass<"tfm-drop-unit-dims"> {
  let summary = "Drop the unit dimensions of top-level contractions and of "
                "their epilogues";
  let description = [{
    A contraction at the top level of a function that iterates over
    dimensions of size 1 (the `[S, 1, D]` activations that PyTorch exports
    for `nn.MultiheadAttention`, whose reshapes elementwise fusion folds
    into the products) is rewritten without them, with upstream's
    `linalg::dropUnitDims`: its operands are collapsed, its result expanded
    back. Otherwise a unit dimension counts as one of the product's rows or
    columns and hides the real ones from the micro-kernel. A named
    contraction (a `linalg.batch_matmul` of one batch, as
    `tfm.batch_matmul` lowers) is generalized first. Contractions inside
    tiles are left alone: their loop-carried tiles must keep their types.

    The elementwise ops of a product's epilogue (the one that computes its
    accumulator, the one that reads its result, reshapes between them and
    the product aside) lose their unit dimensions too, so that they and the
    product meet in one shape, which `tfm-cpu-pack-panels` turns into the
    panels' and `tfm-tile-by-config` fuses into the register tiles.
  }];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def TfmDropWriteOnlyBuffers
    : Pass<"tfm-drop-write-only-buffers", "::mlir::func::FuncOp"> {
  let summary = "Erase the buffers that nothing reads, and the writes into "
                "them";
  let description = [{
    A product whose activation its register tiles compute (a fused GELU)
    still yields its own result from the loops that compute both, though
    nothing reads it; bufferized, each tile stores its sums into a buffer
    of their own (400 KiB a column panel of Swin-T's first FC1, written
    and freed by every thread) next to the activation it stores for the
    next op. This pass erases a `memref.alloc` (or `memref.alloca`) whose
    uses, through views (`memref.subview`, `memref.collapse_shape`,
    `memref.expand_shape`, `memref.cast`), are only writes into it
    (`vector.transfer_write`, `memref.store`, the target of a
    `memref.copy`) and its `memref.dealloc`, with all of those uses.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def TfmFreeBuffersEarly
    : Pass<"tfm-free-buffers-early", "::mlir::func::FuncOp"> {
  let summary = "Free each buffer right after its last use";
  let description = [{
    Bufferization's ownership-based deallocation frees a buffer at the end
    of the block that allocates it, so every intermediate of a model's
    entry function lives until it returns: a call holds all of them at once
    (GPT-2-small's 128-token prefill: 116 MB), and a process's first call
    touches that many fresh pages. This pass moves each `memref.dealloc` of
    a `memref.alloc` of the same block up to just after the last op of the
    block that uses the buffer or one of its views (`ViewLikeOpInterface`,
    `memref.cast`, `memref.extract_strided_metadata`), uses in nested
    regions included, so that the memory serves the next allocations.

    A buffer is left as it is when something may keep it past its uses that
    the pass does not follow: an op other than a view that returns a memref
    from it (an `scf.if` or a call returning it), a terminator passing it
    on, or a use outside the block.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def TfmHoistLoopBuffers
    : Pass<"tfm-hoist-loop-buffers", "::mlir::func::FuncOp"> {
  let summary = "Allocate a loop's per-iteration buffers once, around it";
  let description = [{
    The tiles of a sequential loop's body bufferize to buffers allocated and
    freed in every iteration: a flash attention's block of scores, of
    probabilities and of row maxima, five `malloc`/`free` pairs per block
    of keys, 3% of the attention's time. This pass moves a `memref.alloc`
    of static size out of each enclosing `scf.for` whose iteration frees it
    (its `memref.dealloc` in the same block) and uses it only there (no
    use outside the block, no terminator or non-view op passing it on),
    and its dealloc to after the loop: the iterations reuse one buffer.

    A fresh buffer's contents are undefined, so no iteration can depend on
    what the one before left in it. Buffers of `scf.parallel` and
    `scf.forall` iterations stay where they are: those run concurrently.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def TfmProfileKernels : Pass<"tfm-profile-kernels", "::mlir::ModuleOp"> {
  let summary = "Time every kernel of a bufferized function (tfm-compile "
                "--profile)";
  let description = [{
    Brackets each kernel of every public function (each op at the top level
    of its body that reads or writes memory: a loop nest, a parallel loop, a
    copy, a call) with calls to the runtime's `tfm_profile_begin(id)` and
    `tfm_profile_end(id)`, and writes the kernels' table as the C string
    `tfm_profile_kernels`: one line per id, `<op name>\t<location>`, so that
    the executables' `--profile` can say where the time goes, per kernel and
    source location, like a runtime's profiler. Allocation, deallocation,
    views and constants are not kernels. Kernel ids are numbered from 0 in
    program order across the module.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
    "::mlir::LLVM::LLVMDialect",
  ];
  let statistics = [
    Statistic<"numKernels", "kernels", "Number of kernels instrumented">,
  ];
}

def TfmFixOpenMpiOpSymbols : Pass<"tfm-fix-openmpi-op-symbols",
                                   "::mlir::ModuleOp"> {
  let summary = "Name Open MPI's reduction ops as libmpi defines them";
  let description = [{
    MLIR 22's lowering of the MPI dialect to LLVM (for
    `dlti.map<"MPI:Implementation" = "OpenMPI">`) passes the predefined
    reduction ops as the addresses of `@ompi_mpi_sum`, `@ompi_mpi_max` and
    so on; Open MPI's `mpi.h` defines `MPI_SUM` as `&ompi_mpi_op_sum`, and
    libmpi has no `ompi_mpi_sum`, so the binary would not link. This pass
    renames those external globals (and their uses) to `ompi_mpi_op_*`.
  }];
}

def TfmLowerDynamicAllReduces : Pass<"tfm-lower-dynamic-all-reduces",
                                      "::mlir::ModuleOp"> {
  let summary = "Lower the all-reduces of dynamic shape to MPI";
  let description = [{
    `convert-shard-to-mpi` (MLIR 22) sizes the buffer of a `shard.all_reduce`
    whose shape is dynamic with `memref.dim` of an index that is the
    dynamic-size marker, which allocates garbage. This pass, run before
    it, lowers those all-reduces itself: the partial sum copied into a
    buffer of its own (sized with `tensor.dim`), an in-place
    `mpi.allreduce` of MPI_SUM on MPI_COMM_WORLD, and the buffer as the
    result. Sums over every rank of a 1-D grid only (what tensor
    parallelism writes); static shapes stay convert-shard-to-mpi's.
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::mpi::MPIDialect",
                           "::mlir::tensor::TensorDialect"];
}

def TfmSimplifyMpiComms : Pass<"tfm-simplify-mpi-comms", "::mlir::ModuleOp"> {
  let summary = "Use MPI_COMM_WORLD for the collectives of a 1-D grid of all "
                "ranks";
  let description = [{
    `convert-shard-to-mpi` gives each collective a communicator of its own:
    an `mpi.comm_split` of MPI_COMM_WORLD with one color and the rank as
    key (modulo the grid's size), before every call. That split is itself a
    collective, and its communicator is never freed, so a model that runs a
    thousand times would create a thousand. On a 1-D grid of `ranks`
    processes, the split is the world again (the same group, in the same
    order); this pass replaces it by its operand and erases it. It also
    erases the `shard.grid` ops that nothing names any more, which have no
    LLVM translation.
  }];
  let options = [
    Option<"ranks", "ranks", "int64_t", /*default=*/"2",
           "The size of the 1-D grid (the world's size)">,
  ];
  let dependentDialects = ["::mlir::mpi::MPIDialect"];
}

#endif // TFM_CODEGEN_COMMON_PASSES_TD
