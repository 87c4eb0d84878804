//===- RegisterBudget.cpp - Registers of tensor-core kernels --------------===//
//
// Implements `tfm-gpu-register-budget`: see its description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/GPU/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace mlir {
namespace tfm {
#define GEN_PASS_DEF_TFMGPUREGISTERBUDGET
#include "tfm/Codegen/GPU/Passes.h.inc"
} // namespace tfm
} // namespace mlir

using namespace mlir;

namespace {
struct TfmGpuRegisterBudgetPass
    : tfm::impl::TfmGpuRegisterBudgetBase<TfmGpuRegisterBudgetPass> {
  using Base::Base;

  void runOnOperation() override {
    StringRef kernelName = NVVM::NVVMDialect::getKernelFuncAttrName();
    StringRef budgetName = NVVM::NVVMDialect::getMaxnregAttrName();
    getOperation()->walk([&](LLVM::LLVMFuncOp func) {
      if (!func->hasAttr(kernelName) || func->hasAttr(budgetName))
        return;
      bool tensorCores =
          func.walk([](NVVM::MmaOp) { return WalkResult::interrupt(); })
              .wasInterrupted();
      if (tensorCores)
        func->setAttr(budgetName,
                      IntegerAttr::get(IntegerType::get(&getContext(), 32),
                                       maxRegisters));
    });
  }
};
} // namespace
