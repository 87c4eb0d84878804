//===- TfmDialect.h - The tfm dialect ---------------------------*- C++ -*-===//

#ifndef TFM_DIALECT_TFM_IR_TFMDIALECT_H
#define TFM_DIALECT_TFM_IR_TFMDIALECT_H

#include "mlir/IR/Dialect.h"

#include "tfm/Dialect/Tfm/IR/TfmOpsDialect.h.inc"

#endif // TFM_DIALECT_TFM_IR_TFMDIALECT_H
