//===- TfmAttrs.td - tfm attributes and enums --------------*- tablegen -*-===//

#ifndef TFM_DIALECT_TFM_IR_TFMATTRS_TD
#define TFM_DIALECT_TFM_IR_TFMATTRS_TD

include "tfm/Dialect/Tfm/IR/TfmDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

class Tfm_EnumAttr<EnumAttrInfo info, string mnemonic>
    : EnumAttr<Tfm_Dialect, info, mnemonic> {
  let assemblyFormat = "`<` $value `>`";
}

def Tfm_Activation : I32EnumAttr<"Activation",
    "activation applied after a linear layer", [
      I32EnumAttrCase<"none", 0>,
      I32EnumAttrCase<"relu", 1>,
      I32EnumAttrCase<"gelu", 2>,
      I32EnumAttrCase<"gelu_tanh", 3>,
      I32EnumAttrCase<"silu", 4>,
    ]> {
  let cppNamespace = "::mlir::tfm";
  let genSpecializedAttr = 0;
}
def Tfm_ActivationAttr : Tfm_EnumAttr<Tfm_Activation, "activation">;

def Tfm_GeluApproximation : I32EnumAttr<"GeluApproximation",
    "how GELU is evaluated (PyTorch's `approximate`)", [
      I32EnumAttrCase<"none", 0>,
      I32EnumAttrCase<"tanh", 1>,
    ]> {
  let cppNamespace = "::mlir::tfm";
  let genSpecializedAttr = 0;
}
def Tfm_GeluApproximationAttr
    : Tfm_EnumAttr<Tfm_GeluApproximation, "gelu_approximation">;

def Tfm_PoolingKernel : I32EnumAttr<"PoolingKernel",
    "similarity kernel of Nadaraya-Watson attention pooling", [
      I32EnumAttrCase<"gaussian", 0>,
      I32EnumAttrCase<"boxcar", 1>,
      I32EnumAttrCase<"constant", 2>,
      I32EnumAttrCase<"epanechikov", 3>,
    ]> {
  let cppNamespace = "::mlir::tfm";
  let genSpecializedAttr = 0;
}
def Tfm_PoolingKernelAttr : Tfm_EnumAttr<Tfm_PoolingKernel, "kernel">;

//===----------------------------------------------------------------------===//
// Code generation strategies
//===----------------------------------------------------------------------===//

def Tfm_TilingLevel : I32EnumAttr<"TilingLevel",
    "what one level of a lowering_config tiles for", [
      I32EnumAttrCase<"parallel", 0>,
      I32EnumAttrCase<"cache", 1>,
      I32EnumAttrCase<"vector", 2>,
      I32EnumAttrCase<"reduction", 3>,
    ]> {
  let cppNamespace = "::mlir::tfm";
  let genSpecializedAttr = 0;
}

def Tfm_LoweringConfigAttr : AttrDef<Tfm_Dialect, "LoweringConfig"> {
  let mnemonic = "lowering_config";
  let summary = "how code generation tiles one op";
  let description = [{
    A code generation strategy, written on an op as its `lowering_config`
    attribute by a target's strategy selection (`tfm-cpu-select-strategy`,
    `tfm-cpu-select-vector-strategy`, `tfm-gpu-select-strategy`) or by
    hand, and applied by `tfm-tile-by-config`, which chooses nothing
    itself.

    A config is a list of named tiling levels, outermost first, each with
    one tile size per loop of the op's iteration space (`TilingInterface`),
    0 for a loop that the level does not tile. Each level tiles the tile of
    the level before it. The levels, each at most once and in this order:
    - `parallel`: tiles whose iterations run in parallel, an `scf.forall`
      (the CPU's threads; one GPU block each);
    - `cache`: blocks of the tile that stay in a cache while the levels
      below run over them (a product's reduction cut into blocks of 512
      whose packed panels stay in L2), `scf.for` loops;
    - `vector`: the tile that becomes one vector computation, held in
      vector registers (a product's accumulators, Mr x Nr; one vector along
      an elementwise op's innermost loop), `scf.for` loops;
    - `reduction`: steps of the reduction loops below everything else (a
      micro-kernel's one step of k at a time; a flash attention's blocks of
      keys; a GPU product's chunks of k staged in shared memory), `scf.for`
      loops.
    A level may be left out (an op already in a parallel loop has no
    `parallel` level). Where a size does not divide its loop, every tile
    still has a static shape: the remainder is split off first (the
    `parallel` level; every level of ops that are not linalg ops), or the
    loop is peeled (the other levels of linalg ops). `interchange` after a
    level's sizes orders that level's loops (outermost first); without it
    they keep their natural order.

    `prefetch_distance`, if given, asks the loops of the innermost level to
    prefetch what their iterations stream through, constants (the packed
    weights of a matmul's panels) and the function's arguments (a key/value
    cache), that many iterations ahead: `tfm-cpu-prefetch-weights` inserts
    the prefetches once they are buffers. A product of a few rows (a
    decoding step's batch) streams each panel once from memory while it
    does several FMAs per cache line, and the loop's instructions fill the
    out-of-order window before it reaches the loads far enough ahead to
    keep the memory busy; a decoding step's attention streams each head's
    keys and values, a few pages each, which the hardware's prefetcher
    starts afresh at every page.

    An op that also carries the unit attribute `tfm.fuse_into_consumer` is
    not tiled at its `parallel` level on its own: the op that reads it fuses
    it into its own parallel tiles (upstream's tile-and-fuse computes the
    slice of it that each tile reads), and the fused tile is then tiled by
    the later levels of its own config. The strategy marks only producers
    whose every reader is in the same parallel tile (a LayerNorm's two
    reductions and their fills, read row by row by its normalization), so
    that nothing is computed twice; the group becomes one parallel loop
    that finishes a row while it is in L1. The op that computes a product's
    accumulator (its bias) is marked the same way, and the op that reads
    its result (its activation) `tfm.fuse_into_producer`: both are fused
    into the product's parallel and vector tiles. Likewise a flash
    attention's state: the fills that start it and the normalization that
    reads it run in its query tiles, on tensors of a tile's size.

    ```mlir
    // Flash attention: (batch, 32 queries) tiles in parallel, then blocks
    // of 64 keys.
    #tfm.lowering_config<parallel = [1, 32, 0], reduction = [0, 0, 64]>

    // A CPU matmul (m, n, k) micro-kernel: 128-column panels in parallel,
    // 8x32 register tiles with the column loop outermost, then the
    // reduction one step at a time.
    #tfm.lowering_config<parallel = [0, 128, 0],
                         vector = [8, 32, 0] interchange [1, 0, 2],
                         reduction = [0, 0, 1]>

    // A decoding step's 8 rows against packed panels ([panels, k, 32]):
    // panels in parallel, the panel's 32 columns read 128 steps ahead.
    #tfm.lowering_config<parallel = [0, 4, 0, 0], vector = [8, 1, 32, 0],
                         reduction = [0, 0, 0, 1], prefetch_distance = 128>
    ```
  }];
  let parameters = (ins
    ArrayRefParameter<"::mlir::tfm::TilingLevel", "what each level is">
        :$levels,
    ArrayRefParameter<"::mlir::DenseI64ArrayAttr", "sizes per level">
        :$tile_sizes,
    OptionalArrayRefParameter<"::mlir::DenseI64ArrayAttr",
                              "loop order per level">:$interchange,
    DefaultValuedParameter<"int64_t", "0",
                           "iterations ahead that the innermost level's "
                           "loops prefetch what they stream through (0: "
                           "none)">
        :$prefetch_distance);
  let builders = [
    // One level each of `levels`, with its sizes and (empty: the natural
    // order) its loop order.
    AttrBuilder<(ins "::llvm::ArrayRef<::mlir::tfm::TilingLevel>":$levels,
                     "::llvm::ArrayRef<::llvm::SmallVector<int64_t>>":$sizes,
                     CArg<"::llvm::ArrayRef<::llvm::SmallVector<int64_t>>",
                          "{}">:$interchange,
                     CArg<"int64_t", "0">:$prefetchDistance)>
  ];
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The number of tiling levels.
    unsigned getNumLevels() { return getLevels().size(); }
    /// The tile sizes of the `index`th level.
    ::llvm::ArrayRef<int64_t> getTileSizes(unsigned index) {
      return getTileSizes()[index].asArrayRef();
    }
    /// The position of `level` among the config's levels, if it has one.
    std::optional<unsigned> findLevel(::mlir::tfm::TilingLevel level);
    /// The tile sizes of `level`, empty if the config has no such level.
    ::llvm::ArrayRef<int64_t> getTileSizes(::mlir::tfm::TilingLevel level) {
      std::optional<unsigned> index = findLevel(level);
      return index ? getTileSizes(*index) : ::llvm::ArrayRef<int64_t>();
    }
    /// Whether the config's levels are exactly `levels`, in that order.
    bool hasLevels(::llvm::ArrayRef<::mlir::tfm::TilingLevel> levels) {
      return getLevels() == levels;
    }
    /// The loop order of the `index`th level, empty for the natural order.
    ::llvm::ArrayRef<int64_t> getInterchange(unsigned index) {
      if (index >= getInterchange().size())
        return {};
      return getInterchange()[index].asArrayRef();
    }
    /// The config with the sizes of its `parallel` level replaced by
    /// `sizes`.
    LoweringConfigAttr withParallelSizes(::llvm::ArrayRef<int64_t> sizes);
    /// The name of the discardable attribute that marks a loop of the innermost
    /// level of a config with a prefetch distance, from tiling to
    /// tfm-cpu-prefetch-weights.
    static constexpr ::llvm::StringLiteral getPrefetchDistanceAttrName() {
      return "tfm.prefetch_distance";
    }
    /// The name of the attribute that carries a config on an op.
    static constexpr ::llvm::StringLiteral getAttrName() {
      return "lowering_config";
    }
    /// The name of the unit attribute that fuses an op into the parallel
    /// tiles of the op that reads it.
    static constexpr ::llvm::StringLiteral getFuseIntoConsumerAttrName() {
      return "tfm.fuse_into_consumer";
    }
    /// The name of the unit attribute that fuses an elementwise op into the
    /// register tiles of the product it reads.
    static constexpr ::llvm::StringLiteral getFuseIntoProducerAttrName() {
      return "tfm.fuse_into_producer";
    }
  }];
}

//===----------------------------------------------------------------------===//
// Targets
//===----------------------------------------------------------------------===//

def Tfm_CpuTargetAttr : AttrDef<Tfm_Dialect, "CpuTarget"> {
  let mnemonic = "cpu";
  let summary = "the CPU that code is generated for";
  let description = [{
    The facts about a CPU that the CPU's strategy passes read: its ISA, the
    width and number of its vector registers, its features and its data
    caches. tfm-compile writes it on the module as `tfm.target` (the host's
    by default, `--cpu=` another's); `tfm-set-cpu-target` does the same in
    tfm-opt. A module without one is compiled for `x86-64-v4` (AVX-512).

    ```mlir
    module attributes {tfm.target = #tfm.cpu<name = "haswell", isa = "avx2",
        vector_bits = 256, vector_registers = 16, features = ["fma"],
        l1_bytes = 32768, l2_bytes = 262144, l3_bytes = 8388608>} {...}
    ```
  }];
  let parameters = (ins
    StringRefParameter<"the LLVM name of the CPU">:$name,
    StringRefParameter<"the widest vector ISA: avx512, avx2, avx or sse">:$isa,
    "unsigned":$vector_bits,
    "unsigned":$vector_registers,
    "::mlir::ArrayAttr":$features,
    "int64_t":$l1_bytes,
    "int64_t":$l2_bytes,
    "int64_t":$l3_bytes);
  let assemblyFormat = "`<` struct(params) `>`";
  let extraClassDeclaration = [{
    /// The name of the module attribute that holds the target.
    static constexpr ::llvm::StringLiteral getAttrName() {
      return "tfm.target";
    }
    /// The target of the module that holds `op`, or the default
    /// (`x86-64-v4`: AVX-512, 32 registers) if it has none.
    static CpuTargetAttr lookup(::mlir::Operation *op);
    /// A CPU of `isa` ("avx512", "avx2", "avx" or "sse") with its ISA's
    /// vector registers and the caches of a typical core of its generation
    /// (Ice Lake server for AVX-512, Haswell otherwise).
    static CpuTargetAttr getTypical(::mlir::MLIRContext *context,
                                    ::llvm::StringRef name,
                                    ::llvm::StringRef isa,
                                    ::llvm::ArrayRef<::llvm::StringRef> features);
    /// Whether the CPU has `feature` (an LLVM feature name, e.g. "fma").
    bool hasFeature(::llvm::StringRef feature) const;
    /// The elements of `bits` bits that one vector register holds.
    int64_t getLanes(unsigned bits) const {
      return std::max<int64_t>(1, getVectorBits() / std::max(bits, 1u));
    }
  }];
}

#endif // TFM_DIALECT_TFM_IR_TFMATTRS_TD
