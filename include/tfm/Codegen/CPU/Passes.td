//===- Passes.td - code generation for CPUs ----------------*- tablegen -*-===//

#ifndef TFM_CODEGEN_CPU_PASSES_TD
#define TFM_CODEGEN_CPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def TfmCpuSelectVectorStrategy : Pass<"tfm-cpu-select-vector-strategy"> {
  let summary = "Choose the CPU's register tiles and vector shapes, as "
                "#tfm.lowering_config";
  let description = [{
    The strategy of the CPU's vector stage, written on every linalg op on
    tensors that has no `lowering_config` yet (one set by hand is kept) and
    applied by `tfm-tile-by-config`; `tfm-cpu-vectorize` then vectorizes the
    tiles.

    - A matmul, batched or not, whose right operand is row-major gets the
      register-blocked micro-kernel, in three levels: the `parallel` tiles
      (one batch element each when there are two or more, else column
      panels of one to four register tiles, as many as make a number of
      parallel tiles that 4 or else 2 threads share evenly), `vector`
      (register) tiles of Mr x Nr (Nr two vector registers wide, Mr 12
      rows with AVX-512's 32 registers and 6 with AVX2's 16) with the
      column loop outermost,
      and the `reduction` one step at a time. A matmul whose right operand
      `tfm-cpu-pack-panels` packed gets the same tiles, one panel per
      register tile. The pipeline then keeps each accumulator tile in
      registers (`tfm-cpu-hoist-invariant-subsets`): one broadcast FMA per
      row, register and step. Columns that Nr does not divide (an LM head's
      vocabulary, unpacked) get panels of four register tiles and a last
      one of the columns left over. A reduction longer than 768 steps is
      cut into blocks of 512 first (a `cache` level); such a product
      takes into its parallel tiles the copy that packs its right operand
      at run time and the fill of its accumulator, where no other tile
      reads what a tile reads of them: each tile packs its own panels and
      zeroes its own columns.
    - A matmul of a dynamic number of rows (a model's batch and sequence)
      is split by rows (`linalg::splitOp`) into parts of one register tile
      height each, so that no tile has a dynamic remainder: the rows that
      Mr-row tiles cover, then at most one tile of 8 rows and one of 4 (as
      far as they are below Mr), and the last rows one at a time (a
      decoding step's one token per sequence, whose single-row tiles
      stream the weights with no masked-off rows). A part that may be empty
      runs under `scf.if rows > 0`.
    - Every other op is tiled to one vector register along its innermost
      loop and one iteration of every other loop; a transpose (an input
      read innermost along another loop) to a square block of vectors.
      With 2^15 iterations or more, such an op is first cut into parallel
      tiles, one iteration of each parallel loop outside the vector.
    - An op inside a parallel loop already (the ops of an attention's
      query tile) gets no parallel tiles: OpenMP would only nest a
      serialized region in each iteration.

    The vector registers are those of the module's `tfm.target`
    (`#tfm.cpu`, which `tfm-set-cpu-target` writes; AVX-512 without one).
  }];
  let dependentDialects = ["::mlir::affine::AffineDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::tfm::TfmDialect"];
}

def TfmCpuPackPanels : Pass<"tfm-cpu-pack-panels"> {
  let summary = "Pack the right operands of matmuls into the micro-kernel's "
                "panels of Nr columns";
  let description = [{
    The CPU's data tiling. The right operand of a matmul without batch
    dimensions, `[K, N]` (or a weight `[N, K]`, as `nn.Linear` stores it),
    becomes `[ceil(N / Nr), K, Nr]`: panels of Nr columns (two vector
    registers), each read by a register tile's reduction as one contiguous
    stream instead of one row of the operand (a new page) per step. The
    product becomes a `linalg.generic` over (..., m, nb, nr, k) into the
    accumulator reshaped to `[..., N / Nr, Nr]`, which
    `tfm-cpu-select-vector-strategy` tiles one panel per register tile.

    A constant operand (a model's weights) is packed at compile time: the
    packed constant, zero-padded to whole panels, replaces it. Any other is
    packed at run time (`linalg.pack`, lowered to a transpose of its expanded
    shape) when Nr divides its columns and the product has 64 rows or more
    of static size (a product with cache blocks packs each parallel tile's
    panels in the tile: `tfm-cpu-select-vector-strategy`). The vector
    registers are those of the module's
    `tfm.target` (AVX-512 without one). Columns that Nr does not divide (an LM head's
    vocabulary) are computed into a padded accumulator (a fill), of which
    the product keeps the first N.

    ```mlir
    %y = linalg.matmul ins(%x, %w : tensor<64x256xf32>, tensor<256x96xf32>)
                       outs(%acc : tensor<64x96xf32>) -> tensor<64x96xf32>
    // becomes, with AVX2 (Nr = 16)
    %p = arith.constant dense<...> : tensor<6x256x16xf32>
    %a = tensor.expand_shape %acc [[0], [1, 2]] output_shape [64, 6, 16]
    %r = linalg.generic {indexing_maps = [(m, nb, nr, k) -> (m, k),
                                          (m, nb, nr, k) -> (nb, k, nr),
                                          (m, nb, nr, k) -> (m, nb, nr)]}
           ins(%x, %p) outs(%a)
    %y = tensor.collapse_shape %r [[0], [1, 2]]
    ```

    A constant that reaches the product through a transpose (a patch
    embedding's kernel) is packed from the constant itself. When the
    product's reduction is not cut into cache blocks, the elementwise op
    computing its accumulator and the one reading its result (its bias and
    activation) move into the panels' shape too (upstream's
    reshape-by-expansion patterns), so that `tfm-tile-by-config` can fuse
    them into its register tiles.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::tfm::TfmDialect"];
}

def TfmCpuUnmaskReductions
    : Pass<"tfm-cpu-unmask-reductions", "::mlir::func::FuncOp"> {
  let summary = "Give masked vector reductions their identity in the "
                "masked-off lanes";
  let description = [{
    A masked `vector.multi_reduction` or `vector.reduction` (the remainder
    of a row of dynamic length) becomes an unmasked one of
    `select(mask, source, identity)`, with the identity of its combining
    kind: -inf for `maximumf`, +inf for `minimumf`, 0 for `add`, 1 for
    `mul`, and so on.

    Upstream's lowering of a masked `maximumf` reduction fills the masked
    lanes with the smallest negative subnormal (-1.4e-45) instead of -inf,
    so the maximum of a row whose every element lies below it is taken as
    -1.4e-45. A softmax over such a row (d2l's fully masked row: every score
    -1e6) then gets exp(-1e6) = 0 for every element and divides 0 by 0:
    NaN where the answer is uniform weights, and only when the row's length
    is dynamic.

    ```mlir
    %r = vector.mask %m { vector.multi_reduction <maximumf>, %x, %acc [1]
        : vector<1x15xf32> to vector<1xf32> } : vector<1x15xi1> -> vector<1xf32>
    // becomes
    %s = arith.select %m, %x, %minus_inf : vector<1x15xi1>, vector<1x15xf32>
    %r = vector.multi_reduction <maximumf>, %s, %acc [1]
        : vector<1x15xf32> to vector<1xf32>
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::vector::VectorDialect"];
}

def TfmCpuReassociateReductions
    : Pass<"tfm-cpu-reassociate-reductions", "::mlir::func::FuncOp"> {
  let summary = "Let float additions and products over a vector's lanes "
                "reassociate";
  let description = [{
    Marks every floating-point `vector.reduction` of kind `add` or `mul`
    with `fastmath<reassoc>`, so that LLVM sums a vector's lanes as a tree
    (log2 of the lanes of dependent steps) and adds the accumulator once,
    instead of sixteen scalar additions in a chain, each waiting for the
    one before it. A LayerNorm's mean and variance over a row of 192 floats
    took 2 x 192 dependent additions (about 1500 cycles a row on AVX-512)
    before this pass, about 200 after.

    The sums then round in another order: a tree of partial sums, whose
    error grows with the log of the lanes rather than with their number.

    A `maxnumf` or `minnumf` reduction of a power-of-two number of lanes
    (a softmax's row maximum, tfm::buildSoftmaxMax) becomes the tree
    itself: halves of the vector combined by the vector op until one lane
    is left, then the accumulator; the same value, since maxnum is
    associative. LLVM would reduce it one lane at a time with a NaN test
    per lane (62 instructions for 16 lanes on AVX-512, 18 as a tree); an
    attention of nn.MultiheadAttention's shape spent a fifth of its time
    there. `maximumf` and `minimumf` (NaN-propagating) are left alone.

    ```mlir
    %s = vector.reduction <add>, %row, %acc : vector<16xf32> into f32
    // becomes
    %s = vector.reduction <add>, %row, %acc fastmath<reassoc>
        : vector<16xf32> into f32
    ```
  }];
}

def TfmCpuReduceRowBlocks
    : Pass<"tfm-cpu-reduce-row-blocks", "::mlir::func::FuncOp"> {
  let summary = "Reduce a block of rows along its rows together, by halves";
  let description = [{
    Rewrites a `vector.multi_reduction` of a `vector<R x C>` (or
    `vector<1 x ... x R x C>`) over its inner dimension (R a power of two,
    C a multiple of R: a block of rows that
    `tfm-cpu-select-vector-strategy` gives a vector's worth of rows, such as
    flash attention's row maxima and row sums over a key block) so that the
    rows share the work of reducing across lanes. Each row's columns are
    first combined elementwise into one vector of R lanes; then pairs of
    vectors are combined by halves (a shuffle of the low halves of their
    rows' partial results, one of the high halves, one combining op), R / 2
    pairs, then R / 4, ..., until one vector holds the R results in row
    order; then the accumulator. That is R - 1 combining ops and 2(R - 1)
    shuffles for R rows with no dependence between rows, where upstream's
    lowering reduces every row across its lanes on its own (log2 R
    dependent steps a row, each a shuffle and an op, and for `maxnumf` a
    NaN test and a blend as well) and inserts each scalar into the result.

    Every kind is associative, so maxima and minima keep their value; float
    sums and products round in another order (a tree of partial results,
    as `tfm-cpu-reassociate-reductions` allows for a single row).

    ```mlir
    %r = vector.multi_reduction <maxnumf>, %x, %acc [1]
        : vector<16x64xf32> to vector<16xf32>
    // becomes, per row i: four 16-lane slices of row i combined by
    // arith.maxnumf; then 8 + 4 + 2 + 1 pairs of
    //   vector.shuffle (low halves), vector.shuffle (high halves),
    //   arith.maxnumf
    // and arith.maxnumf with %acc
    ```
  }];
}

def TfmCpuVectorize : Pass<"tfm-cpu-vectorize"> {
  let summary = "Vectorize every linalg op on tensors";
  let description = [{
    Turns every linalg op on tensors, by now a tile cut by
    `tfm-tile-by-config`, into vector-dialect code. A tile of static shape is
    vectorized whole, except a product's register tile whose columns are
    more than a vector of the module's `tfm.target` but not whole vectors
    (the remainder of 49 columns after tiles of 32): its columns are
    rounded up to whole vectors under a constant mask, where LLVM would
    build the odd-sized vector from scalars. A tile of dynamic shape is
    vectorized with masks to the vector shape
    `tfm-cpu-select-vector-strategy` gives such an op. Ops on boolean (i1)
    tensors stay scalar: vectors of i1 are bit-packed in memory, scalar i1
    values are not.

    An op the vectorizer rejects is left as it is for the loop lowering, with
    a remark.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::tfm::TfmDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def TfmCpuPadRowStrides : Pass<"tfm-cpu-pad-row-strides"> {
  let summary = "Pad the rows of matmuls' operands off cache-set aliasing "
                "strides";
  let description = [{
    The micro-kernel reads its right operand a row at a time down a strip of
    columns, the rows one row stride apart, and its left operand one element
    from each of a register tile's rows per step. When a row stride is a
    multiple of 8 cache lines (a 768- or 3072-wide f32 weight or activation:
    48 or 192 lines), those rows fall into at most 8 of L1's 64 sets and
    evict each other: data meant to stay in L1 is read from L2 at every
    step. This pass gives such an operand rows one cache line longer, so
    that consecutive rows fall into different sets:

    - a constant (a weight) becomes a padded constant at compile time, read
      through a `tensor.extract_slice` of its first columns;
    - a value that only the product uses, computed by a linalg op (or the
      fill of its accumulator) into a `tensor.empty`, is computed into the
      first columns of a padded buffer instead, with no copy, also when it
      reaches the product, or its empty reaches it, through reshapes that
      keep the product's rows whole (a LayerNorm's `[1, S, D]` read as
      `[S, D]`; a product's activated result in panels, `[S, N / Nr, Nr]`,
      read as `[S, N]` by the next product);
    - any other value is copied into the first columns of a padded buffer
      (a `linalg.copy`, vectorized and parallel like any other op).

    Values computed at run time are padded only when enough of the product
    reads the padded rows to pay for the buffer: at least `min-rows` rows
    for the right operand, `min-columns` columns for the left. (At 192
    columns, ViT-Ti's second FFN product got 3% slower with its left operand
    padded; at 768, the encoder layer at S=384 got 10% faster.)

    - a transpose into an empty (attention's Kᵀ, read a block of keys at
      a time by flash attention's tiles) writes into the first columns of
      a padded buffer instead, at no cost.

    Only products that get the micro-kernel (row-major right operand, static
    row length; a row-major left operand, for the left) and transposes that
    are not inside a parallel loop are padded.
  }];
  let options = [
    Option<"minRows", "min-rows", "int64_t", /*default=*/"16",
           "Rows a product needs for its right operand to be padded at run "
           "time">,
    Option<"minColumns", "min-columns", "int64_t", /*default=*/"512",
           "Columns a product needs for its left operand to be padded at "
           "run time">,
  ];
  let dependentDialects = [
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def TfmCpuLowerTransposes : Pass<"tfm-cpu-lower-transposes"> {
  let summary = "Transposes of vector blocks as register shuffles";
  let description = [{
    A vectorized transpose reads its tile through a transfer whose
    permutation map swaps the two innermost vector dimensions. Lowered as it
    stands, such a transfer becomes one scalar load per element. This pass
    rewrites it as a transfer of whole rows followed by a `vector.transpose`
    (upstream's transfer permutation lowering), and lowers every transpose
    of an 8x8 block of 32-bit elements (leading unit dimensions allowed)
    as three rounds of eight two-vector shuffles: interleaving pairs of
    rows, then pairs of pairs, then swapping 128-bit halves, which x86 with
    AVX runs as unpck, shufps and vperm2f128, one instruction each. Other
    transposes are left to the vector to LLVM conversion.

    It runs before the transfers are unrolled (convert-vector-to-scf).
  }];
  let dependentDialects = ["::mlir::vector::VectorDialect"];
}

def TfmCpuLowerCopies
    : Pass<"tfm-cpu-lower-copies", "::mlir::func::FuncOp"> {
  let summary = "Buffer copies as loops of contiguous copies, in parallel "
                "when large";
  let description = [{
    Bufferization leaves a `memref.copy` wherever a tensor is written into
    part of another: a concatenation (Swin's shifted windows roll the image
    with two slices and a concat; its patch merging concatenates four
    strided slices), a slice copied out. The LLVM conversion turns a copy
    between contiguous buffers into one `memcpy`, and any other into a call
    to the runtime's generic copy, which moves one element at a time.

    This pass rewrites each copy of static shape and strides whose operands
    are not both contiguous, and each contiguous one of at least
    `kParallelBytes`, as a loop nest over its outer dimensions around a
    copy of the contiguous run that both operands share innermost (one
    `memcpy` each), or around one element's load and store where they share
    none. The loops are an `scf.parallel` (one kernel, which OpenMP shares
    out) when the copy moves `kParallelBytes` or more and is not inside a
    parallel loop already, else `scf.for`s. A contiguous copy's loop is
    over its outermost dimension of more than one element.

    Copies of dynamic shape or strides are left to the runtime, whose copy
    moves the contiguous runs it finds at run time.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

def TfmCpuPrefetchWeights
    : Pass<"tfm-cpu-prefetch-weights", "::mlir::func::FuncOp"> {
  let summary = "Prefetch what marked loops stream through of constants "
                "and arguments some iterations ahead";
  let description = [{
    Tiling marks the innermost level's loops of an op whose
    `lowering_config`
    has a `prefetch_distance` D with `tfm.prefetch_distance = D`
    (`tfm-cpu-select-vector-strategy` asks it of a few-row product with
    packed panels, a decoding step's batch, and of a decoding step's
    attention along the positions of its cache). Once bufferized, each
    `vector.transfer_read` directly in such an `scf.for` that streams
    through a buffer from memory - a view of a constant (a
    `memref.get_global` of static shape) or of an argument of the function
    of identity layout (a key/value cache), not an allocation of the
    function's own - at a place that moves with the loop's induction
    variable by a static stride of a cache line or more, gets a
    `memref.prefetch` of each 64-byte line that the read will read D
    iterations later. The address is taken in the buffer as a whole (the
    read's offset in it plus D strides), so that the prefetches run on from
    one panel into the next. An argument's stream inside a parallel loop
    ends where the iteration's view of the argument does (one batch x
    head's positions of a cache: the rows after them are the cache's room
    for later steps, which nothing reads). So that none points past its
    stream, the loop is split once, at the first iteration whose
    prefetches would (computed at run time where the sizes are dynamic):
    the iterations before it prefetch, the rest (the last panel's last D
    steps, a head's last D positions) run without (a clamp of every address
    would cost instructions at every step).

    ```mlir
    scf.for %k = %c0 to %c768 step %c1 iter_args(%acc = %init) -> ... {
      %w = memref.subview %panel[0, %k, 0] [1, 1, 32] [1, 1, 1] : ...
      %b = vector.transfer_read %w[%c0, %c0, %c0], %pad ...
      ...
    } {tfm.prefetch_distance = 128 : i64}
    ```

    becomes (the read 128 steps of 32 floats ahead, two lines)

    ```mlir
    %flat = memref.collapse_shape %weights [[0, 1, 2]]
        : memref<96x768x32xf32> into memref<2359296xf32>
    ...  // %split: the first %k whose prefetches would pass element 2359295
    %part = scf.for %k = %c0 to %split step %c1 iter_args(%acc = %init) {
      %w = memref.subview %panel[0, %k, 0] [1, 1, 32] [1, 1, 1] : ...
      %base, %offset, %sizes:3, %strides:3 = memref.extract_strided_metadata %w
      %line0 = arith.addi %offset, %c4096 : index
      memref.prefetch %flat[%line0], read, locality<3>, data
          : memref<2359296xf32>
      ...  // and the line 16 floats further
      %b = vector.transfer_read %w[%c0, %c0, %c0], %pad ...
      ...
    }
    %rest = scf.for %k = %split to %c768 step %c1 iter_args(%acc = %part) {
      ...  // the same, without prefetches
    }
    ```

    The marker is removed from every loop.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect"];
}

def TfmCpuHoistInvariantSubsets : Pass<"tfm-cpu-hoist-invariant-subsets"> {
  let summary = "Hoist the subsets of loop-carried tensors that every "
                "iteration reads and writes at the same place";
  let description = [{
    Upstream's `hoistLoopInvariantSubsets` (what
    `--loop-invariant-subset-hoisting` runs on every loop), asked only of
    the loops that read a subset of one of their iter_args at the same place
    in every iteration: an extraction of the iter_arg itself whose other
    operands are defined outside the loop, the only kind of subset that can
    leave it. The micro-kernel's accumulator tile, read and written by
    every reduction step, becomes a loop-carried vector, i.e. registers.

    The result is upstream's pass's, without its analysis of every other
    loop: proving that the subsets a loop and the loops in it read and
    write are equal or disjoint takes value-bounds queries, and on dynamic
    sizes these are Presburger problems. On the GPT-2 decoder compiled with
    `--kv-cache` (a decoding step over a dynamic cache), upstream's pass
    took 17-23 s of the compile, four fifths of it in 163 elementwise loops
    over the attention's dynamic scores, none of which has a subset to
    hoist.
  }];
}

def TfmCpuSerializeSmallLoops
    : Pass<"tfm-cpu-serialize-small-loops", "::mlir::func::FuncOp"> {
  let summary = "Start the threads of a parallel loop of a run-time trip "
                "count only when its work is worth it";
  let description = [{
    `tfm-cpu-select-vector-strategy` gives an op parallel tiles only when
    it has `kMinParallelIterations` iterations or more (2^15: below that,
    starting the threads costs about what they save); an op of dynamic
    extent gets them whatever its size, since the size is known only when
    it runs. A decoding step's LayerNorms, residual adds and head
    transposes ([batch, 1, 768] and [batch, 12, 1, 64]) are such ops: at
    batch 8 each took 3-6 microseconds, most of it an OpenMP fork and join,
    about 150 of them 0.69 ms of a GPT-2-size step's 11.3 ms (0.45 ms
    with this pass).

    This pass, after `convert-scf-to-openmp`, gives each `omp.parallel`
    whose loop's bounds are known only at run time, and whose iterations
    each do a known, small amount of work, an `if` clause: the threads
    start only when the loop's trip count times that work reaches
    `kMinParallelIterations`; otherwise the calling thread runs the loop
    alone (OpenMP's serialized region, no other thread woken). The work of
    an iteration is counted as the strategy counts iterations: the most
    elements one of its loads or stores accesses, times the trip counts of
    the loops around it in the iteration. An iteration holding a loop of a
    run-time trip count (an attention's positions, a product's rows) is
    left parallel, as is every loop of static bounds.

    ```mlir
    omp.parallel {
      omp.wsloop {
        omp.loop_nest (%i) : index = (%c0) to (%rows) step (%c1) {
          scf.for %j = %c0 to %c768 step %c16 { ... vector<16xf32> ... }
          omp.yield
        }
      }
      omp.terminator
    }
    ```

    becomes (768 elements an iteration: 43 rows or more start the threads)

    ```mlir
    %trips = arith.ceildivsi (%rows - %c0), %c1 ...
    %worth = arith.cmpi sge, %trips, %c43 : index
    omp.parallel if(%worth) { ... }
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def TfmCpuOutlineKernels
    : Pass<"tfm-cpu-outline-kernels", "::mlir::ModuleOp"> {
  let summary = "Move each parallel loop nest into a function of its own";
  let description = [{
    After bufferization a model is one function holding hundreds of
    kernels, each an outermost `scf.parallel`. The translation to LLVM IR
    outlines every OpenMP parallel region from the function that holds it,
    and LLVM's code extractor scans that whole function for each region:
    the time grows with kernels x function size (17 s of ViT-Ti's compile
    at -O0). This pass moves each outermost `scf.parallel` (without
    results) into a private function `<parent>_kernel_<n>` (the n-th
    kernel), called where the loop was, with the values it uses from
    outside as arguments; constants and `memref.get_global`s are cloned
    into it instead, so that the kernel's code still sees them. Each
    parallel region is then outlined from a small function, and LLVM
    optimizes many small functions instead of one that holds the whole
    model.

    With `dedup` (the default), the kernels are compiled once per distinct
    code: a kernel's weights (`memref.get_global`s) are arguments instead
    of clones, and kernels whose functions are then the same ops on the
    same types (locations aside) become one function, called from each
    place with its own buffers and weights. The N layers of a Transformer share
    one function per kernel of a layer, and everything after this pass
    (the LLVM dialect, LLVM's optimizer and code generator: most of a
    compile) handles each once.
  }];
  let options = [
    Option<"dedup", "dedup", "bool", /*default=*/"true",
           "Share one function among kernels that are the same code on "
           "different buffers">,
  ];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

def TfmCpuSelectStrategy : Pass<"tfm-cpu-select-strategy"> {
  let summary = "Choose how the CPU tiles each op, as a #tfm.lowering_config";
  let description = [{
    Writes a `lowering_config` on every op that code generation tiles and
    transforms nothing: `tfm-tile-by-config` applies it. An op that already
    has a config (set by hand, to try another strategy) keeps it.

    `tfm.online_attention`: query tiles of 32 rows and key blocks of 64, so
    that a Q tile, a K and a V block and the score block of a 64-wide head
    stay within L1 and L2; the query tiles run on the OpenMP threads. Tile
    sizes are clamped to the static sizes they tile; a dynamic number of
    queries or keys gets the same tiles, the last of them partial. The
    fills that start the attention's state and the normalization that reads
    it are marked for fusion into the query tiles (`tfm.fuse_into_consumer`,
    `tfm.fuse_into_producer`): each tile starts its state and finishes its
    rows while they are in L1.
  }];
  let options = [
    Option<"qTileSize", "q-tile", "int64_t", /*default=*/"32",
           "Query rows per attention tile">,
    Option<"kvTileSize", "kv-tile", "int64_t", /*default=*/"64",
           "Keys per attention block">,
  ];
}

#endif // TFM_CODEGEN_CPU_PASSES_TD
