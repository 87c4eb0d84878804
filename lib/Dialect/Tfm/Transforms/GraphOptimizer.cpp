//===- GraphOptimizer.cpp - The target-independent graph optimizer --------===//
//
// The first stage of every pipeline: what `tfm-opt --tfm-graph-optimizer`
// and `tfm-compile --stage=graph` show.
//
//===----------------------------------------------------------------------===//

#include "tfm/Dialect/Tfm/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::tfm;

void tfm::buildGraphOptimizerPipeline(OpPassManager &pm, bool fusion) {
  pm.addPass(createInlinerPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  if (fusion) {
    // Elementwise patterns first, so that the attention and multi-head
    // patterns see tfm.linear and tfm.layer_norm rather than their pieces.
    pm.addPass(createTfmFuseGelu());
    pm.addPass(createTfmFuseLayerNorm());
    pm.addPass(createTfmFuseRotaryEmbedding());
    pm.addPass(createTfmFuseLinear());
    pm.addPass(createTfmFuseMaskedSoftmax());
    pm.addPass(createTfmFuseAttention());
    pm.addPass(createTfmFuseMultiHeadAttention());
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
  }
  pm.addPass(createSymbolDCEPass());
}
