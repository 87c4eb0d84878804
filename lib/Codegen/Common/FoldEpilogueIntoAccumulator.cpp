//===- FoldEpilogueIntoAccumulator.cpp - tfm-fold-epilogue-into-accumulator
//===//
//
// Implements `tfm-fold-epilogue-into-accumulator`: a product that starts
// from zero and whose only user adds terms to it (a bias, a residual)
// starts from their sum instead, and the pass over its result that added
// them goes away (or keeps only what follows the additions: an
// activation).
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/Common/Passes.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace tfm {
#define GEN_PASS_DEF_TFMFOLDEPILOGUEINTOACCUMULATOR
#include "tfm/Codegen/Common/Passes.h.inc"
} // namespace tfm
} // namespace mlir

using namespace mlir;
using namespace mlir::tfm;

namespace {

/// The fill of zero that `init` is, or null.
linalg::FillOp getZeroFill(Value init) {
  auto fill = init.getDefiningOp<linalg::FillOp>();
  if (!fill || !fill.hasPureTensorSemantics() ||
      !matchPattern(fill.getInputs()[0], m_AnyZeroFloat()))
    return {};
  return fill;
}

/// A chain of `arith.addf` from `start`, each the only user of the value
/// before it: the additions and the term each adds.
struct AddChain {
  SmallVector<arith::AddFOp> adds;
  SmallVector<Value> terms;
};

AddChain getAddChain(Value start) {
  AddChain chain;
  Value sum = start;
  while (sum.hasOneUse()) {
    auto add = dyn_cast<arith::AddFOp>(*sum.getUsers().begin());
    if (!add || add.getLhs() == add.getRhs())
      break;
    chain.adds.push_back(add);
    chain.terms.push_back(add.getLhs() == sum ? add.getRhs() : add.getLhs());
    sum = add.getResult();
  }
  return chain;
}

/// epilogue(product(A, B, fill(0)) + t1 + ... + tn)
///   -> epilogue'(product(A, B, init(t1 + ... + tn)))
/// where `epilogue` is elementwise over the product's result (identity
/// maps for it and for its own result), the terms are computed from the
/// epilogue's other operands, and `epilogue'` is what the epilogue does
/// after the additions: nothing (it goes) or an activation. The additions
/// move from a pass over the product's result into the pass that
/// initialises its accumulator, which the fill made anyway.
struct FoldAddsIntoAccumulator : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp epilogue,
                                PatternRewriter &rewriter) const override {
    if (!epilogue.hasPureTensorSemantics() || epilogue.getNumDpsInits() != 1 ||
        epilogue.getNumParallelLoops() != epilogue.getNumLoops() ||
        !epilogue.getMatchingIndexingMap(epilogue.getDpsInitOperand(0))
             .isIdentity())
      return rewriter.notifyMatchFailure(epilogue, "not elementwise");
    Block *body = epilogue.getBlock();
    if (!body->getArguments().back().use_empty())
      return rewriter.notifyMatchFailure(epilogue, "reads its destination");

    for (OpOperand *operand : epilogue.getDpsInputOperands()) {
      auto product = operand->get().getDefiningOp<linalg::LinalgOp>();
      // Products inside tiled loops belong to their strategy (attention's
      // blocks): only whole ones are rewritten.
      if (!product || !linalg::isaContractionOpInterface(product) ||
          product->getNumResults() != 1 || !operand->get().hasOneUse() ||
          !isa<func::FuncOp>(product->getParentOp()) ||
          product->getBlock() != epilogue->getBlock() ||
          !epilogue.getMatchingIndexingMap(operand).isIdentity() ||
          operand->get().getType() != epilogue->getResult(0).getType())
        continue;
      linalg::FillOp fill = getZeroFill(product.getDpsInits()[0]);
      if (!fill || !fill->hasOneUse())
        continue;
      BlockArgument acc = body->getArgument(operand->getOperandNumber());
      AddChain chain = getAddChain(acc);
      if (chain.adds.empty())
        continue;
      rewrite(rewriter, epilogue, operand, product, fill, chain);
      return success();
    }
    return rewriter.notifyMatchFailure(epilogue, "adds nothing to a product");
  }

  static void rewrite(PatternRewriter &rewriter, linalg::GenericOp epilogue,
                      OpOperand *operand, linalg::LinalgOp product,
                      linalg::FillOp fill, AddChain &chain) {
    Location loc = epilogue.getLoc();
    Block *body = epilogue.getBlock();
    BlockArgument acc = body->getArgument(operand->getOperandNumber());
    // The terms' operands may be computed after the product: the product
    // moves down to the epilogue, where all of them are.
    rewriter.moveOpBefore(product, epilogue);
    rewriter.setInsertionPoint(product);

    // The accumulator's initial value: the terms, summed in the order the
    // epilogue added them, over the epilogue's other operands.
    SmallVector<Value> inputs;
    SmallVector<AffineMap> maps;
    for (OpOperand *input : epilogue.getDpsInputOperands()) {
      if (input == operand)
        continue;
      inputs.push_back(input->get());
      maps.push_back(epilogue.getMatchingIndexingMap(input));
    }
    maps.push_back(
        epilogue.getMatchingIndexingMap(epilogue.getDpsInitOperand(0)));
    SetVector<Operation *> dependsOnAcc;
    getForwardSlice(Value(acc), &dependsOnAcc);
    auto init = linalg::GenericOp::create(
        rewriter, loc, fill.getResult(0).getType(), inputs,
        ValueRange{fill.getDpsInits()[0]}, maps,
        epilogue.getIteratorTypesArray(),
        [&](OpBuilder &b, Location nestedLoc, ValueRange args) {
          IRMapping mapping;
          unsigned next = 0;
          for (OpOperand *input : epilogue.getDpsInputOperands())
            if (input != operand)
              mapping.map(body->getArgument(input->getOperandNumber()),
                          args[next++]);
          for (Operation &op : body->without_terminator())
            if (!dependsOnAcc.contains(&op))
              b.clone(op, mapping);
          Value total = mapping.lookupOrDefault(chain.terms.front());
          for (Value term : ArrayRef(chain.terms).drop_front())
            total = arith::AddFOp::create(b, nestedLoc, total,
                                          mapping.lookupOrDefault(term));
          linalg::YieldOp::create(b, nestedLoc, total);
        });
    rewriter.modifyOpInPlace(product, [&] {
      product.getDpsInitsMutable()[0].set(init.getResult(0));
    });
    rewriter.eraseOp(fill);

    // The epilogue without the additions: nothing if it yields their sum.
    Value sum = chain.adds.back().getResult();
    Operation *yield = body->getTerminator();
    if (sum.hasOneUse() && *sum.getUsers().begin() == yield) {
      rewriter.replaceOp(epilogue, product->getResult(0));
      return;
    }
    rewriter.replaceAllUsesWith(sum, acc);
    for (arith::AddFOp add : llvm::reverse(chain.adds))
      rewriter.eraseOp(add);
  }
};

struct TfmFoldEpilogueIntoAccumulatorPass
    : tfm::impl::TfmFoldEpilogueIntoAccumulatorBase<
          TfmFoldEpilogueIntoAccumulatorPass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    patterns.add<FoldAddsIntoAccumulator>(context);
    // The terms' operands that the epilogue no longer reads.
    linalg::populateEraseUnusedOperandsAndResultsPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
