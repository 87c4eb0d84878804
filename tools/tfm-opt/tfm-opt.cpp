//===- tfm-opt.cpp - The tfm optimizer driver -----------------------------===//
//
// mlir-opt with the tfm dialect and passes registered next to upstream's,
// for running passes on graph files and for the lit tests.
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/CPU/Passes.h"
#include "tfm/Codegen/Common/Passes.h"
#include "tfm/Codegen/GPU/Passes.h"
#include "tfm/Conversion/Passes.h"
#include "tfm/Dialect/Tfm/IR/TfmDialect.h"
#include "tfm/Dialect/Tfm/Transforms/Passes.h"
#include "tfm/Pipelines/Pipelines.h"
#include "tfm/Target/Native/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::tfm::registerTfmPasses();
  mlir::tfm::registerTfmCodegenCommonPasses();
  mlir::tfm::registerTfmCodegenCPUPasses();
  mlir::tfm::registerTfmCodegenGPUPasses();
  mlir::tfm::registerTfmNativePasses();
  mlir::tfm::registerTfmConversionPasses();
  mlir::tfm::registerTfmPipelines();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  // gpu-module-to-binary translates kernels to LLVM IR.
  mlir::registerAllToLLVMIRTranslations(registry);
  registry.insert<mlir::tfm::TfmDialect>();
  mlir::tfm::registerCollectiveInterfaces(registry);

  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "tfm optimizer driver\n", registry));
}
