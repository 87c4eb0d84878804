//===- Passes.h - tfm graph transformations ---------------------*- C++ -*-===//

#ifndef TFM_TRANSFORMS_PASSES_H
#define TFM_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
class RewritePatternSet;

namespace tfm {

#define GEN_PASS_DECL
#include "tfm/Transforms/Passes.h.inc"

/// Adds the patterns of `tfm-decompose` to `patterns`.
void populateDecomposePatterns(RewritePatternSet &patterns);

#define GEN_PASS_REGISTRATION
#include "tfm/Transforms/Passes.h.inc"

} // namespace tfm
} // namespace mlir

#endif // TFM_TRANSFORMS_PASSES_H
