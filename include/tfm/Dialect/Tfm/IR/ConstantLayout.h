//===- ConstantLayout.h - Constants rearranged at compile time --*- C++ -*-===//
//
// Weights change layout at compile time more than once on their way to the
// kernels: the ONNX importer and the lowering of tfm.linear transpose
// constant matrices, and tfm-cpu-pack-panels packs them into the panels
// its micro-kernel reads. For a model of hundreds of megabytes these
// copies are a visible part of the compile, so they are written once, here,
// as block copies of whole elements rather than a memcpy call per element.
//
//===----------------------------------------------------------------------===//

#ifndef TFM_DIALECT_TFM_IR_CONSTANTLAYOUT_H
#define TFM_DIALECT_TFM_IR_CONSTANTLAYOUT_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Support/LLVM.h"

namespace mlir {
namespace tfm {

/// The constant matrix `value` ([R, C], static) as [C, R]: a splat stays a
/// splat. Null when its elements are not whole bytes (i1).
DenseElementsAttr transposeConstantMatrix(DenseElementsAttr value);

/// Units `begin` to `begin + count` of `units` equal units of the static
/// constant `value` along dimension `dim`: what one rank of a
/// tensor-parallel model holds of a weight (its heads, its hidden units).
/// With `segments` (sizes that add up to the dimension: a fused Q/K/V
/// projection's three), those units of each segment, concatenated in order.
/// `units` divides every segment. A splat stays a splat. Null when its
/// elements are not whole bytes (i1).
DenseElementsAttr sliceConstant(DenseElementsAttr value, int64_t dim,
                                int64_t begin, int64_t count, int64_t units,
                                ArrayRef<int64_t> segments = {});

/// Copies the [rows, cols] matrix of `elementBytes`-byte elements at `in`
/// into `out` as [cols, rows]. Neither needs any alignment.
void transposeBytes(const char *in, char *out, int64_t rows, int64_t cols,
                    size_t elementBytes);

} // namespace tfm
} // namespace mlir

#endif // TFM_DIALECT_TFM_IR_CONSTANTLAYOUT_H
