//===- Input.h - Reading tfm-compile's input --------------------*- C++ -*-===//

#ifndef TFM_TOOLS_TFM_COMPILE_INPUT_H
#define TFM_TOOLS_TFM_COMPILE_INPUT_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace mlir::tfm {

/// Exit code of tfm-compile for a model that uses unsupported ops or types.
constexpr int kExitUnsupported = 2;

/// Reads the main buffer of `sources`: an ONNX model (by its `.onnx`
/// extension or its contents) is imported, anything else parsed as MLIR.
/// On failure, returns null and sets `exitCode` (1, or kExitUnsupported).
OwningOpRef<ModuleOp> loadInput(llvm::SourceMgr &sources, MLIRContext *context,
                                int &exitCode);

} // namespace mlir::tfm

#endif // TFM_TOOLS_TFM_COMPILE_INPUT_H
