//===- PlaceBuffers.cpp - Put a mapped function's buffers on the device ---===//
//
// Implements `tfm-gpu-place-buffers`: after `tfm-map-to-gpu` every access to
// memory is inside a `gpu.launch`, and this pass gives each buffer those
// launches use a device copy. Upstream has the launches' host side
// (gpu.alloc, gpu.memcpy, gpu-async-region) but no pass that decides which
// buffers need copies in which direction; this is it. Constants are
// copied to the device once, on the first call, and kept there
// (DeviceConstants.h).
//
//===----------------------------------------------------------------------===//

#include "DeviceConstants.h"

#include "tfm/Codegen/GPU/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/MapVector.h"

namespace mlir {
namespace tfm {
#define GEN_PASS_DEF_TFMGPUPLACEBUFFERS
#include "tfm/Codegen/GPU/Passes.h.inc"
} // namespace tfm
} // namespace mlir

using namespace mlir;

/// The prefix of the runtime's functions that return a constant's device
/// copy; the element type follows (`tfmGpuConstant_f32`).
static constexpr llvm::StringLiteral kDeviceConstantPrefix = "tfmGpuConstant_";

std::string tfm::getDeviceConstantFunction(Type element) {
  // The types runtime/GpuRuntime.cpp defines a function for.
  bool known = element.isF16() || element.isBF16() || element.isF32() ||
               element.isF64() ||
               llvm::any_of(ArrayRef<unsigned>{1, 8, 16, 32, 64},
                            [&](unsigned width) {
                              return element.isSignlessInteger(width);
                            });
  if (!known)
    return "";
  std::string name = kDeviceConstantPrefix.str();
  llvm::raw_string_ostream os(name);
  os << element;
  return name;
}

bool tfm::isDeviceConstantCall(func::CallOp call) {
  return call.getCallee().starts_with(kDeviceConstantPrefix);
}

/// The declaration of the runtime function `name`, which maps a
/// one-dimensional memref of `element`s (the host copy) to another (the
/// device copy), through MLIR's C interface (pointers to descriptors).
static func::FuncOp declareDeviceConstantFunction(ModuleOp module,
                                                  StringRef name,
                                                  Type element) {
  if (auto existing = module.lookupSymbol<func::FuncOp>(name))
    return existing;
  auto type = MemRefType::get({ShapedType::kDynamic}, element);
  auto b = OpBuilder::atBlockEnd(module.getBody());
  auto declaration = func::FuncOp::create(b, module.getLoc(), name,
                                          b.getFunctionType(type, type));
  declaration.setPrivate();
  declaration->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                       b.getUnitAttr());
  return declaration;
}

/// Whether anything accesses `buffer`, or a view of it, with `Effect` (a
/// read or a write). After the loop lowering, accesses are loads and
/// stores, inside launches.
template <typename Effect> static bool isAccessed(Value buffer) {
  for (OpOperand &use : buffer.getUses()) {
    Operation *user = use.getOwner();
    if (auto view = dyn_cast<ViewLikeOpInterface>(user))
      if (view.getViewSource() == buffer &&
          llvm::any_of(user->getResults(), isAccessed<Effect>))
        return true;
    if (mightHaveEffect<Effect>(user, buffer))
      return true;
  }
  return false;
}

/// Gives every buffer the device uses a device copy: arguments are copied
/// in on entry, results copied back before returning, constants read
/// through the runtime's device copies (made on the first call), and host
/// allocations become device allocations freed on return.
static LogicalResult placeBuffers(func::FuncOp func, ModuleOp module) {
  Block &entry = func.getBody().front();
  auto returnOp = cast<func::ReturnOp>(entry.getTerminator());
  Location loc = func.getLoc();
  OpBuilder b(func.getContext());
  b.setInsertionPointToStart(&entry);
  SmallVector<Value> toFree;

  // A device buffer shaped like `host`, filled from it unless `copyIn` is
  // false. The ops that read `host` to make it are recorded in `staging`.
  SmallPtrSet<Operation *, 8> staging;
  auto makeDeviceCopy = [&](Value host, bool copyIn = true) -> Value {
    auto type = cast<MemRefType>(host.getType());
    SmallVector<Value> sizes;
    for (auto [i, size] : llvm::enumerate(type.getShape()))
      if (ShapedType::isDynamic(size))
        sizes.push_back(memref::DimOp::create(b, loc, host, i));
    for (Value size : sizes)
      staging.insert(size.getDefiningOp());
    Value device = gpu::AllocOp::create(b, loc, type, Type(), ValueRange{},
                                        sizes, ValueRange{})
                       .getMemref();
    if (copyIn)
      staging.insert(
          gpu::MemcpyOp::create(b, loc, Type(), ValueRange{}, device, host));
    toFree.push_back(device);
    return device;
  };

  // Arguments: a device copy each, copied in unless only written (the
  // results), copied back when written.
  SmallVector<std::pair<Value, Value>> copyBack;
  for (BlockArgument arg : func.getArguments()) {
    auto type = dyn_cast<MemRefType>(arg.getType());
    if (!type)
      continue;
    if (!type.getLayout().isIdentity())
      return func.emitOpError("argument #")
             << arg.getArgNumber()
             << " has a non-identity layout, which the GPU mapping cannot "
                "copy to the device";
    bool written = isAccessed<MemoryEffects::Write>(arg);
    bool read = isAccessed<MemoryEffects::Read>(arg);
    Value device = makeDeviceCopy(arg, /*copyIn=*/read || !written);
    arg.replaceUsesWithIf(device, [&](OpOperand &use) {
      return !staging.contains(use.getOwner());
    });
    if (written)
      copyBack.emplace_back(arg, device);
  }

  // The device copy of the constant `host` (a global), which the runtime
  // makes on the first call and keeps: the global seen as one dimension,
  // passed to the runtime, its answer seen in the global's shape. A
  // constant of a type the runtime has no function for is copied in at
  // every call.
  auto makeDeviceConstant = [&](Value host) -> Value {
    auto type = cast<MemRefType>(host.getType());
    Type element = type.getElementType();
    std::string name = tfm::getDeviceConstantFunction(element);
    if (name.empty() || !type.hasStaticShape() ||
        !type.getLayout().isIdentity() || type.getMemorySpace())
      return makeDeviceCopy(host);
    func::FuncOp function =
        declareDeviceConstantFunction(module, name, element);
    auto flatType = MemRefType::get({type.getNumElements()}, element);
    SmallVector<ReassociationIndices> allInOne;
    if (type.getRank() > 0)
      allInOne.push_back(
          llvm::to_vector(llvm::seq<int64_t>(0, type.getRank())));
    Value flat = host;
    if (type.getRank() == 0)
      flat = memref::ExpandShapeOp::create(b, loc, flatType, host, allInOne);
    else if (type.getRank() > 1)
      flat = memref::CollapseShapeOp::create(b, loc, host, allInOne);
    Value argument = memref::CastOp::create(
        b, loc, function.getFunctionType().getInput(0), flat);
    Value device =
        func::CallOp::create(b, loc, function, argument).getResult(0);
    device = memref::CastOp::create(b, loc, flatType, device);
    if (type.getRank() == 0)
      return memref::CollapseShapeOp::create(b, loc, type, device, allInOne);
    if (type.getRank() > 1)
      return memref::ExpandShapeOp::create(b, loc, type, device, allInOne);
    return device;
  };

  // Constants: one device copy per global, kept across calls.
  llvm::MapVector<StringAttr, Value> globals;
  SmallVector<memref::GetGlobalOp> getGlobals;
  func.walk([&](memref::GetGlobalOp op) { getGlobals.push_back(op); });
  for (memref::GetGlobalOp op : getGlobals) {
    StringAttr name = op.getNameAttr().getAttr();
    auto [it, inserted] = globals.try_emplace(name, Value());
    if (inserted) {
      Value host =
          memref::GetGlobalOp::create(b, loc, op.getType(), op.getNameAttr());
      it->second = makeDeviceConstant(host);
    }
    op.replaceAllUsesWith(it->second);
    op.erase();
  }

  // Allocations: on the device, freed on return.
  SmallVector<Operation *> allocs;
  for (Operation &op : entry)
    if (isa<memref::AllocOp, memref::AllocaOp>(op))
      allocs.push_back(&op);
  for (Operation *op : allocs) {
    b.setInsertionPoint(op);
    auto type = cast<MemRefType>(op->getResult(0).getType());
    Value device =
        gpu::AllocOp::create(b, op->getLoc(), type, Type(), ValueRange{},
                             op->getOperands(), ValueRange{})
            .getMemref();
    op->getResult(0).replaceAllUsesWith(device);
    op->erase();
    toFree.push_back(device);
  }
  // Device buffers are freed on return, shared memory with its block.
  func.walk([](memref::DeallocOp op) { op->erase(); });
  WalkResult nestedAlloc = func.walk<WalkOrder::PreOrder>([&](Operation *op) {
    // Buffers inside a launch are its threads' own.
    if (isa<gpu::LaunchOp>(op))
      return WalkResult::skip();
    if (isa<memref::AllocOp, memref::AllocaOp>(op)) {
      op->emitOpError("allocates a buffer inside control flow on the host, "
                      "which the GPU mapping does not support");
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (nestedAlloc.wasInterrupted())
    return failure();

  // The host's own reads (tfm-map-to-gpu leaves only 0-d ones, a run-time
  // check's flag) read a host copy of the device buffer.
  SmallVector<memref::LoadOp> hostLoads;
  for (Operation &op : entry)
    if (auto load = dyn_cast<memref::LoadOp>(op))
      hostLoads.push_back(load);
  for (memref::LoadOp load : hostLoads) {
    b.setInsertionPoint(load);
    Location at = load.getLoc();
    Value host = memref::AllocaOp::create(b, at, load.getMemRefType());
    gpu::MemcpyOp::create(b, at, Type(), ValueRange{}, host, load.getMemRef());
    load->setOperand(0, host);
  }

  b.setInsertionPoint(returnOp);
  for (auto [host, device] : copyBack)
    gpu::MemcpyOp::create(b, loc, Type(), ValueRange{}, host, device);
  for (Value device : toFree)
    gpu::DeallocOp::create(b, loc, Type(), ValueRange{}, device);
  return success();
}

namespace {
struct TfmGpuPlaceBuffersPass
    : tfm::impl::TfmGpuPlaceBuffersBase<TfmGpuPlaceBuffersPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // The functions first: the runtime's declarations join the module.
    auto functions = llvm::to_vector(module.getOps<func::FuncOp>());
    for (func::FuncOp func : functions) {
      if (func.isExternal())
        continue;
      if (!func.getBody().hasOneBlock()) {
        func.emitOpError("cannot place buffers on the GPU: its body has "
                         "more than one block");
        return signalPassFailure();
      }
      if (failed(placeBuffers(func, module)))
        return signalPassFailure();
    }
  }
};
} // namespace
