//===- TfmOps.h - tfm operations --------------------------------*- C++ -*-===//

#ifndef TFM_DIALECT_TFM_IR_TFMOPS_H
#define TFM_DIALECT_TFM_IR_TFMOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/TilingInterface.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"

#include "tfm/Dialect/Tfm/IR/TfmDialect.h"

#include "tfm/Dialect/Tfm/IR/TfmEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "tfm/Dialect/Tfm/IR/TfmAttrs.h.inc"

namespace mlir {
namespace tfm {

/// Returns true if the two ranges hold pairwise compatible ranked tensor
/// types: same rank, same element type, and equal sizes wherever both are
/// static. This is how a declared result type is checked against the
/// inferred one.
bool areCompatibleTensorTypes(TypeRange lhs, TypeRange rhs);

/// Returns the `lowering_config` of `op`, or null if it has none.
LoweringConfigAttr getLoweringConfig(Operation *op);

/// Sets the `lowering_config` of `op`.
void setLoweringConfig(Operation *op, LoweringConfigAttr config);

} // namespace tfm
} // namespace mlir

#define GET_OP_CLASSES
#include "tfm/Dialect/Tfm/IR/TfmOps.h.inc"

#endif // TFM_DIALECT_TFM_IR_TFMOPS_H
