//===- Passes.h - preparing a graph for a native binary ---------*- C++ -*-===//

#ifndef TFM_TARGET_NATIVE_PASSES_H
#define TFM_TARGET_NATIVE_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"
#include "tfm/Dialect/Tfm/IR/TfmDialect.h"

namespace mlir {
namespace tfm {

#define GEN_PASS_DECL
#include "tfm/Target/Native/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tfm/Target/Native/Passes.h.inc"

} // namespace tfm
} // namespace mlir

#endif // TFM_TARGET_NATIVE_PASSES_H
