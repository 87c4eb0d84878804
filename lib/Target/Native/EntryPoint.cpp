//===- EntryPoint.cpp - Finding and preparing a model's entry -------------===//
//
// tfm-prepare-entry's work: the entry function found and renamed, its
// inputs and outputs checked and named as C identifiers, tensor sizes that
// 64-bit byte counts hold, --max-size bounds. The signature it records is
// Signature.cpp's; the C entry points CInterface.cpp's; the library header
// Header.cpp's.
//
//===----------------------------------------------------------------------===//

#include "tfm/Target/Native/EntryPoint.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

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

StringRef getDTypeName(Type type) {
  if (type.isF32())
    return "f32";
  if (type.isF16())
    return "f16";
  // bfloat16 crosses as uint16 arrays of its bits (.npy has no bfloat16).
  if (type.isBF16())
    return "bf16";
  if (type.isF64())
    return "f64";
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
           << "; a compiled entry exchanges f32, f16, bf16, f64, i32, i64 or "
              "i1 (bool)";
  std::string specName = name ? sanitizeName(name.getValue())
                              : (kind == "input" ? "arg" : "result") +
                                    std::to_string(index);
  specs.push_back({specName, tensor,
                   std::vector<int64_t>(tensor.getShape().begin(),
                                        tensor.getShape().end()),
                   /*attention=*/""});
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

} // namespace tfm
} // namespace mlir
