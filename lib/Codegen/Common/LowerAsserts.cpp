//===- LowerAsserts.cpp - tfm-lower-asserts -------------------------------===//
//
// Implements `tfm-lower-asserts`: a cf.assert becomes a conditional branch
// to a block that calls the runtime's tfm_check_failed with the assert's
// message, which prints it and exits with code 1.
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/Common/Passes.h"

#include "mlir/Conversion/LLVMCommon/PrintCallHelper.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir {
namespace tfm {
#define GEN_PASS_DEF_TFMLOWERASSERTS
#include "tfm/Codegen/Common/Passes.h.inc"
} // namespace tfm
} // namespace mlir

using namespace mlir;
using namespace mlir::tfm;

namespace {
struct TfmLowerAssertsPass
    : tfm::impl::TfmLowerAssertsBase<TfmLowerAssertsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<cf::AssertOp> asserts;
    // Host code only: kernels have no runtime to call.
    module.walk([&](cf::AssertOp op) {
      if (!op->getParentOfType<gpu::GPUModuleOp>())
        asserts.push_back(op);
    });
    if (asserts.empty())
      return;
    LLVMTypeConverter converter(&getContext());
    SymbolTableCollection symbolTables;
    OpBuilder b(&getContext());
    for (auto [i, op] : llvm::enumerate(asserts)) {
      Location loc = op.getLoc();
      // ^before: cond_br %ok, ^after, ^failed
      // ^failed: tfm_check_failed("..."); unreachable
      Block *before = op->getBlock();
      Block *after = before->splitBlock(op->getIterator());
      Block *onFailure = b.createBlock(after);
      if (failed(LLVM::createPrintStrCall(
              b, loc, module, "__tfm_check_" + std::to_string(i),
              op.getMsg(), converter, /*addNewline=*/false,
              StringRef("tfm_check_failed"), &symbolTables)))
        return signalPassFailure();
      LLVM::UnreachableOp::create(b, loc);
      b.setInsertionPointToEnd(before);
      cf::CondBranchOp::create(b, loc, op.getArg(), after, onFailure);
      op.erase();
    }
  }
};
} // namespace
