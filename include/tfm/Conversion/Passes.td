//===- Passes.td - tfm lowerings ---------------------------*- tablegen -*-===//

#ifndef TFM_CONVERSION_PASSES_TD
#define TFM_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertTfmToLinalg : Pass<"convert-tfm-to-linalg"> {
  let summary = "Lower tfm ops to linalg, tensor, arith and math on tensors";
  let description = [{
    Rewrites every tfm op into upstream ops on tensors: linalg named ops
    (`linalg.matmul`, `linalg.batch_matmul`, `linalg.transpose`, ...) where
    one exists and `linalg.generic` otherwise, with `tensor` reshapes and
    `arith`/`math` bodies. Composite ops are decomposed first (the patterns
    of `tfm-decompose`). The result is ready for upstream tiling,
    vectorization and bufferization.

    `tfm.kv_cache_append` becomes a `tensor.insert_slice` of the update
    into the cache and a `tensor.extract_slice` of its prefix, after a
    `cf.assert` that the cache holds them.

    `tfm.attention` lowers to `tfm.online_attention`, the flash attention
    that code generation tiles, with the keys transposed once; with
    `decode-path`, an attention of one query row per batch materialises its
    scores instead, each a dot product with a key row where it lies.

    An op the conversion cannot handle yet (for example a dynamic dimension
    that a lowering needs static) is reported with the op and the reason.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::cf::ControlFlowDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
  ];
  let options = [
    Option<"decodePath", "decode-path", "bool", /*default=*/"false",
           "An attention of one query row per batch (a decoding step "
           "against a key/value cache) materialises its few scores, reading "
           "the keys in place, instead of the flash attention's transposed "
           "copy of them; with a dynamic number of queries, an scf.if "
           "chooses at run time (the CPU pipeline sets it)">,
  ];
}

#endif // TFM_CONVERSION_PASSES_TD
