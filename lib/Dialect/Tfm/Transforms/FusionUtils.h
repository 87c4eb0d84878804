//===- FusionUtils.h - Matchers shared by the fusion passes -----*- C++ -*-===//
//
// Small matchers for the upstream vocabulary that the graph optimizer's
// fusion patterns recognise: splat constants, zero-filled destinations,
// elementwise products and the check that a matched subgraph has no user
// outside itself. Header-only: each fusion pass stays in one file.
//
//===----------------------------------------------------------------------===//

#ifndef TFM_LIB_TRANSFORMS_FUSIONUTILS_H
#define TFM_LIB_TRANSFORMS_FUSIONUTILS_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <algorithm>
#include <cmath>
#include <optional>

namespace mlir {
namespace tfm {
namespace fusion {

/// Masked scores at or below this value (after any scale), or -inf, count as
/// "large negative": exp() of them is 0 in f32 next to any real score.
constexpr double kLargeNegative = -1e4;

/// Returns the value of `value` if it is a float constant with one value: a
/// scalar `arith.constant`, a splat `arith.constant dense<c>`, or a
/// `linalg.fill` of a scalar constant.
inline std::optional<double> getSplatFloat(Value value) {
  if (auto fill = value.getDefiningOp<linalg::FillOp>())
    return getSplatFloat(fill.getInputs().front());
  Attribute attr;
  if (!matchPattern(value, m_Constant(&attr)))
    return std::nullopt;
  if (auto floatAttr = dyn_cast<FloatAttr>(attr))
    return floatAttr.getValueAsDouble();
  auto splat = dyn_cast<SplatElementsAttr>(attr);
  if (!splat || !isa<FloatType>(splat.getElementType()))
    return std::nullopt;
  return FloatAttr::getValueAsDouble(splat.getSplatValue<APFloat>());
}

/// The relative tolerance with which constants of `type`'s element type are
/// compared with the constants of a formula: 1e-6, or a few units in the last
/// place for types with fewer than 24 bits of mantissa (f16, bf16).
inline double getConstantTolerance(Type type) {
  auto floatType = dyn_cast<FloatType>(getElementTypeOrSelf(type));
  if (!floatType)
    return 1e-6;
  return std::max(1e-6, std::ldexp(4.0, -int(floatType.getFPMantissaWidth())));
}

/// Returns true if `actual` equals `expected` to the tolerance of `type`.
inline bool isClose(double actual, double expected, Type type) {
  return std::abs(actual - expected) <=
         getConstantTolerance(type) * std::abs(expected);
}

/// Returns true if `value` is the splat constant `expected`, to the tolerance
/// of its type.
inline bool isSplat(Value value, double expected) {
  std::optional<double> actual = getSplatFloat(value);
  return actual && isClose(*actual, expected, value.getType());
}

/// Returns true if `init`, the destination of an accumulating linalg op, holds
/// zeros: a `linalg.fill` of 0 or a zero constant.
inline bool isZeroInit(Value init) {
  std::optional<double> value = getSplatFloat(init);
  return value && *value == 0.0;
}

/// A product of factors: a constant and the values that are not constants.
struct Product {
  double constant = 1.0;
  SmallVector<Value> factors;
};

/// Flattens the tree of `arith.mulf` and of `arith.divf` by a constant that
/// computes `value` into `product`, appending the ops of the tree to `ops`.
/// An op of the tree other than the root (the op defining `value`, entered
/// when `isRoot`) is looked through only if it has a single use; otherwise it
/// is a factor, as is every value that is neither a product nor a constant.
inline void flattenProduct(Value value, Product &product,
                           SmallVectorImpl<Operation *> &ops,
                           bool isRoot = true) {
  if (std::optional<double> c = getSplatFloat(value)) {
    product.constant *= *c;
    return;
  }
  Operation *op = value.getDefiningOp();
  if (!op || (!isRoot && !value.hasOneUse())) {
    product.factors.push_back(value);
    return;
  }
  if (auto mul = dyn_cast<arith::MulFOp>(op)) {
    ops.push_back(op);
    flattenProduct(mul.getLhs(), product, ops, /*isRoot=*/false);
    flattenProduct(mul.getRhs(), product, ops, /*isRoot=*/false);
    return;
  }
  if (auto div = dyn_cast<arith::DivFOp>(op)) {
    std::optional<double> divisor = getSplatFloat(div.getRhs());
    if (divisor && *divisor != 0.0) {
      ops.push_back(op);
      product.constant /= *divisor;
      flattenProduct(div.getLhs(), product, ops, /*isRoot=*/false);
      return;
    }
  }
  product.factors.push_back(value);
}

/// Returns true if no result of the ops in `ops`, other than `root`, is used
/// outside `ops`: the subgraph can be replaced by one op computing `root`.
inline bool hasNoOutsideUsers(ArrayRef<Operation *> ops, Operation *root) {
  llvm::SmallPtrSet<Operation *, 16> inside(ops.begin(), ops.end());
  inside.insert(root);
  for (Operation *op : ops) {
    if (op == root)
      continue;
    for (Operation *user : op->getUsers())
      if (!inside.contains(user))
        return false;
  }
  return true;
}

/// Reassociation merging the first `numLeading` dimensions of a tensor into
/// one (`intoOne`), or, when they are all unit dimensions, into nothing (they
/// join the first of the `numRest` other dimensions).
inline SmallVector<ReassociationIndices>
getLeadingGroups(int64_t numLeading, int64_t numRest, bool intoOne) {
  SmallVector<ReassociationIndices> groups;
  if (!intoOne && numRest == 0)
    return groups;
  int64_t first = intoOne ? numLeading : numLeading + 1;
  groups.push_back(llvm::to_vector(llvm::seq<int64_t>(0, first)));
  for (int64_t i = first, e = numLeading + numRest; i < e; ++i)
    groups.push_back({i});
  return groups;
}

/// Reshapes `v`, `[from..., rest...]` with `from` its first `numLeading`
/// dimensions, into `[to..., rest...]` (checked by `canRegroup`).
inline Value regroupLeading(OpBuilder &b, Location loc, Value v, int64_t numLeading,
                     ArrayRef<int64_t> to) {
  auto type = cast<RankedTensorType>(v.getType());
  ArrayRef<int64_t> from = type.getShape().take_front(numLeading);
  ArrayRef<int64_t> rest = type.getShape().drop_front(numLeading);
  if (from == to)
    return v;
  int64_t numRest = rest.size();
  auto expand = [&](Value source, ArrayRef<int64_t> lead, bool intoOne) {
    SmallVector<int64_t> shape(lead);
    llvm::append_range(shape, rest);
    return tensor::ExpandShapeOp::create(
        b, loc, type.clone(shape), source,
        getLeadingGroups(lead.size(), numRest, intoOne));
  };
  auto collapse = [&](Value source, int64_t numLead, bool intoOne) {
    return tensor::CollapseShapeOp::create(
        b, loc, source, getLeadingGroups(numLead, numRest, intoOne));
  };
  if (from.empty())
    return expand(v, to, /*intoOne=*/false);
  if (to.empty())
    return collapse(v, from.size(), /*intoOne=*/false);
  Value merged = v;
  if (from.size() > 1)
    merged = collapse(v, from.size(), /*intoOne=*/true);
  if (to.size() == 1)
    return merged;
  return expand(merged, to, /*intoOne=*/true);
}

} // namespace fusion
} // namespace tfm
} // namespace mlir

#endif // TFM_LIB_TRANSFORMS_FUSIONUTILS_H
