//===- TfmToLinalg.cpp - The convert-tfm-to-linalg pass -------------------===//

#include "tfm/Conversion/Passes.h"
#include "tfm/Dialect/Tfm/IR/TfmDialect.h"
#include "tfm/Dialect/Tfm/IR/TfmOps.h"
#include "tfm/Dialect/Tfm/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir {
namespace tfm {
#define GEN_PASS_DEF_CONVERTTFMTOLINALG
#include "tfm/Conversion/Passes.h.inc"
} // namespace tfm
} // namespace mlir

using namespace mlir;
using namespace mlir::tfm;

void tfm::populateTfmToLinalgPatterns(RewritePatternSet &patterns,
                                      bool decodePath) {
  populateDecomposePatterns(patterns);
  populateAttentionToLinalgPatterns(patterns, decodePath);
  populateLayerToLinalgPatterns(patterns);
  populateEmbeddingToLinalgPatterns(patterns);
}

namespace {
struct ConvertTfmToLinalgPass
    : tfm::impl::ConvertTfmToLinalgBase<ConvertTfmToLinalgPass> {
  using Base::Base;

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    ConversionTarget target(*context);
    target.addIllegalDialect<TfmDialect>();
    // The structured attention that code generation tiles.
    target.addLegalOp<OnlineAttentionOp>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });

    RewritePatternSet patterns(context);
    populateTfmToLinalgPatterns(patterns, decodePath);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
