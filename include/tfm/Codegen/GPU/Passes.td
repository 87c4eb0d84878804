//===- Passes.td - code generation for NVIDIA GPUs ---------*- tablegen -*-===//

#ifndef TFM_CODEGEN_GPU_PASSES_TD
#define TFM_CODEGEN_GPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def TfmGpuPromoteOperands : Pass<"tfm-gpu-promote-operands",
                                 "::mlir::func::FuncOp"> {
  let summary = "Stage the operands of a tile's contractions through block "
                "buffers";
  let description = [{
    In every `scf.forall` tile loop of a bufferized function, each
    global-memory operand of a contraction (flash attention's query, key and
    value tiles; a matmul tile's rows and columns) of static shape is
    copied into a buffer the tile allocates, which `tfm-map-to-gpu` puts in
    the block's shared memory: the block then reads each element from
    global memory once instead of once per use. The copy is hoisted out of
    the loops inside the tile that do not change the operand, so that the
    query tile is copied once per block rather than once per key block
    (the effect-free views that compute the operand inside such a loop,
    which bufferization makes there, are hoisted with it). Operands are
    staged in program order while the tile's buffers fit in
    `shared-memory-bytes`; the others are read from global memory, and so
    are the operands that the contraction reads once an element (a row
    reduction's input, indexed by all of its loops): staged, they would
    only be copied.

    A buffer of 16- or 32-bit elements whose rows are a multiple of 64
    bytes long gets 16 bytes of padding at the end of each row, and the
    contraction reads its leading part (a `memref.subview`): unpadded, the
    eight rows that one `ldmatrix` matrix (or one TF32 fragment) reads
    would start in the same few of shared memory's 32 banks and be served
    one after another; padded, they fall in eight different groups of four
    banks.

    With `stages` of 2 or more (3 with the tensor cores, whose copies are
    asynchronous), a loop with static bounds and at least two steps that
    stages an operand at every step (a reduction's chunks, flash
    attention's key and value blocks) gets it pipelined through `stages`
    buffers: `stages - 1` more buffers, the copies of the first
    `stages - 1` steps issued before the loop (a step's together), and in
    each step the copy of the operand `stages - 1` steps ahead (the last
    steps copy the last step's again) into the buffer the step before it
    read, chosen by the step's index modulo `stages`. These copies carry
    `tfm.prefetch = N`, the steps ahead of the current (or first) step
    that they fetch: `tfm-map-to-gpu` issues them without waiting, so that
    they are in flight while the step computes, and the product waits
    only for its own operands (`cp.async.wait_group N`). A loop that
    stages in more than one run per step (flash attention: its keys, then
    after the scores its values) gets at most two stages; where the
    buffers do not fit, fewer stages, or none.
  }];
  let options = [
    Option<"sharedMemoryBytes", "shared-memory-bytes", "int64_t",
           /*default=*/"49152",
           "Shared memory a block may use, in bytes">,
    Option<"stages", "stages", "int64_t", /*default=*/"1",
           "Buffers through which a loop pipelines what it stages at every "
           "step (1: none, 2: double-buffered)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

def TfmMapToGpu : Pass<"tfm-map-to-gpu", "::mlir::func::FuncOp"> {
  let summary = "Map a bufferized function onto the GPU: tiles to blocks, "
                "loops to threads, tile buffers to shared memory";
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
      thread 0; buffers allocated inside the block (its tiles, and the
      operands `tfm-gpu-promote-operands` staged) live in the block's
      dynamic shared memory (`gpu.dynamic_shared_memory`), so they never
      leave the multiprocessor.
    - Any other top-level parallel loop (an elementwise op, a matmul, a
      normalization's rows) becomes one launch with one thread per
      iteration; sequential code that writes memory runs in a launch of one
      thread. A reduction loop keeps the output element it accumulates
      into in a register (an iteration argument, loaded before the loop
      and stored after it) rather than loading and storing it at every
      step as linalg's loops do.
    - A row reduction (a LayerNorm's moments, a softmax's or flash
      attention's row maxima and sums; not a contraction) splits each row
      over up to 32 lanes of a warp, which combine their parts by a
      butterfly of `gpu.shuffle xor`; with `block-size=1` (the emulation)
      the lanes run one after another and the butterfly is computed on a
      buffer of their parts (lib/Codegen/GPU/RowReduction.h).
    - With `tensor-cores`, a contraction (or the loop that carries its
      fragments) whose output tile only an elementwise op then reads (flash
      attention's scaling of the scores; a layer's bias, activation and
      cast) stores its fragments through that op, into the op's output: the
      tile takes no shared memory and is not passed over again behind a
      barrier.
    - With `tensor-cores`, a contraction of a block tile with float16 or
      bfloat16 operands, a float32 accumulator and static extents (partial
      instruction tiles read zeros past them) runs on the tensor cores
      instead: each warp takes warp
      tiles (a row of up to four 16 x 8 instruction tiles) in turn, keeps
      their accumulator fragments in registers and updates each with one
      `nvgpu.mma.sync` (the same A fragment for all) per 16 steps of
      the reduction (lib/Codegen/GPU/WarpMma.cpp); with `tf32`, float32
      contractions too, as TF32 (m16n8k8). A loop that accumulates into
      such a contraction's output at every step (a reduction's chunks,
      flash attention's key blocks, directly or under a skip) carries the
      fragments from step to step; the elementwise ops in it that update
      the output (the attention's rescale by each row's correction) are
      applied to each lane's fragment elements. The copies that stage a tile's
      operands in shared memory become `nvgpu.device_async_copy`
      (cp.async) of up to 16 bytes a thread, committed and waited for
      before the barrier (lib/Codegen/GPU/AsyncCopy.cpp). With `emulate-warps`
      (for `block-size=1`) the same loops run the warp's 32 lanes one after
      another and compute each instruction on the CPU from the PTX ISA's
      fragment layouts, so a misplaced fragment element fails a numerics
      test on a machine without a GPU.

    The host keeps allocation, constants and views, for
    `tfm-gpu-place-buffers`.
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", /*default=*/"128",
           "Threads per block">,
    Option<"sharedMemoryBytes", "shared-memory-bytes", "int64_t",
           /*default=*/"49152",
           "Shared memory a block may use, in bytes (the target's limit; "
           "above 48 KiB the runtime opts the kernel in)">,
    Option<"tensorCores", "tensor-cores", "bool", /*default=*/"false",
           "Compute the float16 contractions of block tiles (float32 "
           "accumulators, extents multiples of 16 x 8 x 16) on tensor "
           "cores, nvgpu.mma.sync m16n8k16, warp by warp (sm_80 and up)">,
    Option<"tf32", "tf32", "bool", /*default=*/"false",
           "With tensor-cores, also compute float32 contractions on tensor "
           "cores, as TF32 (mma.sync m16n8k8; operands rounded to 10 bits "
           "of mantissa)">,
    Option<"emulateWarps", "emulate-warps", "bool", /*default=*/"false",
           "With tensor-cores and block-size=1, emit the tensor-core "
           "products for the CPU emulation: the one warp's lanes looped "
           "over, each mma.sync computed from the PTX ISA's fragment "
           "layouts">,
    Option<"unrollSteps", "unroll-steps", "int64_t", /*default=*/"0",
           "With tensor-cores, unroll the loop over a product's instruction "
           "steps (16 of the reduction each, 8 with TF32) where it has at "
           "most this many (0: never), so that the fragments of a step "
           "load while the previous step's instructions run">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::NVVM::NVVMDialect",
    "::mlir::nvgpu::NVGPUDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def TfmGpuPlaceBuffers : Pass<"tfm-gpu-place-buffers", "::mlir::ModuleOp"> {
  let summary = "Give the buffers a mapped function's launches use device "
                "copies";
  let description = [{
    Runs after `tfm-map-to-gpu`, when every access to memory is inside a
    `gpu.launch` but the host's 0-d loads (a run-time check's flag), which
    read a host copy made here. In every function of the module, each
    argument gets a device buffer (`gpu.alloc`), copied in on entry unless
    the launches only write it, and copied back before returning if they
    write it (the results); the host's allocations become device
    allocations. Every such buffer is freed on return, and the function's
    own deallocations are dropped.

    Each constant (`memref.get_global`) is read through one call of the
    runtime's `tfmGpuConstant_<element>` (declared here, with MLIR's C
    interface), which takes the global as a one-dimensional memref and
    returns its device copy, made on the first call and kept for the
    process: a model's weights cross to the device once, not at every call.
    A constant of an element type the runtime has no function for is
    copied in at every call instead.

    An argument with a non-identity layout, or an allocation inside
    control flow on the host, is an error.
  }];
  let dependentDialects = [
    "::mlir::func::FuncDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

def TfmEmulateGpuOnCpu : Pass<"tfm-emulate-gpu-on-cpu", "::mlir::func::FuncOp"> {
  let summary = "Run the GPU mapping's launches as loops on the CPU "
                "(testing only)";
  let description = [{
    Turns the `gpu.launch` regions that `tfm-map-to-gpu{block-size=1}`
    (and `tfm-gpu-place-buffers`) produce into loops over the grid that the CPU pipeline can compile:
    block ids become induction variables, the one thread's id is 0, shared
    memory (workgroup attributions or dynamic shared memory) becomes a stack
    buffer per block, the thread's own buffers of static shape (the emulated
    warp's fragments, `tfm-map-to-gpu{emulate-warps}`) are allocated once
    before the grid's loops, barriers disappear, device
    allocations and copies become host ones, and a constant's device copy
    (the runtime's `tfmGpuConstant_*`) is the constant itself. The result computes what the
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

def TfmGpuDropRedundantBarriers
    : Pass<"tfm-gpu-drop-redundant-barriers", "::mlir::func::FuncOp"> {
  let summary = "Erase the barriers of GPU kernels that order nothing";
  let description = [{
    `tfm-map-to-gpu` puts a `gpu.barrier` wherever a block's threads hand
    each other data through shared memory, one construct at a time; where
    constructs meet, some of them order nothing: the last op of a kernel,
    the first before any access to memory, the one that ends a branch
    right before another. This pass erases a barrier of a `gpu.launch`
    when, in the kernel as it is at that moment, every path from it to the
    kernel's end meets another barrier (or the end) before any op that may
    touch memory, or every path to it from the kernel's start comes from
    another barrier (or the start) with no such op between. Paths follow
    `scf.if` out to the op after it, and `scf.for` both out of the loop
    and around to its next (or, backwards, its previous) iteration; any
    other region, and any op whose regions hold a barrier, ends the search
    with the barrier kept. "May touch memory" is anything not free of
    memory effects, and every `nvgpu` op: a `device_async_wait` completes
    the asynchronous copies that other threads read after the barrier.

    Barriers are erased one at a time, each judged against the kernel
    without the ones erased before it (of two barriers in a row, one
    stays). Barriers in loops are not judged by what the loop's trip count
    allows: the barrier that ends a loop's body, before the next
    iteration's writes into the buffers this one read, stays even where a
    barrier follows the loop, unless the body starts with one.

    ```mlir
    gpu.launch ... {
      %v = memref.subview %shared[...]
      gpu.barrier                 // erased: nothing before it touches memory
      ... writes %shared ...
      scf.for %i = ... {
        gpu.barrier               // kept: after the writes before the loop
        ... reads %shared ...     // and the previous iteration's reads
        gpu.barrier               // erased: the next iteration and the
      }                           // loop's exit each meet one
      gpu.barrier                 // kept
      ... writes %shared ...
      gpu.barrier                 // erased: the kernel's end
      gpu.terminator
    }
    ```

    Upstream's `gpu-eliminate-barriers` could do this and more: it tells
    apart the buffers on either side of a barrier and keeps it only
    between accesses that may conflict. On the example models it erases
    the same barriers as this pass (with `--gpu-tensor-cores`, the encoder
    block's 46 down to 31, ViT's 149 down to 100). This pass is used
    because its reasoning needs no aliasing: an erasure that got aliasing
    wrong would be a race, which the CPU emulation (a block's threads one
    after another) cannot show and no test here would catch.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
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

def TfmGpuRegisterBudget : Pass<"tfm-gpu-register-budget"> {
  let summary = "Give kernels with tensor-core instructions a register "
                "budget";
  let description = [{
    Sets `nvvm.maxnreg` (PTX's `.maxnreg`) to `max-registers` on every
    kernel (an `llvm.func` with `nvvm.kernel`) that holds `nvvm.mma.sync`
    and has no budget yet. Left to itself, ptxas holds such a kernel of
    128-thread blocks to about 64 registers a thread and spills the rest
    (a 32 x 32 tile of a 197-row product with pipelined chunks: 8 bytes
    when it was measured), although the accumulators, fragments and
    addresses of a warp tile want 75 to 115 (ptxas -v, sm_80 and sm_90a:
    78 for ViT-B's first FFN product, 197 x 768 x 3072, whose 64 x 64
    tiles' accumulator is in global memory; 112 for flash attention's
    block with d = 128). The
    default, PTX's most, lets ptxas take what the kernel needs. Run it on
    the kernel modules after `convert-gpu-to-nvvm`.
  }];
  let options = [
    Option<"maxRegisters", "max-registers", "int64_t", /*default=*/"255",
           "Registers a thread of a tensor-core kernel may use">,
  ];
}

def TfmGpuSelectStrategy : Pass<"tfm-gpu-select-strategy"> {
  let summary = "Choose how NVIDIA GPUs tile each op, as a "
                "#tfm.lowering_config";
  let description = [{
    Writes a `lowering_config` on every op that code generation tiles and
    transforms nothing: `tfm-tile-by-config` applies it. An op that already
    has a config (set by hand, to try another strategy) keeps it.

    - `tfm.online_attention` of static shape: query tiles of `q-tile` rows,
      one block each, and blocks of `kv-tile` keys, staged through shared
      memory by `tfm-map-to-gpu`. The fills that start its state and the
      normalization that reads it are marked for fusion into the query
      tiles, so that one kernel starts, runs and finishes the attention.
      Attention of dynamic shape gets no config and is decomposed untiled.
    - A contraction at the top level of a function (a linear layer's
      product, a batched matmul): output tiles of `contraction-tile` rows
      and columns, one batch element at a time, one block each (by default,
      with `tensor-cores` and float16 or bfloat16 operands (or float32
      ones with `tf32`), 128 x 128 where the product has at least as
      many such tiles as an H100 has multiprocessors, 132, its reduction
      staged in chunks of at most 32 steps; else 64 x 64 on the same
      condition; else 32 x 32, which gives a small product four times the
      blocks); inside a
      block the tile's rows of the left operand and columns of the right one
      are staged through shared memory, so that each element read from
      global memory serves a whole row or column of the tile. A reduction
      longer than `reduction-tile` steps is cut into chunks of that many
      (a `reduction` level), each chunk of the operands staged in turn: a
      whole reduction of 768 or 3072 steps would need more shared memory
      than a block has, or be read from global memory element by element.
      A contraction whose batch, row and column loops would need more than
      the three dimensions of a grid gets no config.
    - The epilogue of such a contraction: when the only op that reads its
      result is elementwise over it (a bias and activation, the cast of a
      float16 layer's float32 sums) and the output tiles divide the
      contraction's extents, that op gets the output tiles instead, and the
      contraction and the op computing its accumulator (the fill of zeros)
      are marked `tfm.fuse_into_consumer`: `tfm-tile-by-config` fuses them
      into its tiles, so that one block computes its tile's accumulator
      (in shared memory), product and epilogue, one kernel where there
      were three and no float32 intermediate in global memory.
    - An op of parallel loops at the top level that reads the results of
      row reductions row by row (a LayerNorm's normalization, a softmax's
      division by its sums), with static extents: blocks of 4 rows (one a
      warp of 128 threads) where 4 divides its innermost row loop and
      leaves a block for each of an H100's 132 multiprocessors, else of 2,
      else of 1 (and one of each outer row loop), and the ops it reads row
      by row (the reductions, the fills of their accumulators, and what
      they read row by row that nothing else reads) marked
      `tfm.fuse_into_consumer`: one kernel where a LayerNorm had five,
      its means and variances in shared memory. A block takes one row
      where its rows of the fused ops' results would take more than 32
      KiB of shared memory (a softmax's exponentials of 4096 keys), and
      nothing is fused where one row would.

    Tile sizes are clamped to the sizes they tile.
  }];
  let options = [
    Option<"qTileSize", "q-tile", "int64_t", /*default=*/"32",
           "Query rows per attention tile">,
    Option<"kvTileSize", "kv-tile", "int64_t", /*default=*/"64",
           "Keys per attention block">,
    Option<"contractionTileSize", "contraction-tile", "int64_t",
           /*default=*/"0",
           "Rows and columns of a contraction's output tile (0: 64 or 32, "
           "by the product's size)">,
    Option<"reductionTileSize", "reduction-tile", "int64_t",
           /*default=*/"64",
           "Reduction steps of a contraction staged at a time (0: all)">,
    Option<"tensorCores", "tensor-cores", "bool", /*default=*/"false",
           "Choose tiles for products on tensor cores (tfm-map-to-gpu's "
           "option of the same name): float16 and bfloat16 ones">,
    Option<"tf32", "tf32", "bool", /*default=*/"false",
           "With tensor-cores, float32 products too (as TF32)">,
  ];
  let dependentDialects = ["::mlir::tfm::TfmDialect"];
}

#endif // TFM_CODEGEN_GPU_PASSES_TD
