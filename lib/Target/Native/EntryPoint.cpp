//===- EntryPoint.cpp - The interface of a compiled model -----------------===//

#include "tfm/Target/Native/EntryPoint.h"

#include "mlir/Conversion/LLVMCommon/MemRefBuilder.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
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
  // Bools cross as one byte each (NumPy's `|b1`), which is how the lowered
  // code stores i1 elements in memory.
  if (type.isSignlessInteger(1))
    return "b1";
  return "";
}

std::string sanitizeName(StringRef name) {
  std::string result;
  for (char c : name)
    result += (llvm::isAlnum(c) || c == '_') ? c : '_';
  if (result.empty() || llvm::isDigit(result.front()))
    result = "_" + result;
  return result;
}

/// Whether `name` is a keyword of C or C++, or a type the header uses: it
/// cannot name a parameter of the typed entry.
static bool isReservedInC(StringRef name) {
  static const llvm::StringSet<> reserved = {
      "auto", "bool", "break", "case", "catch", "char", "class", "const",
      "constexpr", "continue", "default", "delete", "do", "double", "else",
      "enum", "explicit", "export", "extern", "false", "float", "for",
      "friend", "goto", "if", "inline", "int", "long", "mutable",
      "namespace", "new", "noexcept", "nullptr", "operator", "private",
      "protected", "public", "register", "restrict", "return", "short",
      "signed", "sizeof", "static", "struct", "switch", "template", "this",
      "throw", "true", "try", "typedef", "typename", "union", "unsigned",
      "using", "virtual", "void", "volatile", "while", "int8_t", "int16_t",
      "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t"};
  return reserved.contains(name);
}

/// Makes the parameter names of the typed entry distinct C identifiers: a
/// keyword gets a `_`, a name seen before a `_1`, `_2`, ... (two inputs
/// named "x.1" and "x:1" sanitize alike). The inputs' and outputs' names
/// come first, so that a dynamic size named like a tensor is renamed; a
/// dynamic size named `scalar` is renamed too (the signature's rank 0).
static void uniqueParameterNames(EntrySignature &signature) {
  llvm::StringSet<> used;
  auto unique = [&](std::string &name) {
    if (isReservedInC(name))
      name += "_";
    std::string candidate = name;
    for (unsigned i = 1; !used.insert(candidate).second; ++i)
      candidate = name + "_" + std::to_string(i);
    name = candidate;
  };
  for (TensorSpec &spec : signature.inputs)
    unique(spec.name);
  for (TensorSpec &spec : signature.outputs)
    unique(spec.name);
  for (std::string &name : signature.dimNames) {
    // In the signature text, `scalar` is the shape of rank 0: a size of
    // that name would turn a [scalar] input into a rank-0 one.
    if (name == "scalar")
      name += "_";
    unique(name);
  }
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
  if (getDTypeName(tensor.getElementType()).empty())
    return entry.emitError()
           << "entry @" << entry.getSymName() << ": " << kind << " " << index
           << " has elements of type " << tensor.getElementType()
           << "; a compiled entry exchanges f32, f16, i32, i64 or i1 (bool)";
  std::string specName = name ? sanitizeName(name.getValue())
                              : (kind == "input" ? "arg" : "result") +
                                    std::to_string(index);
  specs.push_back({specName, tensor,
                   std::vector<int64_t>(tensor.getShape().begin(),
                                        tensor.getShape().end())});
  return success();
}

/// The size in bytes of a shaped type's static dimensions, or nothing when
/// it does not fit in 63 bits (and so in no address space). Dynamic
/// dimensions count as 1: their sizes are checked where they become known,
/// when a binary reads its inputs.
static std::optional<int64_t> getStaticByteSize(ShapedType type) {
  Type element = type.getElementType();
  if (!element.isIntOrIndexOrFloat())
    return 0; // vectors of vectors and the like have no tensor bytes
  uint64_t bits =
      element.isIndex() ? 64 : std::max(8u, element.getIntOrFloatBitWidth());
  llvm::APInt bytes(128, (bits + 7) / 8);
  for (int64_t dim : type.getShape()) {
    if (ShapedType::isDynamic(dim))
      continue;
    bool overflow = false;
    bytes = bytes.umul_ov(llvm::APInt(128, dim), overflow);
    if (overflow || bytes.getActiveBits() > 63)
      return std::nullopt;
  }
  return bytes.getZExtValue();
}

/// Checks that every tensor and buffer in `module` has a size in bytes that
/// 64-bit size arithmetic can hold: the lowering multiplies shapes into
/// byte counts with no checks of its own.
static LogicalResult checkTensorSizes(ModuleOp module) {
  auto check = [](Type type, Location loc, auto describe) -> LogicalResult {
    auto shaped = dyn_cast<ShapedType>(type);
    if (!shaped || !shaped.hasRank() ||
        !isa<TensorType, BaseMemRefType>(shaped) ||
        getStaticByteSize(shaped))
      return success();
    InFlightDiagnostic diag = emitError(loc);
    describe(diag);
    return diag << " has type " << type
                << ", whose size in bytes does not fit in 64 bits";
  };
  WalkResult result = module->walk<WalkOrder::PreOrder>([&](Operation *op) {
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          if (failed(check(arg.getType(), arg.getLoc(),
                           [&](InFlightDiagnostic &d) {
                             d << "argument " << arg.getArgNumber()
                               << " of ";
                             if (auto symbol = dyn_cast<SymbolOpInterface>(op))
                               d << "@" << symbol.getName();
                             else
                               d << "'" << op->getName() << "'";
                           })))
            return WalkResult::interrupt();
    for (OpResult value : op->getResults())
      if (failed(check(value.getType(), op->getLoc(),
                       [&](InFlightDiagnostic &d) {
                         d << "result " << value.getResultNumber() << " of '"
                           << op->getName() << "'";
                       })))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

/// Applies `maxSizes` (each "NAME=N") to the dynamic sizes of `signature`,
/// and checks each bounded size at the start of `entry`: a caller of the
/// library past the bound gets the runtime's message and exit code 1, as
/// the executable does before it runs the model.
static LogicalResult applyMaxSizes(func::FuncOp entry,
                                   ArrayRef<std::string> maxSizes,
                                   EntrySignature &signature) {
  signature.dimBounds.assign(signature.dimNames.size(), 0);
  for (const std::string &text : maxSizes) {
    auto [name, value] = StringRef(text).split('=');
    int64_t bound;
    if (value.getAsInteger(10, bound) || bound < 1)
      return mlir::emitError(entry.getLoc())
             << "max size '" << text << "': expected NAME=N with N >= 1";
    auto it = llvm::find(signature.dimNames, name);
    if (it == signature.dimNames.end()) {
      InFlightDiagnostic diag = mlir::emitError(entry.getLoc())
                                << "max size '" << text << "': entry @"
                                << entry.getSymName()
                                << " has no dynamic size named '" << name
                                << "'";
      if (signature.dimNames.empty())
        diag << " (its shapes are static)";
      else
        diag << " (its sizes: " << llvm::join(signature.dimNames, ", ")
             << ")";
      return diag;
    }
    if (!signature.getSum(it - signature.dimNames.begin()).empty())
      return mlir::emitError(entry.getLoc())
             << "max size '" << text << "': " << name
             << " is a sum of other sizes; bound those";
    signature.dimBounds[it - signature.dimNames.begin()] = bound;
  }
  OpBuilder b = OpBuilder::atBlockBegin(&entry.getBody().front());
  Location loc = entry.getLoc();
  for (auto [symbol, bound] : llvm::enumerate(signature.dimBounds)) {
    if (!bound)
      continue;
    // The first input that has the size.
    for (auto [i, spec] : llvm::enumerate(signature.inputs)) {
      auto dim = llvm::find(spec.dims, TensorSpec::symbolDim(symbol));
      if (dim == spec.dims.end())
        continue;
      Value size = tensor::DimOp::create(b, loc, entry.getArgument(i),
                                         dim - spec.dims.begin());
      Value within = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::ule, size,
          arith::ConstantIndexOp::create(b, loc, bound));
      cf::AssertOp::create(b, loc, within,
                           signature.dimNames[symbol] +
                               " is above the bound of " +
                               std::to_string(bound) +
                               " the model was compiled with");
      break;
    }
  }
  return success();
}

FailureOr<EntrySignature> prepareEntry(func::FuncOp entry,
                                       ArrayRef<std::string> maxSizes) {
  EntrySignature signature;
  signature.name = sanitizeName(entry.getSymName());
  // The typed C function is tfm_<entry>, next to tfm_run and tfm_signature.
  if (signature.name == "run" || signature.name == "run_dims" ||
      signature.name == "signature")
    return entry.emitError()
           << "entry @" << entry.getSymName() << ": its C function would be "
           << "tfm_" << signature.name << ", which is the name of the "
           << (signature.name == "signature" ? "signature text"
                                             : "packed entry point")
           << " of every tfm binary; rename the entry";
  if (failed(checkTensorSizes(entry->getParentOfType<ModuleOp>())))
    return failure();
  FunctionType type = entry.getFunctionType();
  for (auto [i, input] : llvm::enumerate(type.getInputs())) {
    if (failed(addSpec(entry, "input", i, input,
                       entry.getArgAttrOfType<StringAttr>(i, "tfm.name"),
                       signature.inputs)))
      return failure();
    if (entry.getArgAttr(i, kKvCacheAttr))
      signature.inputs.back().role = TensorSpec::Role::KvCache;
    else if (entry.getArgAttr(i, kKvPositionAttr))
      signature.inputs.back().role = TensorSpec::Role::KvPosition;
  }
  for (auto [i, output] : llvm::enumerate(type.getResults())) {
    if (failed(addSpec(entry, "result", i, output,
                       entry.getResultAttrOfType<StringAttr>(i, "tfm.name"),
                       signature.outputs)))
      return failure();
    if (auto where = entry.getResultAttrOfType<StringAttr>(i, "tfm.attention"))
      signature.outputs.back().attention = where.str();
  }
  if (signature.outputs.empty())
    return entry.emitError() << "entry @" << entry.getSymName()
                             << " returns nothing";
  if (failed(bindEntryDims(entry, signature)))
    return failure();
  // The updated caches are their inputs' buffers, written in place
  // (tfm-drop-kv-cache-results): no output of the binary.
  for (int64_t i = entry.getNumResults() - 1; i >= 0; --i)
    if (entry.getResultAttr(i, kKvCacheAttr))
      signature.outputs.erase(signature.outputs.begin() + i);
  if (signature.outputs.empty())
    return entry.emitError() << "entry @" << entry.getSymName()
                             << " returns nothing but its key/value caches";
  uniqueParameterNames(signature);
  if (failed(applyMaxSizes(entry, maxSizes, signature)))
    return failure();
  // The names now live in the signature; LLVM has no use for them.
  for (unsigned i = 0, e = entry.getNumArguments(); i < e; ++i) {
    entry.removeArgAttr(i, StringAttr::get(entry.getContext(), "tfm.name"));
    entry.removeArgAttr(i, StringAttr::get(entry.getContext(), kEntryDimsAttr));
    entry.removeArgAttr(i, StringAttr::get(entry.getContext(), kKvCacheAttr));
    entry.removeArgAttr(i,
                        StringAttr::get(entry.getContext(), kKvPositionAttr));
  }
  for (unsigned i = 0, e = entry.getNumResults(); i < e; ++i) {
    entry.removeResultAttr(i, StringAttr::get(entry.getContext(), "tfm.name"));
    entry.removeResultAttr(i,
                           StringAttr::get(entry.getContext(), "tfm.attention"));
  }

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
  for (const TensorSpec &spec : specs) {
    SmallVector<NamedAttribute> fields{
        NamedAttribute(StringAttr::get(ctx, "name"),
                       StringAttr::get(ctx, spec.name)),
        NamedAttribute(StringAttr::get(ctx, "type"), TypeAttr::get(spec.type))};
    // The sizes, where the type does not say them all.
    if (!spec.type.hasStaticShape())
      fields.push_back(NamedAttribute(StringAttr::get(ctx, "dims"),
                                      DenseI64ArrayAttr::get(ctx, spec.dims)));
    if (!spec.attention.empty())
      fields.push_back(NamedAttribute(StringAttr::get(ctx, "attention"),
                                      StringAttr::get(ctx, spec.attention)));
    if (spec.role != TensorSpec::Role::Data)
      fields.push_back(NamedAttribute(
          StringAttr::get(ctx, "role"),
          StringAttr::get(ctx, spec.role == TensorSpec::Role::KvCache
                                   ? "kv_cache"
                                   : "kv_position")));
    entries.push_back(DictionaryAttr::get(ctx, fields));
  }
  return ArrayAttr::get(ctx, entries);
}

void recordEntrySignature(ModuleOp module, const EntrySignature &signature) {
  MLIRContext *ctx = module.getContext();
  Builder b(ctx);
  SmallVector<NamedAttribute> fields{
      NamedAttribute(StringAttr::get(ctx, "name"),
                     StringAttr::get(ctx, signature.name)),
      NamedAttribute(StringAttr::get(ctx, "inputs"),
                     specsToAttr(ctx, signature.inputs)),
      NamedAttribute(StringAttr::get(ctx, "outputs"),
                     specsToAttr(ctx, signature.outputs))};
  if (!signature.dimNames.empty()) {
    SmallVector<StringRef> dimNames(signature.dimNames.begin(),
                                    signature.dimNames.end());
    fields.push_back(NamedAttribute(StringAttr::get(ctx, "dim_names"),
                                    b.getStrArrayAttr(dimNames)));
    if (llvm::any_of(signature.dimBounds, [](int64_t n) { return n != 0; }))
      fields.push_back(
          NamedAttribute(StringAttr::get(ctx, "dim_bounds"),
                         DenseI64ArrayAttr::get(ctx, signature.dimBounds)));
    // The sizes that are sums of others (EntrySignature::dimSums).
    if (llvm::any_of(signature.dimSums, [](auto &s) { return !s.empty(); })) {
      SmallVector<Attribute> sums;
      for (size_t i = 0; i < signature.dimNames.size(); ++i)
        sums.push_back(DenseI64ArrayAttr::get(ctx, signature.getSum(i)));
      fields.push_back(NamedAttribute(StringAttr::get(ctx, "dim_sums"),
                                      ArrayAttr::get(ctx, sums)));
    }
  }
  module->setAttr(kEntrySignatureAttr, DictionaryAttr::get(ctx, fields));
}

/// Whether `dims` describes `type` with `numSymbols` dynamic sizes.
static bool areValidDims(ArrayRef<int64_t> dims, RankedTensorType type,
                         size_t numSymbols) {
  if (static_cast<int64_t>(dims.size()) != type.getRank())
    return false;
  for (auto [dim, size] : llvm::zip_equal(dims, type.getShape())) {
    if (std::optional<int64_t> symbol = TensorSpec::getSymbol(dim)) {
      if (*symbol >= static_cast<int64_t>(numSymbols))
        return false;
    } else if (dim < 0 || (!ShapedType::isDynamic(size) && dim != size)) {
      return false;
    }
  }
  return true;
}

/// Reads back the list that specsToAttr wrote; false if `attr` is not one,
/// or holds a type that prepareEntry would have rejected.
static bool attrToSpecs(Attribute attr, size_t numSymbols,
                        std::vector<TensorSpec> &specs) {
  auto array = dyn_cast_if_present<ArrayAttr>(attr);
  if (!array)
    return false;
  for (Attribute entry : array) {
    auto dict = dyn_cast<DictionaryAttr>(entry);
    auto name = dict ? dict.getAs<StringAttr>("name") : StringAttr();
    auto type = dict ? dict.getAs<TypeAttr>("type") : TypeAttr();
    auto tensor =
        type ? dyn_cast<RankedTensorType>(type.getValue()) : RankedTensorType();
    if (!name || !tensor || getDTypeName(tensor.getElementType()).empty())
      return false;
    auto dimsAttr = dict.getAs<DenseI64ArrayAttr>("dims");
    ArrayRef<int64_t> dims =
        dimsAttr ? dimsAttr.asArrayRef() : tensor.getShape();
    if (!areValidDims(dims, tensor, numSymbols))
      return false;
    specs.push_back(
        {name.str(), tensor, std::vector<int64_t>(dims.begin(), dims.end())});
    if (auto where = dict.getAs<StringAttr>("attention"))
      specs.back().attention = where.str();
    if (auto role = dict.getAs<StringAttr>("role")) {
      if (role.getValue() == "kv_cache")
        specs.back().role = TensorSpec::Role::KvCache;
      else if (role.getValue() == "kv_position")
        specs.back().role = TensorSpec::Role::KvPosition;
      else
        return false;
    }
  }
  return true;
}

FailureOr<EntrySignature> readEntrySignature(ModuleOp module) {
  auto dict = module->getAttrOfType<DictionaryAttr>(kEntrySignatureAttr);
  EntrySignature signature;
  auto name = dict ? dict.getAs<StringAttr>("name") : StringAttr();
  Attribute dimNamesAttr = dict ? dict.get("dim_names") : Attribute();
  auto dimNames = dyn_cast_if_present<ArrayAttr>(dimNamesAttr);
  bool validNames = !dimNamesAttr || dimNames;
  if (dimNames)
    for (Attribute dimName : dimNames) {
      auto text = dyn_cast<StringAttr>(dimName);
      if (!text || text.getValue() != sanitizeName(text.getValue())) {
        validNames = false;
        break;
      }
      signature.dimNames.push_back(text.str());
    }
  size_t numSymbols = signature.dimNames.size();
  signature.dimBounds.assign(numSymbols, 0);
  if (auto bounds = dict ? dict.getAs<DenseI64ArrayAttr>("dim_bounds")
                         : DenseI64ArrayAttr()) {
    if (bounds.size() != static_cast<int64_t>(numSymbols) ||
        llvm::any_of(bounds.asArrayRef(), [](int64_t n) { return n < 0; }))
      validNames = false;
    else
      signature.dimBounds.assign(bounds.asArrayRef().begin(),
                                 bounds.asArrayRef().end());
  }
  if (auto sums = dict ? dict.getAs<ArrayAttr>("dim_sums") : ArrayAttr()) {
    validNames &= sums.size() == numSymbols;
    for (Attribute sum : sums) {
      auto terms = dyn_cast<DenseI64ArrayAttr>(sum);
      validNames &=
          terms && llvm::all_of(terms.asArrayRef(), [&](int64_t t) {
            std::optional<int64_t> symbol = TensorSpec::getSymbol(t);
            return symbol ? *symbol < static_cast<int64_t>(numSymbols) : t >= 0;
          });
      if (!validNames)
        break;
      signature.dimSums.emplace_back(terms.asArrayRef().begin(),
                                     terms.asArrayRef().end());
    }
  }
  if (!name || !validNames ||
      !attrToSpecs(dict.get("inputs"), numSymbols, signature.inputs) ||
      !attrToSpecs(dict.get("outputs"), numSymbols, signature.outputs))
    return module.emitError() << "expected the entry signature that "
                                 "tfm-prepare-entry records as '"
                              << kEntrySignatureAttr << "'";
  signature.name = name.str();
  return signature;
}

/// Renders the shape of `spec` as "2x10x32" (or, with dynamic sizes, as
/// "batch,seq,32", whose names may hold an x), or "scalar" for rank 0.
static std::string shapeText(const TensorSpec &spec,
                             const EntrySignature &signature) {
  if (spec.dims.empty())
    return "scalar";
  StringRef separator = signature.dimNames.empty() ? "x" : ",";
  std::string text;
  for (int64_t dim : spec.dims) {
    if (!text.empty())
      text += separator;
    std::optional<int64_t> symbol = TensorSpec::getSymbol(dim);
    text += symbol ? signature.dimNames[*symbol] : std::to_string(dim);
  }
  return text;
}

/// Version 1 for entries of static shape; version 2 lists the dynamic
/// sizes first (`dim batch`, or `dim seq 4096` with its bound) and names
/// them in the shapes.
static std::string signatureText(const EntrySignature &signature) {
  bool dynamic = !signature.dimNames.empty();
  std::string text = dynamic ? "tfm-signature-v2\n" : "tfm-signature-v1\n";
  for (auto [symbol, dim] : llvm::enumerate(signature.dimNames)) {
    // A sum of sizes: `sum past_plus_seq past seq`.
    if (ArrayRef<int64_t> terms = signature.getSum(symbol); !terms.empty()) {
      text += "sum " + dim;
      for (int64_t term : terms) {
        std::optional<int64_t> part = TensorSpec::getSymbol(term);
        text += " " + (part ? signature.dimNames[*part] : std::to_string(term));
      }
      text += "\n";
      continue;
    }
    int64_t bound = signature.dimBounds[symbol];
    text += "dim " + dim + (bound ? " " + std::to_string(bound) : "") + "\n";
  }
  // The inputs that generation fills (tfm-kv-cache) are marked.
  for (const TensorSpec &in : signature.inputs)
    text += llvm::formatv(
        "in {0} {1} {2}{3}\n", in.name, getDTypeName(in.type.getElementType()),
        shapeText(in, signature),
        in.role == TensorSpec::Role::KvCache      ? " kv_cache"
        : in.role == TensorSpec::Role::KvPosition ? " kv_position"
                                                  : "");
  // Attention weights (tfm-compile --attention-weights) are outputs too,
  // marked, with the attention's location after the shape.
  for (const TensorSpec &out : signature.outputs) {
    std::string where;
    for (char c : out.attention)
      where += c == '\n' ? ' ' : c;
    text += llvm::formatv("{0} {1} {2} {3}{4}\n",
                          out.attention.empty() ? "out" : "attn", out.name,
                          getDTypeName(out.type.getElementType()),
                          shapeText(out, signature),
                          out.attention.empty() ? "" : " " + where);
  }
  return text;
}

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
  std::string text = signatureText(signature);
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
  // The entry and its C interface are the typed function's to call: kept
  // out of the binary's exports, two libraries of different prefixes link
  // into one program.
  for (StringRef name : {StringRef(cifaceName), StringRef(kEntrySymbol)})
    if (auto func = module.lookupSymbol<LLVM::LLVMFuncOp>(name);
        func && !func.isExternal())
      func.setLinkage(LLVM::Linkage::Internal);
  return success();
}

/// The C type of `type`'s elements.
static StringRef getCType(Type type) {
  if (type.isF32())
    return "float";
  if (type.isF16())
    return "uint16_t"; /* IEEE half, raw bits */
  if (type.isSignlessInteger(32))
    return "int32_t";
  if (type.isSignlessInteger(1))
    return "uint8_t"; /* bool: 0 or 1, one byte each */
  return "int64_t";
}

/// The generation API of a model compiled with --kv-cache: the runtime's
/// tfm_kv_state (runtime/Generate.h, declared once per program) and this
/// model's prefill and step on it.
static void renderGenerationApi(raw_ostream &os, StringRef prefix) {
  os << R"(/* Generation (compiled with --kv-cache): the key/value caches of a batch of
 * sequences are an opaque state, created once and updated in place by each
 * call (runtime/Generate.h). */
#ifndef TFM_KV_STATE_DECLARED
#define TFM_KV_STATE_DECLARED
typedef struct tfm_kv_state tfm_kv_state;
tfm_kv_state *tfm_kv_state_create_for(const char *signature,
                                      int (*run)(const int64_t *, void **),
                                      int64_t batch, char *error,
                                      size_t error_size);
void tfm_kv_state_destroy(tfm_kv_state *state);
/* Forgets every position, to start new sequences. */
void tfm_kv_state_reset(tfm_kv_state *state);
/* The positions the caches hold, and the most they can hold (--kv-cache=N). */
int64_t tfm_kv_state_length(const tfm_kv_state *state);
int64_t tfm_kv_state_capacity(const tfm_kv_state *state);
/* The logits of one position. */
int64_t tfm_kv_state_vocab(const tfm_kv_state *state);
int tfm_kv_state_run(tfm_kv_state *state, const int64_t *ids, int64_t seq,
                     float *logits);
/* Why the last call that returned non-zero failed. */
const char *tfm_kv_state_error(const tfm_kv_state *state);
#endif

)";
  // The model's own functions, with `PREFIX` its prefix.
  std::string functions = R"(/* Empty caches for `batch` sequences; NULL, with a message in
 * error[0..error_size), if the model cannot take the batch or memory runs
 * out. */
static inline tfm_kv_state *PREFIX_kv_state_create(
    int64_t batch, char *error, size_t error_size) {
  return tfm_kv_state_create_for(PREFIX_signature, PREFIX_run_dims, batch,
                                 error, error_size);
}

/* Runs the prompts ids[batch][seq] after the positions the state holds,
 * writes logits[batch][seq][vocab] and appends the seq positions to the
 * caches. Returns 0, or 1 (the state unchanged; tfm_kv_state_error says why)
 * when seq is below 1 or the caches cannot hold seq more positions. */
static inline int PREFIX_prefill(
    tfm_kv_state *state, const int64_t *ids, int64_t seq, float *logits) {
  return tfm_kv_state_run(state, ids, seq, logits);
}

/* One token per sequence, ids[batch]: writes logits[batch][vocab]. */
static inline int PREFIX_step(
    tfm_kv_state *state, const int64_t *ids, float *logits) {
  return tfm_kv_state_run(state, ids, 1, logits);
}

)";
  for (size_t at = functions.find("PREFIX"); at != std::string::npos;
       at = functions.find("PREFIX", at + prefix.size()))
    functions.replace(at, 6, prefix.str());
  os << functions;
}

std::string renderHeader(const EntrySignature &signature, StringRef source,
                         StringRef prefix) {
  std::string guard =
      (prefix.upper() + "_" + StringRef(signature.name).upper() + "_H");
  bool dynamic = !signature.dimNames.empty();
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "/* Generated by tfm-compile from " << source
     << ". Do not edit. */\n"
     << "#ifndef " << guard << "\n#define " << guard << "\n\n"
     << "#include <stddef.h>\n#include <stdint.h>\n\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n"
     << "/* Runs @" << signature.name << ".\n *\n";
  if (dynamic) {
    os << " *   ";
    llvm::interleaveComma(signature.dimNames, os);
    os << ": the dynamic sizes, each at least 1";
    bool bounded = false;
    for (auto [name, bound] :
         llvm::zip_equal(signature.dimNames, signature.dimBounds)) {
      if (!bound)
        continue;
      os << (bounded ? ", " : "; ") << name << " at most " << bound;
      bounded = true;
    }
    if (bounded)
      os << " (larger sizes end the\n *   process with a message and exit "
            "code 1)";
    os << "\n";
    for (auto [symbol, name] : llvm::enumerate(signature.dimNames)) {
      ArrayRef<int64_t> terms = signature.getSum(symbol);
      if (terms.empty())
        continue;
      os << " *   " << name << " = ";
      llvm::interleave(
          terms, os,
          [&](int64_t term) {
            std::optional<int64_t> part = TensorSpec::getSymbol(term);
            os << (part ? signature.dimNames[*part] : std::to_string(term));
          },
          " + ");
      os << ": an output's size, passed computed\n";
    }
  }
  auto describe = [&](const TensorSpec &spec, StringRef role) {
    os << " *   " << spec.name << ": " << getCType(spec.type.getElementType())
       << " [";
    llvm::interleaveComma(spec.dims, os, [&](int64_t dim) {
      std::optional<int64_t> symbol = TensorSpec::getSymbol(dim);
      os << (symbol ? signature.dimNames[*symbol] : std::to_string(dim));
    });
    os << "] (" << role << ")\n";
  };
  for (const TensorSpec &in : signature.inputs)
    describe(in, in.role == TensorSpec::Role::KvCache
                     ? "input: a key/value cache, updated in place"
                 : in.role == TensorSpec::Role::KvPosition
                     ? "input: the positions the caches hold"
                     : "input");
  for (const TensorSpec &out : signature.outputs)
    describe(out, out.attention.empty()
                      ? std::string("output, written by the call")
                      : "output: the weights of the attention at " +
                            out.attention);
  os << " *\n * Arrays are dense, in C (row-major) order. Returns 0 on "
        "success. */\n"
     << "int " << prefix << "_" << signature.name << "(";
  bool first = true;
  for (const std::string &dim : signature.dimNames) {
    os << (first ? "" : ", ") << "int64_t " << dim;
    first = false;
  }
  for (const TensorSpec &in : signature.inputs) {
    // Caches are updated in place.
    os << (first ? "" : ", ")
       << (in.role == TensorSpec::Role::KvCache ? "" : "const ")
       << getCType(in.type.getElementType()) << " *" << in.name;
    first = false;
  }
  for (const TensorSpec &out : signature.outputs) {
    os << (first ? "" : ", ") << getCType(out.type.getElementType()) << " *"
       << out.name;
    first = false;
  }
  os << ");\n\n";
  if (!dynamic)
    os << "/* The same, with buffers[] holding the inputs, then the outputs. "
          "*/\n"
       << "int " << prefix << "_run(void **buffers);\n\n";
  os << "/* The same, with dims[] holding "
     << (dynamic ? "the dynamic sizes, in the order above,"
                 : "the dynamic sizes (there are none: it may be NULL)")
     << " and buffers[] the inputs, then the outputs. */\n"
     << "int " << prefix << "_run_dims(const int64_t *dims, void **buffers);\n\n"
     << "/* The inputs and outputs, as text (see runtime/Signature.h). */\n"
     << "extern const char " << prefix << "_signature[];\n\n";
  if (llvm::any_of(signature.inputs, [](const TensorSpec &in) {
        return in.role == TensorSpec::Role::KvCache;
      }))
    renderGenerationApi(os, prefix);
  os << "#ifdef __cplusplus\n}\n#endif\n\n#endif /* " << guard << " */\n";
  return text;
}

} // namespace tfm
} // namespace mlir
