//===- ProfileKernels.cpp - Time every kernel of a compiled model ---------===//
//
// Implements `tfm-profile-kernels`: what tfm-compile --profile adds after
// bufferization so that the executable can print where its time goes. The
// runtime's side (runtime/Profile.cpp) keeps the times and prints them.
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "tfm/Codegen/Common/Passes.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir {
namespace tfm {
#define GEN_PASS_DEF_TFMPROFILEKERNELS
#include "tfm/Codegen/Common/Passes.h.inc"
} // namespace tfm
} // namespace mlir

using namespace mlir;

static constexpr StringLiteral kBegin = "tfm_profile_begin";
static constexpr StringLiteral kEnd = "tfm_profile_end";
static constexpr StringLiteral kTable = "tfm_profile_kernels";

/// Whether `op`, at the top level of a function, is a kernel: it touches
/// memory and is not allocation, deallocation, a view or a constant.
static bool isKernel(Operation *op) {
  if (op->hasTrait<OpTrait::IsTerminator>() || isMemoryEffectFree(op) ||
      isa<ViewLikeOpInterface, memref::AllocOp, memref::AllocaOp,
          memref::DeallocOp, memref::GetGlobalOp>(op))
    return false;
  // An op whose only effects are on the buffers it allocates.
  if (auto effects = dyn_cast<MemoryEffectOpInterface>(op))
    return !effects.onlyHasEffect<MemoryEffects::Allocate>();
  return true;
}

/// `loc` in a line: names and file positions, without the `loc(...)`
/// wrapping; several fused locations joined by ", ".
static void printLocation(Location loc, llvm::raw_ostream &os) {
  if (auto name = dyn_cast<NameLoc>(loc)) {
    os << name.getName().getValue();
    return;
  }
  if (auto file = dyn_cast<FileLineColLoc>(loc)) {
    os << file.getFilename().getValue() << ':' << file.getLine() << ':'
       << file.getColumn();
    return;
  }
  if (auto fused = dyn_cast<FusedLoc>(loc)) {
    llvm::interleave(
        fused.getLocations(), os,
        [&](Location inner) { printLocation(inner, os); }, ", ");
    return;
  }
  if (auto callSite = dyn_cast<CallSiteLoc>(loc)) {
    printLocation(callSite.getCallee(), os);
    return;
  }
  os << "unknown";
}

/// Declares `void name(i32)` in `module` unless it is there.
static void declareHook(OpBuilder &b, ModuleOp module, StringRef name) {
  if (module.lookupSymbol(name))
    return;
  auto type = b.getFunctionType({b.getI32Type()}, {});
  auto decl = func::FuncOp::create(b, module.getLoc(), name, type);
  decl.setPrivate();
}

namespace {
struct TfmProfileKernelsPass
    : tfm::impl::TfmProfileKernelsBase<TfmProfileKernelsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (StringRef name : {kBegin, kEnd, kTable})
      if (Operation *existing = module.lookupSymbol(name)) {
        existing->emitOpError("is named like the profiler's @")
            << name << "; the module is profiled already";
        return signalPassFailure();
      }

    std::string table;
    llvm::raw_string_ostream os(table);
    int32_t id = 0;
    OpBuilder b(module.getContext());
    for (auto func : llvm::to_vector(module.getOps<func::FuncOp>())) {
      if (func.isExternal() || !func.isPublic())
        continue;
      for (Block &block : func.getBody()) {
        for (Operation &op : llvm::make_early_inc_range(block)) {
          if (!isKernel(&op))
            continue;
          Location loc = op.getLoc();
          b.setInsertionPoint(&op);
          Value idValue =
              arith::ConstantIntOp::create(b, loc, b.getI32Type(), id);
          func::CallOp::create(b, loc, kBegin, TypeRange{}, idValue);
          b.setInsertionPointAfter(&op);
          func::CallOp::create(b, loc, kEnd, TypeRange{}, idValue);
          os << op.getName().getStringRef() << '\t';
          printLocation(loc, os);
          os << '\n';
          ++id;
        }
      }
    }
    numKernels = id;

    b.setInsertionPointToEnd(module.getBody());
    declareHook(b, module, kBegin);
    declareHook(b, module, kEnd);
    // The table, as `const char tfm_profile_kernels[]`, NUL-terminated.
    table.push_back('\0');
    auto type = LLVM::LLVMArrayType::get(b.getI8Type(), table.size());
    LLVM::GlobalOp::create(b, module.getLoc(), type, /*isConstant=*/true,
                           LLVM::Linkage::External, kTable,
                           b.getStringAttr(table));
  }
};
} // namespace
