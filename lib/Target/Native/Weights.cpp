//===- Weights.cpp - Binding weights to entry arguments -------------------===//
//
// safetensors: an 8-byte little-endian header length N, N bytes of JSON
// mapping each tensor's name to {"dtype", "shape", "data_offsets": [b, e]}
// (offsets relative to the end of the header), then the data.
//
//===----------------------------------------------------------------------===//

#include "tfm/Target/Native/Weights.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>

using namespace mlir;

namespace mlir {
namespace tfm {
namespace {

/// One tensor of a safetensors file, pointing into the mapped file.
struct StoredTensor {
  std::string dtype;
  SmallVector<int64_t> shape;
  ArrayRef<char> data;
};

/// The element type and byte size of a safetensors dtype, or {} if tfm
/// does not read it.
std::pair<Type, unsigned> getElementType(MLIRContext *ctx, StringRef dtype) {
  Builder b(ctx);
  if (dtype == "F32")
    return {b.getF32Type(), 4};
  if (dtype == "F16")
    return {b.getF16Type(), 2};
  if (dtype == "BF16")
    return {b.getBF16Type(), 2};
  if (dtype == "I32")
    return {b.getI32Type(), 4};
  if (dtype == "I64")
    return {b.getI64Type(), 8};
  return {};
}

/// The deepest nesting of arrays and objects in the JSON text `json`
/// (strings skipped), counted without recursion, up to `limit` + 1. A
/// safetensors header nests 3 deep (the entries, an entry, its shape);
/// llvm::json::parse recurses once a level, so a header of a million `[`
/// would overflow the stack.
unsigned getNestingDepth(StringRef json, unsigned limit) {
  unsigned depth = 0, deepest = 0;
  bool inString = false;
  for (size_t i = 0; i < json.size(); ++i) {
    char c = json[i];
    if (inString) {
      if (c == '\\')
        ++i; // the escaped character, a quote included
      else if (c == '"')
        inString = false;
      continue;
    }
    if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
      if (deepest > limit)
        return deepest;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

/// The deepest nesting tfm reads in a header; a valid one nests 3 deep.
constexpr unsigned kMaxHeaderDepth = 16;

class SafetensorsFile {
public:
  /// Maps and indexes `path`; emits an error at `loc` on a malformed file.
  LogicalResult load(Location loc, StringRef path) {
    auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                              /*RequiresNullTerminator=*/false);
    if (!buffer)
      return emitError(loc) << "cannot read weights file '" << path
                            << "': " << buffer.getError().message();
    file = std::move(*buffer);
    StringRef bytes = file->getBuffer();
    if (bytes.size() < 8)
      return emitError(loc) << "weights file '" << path
                            << "' is too short to be a safetensors file";
    uint64_t headerSize =
        llvm::support::endian::read64le(bytes.data());
    if (headerSize > bytes.size() - 8)
      return emitError(loc) << "weights file '" << path
                            << "' is truncated: its header claims "
                            << headerSize << " bytes";
    StringRef data = bytes.drop_front(8 + headerSize);
    if (getNestingDepth(bytes.substr(8, headerSize), kMaxHeaderDepth) >
        kMaxHeaderDepth)
      return emitError(loc) << "weights file '" << path
                            << "' has a header that nests arrays and objects "
                               "more than "
                            << kMaxHeaderDepth
                            << " deep; a safetensors header nests 3 deep";
    llvm::Expected<llvm::json::Value> header =
        llvm::json::parse(bytes.substr(8, headerSize));
    if (!header)
      return emitError(loc) << "weights file '" << path
                            << "' has a malformed header: "
                            << llvm::toString(header.takeError());
    const llvm::json::Object *entries = header->getAsObject();
    if (!entries)
      return emitError(loc) << "weights file '" << path
                            << "' has a header that is not a JSON object";
    for (const auto &[key, value] : *entries) {
      if (key == "__metadata__")
        continue;
      if (failed(addTensor(loc, path, key, value, data)))
        return failure();
    }
    return success();
  }

  const StoredTensor *lookup(StringRef name) const {
    auto it = tensors.find(name);
    return it == tensors.end() ? nullptr : &it->second;
  }

private:
  LogicalResult addTensor(Location loc, StringRef path, StringRef name,
                          const llvm::json::Value &value, StringRef data) {
    auto malformed = [&](StringRef why) {
      return emitError(loc) << "weights file '" << path
                            << "' has a malformed entry for '" << name
                            << "': " << why;
    };
    const llvm::json::Object *entry = value.getAsObject();
    if (!entry)
      return malformed("not a JSON object");
    std::optional<StringRef> dtype = entry->getString("dtype");
    if (!dtype)
      return malformed("'dtype' is missing or not a string");
    const llvm::json::Array *shape = entry->getArray("shape");
    if (!shape)
      return malformed("'shape' is missing or not an array");
    const llvm::json::Array *offsets = entry->getArray("data_offsets");
    if (!offsets || offsets->size() != 2)
      return malformed("'data_offsets' is not an array of two offsets");
    StoredTensor tensor;
    tensor.dtype = dtype->str();
    for (const llvm::json::Value &dim : *shape) {
      std::optional<int64_t> size = dim.getAsInteger();
      if (!size || *size < 0)
        return malformed("'shape' holds something other than a size");
      tensor.shape.push_back(*size);
    }
    std::optional<int64_t> begin = (*offsets)[0].getAsInteger();
    std::optional<int64_t> end = (*offsets)[1].getAsInteger();
    if (!begin || !end || *begin < 0 || *end < *begin)
      return malformed("'data_offsets' are not two ascending offsets");
    if (static_cast<uint64_t>(*end) > data.size())
      return emitError(loc) << "weights file '" << path << "': the data of '"
                            << name << "' lies outside the file (truncated?)";
    tensor.data = ArrayRef<char>(data.data() + *begin, *end - *begin);
    tensors[name] = std::move(tensor);
    return success();
  }

  std::unique_ptr<llvm::MemoryBuffer> file;
  llvm::StringMap<StoredTensor> tensors;
};

} // namespace

LogicalResult bindWeights(func::FuncOp entry, StringRef path) {
  SmallVector<unsigned> weightArgs;
  for (unsigned i = 0, e = entry.getNumArguments(); i < e; ++i)
    if (entry.getArgAttrOfType<StringAttr>(i, kWeightAttr))
      weightArgs.push_back(i);
  if (weightArgs.empty())
    return success();

  Location loc = entry.getLoc();
  if (path.empty()) {
    InFlightDiagnostic diag = emitError(loc)
                              << "entry @" << entry.getSymName() << " has "
                              << weightArgs.size()
                              << " weight argument(s) but no --weights file "
                                 "was given; the first is argument "
                              << weightArgs.front() << " ('"
                              << entry.getArgAttrOfType<StringAttr>(
                                     weightArgs.front(), kWeightAttr)
                                     .getValue()
                              << "')";
    return diag;
  }

  SafetensorsFile file;
  if (failed(file.load(loc, path)))
    return failure();

  OpBuilder builder(entry.getBody());
  llvm::BitVector erased(entry.getNumArguments());
  for (unsigned i : weightArgs) {
    StringRef name = entry.getArgAttrOfType<StringAttr>(i, kWeightAttr);
    BlockArgument arg = entry.getArgument(i);
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    const StoredTensor *tensor = file.lookup(name);
    if (!tensor)
      return emitError(arg.getLoc())
             << "argument " << i << " of @" << entry.getSymName()
             << ": weight '" << name << "' is not in '" << path << "'";
    auto [elementType, elementSize] =
        getElementType(entry.getContext(), tensor->dtype);
    if (!type || !type.hasStaticShape() || !elementType ||
        elementType != type.getElementType() ||
        ArrayRef<int64_t>(tensor->shape) != type.getShape()) {
      InFlightDiagnostic diag = emitError(arg.getLoc())
                                << "argument " << i << " of @"
                                << entry.getSymName() << ": weight '" << name
                                << "' in '" << path << "' is "
                                << tensor->dtype << " [";
      llvm::interleaveComma(tensor->shape, diag);
      return diag << "], expected " << arg.getType();
    }
    if (tensor->data.size() !=
        static_cast<size_t>(type.getNumElements()) * elementSize)
      return emitError(arg.getLoc())
             << "argument " << i << ": weight '" << name << "' in '" << path
             << "' has " << tensor->data.size() << " bytes of data, expected "
             << type.getNumElements() * elementSize;
    auto value = DenseElementsAttr::getFromRawBuffer(type, tensor->data);
    Value constant =
        arith::ConstantOp::create(builder, arg.getLoc(), type, value);
    arg.replaceAllUsesWith(constant);
    erased.set(i);
  }
  if (failed(entry.eraseArguments(erased)))
    return entry.emitError("cannot remove the bound weight arguments");
  return success();
}

} // namespace tfm
} // namespace mlir
