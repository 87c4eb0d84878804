//===- Signature.cpp - A compiled model's signature, recorded and as text -===//
//
// The entry's signature (inputs, outputs, dynamic sizes) travels on the
// module as an attribute from tfm-prepare-entry to tfm-emit-c-interface
// (recordEntrySignature, readEntrySignature), and into binaries as the text
// that runtime/Signature.h parses (renderSignatureText).
//
//===----------------------------------------------------------------------===//

#include "tfm/Target/Native/EntryPoint.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;

namespace mlir {
namespace tfm {

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
        {name.str(), tensor, std::vector<int64_t>(dims.begin(), dims.end()),
         /*attention=*/""});
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

std::string renderSignatureText(const EntrySignature &signature) {
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

} // namespace tfm
} // namespace mlir
