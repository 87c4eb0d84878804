//===- Input.cpp - Reading tfm-compile's input ----------------------------===//

#include "Input.h"

#include "tfm/Target/Onnx/OnnxImport.h"

#include "mlir/Parser/Parser.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;

OwningOpRef<ModuleOp> tfm::loadInput(llvm::SourceMgr &sources,
                                     MLIRContext *context, int &exitCode) {
  exitCode = 1;
  const llvm::MemoryBuffer *buffer =
      sources.getMemoryBuffer(sources.getMainFileID());
  StringRef name = buffer->getBufferIdentifier();
  if (llvm::sys::path::extension(name) != ".onnx" &&
      !looksLikeOnnx(buffer->getBuffer()))
    return parseSourceFile<ModuleOp>(sources, context);

  OnnxImportError error;
  OwningOpRef<ModuleOp> module =
      importOnnx(buffer->getBuffer(), context, name, &error);
  if (!module && error == OnnxImportError::Unsupported)
    exitCode = kExitUnsupported;
  return module;
}
