//===- ExposeAttentionWeights.cpp - tfm-expose-attention-weights ----------===//
//
// Implements `tfm-expose-attention-weights`: each tfm.attention's weights,
// recomputed beside it from its operands, become extra results of the
// function, for heatmaps of a compiled model's attention.
//
//===----------------------------------------------------------------------===//

#include "tfm/Dialect/Tfm/IR/AttentionScores.h"
#include "tfm/Dialect/Tfm/IR/LocationText.h"
#include "tfm/Dialect/Tfm/IR/TfmOps.h"
#include "tfm/Dialect/Tfm/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"


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
/// mask, with valid_lens and causal as tfm.attention defines them
/// (buildMaskedScore).
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
  if (op.getQueryGroup() != 1)
    return op.emitError() << "cannot expose the weights of a grouped-query "
                             "attention ("
                          << op.getQueryGroup()
                          << " query heads per key/value head)";
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
            ScoreMasking masking;
            masking.scale = arith::ConstantOp::create(
                nb, l, nb.getFloatAttr(elementType, *scale));
            unsigned next = 1;
            if (mask)
              masking.additive = args[next++];
            if (lens)
              masking.validLen = args[next++];
            masking.causal = causal;
            if (lens || causal)
              masking.key = linalg::IndexOp::create(nb, l, rank - 1);
            if (causal) {
              masking.query = linalg::IndexOp::create(nb, l, rank - 2);
              masking.queryOffset = queryOffset;
            }
            linalg::YieldOp::create(
                nb, l, buildMaskedScore(nb, l, args[0], masking));
          })
          ->getResult(0);
  Value weightsInit = tensor::EmptyOp::create(b, loc, sizes, elementType);
  return linalg::SoftmaxOp::create(b, loc, TypeRange{init.getType()}, masked,
                                   weightsInit, rank - 1)
      ->getResult(0);
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
                           b.getStringAttr(describeLocation(op.getLoc())))};
        if (failed(func.insertResult(first + i, results[first + i].getType(),
                                     b.getDictionaryAttr(attrs))))
          return signalPassFailure();
      }
    }
  }
};

} // namespace
