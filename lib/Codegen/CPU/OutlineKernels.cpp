//===- OutlineKernels.cpp - tfm-cpu-outline-kernels -----------------------===//
//
// Implements `tfm-cpu-outline-kernels`: every outermost scf.parallel moves
// into a private function of its own, called where it was; kernels that are
// the same code on different buffers share one function.
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
/// into the kernel's code) or, unless `weightsAsArguments`, the address of
/// a global (a weight).
bool isSunk(Operation *op, bool weightsAsArguments) {
  return op && op->getNumRegions() == 0 && op->getNumOperands() == 0 &&
         (op->hasTrait<OpTrait::ConstantLike>() ||
          (!weightsAsArguments && isa<memref::GetGlobalOp>(op)));
}

/// A hash of `func`'s type and body that kernels equivalent by
/// `isSameKernel` share: every op's name, attributes and types, in order.
llvm::hash_code hashKernel(func::FuncOp func) {
  llvm::hash_code hash = hash_value(func.getFunctionType());
  func.getBody().walk([&](Operation *op) {
    hash = llvm::hash_combine(
        hash, OperationEquivalence::computeHash(
                  op, OperationEquivalence::ignoreHashValue,
                  OperationEquivalence::ignoreHashValue,
                  OperationEquivalence::IgnoreLocations));
  });
  return hash;
}

/// Whether the kernels `a` and `b` are the same code: the same type, and
/// bodies equivalent op for op (locations aside).
bool isSameKernel(func::FuncOp a, func::FuncOp b) {
  return a.getFunctionType() == b.getFunctionType() &&
         OperationEquivalence::isRegionEquivalentTo(
             &a.getBody(), &b.getBody(),
             OperationEquivalence::IgnoreLocations);
}

struct TfmCpuOutlineKernelsPass
    : tfm::impl::TfmCpuOutlineKernelsBase<TfmCpuOutlineKernelsPass> {
  using Base::Base;

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
    SmallVector<func::FuncOp> functions;
    for (auto [number, kernel] : llvm::enumerate(kernels)) {
      Operation *parent = kernel->getParentOfType<func::FuncOp>();
      auto [it, inserted] = lastOfParent.try_emplace(parent, parent);
      rewriter.setInsertionPointAfter(it->second);
      functions.push_back(outline(rewriter, symbols, kernel, number));
      it->second = functions.back();
    }
    if (dedup)
      mergeSameKernels(module, symbols, functions);
  }

  /// Makes every call of a kernel that is the same code as an earlier one
  /// call the earlier one, and erases it.
  void mergeSameKernels(ModuleOp module, SymbolTable &symbols,
                        ArrayRef<func::FuncOp> functions) {
    DenseMap<llvm::hash_code, SmallVector<func::FuncOp>> byHash;
    DenseMap<StringAttr, func::FuncOp> replacement;
    for (func::FuncOp func : functions) {
      SmallVector<func::FuncOp> &candidates = byHash[hashKernel(func)];
      auto same = llvm::find_if(candidates, [&](func::FuncOp earlier) {
        return isSameKernel(earlier, func);
      });
      if (same == candidates.end())
        candidates.push_back(func);
      else
        replacement[func.getSymNameAttr()] = *same;
    }
    if (replacement.empty())
      return;
    module.walk([&](func::CallOp call) {
      auto it = replacement.find(call.getCalleeAttr().getAttr());
      if (it != replacement.end())
        call.setCallee(it->second.getSymName());
    });
    for (func::FuncOp func : functions)
      if (replacement.contains(func.getSymNameAttr()))
        symbols.erase(func);
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
      if (isSunk(value.getDefiningOp(), /*weightsAsArguments=*/dedup))
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
