//===- EntryPoint.cpp - The interface of a compiled model -----------------===//

#include "tfm/Target/Native/EntryPoint.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;

namespace mlir {
namespace tfm {

func::FuncOp findEntry(ModuleOp module, StringRef entryName) {
  if (!entryName.empty()) {
    auto entry = module.lookupSymbol<func::FuncOp>(entryName);
    if (!entry || entry.isExternal()) {
      emitError(module.getLoc()) << "no function @" << entryName
                                 << " to compile (--entry)";
      return nullptr;
    }
    return entry;
  }
  SmallVector<func::FuncOp> candidates;
  for (auto func : module.getOps<func::FuncOp>())
    if (func.isPublic() && !func.isExternal())
      candidates.push_back(func);
  if (candidates.size() == 1)
    return candidates.front();
  if (auto main = module.lookupSymbol<func::FuncOp>("main"))
    if (!main.isExternal())
      return main;
  emitError(module.getLoc())
      << (candidates.empty() ? "no public function to compile"
                             : "several public functions and no @main")
      << "; name the entry with --entry";
  return nullptr;
}

/// The name of `type`'s elements in signatures, or "" if a binary's
/// interface cannot carry it.
static StringRef getDTypeName(Type type) {
  if (type.isF32())
    return "f32";
  if (type.isF16())
    return "f16";
  if (type.isSignlessInteger(32))
    return "i32";
  if (type.isSignlessInteger(64))
    return "i64";
  return "";
}

/// Turns `name` into a C identifier.
static std::string sanitize(StringRef name) {
  std::string result;
  for (char c : name)
    result += (llvm::isAlnum(c) || c == '_') ? c : '_';
  if (result.empty() || llvm::isDigit(result.front()))
    result = "_" + result;
  return result;
}

/// Checks one input or output and appends it to `specs`.
static LogicalResult addSpec(func::FuncOp entry, StringRef kind, unsigned index,
                             Type type, StringAttr name,
                             std::vector<TensorSpec> &specs) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return entry.emitError() << "entry @" << entry.getSymName() << ": " << kind
                             << " " << index << " has type " << type
                             << "; a compiled entry takes and returns "
                                "ranked tensors";
  if (!tensor.hasStaticShape())
    return entry.emitError()
           << "entry @" << entry.getSymName() << ": " << kind << " " << index
           << " has the dynamic shape " << tensor
           << "; tfm-compile needs static shapes at the entry";
  if (getDTypeName(tensor.getElementType()).empty())
    return entry.emitError()
           << "entry @" << entry.getSymName() << ": " << kind << " " << index
           << " has elements of type " << tensor.getElementType()
           << "; a compiled entry exchanges f32, f16, i32 or i64";
  std::string specName = name ? sanitize(name.getValue())
                              : (kind == "input" ? "arg" : "result") +
                                    std::to_string(index);
  specs.push_back({specName, tensor});
  return success();
}

FailureOr<EntrySignature> prepareEntry(func::FuncOp entry) {
  EntrySignature signature;
  signature.name = sanitize(entry.getSymName());
  FunctionType type = entry.getFunctionType();
  for (auto [i, input] : llvm::enumerate(type.getInputs()))
    if (failed(addSpec(entry, "input", i, input,
                       entry.getArgAttrOfType<StringAttr>(i, "tfm.name"),
                       signature.inputs)))
      return failure();
  for (auto [i, output] : llvm::enumerate(type.getResults()))
    if (failed(addSpec(entry, "result", i, output,
                       entry.getResultAttrOfType<StringAttr>(i, "tfm.name"),
                       signature.outputs)))
      return failure();
  if (signature.outputs.empty())
    return entry.emitError() << "entry @" << entry.getSymName()
                             << " returns nothing";
  // The names now live in the signature; LLVM has no use for them.
  for (unsigned i = 0, e = entry.getNumArguments(); i < e; ++i)
    entry.removeArgAttr(i, StringAttr::get(entry.getContext(), "tfm.name"));
  for (unsigned i = 0, e = entry.getNumResults(); i < e; ++i)
    entry.removeResultAttr(i, StringAttr::get(entry.getContext(), "tfm.name"));

  auto module = entry->getParentOfType<ModuleOp>();
  for (auto func : module.getOps<func::FuncOp>())
    if (func != entry && !func.isExternal())
      func.setPrivate();
  if (failed(SymbolTable::replaceAllSymbolUses(
          entry, StringAttr::get(entry.getContext(), kEntrySymbol), module)))
    return entry.emitError("cannot rename the entry function");
  entry.setSymName(kEntrySymbol);
  entry.setPublic();
  entry->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                 UnitAttr::get(entry.getContext()));
  return signature;
}

static ArrayAttr specsToAttr(MLIRContext *ctx,
                             const std::vector<TensorSpec> &specs) {
  SmallVector<Attribute> entries;
  for (const TensorSpec &spec : specs)
    entries.push_back(DictionaryAttr::get(
        ctx, {NamedAttribute(StringAttr::get(ctx, "name"),
                             StringAttr::get(ctx, spec.name)),
              NamedAttribute(StringAttr::get(ctx, "type"),
                             TypeAttr::get(spec.type))}));
  return ArrayAttr::get(ctx, entries);
}

void recordEntrySignature(ModuleOp module, const EntrySignature &signature) {
  MLIRContext *ctx = module.getContext();
  module->setAttr(
      kEntrySignatureAttr,
      DictionaryAttr::get(
          ctx, {NamedAttribute(StringAttr::get(ctx, "name"),
                               StringAttr::get(ctx, signature.name)),
                NamedAttribute(StringAttr::get(ctx, "inputs"),
                               specsToAttr(ctx, signature.inputs)),
                NamedAttribute(StringAttr::get(ctx, "outputs"),
                               specsToAttr(ctx, signature.outputs))}));
}

static bool attrToSpecs(Attribute attr, std::vector<TensorSpec> &specs) {
  auto array = dyn_cast_if_present<ArrayAttr>(attr);
  if (!array)
    return false;
  for (Attribute entry : array) {
    auto dict = dyn_cast<DictionaryAttr>(entry);
    auto name = dict ? dict.getAs<StringAttr>("name") : StringAttr();
    auto type = dict ? dict.getAs<TypeAttr>("type") : TypeAttr();
    auto tensor =
        type ? dyn_cast<RankedTensorType>(type.getValue()) : RankedTensorType();
    if (!name || !tensor)
      return false;
    specs.push_back({name.str(), tensor});
  }
  return true;
}

FailureOr<EntrySignature> takeEntrySignature(ModuleOp module) {
  auto dict = module->getAttrOfType<DictionaryAttr>(kEntrySignatureAttr);
  EntrySignature signature;
  auto name = dict ? dict.getAs<StringAttr>("name") : StringAttr();
  if (!name || !attrToSpecs(dict.get("inputs"), signature.inputs) ||
      !attrToSpecs(dict.get("outputs"), signature.outputs))
    return module.emitError() << "expected the entry signature that "
                                 "tfm-prepare-entry records as '"
                              << kEntrySignatureAttr << "'";
  signature.name = name.str();
  module->removeAttr(kEntrySignatureAttr);
  return signature;
}

/// Renders a shape as "2x10x32", or "scalar" for rank 0.
static std::string shapeText(RankedTensorType type) {
  if (type.getRank() == 0)
    return "scalar";
  std::string text;
  for (int64_t d : type.getShape())
    text += (text.empty() ? "" : "x") + std::to_string(d);
  return text;
}

static std::string signatureText(const EntrySignature &signature) {
  std::string text = "tfm-signature-v1\n";
  for (const TensorSpec &in : signature.inputs)
    text += llvm::formatv("in {0} {1} {2}\n", in.name,
                          getDTypeName(in.type.getElementType()),
                          shapeText(in.type));
  for (const TensorSpec &out : signature.outputs)
    text += llvm::formatv("out {0} {1} {2}\n", out.name,
                          getDTypeName(out.type.getElementType()),
                          shapeText(out.type));
  return text;
}

/// Stores a memref descriptor for the dense row-major buffer `data` of
/// `type` on the stack and returns a pointer to it.
static llvm::Value *buildDescriptor(llvm::IRBuilder<> &b, llvm::Value *data,
                                    RankedTensorType type) {
  llvm::LLVMContext &ctx = b.getContext();
  llvm::Type *ptr = b.getPtrTy(), *i64 = b.getInt64Ty();
  int64_t rank = type.getRank();
  SmallVector<llvm::Type *> fields{ptr, ptr, i64};
  if (rank > 0) {
    fields.push_back(llvm::ArrayType::get(i64, rank));
    fields.push_back(llvm::ArrayType::get(i64, rank));
  }
  auto *descType = llvm::StructType::get(ctx, fields);
  llvm::Value *desc = b.CreateAlloca(descType);
  b.CreateStore(data, b.CreateStructGEP(descType, desc, 0));
  b.CreateStore(data, b.CreateStructGEP(descType, desc, 1));
  b.CreateStore(b.getInt64(0), b.CreateStructGEP(descType, desc, 2));
  int64_t stride = 1;
  for (int64_t d = rank - 1; d >= 0; --d) {
    llvm::Value *sizes = b.CreateStructGEP(descType, desc, 3);
    llvm::Value *strides = b.CreateStructGEP(descType, desc, 4);
    auto *arrayType = llvm::ArrayType::get(i64, rank);
    b.CreateStore(b.getInt64(type.getDimSize(d)),
                  b.CreateConstGEP2_32(arrayType, sizes, 0, d));
    b.CreateStore(b.getInt64(stride),
                  b.CreateConstGEP2_32(arrayType, strides, 0, d));
    stride *= type.getDimSize(d);
  }
  return desc;
}

void emitEntryPoints(llvm::Module &module, const EntrySignature &signature) {
  llvm::LLVMContext &ctx = module.getContext();
  llvm::Type *ptr = llvm::PointerType::getUnqual(ctx);
  llvm::Type *i32 = llvm::Type::getInt32Ty(ctx);
  std::vector<TensorSpec> all = signature.inputs;
  all.insert(all.end(), signature.outputs.begin(), signature.outputs.end());

  // int tfm_<entry>(T *in0, ..., T *out0, ...)
  SmallVector<llvm::Type *> params(all.size(), ptr);
  auto *typedType = llvm::FunctionType::get(i32, params, false);
  auto *typed = llvm::Function::Create(typedType, llvm::Function::ExternalLinkage,
                                       "tfm_" + signature.name, module);
  llvm::FunctionCallee impl = module.getOrInsertFunction(
      std::string("_mlir_ciface_") + kEntrySymbol,
      llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), params, false));
  {
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", typed));
    SmallVector<llvm::Value *> descriptors;
    for (auto [arg, spec] : llvm::zip_equal(typed->args(), all))
      descriptors.push_back(buildDescriptor(b, &arg, spec.type));
    b.CreateCall(impl, descriptors);
    b.CreateRet(b.getInt32(0));
  }

  // int tfm_run(void **buffers)
  auto *run = llvm::Function::Create(llvm::FunctionType::get(i32, {ptr}, false),
                                     llvm::Function::ExternalLinkage,
                                     "tfm_run", module);
  {
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", run));
    SmallVector<llvm::Value *> buffers;
    for (unsigned i = 0; i < all.size(); ++i)
      buffers.push_back(b.CreateLoad(
          ptr, b.CreateConstGEP1_32(ptr, run->getArg(0), i)));
    b.CreateRet(b.CreateCall(typed, buffers));
  }

  // const char tfm_signature[]
  llvm::Constant *text =
      llvm::ConstantDataArray::getString(ctx, signatureText(signature));
  new llvm::GlobalVariable(module, text->getType(), /*isConstant=*/true,
                           llvm::GlobalValue::ExternalLinkage, text,
                           "tfm_signature");
}

/// The C type of `type`'s elements.
static StringRef getCType(Type type) {
  if (type.isF32())
    return "float";
  if (type.isF16())
    return "uint16_t"; /* IEEE half, raw bits */
  if (type.isSignlessInteger(32))
    return "int32_t";
  return "int64_t";
}

std::string renderHeader(const EntrySignature &signature, StringRef source) {
  std::string guard = "TFM_" + llvm::StringRef(signature.name).upper() + "_H";
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "/* Generated by tfm-compile from " << source
     << ". Do not edit. */\n"
     << "#ifndef " << guard << "\n#define " << guard << "\n\n"
     << "#include <stdint.h>\n\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n"
     << "/* Runs @" << signature.name << ".\n *\n";
  auto describe = [&](const TensorSpec &spec, StringRef role) {
    os << " *   " << spec.name << ": " << getCType(spec.type.getElementType())
       << " [";
    llvm::interleaveComma(spec.type.getShape(), os);
    os << "] (" << role << ")\n";
  };
  for (const TensorSpec &in : signature.inputs)
    describe(in, "input");
  for (const TensorSpec &out : signature.outputs)
    describe(out, "output, written by the call");
  os << " *\n * Arrays are dense, in C (row-major) order. Returns 0 on "
        "success. */\n"
     << "int tfm_" << signature.name << "(";
  bool first = true;
  for (const TensorSpec &in : signature.inputs) {
    os << (first ? "" : ", ") << "const " << getCType(in.type.getElementType())
       << " *" << in.name;
    first = false;
  }
  for (const TensorSpec &out : signature.outputs) {
    os << (first ? "" : ", ") << getCType(out.type.getElementType()) << " *"
       << out.name;
    first = false;
  }
  os << ");\n\n"
     << "/* The same, with buffers[] holding the inputs, then the outputs. */\n"
     << "int tfm_run(void **buffers);\n\n"
     << "/* The inputs and outputs, as text (see runtime/Signature.h). */\n"
     << "extern const char tfm_signature[];\n\n"
     << "#ifdef __cplusplus\n}\n#endif\n\n#endif /* " << guard << " */\n";
  return text;
}

} // namespace tfm
} // namespace mlir
