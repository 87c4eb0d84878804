//===- OutlineKernels.cpp - tfm-cpu-outline-kernels -----------------------===//
//
// Implements `tfm-cpu-outline-kernels`: every outermost scf.parallel moves
// into a private function of its own, called where it was.
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/RegionUtils.h"

namespace mlir {
namespace tfm {
#define GEN_PASS_DEF_TFMCPUOUTLINEKERNELS
#include "tfm/Codegen/CPU/Passes.h.inc"
} // namespace tfm
} // namespace mlir

using namespace mlir;
using namespace mlir::tfm;

namespace {

/// Whether `op`, defined outside a kernel and used in it, is cloned into
/// the kernel's function rather than passed: a constant (which then folds
/// into the kernel's code) or the address of a global (a weight).
bool isSunk(Operation *op) {
  return op && op->getNumRegions() == 0 && op->getNumOperands() == 0 &&
         (op->hasTrait<OpTrait::ConstantLike>() ||
          isa<memref::GetGlobalOp>(op));
}

struct TfmCpuOutlineKernelsPass
    : tfm::impl::TfmCpuOutlineKernelsBase<TfmCpuOutlineKernelsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<scf::ParallelOp> kernels;
    module.walk([&](func::FuncOp func) {
      if (func.isExternal())
        return;
      // A loop that reduces into results (none that the pipeline makes)
      // stays where its results are used.
      func.walk<WalkOrder::PreOrder>([&](scf::ParallelOp op) {
        if (op.getNumResults() == 0)
          kernels.push_back(op);
        return WalkResult::skip();
      });
    });
    IRRewriter rewriter(&getContext());
    // The kernels follow their function, in order.
    DenseMap<Operation *, Operation *> lastOfParent;
    for (auto [number, kernel] : llvm::enumerate(kernels)) {
      Operation *parent = kernel->getParentOfType<func::FuncOp>();
      auto [it, inserted] = lastOfParent.try_emplace(parent, parent);
      rewriter.setInsertionPointAfter(it->second);
      it->second = outline(rewriter, symbols, kernel, number);
    }
  }

  /// Moves `kernel` into `<parent>_kernel_<number>`, created at the
  /// rewriter's insertion point, and returns that function.
  func::FuncOp outline(IRRewriter &rewriter, SymbolTable &symbols,
                       scf::ParallelOp kernel, size_t number) {
    auto parent = kernel->getParentOfType<func::FuncOp>();
    llvm::SetVector<Value> captured;
    getUsedValuesDefinedAbove(kernel->getRegions(), captured);
    for (Value operand : kernel->getOperands())
      captured.insert(operand);
    SmallVector<Value> arguments;
    SmallVector<Operation *> sunk;
    for (Value value : captured) {
      if (isSunk(value.getDefiningOp()))
        sunk.push_back(value.getDefiningOp());
      else
        arguments.push_back(value);
    }

    Location loc = kernel.getLoc();
    auto type = rewriter.getFunctionType(ValueRange(arguments).getTypes(), {});
    auto func = func::FuncOp::create(
        rewriter, loc, (parent.getSymName() + "_kernel_" + Twine(number)).str(),
        type);
    func.setPrivate();
    symbols.insert(func);
    Block *body = func.addEntryBlock();
    rewriter.setInsertionPointToStart(body);
    IRMapping mapping;
    mapping.map(arguments, body->getArguments());
    for (Operation *op : sunk)
      rewriter.clone(*op, mapping);
    rewriter.clone(*kernel, mapping);
    func::ReturnOp::create(rewriter, loc);

    rewriter.setInsertionPoint(kernel);
    func::CallOp::create(rewriter, loc, func, arguments);
    rewriter.eraseOp(kernel);
    return func;
  }
};

} // namespace
