//===- Weights.h - Binding weights to entry arguments -----------*- C++ -*-===//
//
// An entry argument marked `{tfm.weight = "NAME"}` is a weight: tfm-compile
// takes it from the safetensors file given with --weights, by name, and
// embeds it in the binary as a constant. Unmarked arguments stay inputs of
// the compiled model. See docs/weights.md.
//
//===----------------------------------------------------------------------===//

#ifndef TFM_TARGET_NATIVE_WEIGHTS_H
#define TFM_TARGET_NATIVE_WEIGHTS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir {
namespace tfm {

/// The attribute that marks an entry argument as a weight.
constexpr const char *kWeightAttr = "tfm.weight";

/// Replaces every argument of `entry` marked with kWeightAttr by a constant
/// holding the tensor of that name in the safetensors file `path`. With an
/// empty `path`, marked arguments are an error. Emits errors that name the
/// argument and the file.
mlir::LogicalResult bindWeights(mlir::func::FuncOp entry,
                                llvm::StringRef path);

} // namespace tfm
} // namespace mlir

#endif // TFM_TARGET_NATIVE_WEIGHTS_H
