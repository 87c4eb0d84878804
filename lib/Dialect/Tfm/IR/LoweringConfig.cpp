//===- LoweringConfig.cpp - #tfm.lowering_config --------------------------===//
//
// The syntax and verifier of the code generation strategy attribute:
//
//   #tfm.lowering_config<tile_sizes = [[1, 32, 0], [0, 0, 64]],
//                        interchange = [[], [2, 0, 1]],
//                        prefetch_distance = 128>
//
//===----------------------------------------------------------------------===//

#include "tfm/Dialect/Tfm/IR/TfmOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"

using namespace mlir;
using namespace mlir::tfm;

/// Parses `[[a, b, ...], [c, ...], ...]`.
static ParseResult parseLevels(AsmParser &parser,
                               SmallVectorImpl<DenseI64ArrayAttr> &levels) {
  MLIRContext *ctx = parser.getContext();
  return parser.parseCommaSeparatedList(
      AsmParser::Delimiter::Square, [&]() -> ParseResult {
        SmallVector<int64_t> sizes;
        if (parser.parseCommaSeparatedList(
                AsmParser::Delimiter::Square, [&]() -> ParseResult {
                  return parser.parseInteger(sizes.emplace_back());
                }))
          return failure();
        levels.push_back(DenseI64ArrayAttr::get(ctx, sizes));
        return success();
      });
}

static void printLevels(AsmPrinter &printer,
                        ArrayRef<DenseI64ArrayAttr> levels) {
  printer << '[';
  llvm::interleaveComma(levels, printer, [&](DenseI64ArrayAttr level) {
    printer << '[';
    llvm::interleaveComma(level.asArrayRef(), printer);
    printer << ']';
  });
  printer << ']';
}

Attribute LoweringConfigAttr::parse(AsmParser &parser, Type) {
  SmallVector<DenseI64ArrayAttr> tileSizes, interchange;
  int64_t prefetchDistance = 0;
  if (parser.parseLess() || parser.parseKeyword("tile_sizes") ||
      parser.parseEqual() || parseLevels(parser, tileSizes))
    return {};
  // Then `interchange = ...` and `prefetch_distance = N`, each optional, in
  // that order.
  bool hasInterchange = false, hasPrefetch = false;
  while (succeeded(parser.parseOptionalComma())) {
    StringRef keyword;
    SMLoc loc = parser.getCurrentLocation();
    if (parser.parseKeyword(&keyword) || parser.parseEqual())
      return {};
    if (keyword == "interchange" && !hasInterchange && !hasPrefetch) {
      hasInterchange = true;
      if (parseLevels(parser, interchange))
        return {};
    } else if (keyword == "prefetch_distance" && !hasPrefetch) {
      hasPrefetch = true;
      if (parser.parseInteger(prefetchDistance))
        return {};
    } else {
      parser.emitError(loc) << "expected 'interchange' or "
                               "'prefetch_distance', in that order, at most "
                               "once each";
      return {};
    }
  }
  if (parser.parseGreater())
    return {};
  return parser.getChecked<LoweringConfigAttr>(
      parser.getContext(), ArrayRef<DenseI64ArrayAttr>(tileSizes),
      ArrayRef<DenseI64ArrayAttr>(interchange), prefetchDistance);
}

void LoweringConfigAttr::print(AsmPrinter &printer) const {
  printer << "<tile_sizes = ";
  printLevels(printer, getTileSizes());
  if (!getInterchange().empty()) {
    printer << ", interchange = ";
    printLevels(printer, getInterchange());
  }
  if (getPrefetchDistance() != 0)
    printer << ", prefetch_distance = " << getPrefetchDistance();
  printer << '>';
}

LogicalResult
LoweringConfigAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                           ArrayRef<DenseI64ArrayAttr> tileSizes,
                           ArrayRef<DenseI64ArrayAttr> interchange,
                           int64_t prefetchDistance) {
  if (prefetchDistance < 0)
    return emitError() << "expected a prefetch_distance >= 0";
  if (tileSizes.empty())
    return emitError() << "expected at least one level of tile sizes";
  size_t loops = tileSizes.front().size();
  for (auto [level, sizes] : llvm::enumerate(tileSizes)) {
    if (static_cast<size_t>(sizes.size()) != loops)
      return emitError() << "expected " << loops << " tile sizes at level "
                         << level << ", found " << sizes.size();
    if (llvm::any_of(sizes.asArrayRef(), [](int64_t s) { return s < 0; }))
      return emitError() << "expected tile sizes >= 0 at level " << level;
  }
  if (!interchange.empty() && interchange.size() != tileSizes.size())
    return emitError() << "expected an interchange for each of the "
                       << tileSizes.size() << " levels, found "
                       << interchange.size();
  for (auto [level, order] : llvm::enumerate(interchange)) {
    if (order.empty()) // The natural order.
      continue;
    SmallVector<int64_t> sorted(order.asArrayRef());
    llvm::sort(sorted);
    bool isPermutation = sorted.size() == loops;
    for (auto [i, v] : llvm::enumerate(sorted))
      isPermutation &= v == static_cast<int64_t>(i);
    if (!isPermutation)
      return emitError() << "expected the interchange of level " << level
                         << " to be a permutation of the " << loops << " loops";
  }
  return success();
}

LoweringConfigAttr tfm::getLoweringConfig(Operation *op) {
  return op->getAttrOfType<LoweringConfigAttr>(
      LoweringConfigAttr::getAttrName());
}

void tfm::setLoweringConfig(Operation *op, LoweringConfigAttr config) {
  op->setAttr(LoweringConfigAttr::getAttrName(), config);
}
