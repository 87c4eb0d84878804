//===- tfm-onnx-fuzzer.cpp - libFuzzer target for the ONNX importer -------===//
//
// Feeds arbitrary bytes to mlir::tfm::importOnnx. Every input must give a
// module or a diagnostic; crashes, sanitizer reports and imported modules
// that do not verify are bugs. Built with -DTFM_ENABLE_FUZZER=ON by
// scripts/fuzz.sh.
//
//===----------------------------------------------------------------------===//

#include "tfm/Target/Onnx/OnnxImport.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include <cstdint>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mlir::DialectRegistry registry;
  mlir::tfm::registerOnnxImportDialects(registry);
  mlir::MLIRContext context(registry, mlir::MLIRContext::Threading::DISABLED);
  // Diagnostics are the expected outcome for most inputs: drop them.
  mlir::ScopedDiagnosticHandler quiet(
      &context, [](mlir::Diagnostic &) { return mlir::success(); });
  mlir::OwningOpRef<mlir::ModuleOp> module = mlir::tfm::importOnnx(
      llvm::StringRef(reinterpret_cast<const char *>(data), size), &context,
      "fuzz.onnx");
  if (module && mlir::failed(mlir::verify(*module)))
    std::abort();
  return 0;
}
