//===- ReassociateReductions.cpp - tfm-cpu-reassociate-reductions ---------===//
//
// Implements `tfm-cpu-reassociate-reductions`: float additions and products
// over a vector's lanes may reassociate, so that LLVM reduces the lanes as a
// tree instead of one dependent scalar operation per lane; maxnum and
// minnum reductions are written as that tree.
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

/// Rewrites `op`, a maxnumf or minnumf reduction of a power-of-two number
/// of lanes, as a tree of its combining op over halves of the vector.
void buildTree(vector::ReductionOp op) {
  auto type = dyn_cast<VectorType>(op.getVector().getType());
  if (!type || type.getRank() != 1 || type.isScalable() ||
      !llvm::isPowerOf2_64(type.getNumElements()) ||
      isa<vector::MaskOp>(op->getParentOp()))
    return;
  OpBuilder b(op);
  Location loc = op.getLoc();
  vector::CombiningKind kind = op.getKind();
  Value lanes = op.getVector();
  for (int64_t half = type.getNumElements() / 2; half >= 1; half /= 2) {
    Value low = vector::ExtractStridedSliceOp::create(b, loc, lanes, {0},
                                                      {half}, {1});
    Value high = vector::ExtractStridedSliceOp::create(b, loc, lanes,
                                                       {half}, {half}, {1});
    lanes = vector::makeArithReduction(b, loc, kind, low, high);
  }
  Value result = vector::ExtractOp::create(b, loc, lanes, 0);
  if (Value acc = op.getAcc())
    result = vector::makeArithReduction(b, loc, kind, result, acc);
  op.replaceAllUsesWith(result);
  op.erase();
}

struct TfmCpuReassociateReductionsPass
    : tfm::impl::TfmCpuReassociateReductionsBase<
          TfmCpuReassociateReductionsPass> {
  void runOnOperation() override {
    SmallVector<vector::ReductionOp> trees;
    getOperation().walk([&](vector::ReductionOp op) {
      vector::CombiningKind kind = op.getKind();
      if (!isa<FloatType>(op.getType()))
        return;
      if (kind == vector::CombiningKind::ADD ||
          kind == vector::CombiningKind::MUL)
        op.setFastmath(op.getFastmath() | arith::FastMathFlags::reassoc);
      else if (kind == vector::CombiningKind::MAXNUMF ||
               kind == vector::CombiningKind::MINNUMF)
        trees.push_back(op);
    });
    for (vector::ReductionOp op : trees)
      buildTree(op);
  }
};
} // namespace
