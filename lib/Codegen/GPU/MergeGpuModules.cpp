//===- MergeGpuModules.cpp - All kernels in one gpu.module ----------------===//
//
// Implements `tfm-merge-gpu-modules`.
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/GPU/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir {
namespace tfm {
#define GEN_PASS_DEF_TFMMERGEGPUMODULES
#include "tfm/Codegen/GPU/Passes.h.inc"
} // namespace tfm
} // namespace mlir

using namespace mlir;

namespace {

struct TfmMergeGpuModulesPass
    : tfm::impl::TfmMergeGpuModulesBase<TfmMergeGpuModulesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto gpuModules = llvm::to_vector(module.getOps<gpu::GPUModuleOp>());
    if (gpuModules.size() < 2)
      return;
    // Outlining makes modules that differ only by name (targets are
    // attached later), so any of them can hold all kernels.
    gpu::GPUModuleOp target = gpuModules.front();
    SymbolTable targetSymbols(target);
    auto targetName = FlatSymbolRefAttr::get(target.getSymNameAttr());

    // Where each moved kernel went: @module::@kernel -> @target::@renamed.
    DenseMap<SymbolRefAttr, SymbolRefAttr> moved;
    for (gpu::GPUModuleOp source : llvm::drop_begin(gpuModules)) {
      // gpu.module has no terminator: everything in its body moves.
      Block *body = target.getBody();
      for (Operation &op : llvm::make_early_inc_range(*source.getBody())) {
        auto symbol = dyn_cast<SymbolOpInterface>(op);
        if (!symbol) {
          op.moveBefore(body, body->end());
          continue;
        }
        // insert() renames the symbol when the name is taken.
        StringAttr oldName = symbol.getNameAttr();
        op.remove();
        StringAttr newName = targetSymbols.insert(&op, body->end());
        moved[SymbolRefAttr::get(source.getSymNameAttr(),
                                 {FlatSymbolRefAttr::get(oldName)})] =
            SymbolRefAttr::get(targetName.getAttr(),
                               {FlatSymbolRefAttr::get(newName)});
      }
      source.erase();
    }

    module.walk([&](gpu::LaunchFuncOp launch) {
      auto it = moved.find(launch.getKernel());
      if (it != moved.end())
        launch.setKernelAttr(it->second);
    });
  }
};

} // namespace
