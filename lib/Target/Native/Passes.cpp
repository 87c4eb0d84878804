//===- Passes.cpp - The IR work of tfm-compile around its pipeline --------===//
//
// tfm-bind-weights and tfm-prepare-entry, which tfm-compile runs before its
// pipeline, and tfm-emit-c-interface, which it runs after: the driver's IR
// work as passes, so that tfm-opt runs (and FileCheck sees) exactly what the
// driver runs.
//
//===----------------------------------------------------------------------===//

#include "tfm/Target/Native/Passes.h"

#include "tfm/Target/Native/Backend.h"
#include "tfm/Target/Native/EntryPoint.h"
#include "tfm/Target/Native/Weights.h"

namespace mlir {
namespace tfm {
#define GEN_PASS_DEF_TFMBINDWEIGHTS
#define GEN_PASS_DEF_TFMEMITCINTERFACE
#define GEN_PASS_DEF_TFMKVCACHE
#define GEN_PASS_DEF_TFMPREPAREENTRY
#define GEN_PASS_DEF_TFMSETCPUTARGET
#include "tfm/Target/Native/Passes.h.inc"
} // namespace tfm
} // namespace mlir

using namespace mlir;
using namespace mlir::tfm;

namespace {
struct TfmBindWeightsPass : tfm::impl::TfmBindWeightsBase<TfmBindWeightsPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = findEntry(getOperation(), entry);
    if (!func || failed(bindWeights(func, file)))
      signalPassFailure();
  }
};

struct TfmKvCachePass : tfm::impl::TfmKvCacheBase<TfmKvCachePass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = findEntry(getOperation(), entry);
    if (!func || failed(convertToKvCache(func, maxLen)))
      signalPassFailure();
  }
};

struct TfmPrepareEntryPass
    : tfm::impl::TfmPrepareEntryBase<TfmPrepareEntryPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = findEntry(getOperation(), entry);
    if (!func)
      return signalPassFailure();
    FailureOr<EntrySignature> signature =
        prepareEntry(func, llvm::to_vector(maxSizes));
    if (failed(signature))
      return signalPassFailure();
    recordEntrySignature(getOperation(), *signature);
  }
};

struct TfmSetCpuTargetPass
    : tfm::impl::TfmSetCpuTargetBase<TfmSetCpuTargetPass> {
  using Base::Base;

  void runOnOperation() override {
    std::string error;
    std::unique_ptr<llvm::TargetMachine> machine =
        createTargetMachine(cpu, /*optLevel=*/3, error);
    if (!machine) {
      getOperation().emitError() << error;
      return signalPassFailure();
    }
    getOperation()->setAttr(
        CpuTargetAttr::getAttrName(),
        describeCpu(&getContext(), *machine, /*host=*/cpu == "native"));
  }
};

struct TfmEmitCInterfacePass
    : tfm::impl::TfmEmitCInterfaceBase<TfmEmitCInterfacePass> {
  using Base::Base;

  void runOnOperation() override {
    FailureOr<EntrySignature> signature = readEntrySignature(getOperation());
    if (failed(signature) || failed(emitCInterface(getOperation(), *signature, prefix)))
      signalPassFailure();
  }
};
} // namespace
