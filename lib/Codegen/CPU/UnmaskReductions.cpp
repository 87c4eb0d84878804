//===- UnmaskReductions.cpp - tfm-cpu-unmask-reductions -------------------===//
//
// Implements `tfm-cpu-unmask-reductions`: a masked vector reduction becomes
// an unmasked one of its source with the masked-off lanes replaced by the
// identity of its combining kind, so that no later lowering chooses what
// those lanes hold.
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace mlir {
namespace tfm {
#define GEN_PASS_DEF_TFMCPUUNMASKREDUCTIONS
#include "tfm/Codegen/CPU/Passes.h.inc"
} // namespace tfm
} // namespace mlir

using namespace mlir;
using namespace mlir::tfm;

namespace {

/// The `AtomicRMWKind` whose identity is that of `kind`.
arith::AtomicRMWKind getAtomicKind(vector::CombiningKind kind, Type type) {
  bool isFloat = isa<FloatType>(type);
  switch (kind) {
  case vector::CombiningKind::ADD:
    return isFloat ? arith::AtomicRMWKind::addf : arith::AtomicRMWKind::addi;
  case vector::CombiningKind::MUL:
    return isFloat ? arith::AtomicRMWKind::mulf : arith::AtomicRMWKind::muli;
  case vector::CombiningKind::MINUI:
    return arith::AtomicRMWKind::minu;
  case vector::CombiningKind::MINSI:
    return arith::AtomicRMWKind::mins;
  case vector::CombiningKind::MINNUMF:
    return arith::AtomicRMWKind::minnumf;
  case vector::CombiningKind::MINIMUMF:
    return arith::AtomicRMWKind::minimumf;
  case vector::CombiningKind::MAXUI:
    return arith::AtomicRMWKind::maxu;
  case vector::CombiningKind::MAXSI:
    return arith::AtomicRMWKind::maxs;
  case vector::CombiningKind::MAXNUMF:
    return arith::AtomicRMWKind::maxnumf;
  case vector::CombiningKind::MAXIMUMF:
    return arith::AtomicRMWKind::maximumf;
  case vector::CombiningKind::AND:
    return arith::AtomicRMWKind::andi;
  case vector::CombiningKind::OR:
    return arith::AtomicRMWKind::ori;
  case vector::CombiningKind::XOR:
    // x ^ 0 = x: the identity of ori, 0.
    return arith::AtomicRMWKind::ori;
  }
  llvm_unreachable("unknown combining kind");
}

/// Replaces `mask { reduction(source) }` with `reduction(select(mask,
/// source, identity))`; returns failure when `maskOp` holds no reduction.
LogicalResult unmask(vector::MaskOp maskOp) {
  Operation *inner = maskOp.getMaskableOp();
  if (!inner || maskOp.hasPassthru())
    return failure();
  Value source;
  vector::CombiningKind kind;
  if (auto reduction = dyn_cast<vector::MultiDimReductionOp>(inner)) {
    source = reduction.getSource();
    kind = reduction.getKind();
  } else if (auto reduction = dyn_cast<vector::ReductionOp>(inner)) {
    source = reduction.getVector();
    kind = reduction.getKind();
  } else {
    return failure();
  }
  auto sourceType = cast<VectorType>(source.getType());
  if (maskOp.getMask().getType() !=
      sourceType.cloneWith(std::nullopt, IntegerType::get(
                                             maskOp.getContext(), 1)))
    return failure();
  OpBuilder b(maskOp);
  Location loc = maskOp.getLoc();
  Type elementType = sourceType.getElementType();
  TypedAttr identity = arith::getIdentityValueAttr(
      getAtomicKind(kind, elementType), elementType, b, loc);
  Value identities = arith::ConstantOp::create(
      b, loc, SplatElementsAttr::get(sourceType, identity));
  Value selected = arith::SelectOp::create(b, loc, maskOp.getMask(), source,
                                           identities);
  Operation *unmasked = b.clone(*inner);
  unmasked->setOperand(0, selected);
  maskOp->replaceAllUsesWith(unmasked->getResults());
  maskOp->erase();
  return success();
}

struct TfmCpuUnmaskReductionsPass
    : tfm::impl::TfmCpuUnmaskReductionsBase<TfmCpuUnmaskReductionsPass> {
  void runOnOperation() override {
    SmallVector<vector::MaskOp> masks;
    getOperation().walk([&](vector::MaskOp op) { masks.push_back(op); });
    for (vector::MaskOp op : masks)
      (void)unmask(op);
  }
};

} // namespace
