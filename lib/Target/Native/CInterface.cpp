//===- CInterface.cpp - The C entry points of a compiled model ------------===//
//
// tfm-emit-c-interface's work: the typed entry `<prefix>_<entry>(sizes...,
// buffers...)`, the packed `<prefix>_run_dims` (and `<prefix>_run` for
// static shapes) and the signature text, around the entry's
// `_mlir_ciface_` function.
//
//===----------------------------------------------------------------------===//

#include "tfm/Dialect/Tfm/Transforms/Passes.h"
#include "tfm/Target/Native/EntryPoint.h"

#include "mlir/Conversion/LLVMCommon/MemRefBuilder.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"

using namespace mlir;

namespace mlir {
namespace tfm {

/// Builds, on the stack, the memref descriptor of the dense row-major buffer
/// `data` of `spec` (the layout is the one func-to-llvm gives a memref of
/// that rank, since `_mlir_ciface_` functions take pointers to it), with the
/// dynamic sizes `symbols`, and returns a pointer to it.
static Value buildDescriptor(OpBuilder &b, Location loc,
                             const LLVMTypeConverter &converter, Value data,
                             const TensorSpec &spec, ValueRange symbols) {
  auto memref = MemRefType::get(spec.type.getShape(),
                                spec.type.getElementType());
  Value descriptor;
  if (memref.hasStaticShape()) {
    descriptor =
        MemRefDescriptor::fromStaticShape(b, loc, converter, memref, data);
  } else {
    Type i64 = b.getI64Type();
    auto desc = MemRefDescriptor::poison(b, loc,
                                         converter.convertType(memref));
    desc.setAllocatedPtr(b, loc, data);
    desc.setAlignedPtr(b, loc, data);
    desc.setConstantOffset(b, loc, 0);
    Value stride = LLVM::ConstantOp::create(b, loc, i64, 1);
    for (int64_t d = memref.getRank() - 1; d >= 0; --d) {
      int64_t dim = spec.dims[d];
      std::optional<int64_t> symbol = TensorSpec::getSymbol(dim);
      Value size = symbol ? symbols[*symbol]
                          : LLVM::ConstantOp::create(b, loc, i64, dim);
      desc.setSize(b, loc, d, size);
      desc.setStride(b, loc, d, stride);
      stride = LLVM::MulOp::create(b, loc, stride, size);
    }
    descriptor = desc;
  }
  Value one = LLVM::ConstantOp::create(b, loc, b.getI64Type(), 1);
  auto ptr = LLVM::LLVMPointerType::get(b.getContext());
  Value slot = LLVM::AllocaOp::create(b, loc, ptr, descriptor.getType(), one);
  LLVM::StoreOp::create(b, loc, descriptor, slot);
  return slot;
}

/// Builds `int32_t <name>(i64 dim0, ..., ptr in0, ..., ptr out0, ...)`,
/// which calls `ciface` with a descriptor of each buffer and returns 0.
static LLVM::LLVMFuncOp buildTypedEntry(OpBuilder &b, StringRef name,
                                        LLVM::LLVMFuncOp ciface,
                                        const EntrySignature &signature,
                                        const DataLayout &layout) {
  MLIRContext *ctx = b.getContext();
  LLVMTypeConverter converter(ctx, LowerToLLVMOptions(ctx, layout));
  Location loc = ciface.getLoc();
  std::vector<TensorSpec> all = signature.inputs;
  all.insert(all.end(), signature.outputs.begin(), signature.outputs.end());
  size_t numSymbols = signature.dimNames.size();
  SmallVector<Type> params(numSymbols, b.getI64Type());
  params.append(all.size(), LLVM::LLVMPointerType::get(ctx));
  auto type = LLVM::LLVMFunctionType::get(b.getI32Type(), params);
  auto typed = LLVM::LLVMFuncOp::create(b, loc, name, type);

  OpBuilder body = OpBuilder::atBlockBegin(typed.addEntryBlock(b));
  ValueRange symbols = typed.getArguments().take_front(numSymbols);
  SmallVector<Value> descriptors;
  for (auto [arg, spec] :
       llvm::zip_equal(typed.getArguments().drop_front(numSymbols), all))
    descriptors.push_back(
        buildDescriptor(body, loc, converter, arg, spec, symbols));
  LLVM::CallOp::create(body, loc, ciface, descriptors);
  Value ok = LLVM::ConstantOp::create(body, loc, body.getI32Type(), 0);
  LLVM::ReturnOp::create(body, loc, ValueRange{ok});
  return typed;
}

/// Builds `int32_t tfm_run_dims(ptr dims, ptr buffers)`, which calls
/// `typed` with dims[0], ..., dims[numSymbols), then buffers[0], ...; and,
/// for an entry of static shape, `int32_t tfm_run(ptr buffers)`, the same
/// without sizes.
static void buildRun(OpBuilder &b, LLVM::LLVMFuncOp typed,
                     size_t numSymbols, StringRef prefix) {
  Location loc = typed.getLoc();
  auto ptr = LLVM::LLVMPointerType::get(b.getContext());
  Type i64 = b.getI64Type();
  auto build = [&](StringRef name, bool withDims) {
    SmallVector<Type> params;
    if (withDims)
      params.push_back(ptr);
    params.push_back(ptr);
    auto run = LLVM::LLVMFuncOp::create(
        b, loc, name, LLVM::LLVMFunctionType::get(b.getI32Type(), params));
    OpBuilder body = OpBuilder::atBlockBegin(run.addEntryBlock(b));
    Value buffers = run.getArguments().back();
    SmallVector<Value> args;
    for (int32_t i = 0, e = numSymbols; i < e; ++i) {
      Value slot = LLVM::GEPOp::create(body, loc, ptr, i64,
                                       run.getArgument(0),
                                       ArrayRef<LLVM::GEPArg>{i});
      args.push_back(LLVM::LoadOp::create(body, loc, i64, slot));
    }
    for (int32_t i = 0, e = typed.getNumArguments() - numSymbols; i < e;
         ++i) {
      Value slot = LLVM::GEPOp::create(body, loc, ptr, ptr, buffers,
                                       ArrayRef<LLVM::GEPArg>{i});
      args.push_back(LLVM::LoadOp::create(body, loc, ptr, slot));
    }
    auto call = LLVM::CallOp::create(body, loc, typed, args);
    LLVM::ReturnOp::create(body, loc, call.getResults());
  };
  build((prefix + "_run_dims").str(), /*withDims=*/true);
  if (numSymbols == 0)
    build((prefix + "_run").str(), /*withDims=*/false);
}

/// Builds `const char tfm_signature[]`, the NUL-terminated signatureText.
static void buildSignatureGlobal(OpBuilder &b, Location loc,
                                 const EntrySignature &signature,
                                 StringRef prefix) {
  std::string text = renderSignatureText(signature);
  text.push_back('\0');
  auto type = LLVM::LLVMArrayType::get(b.getI8Type(), text.size());
  LLVM::GlobalOp::create(b, loc, type, /*isConstant=*/true,
                         LLVM::Linkage::External, (prefix + "_signature").str(),
                         b.getStringAttr(text));
}

/// Checks that `ciface`, the C interface of the entry, takes one descriptor
/// pointer per tensor of `signature` and returns nothing.
static LogicalResult checkCInterface(LLVM::LLVMFuncOp ciface,
                                     const EntrySignature &signature) {
  LLVM::LLVMFunctionType type = ciface.getFunctionType();
  size_t tensors = signature.inputs.size() + signature.outputs.size();
  bool pointers = llvm::all_of(type.getParams(), [](Type param) {
    return isa<LLVM::LLVMPointerType>(param);
  });
  if (type.getNumParams() == tensors && pointers &&
      isa<LLVM::LLVMVoidType>(type.getReturnType()))
    return success();
  return ciface.emitError()
         << "expected @" << ciface.getSymName() << " to take " << tensors
         << " descriptor pointers (one per input and output of the entry "
            "signature) and return nothing, found "
         << type;
}

LogicalResult emitCInterface(ModuleOp module, const EntrySignature &signature,
                             StringRef prefix) {
  std::string cifaceName = std::string("_mlir_ciface_") + kEntrySymbol;
  auto ciface = module.lookupSymbol<LLVM::LLVMFuncOp>(cifaceName);
  if (!ciface)
    return module.emitError()
           << "expected @" << cifaceName
           << ", the C interface that func-to-llvm generates for the entry "
              "that tfm-prepare-entry marks; run this pass on the module "
              "lowered to the LLVM dialect";
  if (failed(checkCInterface(ciface, signature)))
    return failure();
  if (prefix.empty() || prefix != sanitizeName(prefix))
    return module.emitError() << "the symbol prefix '" << prefix
                              << "' is not a C identifier";
  std::string typedName = (prefix + "_" + signature.name).str();
  std::string runName = (prefix + "_run").str();
  std::string runDimsName = (prefix + "_run_dims").str();
  std::string signatureName = (prefix + "_signature").str();
  for (StringRef name : {StringRef(typedName), StringRef(runName),
                         StringRef(runDimsName), StringRef(signatureName)})
    if (Operation *clash = module.lookupSymbol(name))
      return clash->emitError()
             << "@" << name
             << " is a name of the C interface that tfm-emit-c-interface "
                "adds; the module must not define it";

  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  LLVM::LLVMFuncOp typed =
      buildTypedEntry(b, typedName, ciface, signature, DataLayout(module));
  buildRun(b, typed, signature.dimNames.size(), prefix);
  buildSignatureGlobal(b, ciface.getLoc(), signature, prefix);
  // A tensor-parallel model's number of ranks, which its executable checks
  // against mpirun's (runtime/Distributed.cpp).
  if (auto ranks = module->getAttrOfType<IntegerAttr>(kTensorParallelAttr))
    LLVM::GlobalOp::create(b, ciface.getLoc(), b.getI32Type(),
                           /*isConstant=*/true, LLVM::Linkage::External,
                           (prefix + "_tensor_parallel_ranks").str(),
                           b.getI32IntegerAttr(ranks.getInt()));
  // The entry and its C interface are the typed function's to call: kept
  // out of the binary's exports, two libraries of different prefixes link
  // into one program.
  for (StringRef name : {StringRef(cifaceName), StringRef(kEntrySymbol)})
    if (auto func = module.lookupSymbol<LLVM::LLVMFuncOp>(name);
        func && !func.isExternal())
      func.setLinkage(LLVM::Linkage::Internal);
  return success();
}

} // namespace tfm
} // namespace mlir
