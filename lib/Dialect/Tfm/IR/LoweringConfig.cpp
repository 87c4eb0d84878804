//===- LoweringConfig.cpp - #tfm.lowering_config --------------------------===//
//
// The syntax and verifier of the code generation strategy attribute: its
// named levels, outermost first, each with its tile sizes and optionally
// its loop order, then optionally a prefetch distance.
//
//   #tfm.lowering_config<parallel = [1, 32, 0],
//                        reduction = [0, 0, 64] interchange [2, 0, 1],
//                        prefetch_distance = 128>
//
//===----------------------------------------------------------------------===//

#include "tfm/Dialect/Tfm/IR/TfmOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"

using namespace mlir;
using namespace mlir::tfm;

/// Parses `[a, b, ...]`.
static ParseResult parseIntegers(AsmParser &parser,
                                 SmallVectorImpl<int64_t> &values) {
  return parser.parseCommaSeparatedList(
      AsmParser::Delimiter::Square, [&]() -> ParseResult {
        return parser.parseInteger(values.emplace_back());
      });
}

static void printIntegers(AsmPrinter &printer, ArrayRef<int64_t> values) {
  printer << '[';
  llvm::interleaveComma(values, printer);
  printer << ']';
}

Attribute LoweringConfigAttr::parse(AsmParser &parser, Type) {
  MLIRContext *ctx = parser.getContext();
  SmallVector<TilingLevel> levels;
  SmallVector<DenseI64ArrayAttr> tileSizes, interchange;
  int64_t prefetchDistance = 0;
  bool hasPrefetch = false, hasInterchange = false;
  if (parser.parseLess())
    return {};
  if (succeeded(parser.parseOptionalGreater())) {
    parser.emitError(parser.getCurrentLocation())
        << "expected at least one tiling level";
    return {};
  }
  // `level = [sizes] (interchange [order])?`, then `prefetch_distance = N`.
  do {
    StringRef keyword;
    SMLoc loc = parser.getCurrentLocation();
    if (parser.parseKeyword(&keyword) || parser.parseEqual())
      return {};
    if (keyword == "prefetch_distance" && !hasPrefetch) {
      hasPrefetch = true;
      if (parser.parseInteger(prefetchDistance))
        return {};
      continue;
    }
    std::optional<TilingLevel> level = symbolizeTilingLevel(keyword);
    if (!level || hasPrefetch) {
      parser.emitError(loc) << "expected a tiling level (parallel, cache, "
                               "vector or reduction), or prefetch_distance "
                               "after the levels";
      return {};
    }
    SmallVector<int64_t> sizes, order;
    if (parseIntegers(parser, sizes))
      return {};
    if (succeeded(parser.parseOptionalKeyword("interchange"))) {
      hasInterchange = true;
      if (parseIntegers(parser, order))
        return {};
    }
    levels.push_back(*level);
    tileSizes.push_back(DenseI64ArrayAttr::get(ctx, sizes));
    interchange.push_back(DenseI64ArrayAttr::get(ctx, order));
  } while (succeeded(parser.parseOptionalComma()));
  if (parser.parseGreater())
    return {};
  if (!hasInterchange)
    interchange.clear();
  return parser.getChecked<LoweringConfigAttr>(
      ctx, ArrayRef<TilingLevel>(levels),
      ArrayRef<DenseI64ArrayAttr>(tileSizes),
      ArrayRef<DenseI64ArrayAttr>(interchange), prefetchDistance);
}

void LoweringConfigAttr::print(AsmPrinter &printer) const {
  printer << '<';
  for (auto [index, level] : llvm::enumerate(getLevels())) {
    if (index != 0)
      printer << ", ";
    printer << stringifyTilingLevel(level) << " = ";
    printIntegers(printer, getTileSizes()[index].asArrayRef());
    if (index < getInterchange().size() && !getInterchange()[index].empty()) {
      printer << " interchange ";
      printIntegers(printer, getInterchange()[index].asArrayRef());
    }
  }
  if (getPrefetchDistance() != 0)
    printer << ", prefetch_distance = " << getPrefetchDistance();
  printer << '>';
}

LogicalResult LoweringConfigAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, ArrayRef<TilingLevel> levels,
    ArrayRef<DenseI64ArrayAttr> tileSizes,
    ArrayRef<DenseI64ArrayAttr> interchange, int64_t prefetchDistance) {
  if (prefetchDistance < 0)
    return emitError() << "expected a prefetch_distance >= 0";
  if (levels.empty())
    return emitError() << "expected at least one tiling level";
  if (tileSizes.size() != levels.size())
    return emitError() << "expected tile sizes for each of the "
                       << levels.size() << " levels, found "
                       << tileSizes.size();
  for (auto [outer, inner] : llvm::zip(levels, levels.drop_front()))
    if (outer >= inner)
      return emitError() << "expected the levels in the order parallel, "
                            "cache, vector, reduction, each at most once; "
                            "found "
                         << stringifyTilingLevel(inner) << " after "
                         << stringifyTilingLevel(outer);
  size_t loops = tileSizes.front().size();
  for (auto [level, sizes] : llvm::zip(levels, tileSizes)) {
    if (static_cast<size_t>(sizes.size()) != loops)
      return emitError() << "expected " << loops << " tile sizes at level "
                         << stringifyTilingLevel(level) << ", found "
                         << sizes.size();
    if (llvm::any_of(sizes.asArrayRef(), [](int64_t s) { return s < 0; }))
      return emitError() << "expected tile sizes >= 0 at level "
                         << stringifyTilingLevel(level);
  }
  if (!interchange.empty() && interchange.size() != levels.size())
    return emitError() << "expected an interchange for each of the "
                       << levels.size() << " levels, found "
                       << interchange.size();
  for (auto [level, order] : llvm::zip(levels, interchange)) {
    if (order.empty()) // The natural order.
      continue;
    SmallVector<int64_t> sorted(order.asArrayRef());
    llvm::sort(sorted);
    bool isPermutation = sorted.size() == loops;
    for (auto [i, v] : llvm::enumerate(sorted))
      isPermutation &= v == static_cast<int64_t>(i);
    if (!isPermutation)
      return emitError() << "expected the interchange of level "
                         << stringifyTilingLevel(level)
                         << " to be a permutation of the " << loops << " loops";
  }
  return success();
}

LoweringConfigAttr
LoweringConfigAttr::get(MLIRContext *ctx, ArrayRef<TilingLevel> levels,
                        ArrayRef<SmallVector<int64_t>> sizes,
                        ArrayRef<SmallVector<int64_t>> interchange,
                        int64_t prefetchDistance) {
  auto toAttrs = [&](ArrayRef<SmallVector<int64_t>> lists) {
    return llvm::map_to_vector(lists, [&](ArrayRef<int64_t> list) {
      return DenseI64ArrayAttr::get(ctx, list);
    });
  };
  SmallVector<DenseI64ArrayAttr> orders = toAttrs(interchange);
  if (llvm::all_of(orders,
                   [](DenseI64ArrayAttr order) { return order.empty(); }))
    orders.clear();
  return get(ctx, levels, toAttrs(sizes), orders, prefetchDistance);
}

std::optional<unsigned> LoweringConfigAttr::findLevel(TilingLevel level) {
  auto it = llvm::find(getLevels(), level);
  if (it == getLevels().end())
    return std::nullopt;
  return std::distance(getLevels().begin(), it);
}

LoweringConfigAttr
LoweringConfigAttr::withParallelSizes(ArrayRef<int64_t> sizes) {
  SmallVector<DenseI64ArrayAttr> tileSizes(getTileSizes());
  std::optional<unsigned> index = findLevel(TilingLevel::parallel);
  assert(index && "expected a parallel level");
  tileSizes[*index] = DenseI64ArrayAttr::get(getContext(), sizes);
  return get(getContext(), getLevels(), tileSizes, getInterchange(),
             getPrefetchDistance());
}

LoweringConfigAttr tfm::getLoweringConfig(Operation *op) {
  return op->getAttrOfType<LoweringConfigAttr>(
      LoweringConfigAttr::getAttrName());
}

void tfm::setLoweringConfig(Operation *op, LoweringConfigAttr config) {
  op->setAttr(LoweringConfigAttr::getAttrName(), config);
}
