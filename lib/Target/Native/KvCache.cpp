//===- KvCache.cpp - A decoder with past as a step over in-place caches ---===//
//
// Implements convertToKvCache (the tfm-kv-cache pass): the `present =
// concat(past, new)` results of a decoder exported with past_key_values
// become tfm.kv_cache_append ops on caches of a fixed length, which
// bufferization updates in the caller's buffers.
//
//===----------------------------------------------------------------------===//

#include "tfm/Target/Native/EntryPoint.h"

#include "tfm/Dialect/Tfm/IR/TfmOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;

namespace mlir {
namespace tfm {

namespace {
/// A past argument and the result that returns it with a step appended.
struct CachePair {
  BlockArgument past;
  unsigned result;
  tensor::ConcatOp concat;
};
} // namespace

/// The name tfm.dims gives dimension `dim` of argument `arg`, or "".
static StringRef getDimName(func::FuncOp entry, unsigned arg, int64_t dim) {
  auto names = entry.getArgAttrOfType<ArrayAttr>(arg, kEntryDimsAttr);
  if (!names || dim >= static_cast<int64_t>(names.size()))
    return "";
  auto name = dyn_cast<StringAttr>(names[dim]);
  return name ? name.getValue() : "";
}

static std::string describeArg(func::FuncOp entry, unsigned arg) {
  auto name = entry.getArgAttrOfType<StringAttr>(arg, "tfm.name");
  return "argument " + std::to_string(arg) +
         (name ? " ('" + name.getValue().str() + "')" : std::string());
}

/// The name of the position argument: the caches' past axis's, else
/// "past", made unlike the names of the other arguments.
static std::string getPositionName(func::FuncOp entry, StringRef axisName) {
  std::string name = axisName.empty() ? "past" : axisName.str();
  auto taken = [&](StringRef candidate) {
    for (unsigned i = 0, e = entry.getNumArguments(); i < e; ++i)
      if (auto argName = entry.getArgAttrOfType<StringAttr>(i, "tfm.name"))
        if (argName.getValue() == candidate)
          return true;
    return false;
  };
  std::string unique = name;
  for (int suffix = 1; taken(unique); ++suffix)
    unique = name + "_" + std::to_string(suffix);
  return unique;
}

LogicalResult convertToKvCache(func::FuncOp entry, int64_t maxLen) {
  Location loc = entry.getLoc();
  if (maxLen < 1)
    return emitError(loc) << "a key/value cache needs its length: compile "
                             "with --kv-cache=N (the positions it holds: the "
                             "prompt and the generated tokens together)";
  if (!entry.getBody().hasOneBlock())
    return emitError(loc) << "entry @" << entry.getSymName()
                          << " has more than one block";
  Block &body = entry.getBody().front();
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  for (unsigned i = 0, e = entry.getNumArguments(); i < e; ++i)
    if (entry.getArgAttr(i, kKvCacheAttr))
      return emitError(loc) << "entry @" << entry.getSymName()
                            << " holds key/value caches already ("
                            << describeArg(entry, i)
                            << " is marked tfm.kv_cache): compile it "
                               "without --kv-cache";

  SmallVector<CachePair> pairs;
  for (auto [i, operand] : llvm::enumerate(ret.getOperands())) {
    auto concat = operand.getDefiningOp<tensor::ConcatOp>();
    if (!concat || concat.getInputs().size() != 2)
      continue;
    auto past = dyn_cast<BlockArgument>(concat.getInputs()[0]);
    if (!past || past.getOwner() != &body)
      continue;
    pairs.push_back({past, static_cast<unsigned>(i), concat});
  }
  if (pairs.empty())
    return emitError(loc)
           << "entry @" << entry.getSymName()
           << " has no key/value cache: none of its results is one of its "
              "arguments with this call's positions appended (the `present "
              "= concat(past, new)` of a decoder exported with "
              "past_key_values)";

  // Every cache appends along its second-to-last dimension, the past axis,
  // which the structure gives (past is what the new positions are appended
  // to), whatever the exporter named it. The caches of one step all hold the
  // positions before it: one position argument says how many, named like
  // the past axis where the caches agree on a name.
  std::optional<StringRef> lengthName;
  for (CachePair &pair : pairs) {
    auto type = cast<RankedTensorType>(pair.past.getType());
    int64_t seqDim = type.getRank() - 2;
    std::string what = describeArg(entry, pair.past.getArgNumber());
    if (type.getRank() < 2 || static_cast<int64_t>(pair.concat.getDim()) != seqDim)
      return emitError(pair.concat.getLoc())
             << "the cache of " << what << " is appended to along dimension "
             << pair.concat.getDim() << "; tfm's caches are [..., length, "
             << "head_dim], appended along the second-to-last dimension";
    if (!type.isDynamicDim(seqDim))
      return emitError(pair.concat.getLoc())
             << what << " has a past of static length "
             << type.getDimSize(seqDim)
             << "; export it with the past length as a dynamic axis";
    StringRef name = getDimName(entry, pair.past.getArgNumber(), seqDim);
    if (!lengthName)
      lengthName = name;
    else if (name != *lengthName)
      lengthName = "";
    for (Operation *user : pair.past.getUsers()) {
      if (user == pair.concat || isa<tensor::DimOp>(user))
        continue;
      return emitError(user->getLoc())
             << "the model reads " << what
             << " other than by appending to it; a cache is only appended "
                "to";
    }
  }
  std::string positionName = getPositionName(entry, *lengthName);

  // The position: a rank-0 i64 argument before the first cache.
  MLIRContext *ctx = entry.getContext();
  unsigned positionIndex = llvm::min_element(pairs, [](auto &a, auto &b) {
                             return a.past.getArgNumber() <
                                    b.past.getArgNumber();
                           })->past.getArgNumber();
  auto positionType = RankedTensorType::get({}, IntegerType::get(ctx, 64));
  NamedAttrList positionAttrs;
  positionAttrs.set("tfm.name", StringAttr::get(ctx, positionName));
  positionAttrs.set(kKvPositionAttr, UnitAttr::get(ctx));
  if (failed(entry.insertArgument(positionIndex, positionType,
                                  positionAttrs.getDictionary(ctx), loc)))
    return emitError(loc) << "cannot add the position argument";
  BlockArgument positionArg = body.getArgument(positionIndex);

  OpBuilder b = OpBuilder::atBlockBegin(&body);
  Value position = arith::IndexCastOp::create(
      b, loc, b.getIndexType(),
      tensor::ExtractOp::create(b, loc, positionArg, ValueRange{}));
  // A negative position would write before the caches' buffers.
  Value inRange = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::ule, position,
      arith::ConstantIndexOp::create(b, loc, maxLen));
  cf::AssertOp::create(b, loc, inRange,
                       positionName + " must be between 0 and the caches' "
                       "length, " + std::to_string(maxLen));

  SmallVector<Type> resultTypes(entry.getResultTypes());
  for (CachePair &pair : pairs) {
    auto type = cast<RankedTensorType>(pair.past.getType());
    int64_t seqDim = type.getRank() - 2;
    SmallVector<int64_t> shape(type.getShape());
    shape[seqDim] = maxLen;
    auto cacheType = type.clone(shape);
    pair.past.setType(cacheType);
    for (Operation *user : llvm::make_early_inc_range(pair.past.getUsers())) {
      auto dim = dyn_cast<tensor::DimOp>(user);
      if (!dim)
        continue;
      std::optional<int64_t> index = dim.getConstantIndex();
      if (index && *index == seqDim) {
        dim.replaceAllUsesWith(position);
        dim.erase();
      } else if (!index) {
        return emitError(dim.getLoc())
               << "a dimension of " << describeArg(entry, pair.past.getArgNumber())
               << " is read at an index known only at run time";
      }
    }
    b.setInsertionPoint(pair.concat);
    auto append = KvCacheAppendOp::create(b, pair.concat.getLoc(), cacheType,
                                          pair.concat.getType(), pair.past,
                                          pair.concat.getInputs()[1], position);
    ret->setOperand(pair.result, append.getUpdated());
    pair.concat.getResult().replaceAllUsesWith(append.getPrefix());
    pair.concat.erase();
    resultTypes[pair.result] = cacheType;

    unsigned arg = pair.past.getArgNumber();
    entry.setArgAttr(arg, kKvCacheAttr, UnitAttr::get(ctx));
    // The length is now the cache's: only the other sizes stay named.
    if (auto names = entry.getArgAttrOfType<ArrayAttr>(arg, kEntryDimsAttr)) {
      SmallVector<Attribute> renamed(names.begin(), names.end());
      if (seqDim < static_cast<int64_t>(renamed.size()))
        renamed[seqDim] = StringAttr::get(ctx, "");
      entry.setArgAttr(arg, kEntryDimsAttr, ArrayAttr::get(ctx, renamed));
    }
    entry.setResultAttr(pair.result, kKvCacheAttr,
                        IntegerAttr::get(IntegerType::get(ctx, 64), arg));
    // The updated cache has the cache's name.
    if (auto name = entry.getArgAttrOfType<StringAttr>(arg, "tfm.name"))
      entry.setResultAttr(pair.result, "tfm.name", name);
  }
  entry.setType(FunctionType::get(ctx, body.getArgumentTypes(), resultTypes));
  return success();
}

} // namespace tfm
} // namespace mlir
