//===- SymbolicSize.h - Sizes in terms of a graph's dim_params --*- C++ -*-===//
//
// Internal to the ONNX importer. A model exported with dynamic axes names
// its unknown dimensions (`dim_param`: "batch", "seq"); the shape subgraphs
// that exporters write (Shape, Gather, Mul, Div, Concat, Reshape) compute
// with them. The importer evaluates those subgraphs at import time, as it
// does for static shapes, on `SymbolicSize`s: polynomials with integer
// coefficients in the dim_params (`4*batch`, `batch*seq + 1`). Each one is
// materialized as index arithmetic on `tensor.dim` of the graph input that
// first has the dimension only where an op needs its value (tensor.empty,
// tensor.expand_shape).
//
// Equality of two sizes is equality of their polynomials: that is what
// lets a reshape of `[seq, batch, 32]` to `[seq, 4*batch, 8]` be a collapse
// and an expansion of known groups rather than a generic reshape.
//
//===----------------------------------------------------------------------===//

#ifndef TFM_LIB_TARGET_ONNX_SYMBOLICSIZE_H
#define TFM_LIB_TARGET_ONNX_SYMBOLICSIZE_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mlir::tfm::onnx_import {

/// A size as a polynomial in the graph's symbolic dimensions, numbered from
/// 0 in the order the graph's inputs name them.
class SymbolicSize {
public:
  SymbolicSize(int64_t constant = 0);
  /// The symbolic dimension `id`.
  static SymbolicSize symbol(unsigned id);

  bool isConstant() const;
  /// The value of a constant size.
  std::optional<int64_t> getConstant() const;
  /// The symbols of a single monomial with coefficient 1 (`batch*seq`), or
  /// nothing.
  std::optional<std::vector<unsigned>> getMonomial() const;

  SymbolicSize operator+(const SymbolicSize &other) const;
  SymbolicSize operator-(const SymbolicSize &other) const;
  SymbolicSize operator*(const SymbolicSize &other) const;
  /// `*this / divisor` when the division is exact for every value of the
  /// symbols (a constant or a monomial dividing every term), else nothing.
  std::optional<SymbolicSize> divideExactly(const SymbolicSize &divisor) const;

  bool operator==(const SymbolicSize &other) const {
    return terms == other.terms;
  }
  bool operator!=(const SymbolicSize &other) const { return !(*this == other); }

  /// `4*batch*seq + 1`, the symbols by `names`.
  std::string str(ArrayRef<std::string> names) const;

  /// Visits each term: its coefficient and its symbols (sorted, repeated
  /// for powers).
  template <typename Fn> void forEachTerm(Fn fn) const {
    for (const auto &[monomial, coefficient] : terms)
      fn(coefficient, ArrayRef<unsigned>(monomial));
  }

private:
  using Monomial = std::vector<unsigned>;
  /// Non-zero coefficients by monomial; the empty monomial is the constant.
  std::map<Monomial, int64_t> terms;
};

using SymbolicShape = SmallVector<SymbolicSize>;

/// The static shape of `sizes`, with ShapedType::kDynamic for the symbolic
/// ones.
SmallVector<int64_t> getStaticShape(ArrayRef<SymbolicSize> sizes);
/// The sizes of a static shape.
SymbolicShape getSymbolicShape(ArrayRef<int64_t> shape);
/// The product of `sizes`.
SymbolicSize productOf(ArrayRef<SymbolicSize> sizes);

} // namespace mlir::tfm::onnx_import

#endif // TFM_LIB_TARGET_ONNX_SYMBOLICSIZE_H
