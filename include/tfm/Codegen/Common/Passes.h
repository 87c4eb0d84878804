//===- Passes.h - code generation for every target --------------*- C++ -*-===//

#ifndef TFM_CODEGEN_COMMON_PASSES_H
#define TFM_CODEGEN_COMMON_PASSES_H

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
class DialectRegistry;
class OpPassManager;
namespace mpi {
class MPIDialect;
} // namespace mpi
namespace tfm {

#define GEN_PASS_DECL
#include "tfm/Codegen/Common/Passes.h.inc"

/// Replaces every op under `root` that implements linalg's
/// AggregatedOpInterface by its decomposition (what
/// `tfm-decompose-aggregates` does).
LogicalResult decomposeAggregates(Operation *root);

/// tfm and elementwise tensor code to linalg on tensors: lowered
/// (convert-tfm-to-linalg), given a strategy by `selectStrategy` (a target's
/// strategy selection pass), tiled as the strategy says, decomposed, and
/// with elementwise producers fused. `mapTileLoops`: the tile loops are
/// GPU blocks (tfm-tile-by-config's map-tile-loops). `decodePath`: the
/// lowering's decode-path (decoding steps' attention reads its keys in
/// place). `foldTransposes`: products read transposed operands through
/// their indexing maps (tfm-fold-transposes-into-products) rather than
/// after a transpose.
void buildTfmToLinalgStage(OpPassManager &pm,
                           std::unique_ptr<Pass> selectStrategy,
                           bool mapTileLoops = false, bool decodePath = false,
                           bool foldTransposes = false);

/// One-shot bufferization across function boundaries with identity layouts,
/// results turned into caller-allocated out-parameters (static result
/// buffers hoisted into them). Deallocation is each target's business.
void buildOneShotBufferization(OpPassManager &pm);

/// Attaches what tfm's lowering of collectives needs to the MPI dialect:
/// the memory effects of `mpi.allreduce` (Collectives.cpp). Every tool that
/// runs the CPU pipeline registers it.
void registerCollectiveInterfaces(DialectRegistry &registry);

#define GEN_PASS_REGISTRATION
#include "tfm/Codegen/Common/Passes.h.inc"

} // namespace tfm
} // namespace mlir

#endif // TFM_CODEGEN_COMMON_PASSES_H
