//===- GpuNativeMath.cpp - libdevice functions PTX has instructions for ---===//
//
// Implements `tfm-gpu-native-math`, so that compiling kernels needs CUDA's
// libdevice only for the functions that really are library code.
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/GPU/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringSwitch.h"

namespace mlir {
namespace tfm {
#define GEN_PASS_DEF_TFMGPUNATIVEMATH
#include "tfm/Codegen/GPU/Passes.h.inc"
} // namespace tfm
} // namespace mlir

using namespace mlir;

namespace {

/// The libdevice functions defined here, by the LLVM intrinsic that
/// computes them.
enum class Native { None, Sqrt, Floor, Ceil, Abs, Fma };

Native getNative(StringRef name) {
  return llvm::StringSwitch<Native>(name)
      .Cases({"__nv_sqrtf", "__nv_sqrt"}, Native::Sqrt)
      .Cases({"__nv_floorf", "__nv_floor"}, Native::Floor)
      .Cases({"__nv_ceilf", "__nv_ceil"}, Native::Ceil)
      .Cases({"__nv_fabsf", "__nv_fabs"}, Native::Abs)
      .Cases({"__nv_fmaf", "__nv_fma"}, Native::Fma)
      .Default(Native::None);
}

struct TfmGpuNativeMathPass
    : tfm::impl::TfmGpuNativeMathBase<TfmGpuNativeMathPass> {
  using Base::Base;

  void runOnOperation() override {
    WalkResult result = getOperation()->walk([&](LLVM::LLVMFuncOp func) {
      Native native = getNative(func.getName());
      LLVM::LLVMFunctionType type = func.getFunctionType();
      if (!func.isExternal())
        return WalkResult::advance();
      if (native == Native::None ||
          type.getNumParams() != (native == Native::Fma ? 3u : 1u)) {
        if (libdevice || !func.getName().starts_with("__nv_"))
          return WalkResult::advance();
        // Report at the first call, which carries the op's location.
        Operation *where = func;
        if (std::optional<SymbolTable::UseRange> uses =
                SymbolTable::getSymbolUses(func, getOperation()))
          if (!uses->empty())
            where = uses->begin()->getUser();
        where->emitError("the kernel calls ")
            << func.getName()
            << " from CUDA's libdevice, and no CUDA toolkit with libdevice "
               "was found (install one, or set CUDA_HOME)";
        return WalkResult::interrupt();
      }
      OpBuilder b(func.getContext());
      Block *body = func.addEntryBlock(b);
      b.setInsertionPointToStart(body);
      Location loc = func.getLoc();
      ValueRange args = body->getArguments();
      auto none = LLVM::FastmathFlagsAttr::get(func.getContext(),
                                               LLVM::FastmathFlags::none);
      Value result;
      switch (native) {
      case Native::Sqrt:
        result = LLVM::SqrtOp::create(b, loc, args[0], none);
        break;
      case Native::Floor:
        result = LLVM::FFloorOp::create(b, loc, args[0], none);
        break;
      case Native::Ceil:
        result = LLVM::FCeilOp::create(b, loc, args[0], none);
        break;
      case Native::Abs:
        result = LLVM::FAbsOp::create(b, loc, args[0], none);
        break;
      case Native::Fma:
        result = LLVM::FMAOp::create(b, loc, args[0], args[1], args[2], none);
        break;
      case Native::None:
        break;
      }
      LLVM::ReturnOp::create(b, loc, result);
      // Internal: each kernel module has its own copy, inlined by LLVM.
      func.setLinkage(LLVM::Linkage::Internal);
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
