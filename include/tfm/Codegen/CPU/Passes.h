//===- Passes.h - code generation for CPUs ----------------------*- C++ -*-===//

#ifndef TFM_CODEGEN_CPU_PASSES_H
#define TFM_CODEGEN_CPU_PASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir {

namespace tfm {

#define GEN_PASS_DECL
#include "tfm/Codegen/CPU/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tfm/Codegen/CPU/Passes.h.inc"

} // namespace tfm
} // namespace mlir

#endif // TFM_CODEGEN_CPU_PASSES_H
