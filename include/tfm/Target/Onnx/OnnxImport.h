//===- OnnxImport.h - ONNX models to tfm graphs -----------------*- C++ -*-===//
//
// Imports an ONNX model (a serialized onnx.ModelProto, as torch.onnx.export
// writes it) into a module holding one function, @main, in the tensor-level
// form of a tfm graph: linalg named ops, arith and math on ranked tensors,
// tensor reshapes and slices, and tfm ops. The graph's inputs are @main's
// arguments in order, its outputs the results, and its initializers inline
// constants. Shape computations on values of known shape are folded at
// import, so every type is static.
//
//===----------------------------------------------------------------------===//

#ifndef TFM_TARGET_ONNX_ONNXIMPORT_H
#define TFM_TARGET_ONNX_ONNXIMPORT_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringRef.h"

namespace mlir {
class MLIRContext;
namespace tfm {

/// Why an import failed.
enum class OnnxImportError {
  /// The bytes are not a well-formed model, or the model is inconsistent
  /// (a truncated file, a tensor whose data does not match its shape, ...).
  Invalid,
  /// The model is well formed but uses ops or types tfm does not import.
  Unsupported,
};

/// Imports the serialized ONNX model `bytes`. Diagnostics are emitted to
/// `context`'s handler at locations in `filename` (the model) or at the
/// ONNX nodes' names. On failure, returns null and sets `error`, if given,
/// to the kind of failure.
OwningOpRef<ModuleOp> importOnnx(llvm::StringRef bytes, MLIRContext *context,
                                 llvm::StringRef filename,
                                 OnnxImportError *error = nullptr);

/// Whether `bytes` look like a serialized ONNX model rather than MLIR text:
/// a protobuf whose first field is ModelProto's ir_version.
bool looksLikeOnnx(llvm::StringRef bytes);

/// Registers the dialects that imported graphs use.
void registerOnnxImportDialects(DialectRegistry &registry);

} // namespace tfm
} // namespace mlir

#endif // TFM_TARGET_ONNX_ONNXIMPORT_H
