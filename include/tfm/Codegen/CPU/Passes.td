//===- Passes.td - code generation for CPUs ----------------*- tablegen -*-===//

#ifndef TFM_CODEGEN_CPU_PASSES_TD
#define TFM_CODEGEN_CPU_PASSES_TD

include "mlir/Pass/PassBase.td"

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

def TfmCpuSelectStrategy : Pass<"tfm-cpu-select-strategy"> {
  let summary = "Choose how the CPU tiles each op, as a #tfm.lowering_config";
  let description = [{
    Writes a `lowering_config` on every op that code generation tiles and
    transforms nothing: `tfm-tile-by-config` applies it. An op that already
    has a config (set by hand, to try another strategy) keeps it.

    `tfm.online_attention` of static shape: Query tiles of 32 rows (four register tiles of the micro-kernel) and key
    blocks of 64, so that a Q tile, a K and a V block and the score block of
    a 64-wide head stay within L1 and L2; the parallel tiles run on the
    OpenMP threads. Tile sizes are clamped to
    the sizes they tile. Attention of dynamic shape gets no config and is
    decomposed untiled.
  }];
  let options = [
    Option<"qTileSize", "q-tile", "int64_t", /*default=*/"32",
           "Query rows per attention tile">,
    Option<"kvTileSize", "kv-tile", "int64_t", /*default=*/"64",
           "Keys per attention block">,
  ];
}

#endif // TFM_CODEGEN_CPU_PASSES_TD
