//===- ExposeAttentionWeights.cpp - tfm-expose-attention-weights ----------===//
//
// Implements `tfm-expose-attention-weights`: each tfm.attention's weights,
// recomputed beside it from its operands, become extra results of the
// function, for heatmaps of a compiled model's attention.
//
//===----------------------------------------------------------------------===//

#include "tfm/Dialect/Tfm/IR/TfmOps.h"
#include "tfm/Dialect/Tfm/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <limits>

namespace mlir {
namespace tfm {
#define GEN_PASS_DEF_TFMEXPOSEATTENTIONWEIGHTS
#include "tfm/Dialect/Tfm/Transforms/Passes.h.inc"
} // namespace tfm
} // namespace mlir

using namespace mlir;
using namespace mlir::tfm;

namespace {

/// The map that reads an operand of `shape` broadcast (numpy rules, on the
/// right) against loops of rank `rank`; size-1 dimensions read index 0.
AffineMap getBroadcastMap(MLIRContext *ctx, ArrayRef<int64_t> shape,
                          unsigned rank) {
  SmallVector<AffineExpr> results;
  unsigned offset = rank - shape.size();
  for (auto [i, size] : llvm::enumerate(shape))
    results.push_back(size == 1 ? getAffineConstantExpr(0, ctx)
                                : getAffineDimExpr(offset + i, ctx));
  return AffineMap::get(rank, 0, results, ctx);
}

/// The weights of `op`: softmax over the keys of `Q Kᵀ · scale`, plus the
/// mask, with keys at or past valid_lens at -1e6 and causal's -inf.
FailureOr<Value> buildWeights(OpBuilder &b, AttentionOp op) {
  Location loc = op.getLoc();
  auto queryType = cast<RankedTensorType>(op.getQuery().getType());
  int64_t rank = queryType.getRank();
  std::optional<double> scale = op.getEffectiveScale();
  if (rank < 3 || !scale)
    return op.emitError()
           << "cannot expose the weights of an attention of rank " << rank
           << (scale ? "" : " with a dynamic head dimension and no scale")
           << " (tfm-expose-attention-weights takes [batch..., S, D] with a "
              "known scale)";
  Value scores = BatchMatmulOp::create(b, loc, op.getQuery(), op.getKey(),
                                       /*transpose_rhs=*/true);
  auto scoresType = cast<RankedTensorType>(scores.getType());
  Type elementType = scoresType.getElementType();
  MLIRContext *ctx = b.getContext();

  // One elementwise pass: scale, mask, valid_lens, causal.
  SmallVector<Value> inputs{scores};
  SmallVector<AffineMap> maps{b.getMultiDimIdentityMap(rank)};
  Value mask = op.getMask(), lens = op.getValidLens();
  if (mask) {
    inputs.push_back(mask);
    maps.push_back(getBroadcastMap(
        ctx, cast<RankedTensorType>(mask.getType()).getShape(), rank));
  }
  if (lens) {
    // [batch...] or [batch..., Sq]: the leading loops.
    int64_t lensRank = cast<RankedTensorType>(lens.getType()).getRank();
    SmallVector<AffineExpr> results;
    for (int64_t d = 0; d < lensRank; ++d)
      results.push_back(getAffineDimExpr(d, ctx));
    inputs.push_back(lens);
    maps.push_back(AffineMap::get(rank, 0, results, ctx));
  }
  maps.push_back(b.getMultiDimIdentityMap(rank));
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, scores);
  Value init = tensor::EmptyOp::create(b, loc, sizes, elementType);
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  bool causal = op.getCausal();
  Value queryOffset = op.getQueryOffset();
  Value masked =
      linalg::GenericOp::create(
          b, loc, init.getType(), inputs, ValueRange{init}, maps, iterators,
          [&](OpBuilder &nb, Location l, ValueRange args) {
            auto constant = [&](double v) -> Value {
              return arith::ConstantOp::create(
                  nb, l, nb.getFloatAttr(elementType, v));
            };
            Value value = arith::MulFOp::create(nb, l, args[0], constant(*scale));
            unsigned next = 1;
            if (mask)
              value = arith::AddFOp::create(nb, l, value, args[next++]);
            Value key = linalg::IndexOp::create(nb, l, rank - 1);
            if (lens) {
              Value len = args[next++];
              Value keyInt =
                  arith::IndexCastOp::create(nb, l, len.getType(), key);
              Value past = arith::CmpIOp::create(
                  nb, l, arith::CmpIPredicate::sge, keyInt, len);
              value = arith::SelectOp::create(nb, l, past, constant(-1e6),
                                              value);
            }
            if (causal) {
              Value query = linalg::IndexOp::create(nb, l, rank - 2);
              if (queryOffset)
                query = arith::AddIOp::create(nb, l, query, queryOffset);
              Value after = arith::CmpIOp::create(
                  nb, l, arith::CmpIPredicate::ugt, key, query);
              value = arith::SelectOp::create(
                  nb, l, after,
                  constant(-std::numeric_limits<double>::infinity()), value);
            }
            linalg::YieldOp::create(nb, l, value);
          })
          ->getResult(0);
  Value weightsInit = tensor::EmptyOp::create(b, loc, sizes, elementType);
  return linalg::SoftmaxOp::create(b, loc, TypeRange{init.getType()}, masked,
                                   weightsInit, rank - 1)
      ->getResult(0);
}

/// A location as text for the executable's index of weights.
std::string describe(Location loc) {
  if (auto name = dyn_cast<NameLoc>(loc))
    return name.getName().str();
  std::string text;
  llvm::raw_string_ostream os(text);
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    os << file.getFilename().getValue() << ":" << file.getLine() << ":"
       << file.getColumn();
  else
    loc.print(os);
  return text;
}

struct TfmExposeAttentionWeightsPass
    : tfm::impl::TfmExposeAttentionWeightsBase<TfmExposeAttentionWeightsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Multi-head attentions hold their tfm.attention until decomposed.
    RewritePatternSet patterns(&getContext());
    populateDecomposePatterns(patterns);
    if (failed(applyPatternsGreedily(module, std::move(patterns))))
      return signalPassFailure();
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isPrivate() || func.isExternal())
        continue;
      SmallVector<AttentionOp> attentions;
      func.walk([&](AttentionOp op) { attentions.push_back(op); });
      if (attentions.empty())
        continue;
      auto ret = cast<func::ReturnOp>(func.getBody().back().getTerminator());
      SmallVector<Value> results(ret.getOperands());
      unsigned first = results.size();
      for (AttentionOp op : attentions) {
        if (op->getParentRegion() != &func.getBody()) {
          op.emitError("cannot expose the weights of an attention nested "
                       "in a region");
          return signalPassFailure();
        }
        OpBuilder b(op);
        FailureOr<Value> weights = buildWeights(b, op);
        if (failed(weights))
          return signalPassFailure();
        results.push_back(*weights);
      }
      OpBuilder b(ret);
      func::ReturnOp::create(b, ret.getLoc(), results);
      ret.erase();
      for (auto [i, op] : llvm::enumerate(attentions)) {
        NamedAttribute attrs[] = {
            b.getNamedAttr("tfm.name",
                           b.getStringAttr("attention_" + std::to_string(i))),
            b.getNamedAttr("tfm.attention",
                           b.getStringAttr(describe(op.getLoc())))};
        if (failed(func.insertResult(first + i, results[first + i].getType(),
                                     b.getDictionaryAttr(attrs))))
          return signalPassFailure();
      }
    }
  }
};

} // namespace
