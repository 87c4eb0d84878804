//===- Transposes.h - Moving transposes past slices and reshapes -*- C++
//-*-===//
//
// What the passes that fold transposes share: a slice of a transpose as
// the transpose of a slice of its input, and a transpose that moves only
// dimensions of size 1 as the reshape it is.
//
//===----------------------------------------------------------------------===//

#ifndef TFM_CODEGEN_COMMON_TRANSPOSES_H
#define TFM_CODEGEN_COMMON_TRANSPOSES_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace tfm {

/// Whether transposing a tensor of `shape` by `perm` (result dimension d is
/// input dimension perm[d]) moves no element: the dimensions of a size
/// other than 1 (dynamic ones included) keep their order.
bool movesOnlyUnitDims(ArrayRef<int64_t> shape, ArrayRef<int64_t> perm);

/// A `tensor.extract_slice` of a transpose's result, as a slice of the
/// transpose's input and a transpose of that slice. A rank-reducing slice
/// drops the same unit dimensions of the input.
struct TransposedSlice {
  /// The input's slice.
  SmallVector<OpFoldResult> offsets, sizes, strides;
  /// Its shape, without the dropped dimensions.
  SmallVector<int64_t> shape;
  /// The permutation from that shape to the slice's.
  SmallVector<int64_t> perm;
};
TransposedSlice getTransposedSlice(tensor::ExtractSliceOp slice,
                                   linalg::TransposeOp transpose);

/// Creates `transposed`'s slice of `transpose`'s input and its transpose,
/// which has `slice`'s type, before `slice`; returns the transpose.
linalg::TransposeOp createTransposedSlice(RewriterBase &rewriter,
                                          tensor::ExtractSliceOp slice,
                                          linalg::TransposeOp transpose,
                                          const TransposedSlice &transposed);

/// A `linalg.transpose` on tensors that moves only dimensions of size 1
/// becomes a collapse_shape dropping them and an expand_shape to the
/// result: both free, where the transpose is a copy.
void populateUnitDimTransposeToReshapePatterns(RewritePatternSet &patterns);

} // namespace tfm
} // namespace mlir

#endif // TFM_CODEGEN_COMMON_TRANSPOSES_H
