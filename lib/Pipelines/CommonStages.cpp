//===- CommonStages.cpp - Stages the CPU and GPU pipelines share ---------===//

#include "tfm/Pipelines/Pipelines.h"

#include "tfm/Conversion/Passes.h"
#include "tfm/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
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
    pm.addPass(createTfmFuseLinear());
    pm.addPass(createTfmFuseAttention());
    pm.addPass(createTfmFuseMultiHeadAttention());
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
  }
  pm.addPass(createSymbolDCEPass());
}

/// tfm, and elementwise arith and math on tensors, to linalg on tensors,
/// with elementwise producers fused into their consumers.
void tfm::buildTfmToLinalgStage(OpPassManager &pm, int64_t attentionQTile,
                                int64_t attentionKvTile) {
  TfmTileAttentionOptions tiles;
  tiles.qTileSize = attentionQTile;
  tiles.kvTileSize = attentionKvTile;
  pm.addPass(createTfmTileAttention(tiles));
  pm.addPass(createConvertTfmToLinalg());
  pm.addPass(createConvertElementwiseToLinalgPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createTfmFuseElementwise());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void tfm::buildOneShotBufferization(OpPassManager &pm) {
  bufferization::OneShotBufferizePassOptions options;
  options.bufferizeFunctionBoundaries = true;
  options.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(options));

  bufferization::BufferResultsToOutParamsPassOptions outParams;
  outParams.hoistStaticAllocs = true;
  outParams.modifyPublicFunctions = true;
  pm.addPass(bufferization::createBufferResultsToOutParamsPass(outParams));
}
