//===- Strategy.h - The CPU's vector shapes ---------------------*- C++ -*-===//
//
// What `tfm-cpu-select-vector-strategy` chooses and `tfm-cpu-vectorize` needs
// again to mask tiles of dynamic shape.
//
//===----------------------------------------------------------------------===//

#ifndef TFM_CODEGEN_CPU_STRATEGY_H
#define TFM_CODEGEN_CPU_STRATEGY_H

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"

namespace mlir {
namespace tfm {

/// The vector shape of an op that is not a micro-kernel contraction: one
/// register's worth of `op`'s widest element type along the innermost loop
/// (fewer if the loop is shorter), and as many along the loop that a
/// transpose reads one of its inputs innermost along (a square block),
/// one iteration of every other loop.
SmallVector<int64_t> getCpuVectorShape(linalg::LinalgOp op,
                                       unsigned vectorWidthBits);

} // namespace tfm
} // namespace mlir

#endif // TFM_CODEGEN_CPU_STRATEGY_H
