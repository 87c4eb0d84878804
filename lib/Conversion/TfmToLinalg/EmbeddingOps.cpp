//===- EmbeddingOps.cpp - Lowering the embedding family of tfm ops -----------===//

#include "LoweringUtils.h"
#include "tfm/Conversion/TfmToLinalg/TfmToLinalg.h"
#include "tfm/Dialect/Tfm/IR/TfmOps.h"

#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::tfm;

void tfm::populateEmbeddingToLinalgPatterns(RewritePatternSet &patterns) {}
