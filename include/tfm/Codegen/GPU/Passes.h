//===- Passes.h - code generation for NVIDIA GPUs ---------------*- C++ -*-===//

#ifndef TFM_CODEGEN_GPU_PASSES_H
#define TFM_CODEGEN_GPU_PASSES_H

#include "mlir/Pass/Pass.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace mlir {

namespace tfm {

#define GEN_PASS_DECL
#include "tfm/Codegen/GPU/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tfm/Codegen/GPU/Passes.h.inc"

} // namespace tfm
} // namespace mlir

#endif // TFM_CODEGEN_GPU_PASSES_H
