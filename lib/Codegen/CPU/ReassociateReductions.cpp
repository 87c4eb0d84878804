//===- ReassociateReductions.cpp - tfm-cpu-reassociate-reductions ---------===//
//
// Implements `tfm-cpu-reassociate-reductions`: float additions and products
// over a vector's lanes may reassociate, so that LLVM reduces the lanes as a
// tree instead of one dependent scalar operation per lane.
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace mlir {
namespace tfm {
#define GEN_PASS_DEF_TFMCPUREASSOCIATEREDUCTIONS
#include "tfm/Codegen/CPU/Passes.h.inc"
} // namespace tfm
} // namespace mlir

using namespace mlir;
using namespace mlir::tfm;

namespace {
struct TfmCpuReassociateReductionsPass
    : tfm::impl::TfmCpuReassociateReductionsBase<
          TfmCpuReassociateReductionsPass> {
  void runOnOperation() override {
    getOperation().walk([](vector::ReductionOp op) {
      vector::CombiningKind kind = op.getKind();
      if (!isa<FloatType>(op.getType()) ||
          (kind != vector::CombiningKind::ADD &&
           kind != vector::CombiningKind::MUL))
        return;
      op.setFastmath(op.getFastmath() | arith::FastMathFlags::reassoc);
    });
  }
};
} // namespace
