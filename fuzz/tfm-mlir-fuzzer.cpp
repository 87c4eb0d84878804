//===- tfm-mlir-fuzzer.cpp - libFuzzer target for tfm IR to LLVM IR -------===//
//
// Feeds arbitrary bytes, as MLIR text, to what `tfm-compile --emit=llvm`
// runs: the parser and verifiers, tfm-prepare-entry, the whole CPU pipeline,
// tfm-emit-c-interface and the translation to LLVM IR. Every input must
// give LLVM IR or a diagnostic; crashes, sanitizer reports and a failure
// without a diagnostic are bugs. The seeds are the suite's tfm IR
// (scripts/fuzz.sh), so mutations stay close to real graphs.
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/CPU/Pipeline.h"
#include "tfm/Dialect/Tfm/IR/TfmDialect.h"
#include "tfm/Target/Native/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

using namespace mlir;

static const DialectRegistry &getRegistry() {
  static DialectRegistry *registry = [] {
    auto *r = new DialectRegistry;
    registerAllDialects(*r);
    registerAllExtensions(*r);
    registerAllToLLVMIRTranslations(*r);
    r->insert<tfm::TfmDialect>();
    return r;
  }();
  return *registry;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // Large inputs only slow the search down; real graphs in the seeds are
  // a few kilobytes.
  if (size > 16384)
    return 0;
  MLIRContext context(getRegistry(), MLIRContext::Threading::DISABLED);
  bool diagnosed = false;
  ScopedDiagnosticHandler quiet(&context, [&](Diagnostic &diag) {
    if (diag.getSeverity() == DiagnosticSeverity::Error)
      diagnosed = true;
    return success();
  });
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(
      StringRef(reinterpret_cast<const char *>(data), size), &context,
      "fuzz.mlir");
  if (!module)
    return diagnosed ? 0 : (std::abort(), 0);

  PassManager pm(&context);
  pm.addPass(tfm::createTfmPrepareEntry());
  // AVX2's registers, so that both ISAs' strategies get fuzzed (tfm-opt's
  // default target is AVX-512).
  tfm::TfmSetCpuTargetOptions target;
  target.cpu = "avx2";
  pm.addPass(tfm::createTfmSetCpuTarget(target));
  tfm::CpuPipelineOptions options;
  tfm::buildCpuPipeline(pm, options);
  pm.addPass(tfm::createTfmEmitCInterface());
  if (failed(pm.run(*module))) {
    if (!diagnosed)
      std::abort(); // a pass failed without saying why
    return 0;
  }
  llvm::LLVMContext llvmContext;
  if (!translateModuleToLLVMIR(*module, llvmContext, "fuzz") && !diagnosed)
    std::abort();
  return 0;
}
