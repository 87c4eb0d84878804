//===- tfm-translate.cpp - Translations into tfm graphs -------------------===//
//
//   tfm-translate --import-onnx MODEL.onnx [-o OUT.mlir]
//
// mlir-translate with tfm's importers registered: prints the graph that
// tfm-compile would compile, before the graph optimizer. The output parses
// with tfm-opt.
//
//===----------------------------------------------------------------------===//

#include "tfm/Target/Onnx/OnnxImport.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;

/// Whether an import failed on a model that is valid but uses what tfm
/// does not import: exit code 2, as tfm-compile's (docs/guarantees.md).
static bool importedUnsupported = false;

static TranslateToMLIRRegistration importOnnxRegistration(
    "import-onnx", "import an ONNX model (as torch.onnx.export writes it)",
    [](const std::shared_ptr<llvm::SourceMgr> &sources,
       MLIRContext *context) -> OwningOpRef<Operation *> {
      const llvm::MemoryBuffer *buffer =
          sources->getMemoryBuffer(sources->getMainFileID());
      tfm::OnnxImportError error = tfm::OnnxImportError::Invalid;
      OwningOpRef<ModuleOp> module = tfm::importOnnx(
          buffer->getBuffer(), context, buffer->getBufferIdentifier(), &error);
      if (!module && error == tfm::OnnxImportError::Unsupported)
        importedUnsupported = true;
      return module;
    },
    tfm::registerOnnxImportDialects);

int main(int argc, char **argv) {
  if (failed(mlirTranslateMain(argc, argv, "tfm translation driver\n")))
    return importedUnsupported ? 2 : 1;
  return 0;
}
