//===- AttentionScores.cpp - Attention's masked score ---------------------===//

#include "tfm/Dialect/Tfm/IR/AttentionScores.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <limits>

using namespace mlir;

Value mlir::tfm::buildMaskedScore(OpBuilder &b, Location loc, Value score,
                                  const ScoreMasking &masking) {
  Type type = score.getType();
  auto constant = [&](double value) -> Value {
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(type, value));
  };
  Value x = score;
  if (masking.scale)
    x = arith::MulFOp::create(b, loc, x, masking.scale);
  if (masking.additive)
    x = arith::AddFOp::create(b, loc, x, masking.additive);
  if (masking.validLen) {
    // Compared as signed integers: a length of 0 or less masks every key.
    Value len = masking.validLen;
    if (!len.getType().isIndex())
      len = arith::IndexCastOp::create(b, loc, b.getIndexType(), len);
    Value past = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge,
                                       masking.key, len);
    x = arith::SelectOp::create(b, loc, past, constant(kMaskedScore), x);
  }
  if (masking.causal) {
    Value query = masking.query;
    if (masking.queryOffset)
      query = arith::AddIOp::create(b, loc, query, masking.queryOffset);
    if (masking.queryGroup != 1)
      query = arith::DivUIOp::create(
          b, loc, query,
          arith::ConstantIndexOp::create(b, loc, masking.queryGroup));
    Value future = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt,
                                         masking.key, query);
    x = arith::SelectOp::create(
        b, loc, future, constant(-std::numeric_limits<double>::infinity()), x);
  }
  return x;
}

Value mlir::tfm::buildSoftmaxMax(OpBuilder &b, Location loc, Value x,
                                 Value y) {
  return arith::MaxNumFOp::create(b, loc, x, y);
}
