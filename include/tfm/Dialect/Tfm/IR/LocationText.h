//===- LocationText.h - Locations in run-time messages ----------*- C++ -*-===//
//
// Compiled programs name the op a run-time check or a dumped tensor belongs
// to by its location, written the same way everywhere.
//
//===----------------------------------------------------------------------===//

#ifndef TFM_DIALECT_TFM_IR_LOCATIONTEXT_H
#define TFM_DIALECT_TFM_IR_LOCATIONTEXT_H

#include "mlir/IR/Location.h"

#include <string>

namespace mlir::tfm {

/// `loc` as text for a message of the compiled program: an ONNX node's name
/// (the importer's NameLoc), `file:line:col` of tfm IR, else MLIR's form.
std::string describeLocation(Location loc);

} // namespace mlir::tfm

#endif // TFM_DIALECT_TFM_IR_LOCATIONTEXT_H
