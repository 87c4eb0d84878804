//===- Stages.cpp - Pipeline stages that every target shares -------------===//

#include "tfm/Codegen/Common/Passes.h"

#include "tfm/Conversion/Passes.h"
#include "tfm/Dialect/Tfm/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::tfm;

void tfm::buildTfmToLinalgStage(OpPassManager &pm,
                                std::unique_ptr<Pass> selectStrategy,
                                bool mapTileLoops, bool decodePath,
                                bool foldTransposes) {
  ConvertTfmToLinalgOptions lowering;
  lowering.decodePath = decodePath;
  pm.addPass(createConvertTfmToLinalg(lowering));
  pm.addPass(createTfmFoldEmptyLoops());
  // Splits into heads transposed as a whole, not collapsed and copied.
  pm.addPass(createTfmFoldReshapesIntoTransposes());
  if (foldTransposes)
    pm.addPass(createTfmFoldTransposesIntoProducts());
  pm.addPass(std::move(selectStrategy));
  TfmTileByConfigOptions tiling;
  tiling.mapTileLoops = mapTileLoops;
  pm.addPass(createTfmTileByConfig(tiling));
  pm.addPass(createTfmDecomposeAggregates());
  pm.addPass(createConvertElementwiseToLinalgPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createTfmFuseElementwise());
  pm.addPass(createCanonicalizerPass());
  // Heads split and merged around attention: its tiles read and write
  // the untransposed tensors.
  pm.addPass(createTfmFoldTransposesIntoTiles());
  // Transposes sliced by the tiles (flash attention's keys) reach the
  // tiled products.
  if (foldTransposes) {
    pm.addPass(createTfmFoldTransposesIntoProducts());
    pm.addPass(createCanonicalizerPass());
  }
  pm.addPass(createTfmSplatConstantsToFill());
  pm.addPass(createTfmAllocateFillInits());
  pm.addPass(createCSEPass());
}

void tfm::buildOneShotBufferization(OpPassManager &pm) {
  pm.addNestedPass<func::FuncOp>(createTfmCopyRepeatedResults());
  // A tile computed into a tensor.empty and then inserted into its place
  // (a fused normalization's rows, canonicalized to start from an empty
  // tensor) is computed in its place instead of a buffer copied there.
  pm.addPass(bufferization::createEmptyTensorEliminationPass());
  bufferization::OneShotBufferizePassOptions options;
  options.bufferizeFunctionBoundaries = true;
  options.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(options));
  // Bufferized loops still pass their buffers through iter_args; folded,
  // a returned buffer is its allocation again, which becomes the caller's
  // out-parameter instead of being copied into it (of any shape: the
  // caller allocates outputs of dynamic size from the sizes it passes).
  pm.addPass(createCanonicalizerPass());
  // Updated key/value caches are their arguments' buffers, not outputs.
  pm.addPass(createTfmDropKvCacheResults());

  pm.addPass(createTfmResultsToOutParams());
}
