//===- PackPanels.cpp - tfm-cpu-pack-panels -------------------------------===//
//
// Implements `tfm-cpu-pack-panels`, the CPU's data tiling: the right operand
// of a matmul, [K, N] (or a weight [N, K], as nn.Linear stores it), becomes
// panels of Nr columns, [ceil(N / Nr), K, Nr], each panel K-contiguous, in
// the order the micro-kernel reads them:
//
//   %p = linalg.pack %w outer_dims_perm = [1, 0] inner_dims_pos = [1]
//          inner_tiles = [32] into %e : tensor<K x N> -> tensor<N/32 x K x 32>
//   %r = linalg.generic (m, nb, nr, k): A(m, k) * P(nb, k, nr) -> C(m, nb, nr)
//
// Unpacked, each reduction step of a register tile reads a new row of the
// right operand, a new page at the widths of a Transformer's weights; packed,
// a tile's steps read one contiguous stream.
//
// A constant operand (a model's weights) is packed here, at compile time: the
// packed constant replaces it in the binary, padded with zeros to whole
// panels. Any other right operand of static columns that Nr divides is
// packed at run time (a copy, `linalg.pack` lowered to a transpose), where
// enough rows of the product read it to repay the copy.
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/CPU/Passes.h"
#include "tfm/Codegen/CPU/Strategy.h"

#include "tfm/Dialect/Tfm/IR/ConstantLayout.h"
#include "tfm/Dialect/Tfm/IR/TfmOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cstring>

namespace mlir {
namespace tfm {
#define GEN_PASS_DEF_TFMCPUPACKPANELS
#include "tfm/Codegen/CPU/Passes.h.inc"
} // namespace tfm
} // namespace mlir

using namespace mlir;
using namespace mlir::tfm;

namespace {

/// Rows of a product below which packing a right operand at run time costs
/// more than it saves: the copy reads and writes the operand once, the
/// product reads it once per register tile of rows.
constexpr int64_t kMinRowsForRuntimePacking = 64;

/// A matmul whose right operand can be packed: no batch dimensions, one n
/// and one k, a two-dimensional right operand read as [k, n] or [n, k],
/// and a result whose innermost dimension is n.
struct PanelMatmul {
  linalg::LinalgOp op;
  SmallVector<unsigned, 2> m;
  unsigned n, k;
  /// Whether the right operand is [n, k] (a Linear's weight).
  bool transposed;
};

std::optional<PanelMatmul> matchPanelMatmul(linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || !linalg::isaContractionOpInterface(op))
    return std::nullopt;
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || !dims->batch.empty() || dims->m.empty() ||
      dims->n.size() != 1 || dims->k.size() != 1)
    return std::nullopt;
  unsigned n = dims->n.front(), k = dims->k.front();
  MLIRContext *ctx = op.getContext();
  AffineMap rhs = op.getMatchingIndexingMap(op.getDpsInputOperand(1));
  AffineExpr nExpr = getAffineDimExpr(n, ctx), kExpr = getAffineDimExpr(k, ctx);
  if (rhs.getNumResults() != 2)
    return std::nullopt;
  bool transposed;
  if (rhs.getResult(0) == kExpr && rhs.getResult(1) == nExpr)
    transposed = false;
  else if (rhs.getResult(0) == nExpr && rhs.getResult(1) == kExpr)
    transposed = true;
  else
    return std::nullopt;
  AffineMap result = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (result.getNumResults() == 0 || result.getResults().back() != nExpr ||
      !result.isProjectedPermutation())
    return std::nullopt;
  auto type = dyn_cast<RankedTensorType>(op.getDpsInputs()[1].getType());
  if (!type || !type.hasStaticShape() || !type.getElementType().isIntOrFloat())
    return std::nullopt;
  return PanelMatmul{op, dims->m, n, k, transposed};
}

/// The rows of `matmul`: the product of its m loops, or -1 if one is
/// dynamic.
int64_t getStaticRows(PanelMatmul matmul) {
  SmallVector<int64_t> ranges = matmul.op.getStaticLoopRanges();
  int64_t rows = 1;
  for (unsigned m : matmul.m) {
    if (ShapedType::isDynamic(ranges[m]))
      return -1;
    rows *= ranges[m];
  }
  return rows;
}

/// `source` ([K, N], or [N, K] if `transposed`) in panels of `nr` columns,
/// [ceil(N / nr), K, nr], zeros past the last column. None for elements
/// that are not whole bytes.
std::optional<DenseElementsAttr> packConstant(DenseElementsAttr source,
                                              bool transposed, int64_t nr,
                                              RankedTensorType packedType) {
  Type element = source.getElementType();
  unsigned bits = element.getIntOrFloatBitWidth();
  if (bits % 8 != 0)
    return std::nullopt;
  if (source.isSplat() && packedType.getDimSize(0) * nr ==
                              source.getType().getDimSize(transposed ? 0 : 1))
    return source.resizeSplat(packedType);
  size_t bytes = bits / 8;
  ArrayRef<int64_t> shape = source.getType().getShape();
  int64_t k = shape[transposed ? 1 : 0], n = shape[transposed ? 0 : 1];
  int64_t panels = packedType.getDimSize(0);
  std::vector<char> packed(panels * k * nr * bytes, 0);
  ArrayRef<char> raw = source.getRawData();
  for (int64_t p = 0; p < panels; ++p) {
    int64_t width = std::min(nr, n - p * nr);
    char *panel = &packed[p * k * nr * bytes];
    // A whole panel of a transposed source, [nr, K] there, is its
    // transpose.
    if (transposed && width == nr && !source.isSplat()) {
      transposeBytes(raw.data() + p * nr * k * bytes, panel, nr, k, bytes);
      continue;
    }
    for (int64_t r = 0; r < k; ++r) {
      char *row = panel + r * nr * bytes;
      // The panel's row of a [K, N] source is one run of it.
      if (!transposed && !source.isSplat()) {
        std::memcpy(row, raw.data() + (r * n + p * nr) * bytes,
                    width * bytes);
        continue;
      }
      for (int64_t c = 0; c < width; ++c) {
        int64_t index = source.isSplat() ? 0
                        : transposed     ? (p * nr + c) * k + r
                                         : r * n + p * nr + c;
        std::memcpy(row + c * bytes, raw.data() + index * bytes, bytes);
      }
    }
  }
  return DenseElementsAttr::getFromRawBuffer(packedType, packed);
}

/// Whether `rhs` is a constant, or the transpose of one (a weight that the
/// lowering transposed to [K, N], such as a patch embedding's convolution
/// kernel): `constant` is then the constant and `transposed` tells how it
/// is read, flipped for the transpose. A transpose of a constant left to
/// run time would be a serial copy of the weight at every call and a
/// second copy into panels.
bool matchConstant(Value rhs, DenseElementsAttr &constant, bool &transposed) {
  if (matchPattern(rhs, m_Constant(&constant)))
    return true;
  auto transpose = rhs.getDefiningOp<linalg::TransposeOp>();
  if (!transpose || transpose.getPermutation() != ArrayRef<int64_t>{1, 0} ||
      !matchPattern(transpose.getInput(), m_Constant(&constant)))
    return false;
  transposed = !transposed;
  return true;
}

struct TfmCpuPackPanelsPass
    : tfm::impl::TfmCpuPackPanelsBase<TfmCpuPackPanelsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<PanelMatmul> matmuls;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (std::optional<PanelMatmul> matmul = matchPanelMatmul(op))
        matmuls.push_back(*matmul);
    });
    IRRewriter rewriter(&getContext());
    for (PanelMatmul matmul : matmuls)
      pack(rewriter, matmul);
    computeEpiloguesInPanels();
  }

  /// The elementwise op that computes a packed product's accumulator (its
  /// bias, or bias + residual) and the one that reads its result (its
  /// activation) are computed on the panels' shape, [..., N / Nr, Nr],
  /// instead of reshaping the product's [..., N]: tfm-tile-by-config can
  /// then fuse them into the product's register tiles.
  void computeEpiloguesInPanels() {
    // Only products whose register tiles can take their epilogue in: with
    // cache blocks the activation stays a pass of its own, better on rows
    // that tfm-cpu-pad-row-strides can pad for the next product than on
    // panels.
    auto isPacked = [](Operation *op) {
      auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(op);
      if (!linalgOp)
        return false;
      std::optional<linalg::ContractionDimensions> dims =
          getRowMajorMatmulDims(linalgOp);
      return dims && dims->n.size() == 2 && !hasCacheBlocks(linalgOp, *dims);
    };
    auto isElementwise = [](Operation *op) {
      auto generic = dyn_cast<linalg::GenericOp>(op);
      return generic && generic.getNumLoops() == generic.getNumParallelLoops() &&
             generic->getNumResults() == 1;
    };
    linalg::ControlFusionFn control = [&](OpOperand *operand) {
      Operation *owner = operand->getOwner();
      // The accumulator: generic -> expand_shape -> the product's init.
      if (auto expand = dyn_cast<tensor::ExpandShapeOp>(owner)) {
        Operation *producer = expand.getSrc().getDefiningOp();
        return producer && isElementwise(producer) && producer->hasOneUse() &&
               expand->hasOneUse() &&
               llvm::all_of(expand->getUses(), [&](OpOperand &use) {
                 auto product = dyn_cast<linalg::LinalgOp>(use.getOwner());
                 return isPacked(product) && product.isDpsInit(&use);
               });
      }
      // The activation: the product -> collapse_shape -> generic.
      auto collapse = operand->get().getDefiningOp<tensor::CollapseShapeOp>();
      return collapse && isElementwise(owner) && collapse->hasOneUse() &&
             isPacked(collapse.getSrc().getDefiningOp()) &&
             collapse.getSrc().hasOneUse();
    };
    RewritePatternSet patterns(&getContext());
    linalg::populateFoldReshapeOpsByExpansionPatterns(patterns, control);
    // The reshapes that dropping unit dimensions left between them.
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns,
                                                         &getContext());
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns,
                                                       &getContext());
    // The extents of dynamic results (the rows of a reshaped accumulator,
    // which packing reads for the reader's destination), from the ops'
    // operands: a reshape that only they read is then the product's alone.
    memref::populateResolveRankedShapedTypeResultDimsPatterns(patterns);
    (void)applyPatternsGreedily(getOperation(), std::move(patterns));
  }

  /// The columns of one panel: two vector registers of the right operand's
  /// elements, as the micro-kernel's register tile.
  static int64_t getPanelColumns(CpuTargetAttr target, Type element) {
    return 2 * target.getLanes(element.getIntOrFloatBitWidth());
  }

  void pack(IRRewriter &rewriter, PanelMatmul matmul) {
    linalg::LinalgOp op = matmul.op;
    Location loc = op.getLoc();
    Value rhs = op.getDpsInputs()[1];
    auto rhsType = cast<RankedTensorType>(rhs.getType());
    int64_t nr =
        getPanelColumns(CpuTargetAttr::lookup(op), rhsType.getElementType());
    int64_t k = rhsType.getDimSize(matmul.transposed ? 1 : 0);
    int64_t n = rhsType.getDimSize(matmul.transposed ? 0 : 1);
    int64_t panels = llvm::divideCeil(n, nr);
    bool padded = n % nr != 0;
    // A product one panel wide or narrower gains nothing.
    if (n <= nr)
      return;

    DenseElementsAttr constant;
    bool transposed = matmul.transposed;
    bool isConstant = matchConstant(rhs, constant, transposed);
    if (!isConstant) {
      int64_t rows = getStaticRows(matmul);
      if (padded || rows < kMinRowsForRuntimePacking)
        return;
    }
    // The accumulator in panels: reshaped if Nr divides the columns, else
    // a fill of a padded one (the only initial value that needs no copy).
    Value init = op.getDpsInits()[0];
    auto initType = cast<RankedTensorType>(init.getType());
    linalg::FillOp fill;
    if (padded) {
      fill = init.getDefiningOp<linalg::FillOp>();
      if (!fill || initType.isDynamicDim(initType.getRank() - 1))
        return;
    }

    rewriter.setInsertionPoint(op);
    auto packedType =
        RankedTensorType::get({panels, k, nr}, rhsType.getElementType());
    Value packed;
    if (isConstant) {
      std::optional<DenseElementsAttr> attr =
          packConstant(constant, transposed, nr, packedType);
      if (!attr)
        return;
      packed = arith::ConstantOp::create(rewriter, loc, *attr);
    } else {
      Value dest = tensor::EmptyOp::create(rewriter, loc, packedType.getShape(),
                                           packedType.getElementType());
      SmallVector<int64_t> outerPerm = matmul.transposed
                                           ? SmallVector<int64_t>{0, 1}
                                           : SmallVector<int64_t>{1, 0};
      int64_t nPos = matmul.transposed ? 0 : 1;
      auto packOp = linalg::PackOp::create(
          rewriter, loc, rhs, dest, {nPos}, {rewriter.getIndexAttr(nr)},
          std::nullopt, outerPerm);
      // A copy of the operand in the panels' order: the transpose of its
      // expanded shape, which the vector stage tiles as any other.
      FailureOr<linalg::LowerPackResult> lowered =
          linalg::lowerPack(rewriter, packOp);
      if (failed(lowered)) {
        rewriter.eraseOp(packOp);
        return;
      }
      packed = lowered->transposeOp->getResult(0);
    }

    // The accumulator, [..., N / Nr, Nr].
    SmallVector<int64_t> panelShape(initType.getShape());
    panelShape.back() = panels;
    panelShape.push_back(nr);
    auto panelType = RankedTensorType::get(panelShape,
                                           initType.getElementType());
    int64_t rank = initType.getRank();
    SmallVector<ReassociationIndices> reassociation;
    for (int64_t d = 0; d + 1 < rank; ++d)
      reassociation.push_back({d});
    reassociation.push_back({rank - 1, rank});
    Value panelInit;
    if (padded) {
      SmallVector<Value> dynamicSizes;
      for (int64_t d = 0; d + 1 < rank; ++d)
        if (initType.isDynamicDim(d))
          dynamicSizes.push_back(
              tensor::DimOp::create(rewriter, loc, init, d));
      Value empty = tensor::EmptyOp::create(rewriter, loc, panelType,
                                            dynamicSizes);
      panelInit = linalg::FillOp::create(rewriter, loc, fill.getInputs()[0],
                                         empty)
                      .getResult(0);
    } else {
      panelInit = tensor::ExpandShapeOp::create(rewriter, loc, panelType, init,
                                                reassociation);
    }

    // The product over the panels: n becomes (nb, nr), nr right after it.
    MLIRContext *ctx = &getContext();
    unsigned numLoops = op.getNumLoops();
    auto shift = [&](unsigned d) { return d > matmul.n ? d + 1 : d; };
    SmallVector<AffineExpr> dims;
    for (unsigned d = 0; d < numLoops; ++d)
      dims.push_back(getAffineDimExpr(shift(d), ctx));
    AffineExpr nb = getAffineDimExpr(matmul.n, ctx);
    AffineExpr nrExpr = getAffineDimExpr(matmul.n + 1, ctx);
    AffineMap lhsMap = op.getMatchingIndexingMap(op.getDpsInputOperand(0))
                           .replaceDimsAndSymbols(dims, {}, numLoops + 1, 0);
    AffineMap rhsMap = AffineMap::get(
        numLoops + 1, 0, {nb, getAffineDimExpr(shift(matmul.k), ctx), nrExpr},
        ctx);
    SmallVector<AffineExpr> results;
    for (AffineExpr e :
         op.getMatchingIndexingMap(op.getDpsInitOperand(0)).getResults()) {
      if (e == getAffineDimExpr(matmul.n, ctx)) {
        results.append({nb, nrExpr});
        continue;
      }
      results.push_back(e.replaceDimsAndSymbols(dims, {}));
    }
    AffineMap resultMap = AffineMap::get(numLoops + 1, 0, results, ctx);
    SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
    iterators.insert(iterators.begin() + matmul.n + 1,
                     utils::IteratorType::parallel);
    Block *body = op.getBlock();
    auto product = linalg::GenericOp::create(
        rewriter, loc, panelType, ValueRange{op.getDpsInputs()[0], packed},
        ValueRange{panelInit},
        ArrayRef<AffineMap>{lhsMap, rhsMap, resultMap}, iterators,
        [&](OpBuilder &b, Location, ValueRange args) {
          IRMapping mapping;
          mapping.map(body->getArguments(), args);
          for (Operation &nested : body->without_terminator())
            b.clone(nested, mapping);
          SmallVector<Value> yielded;
          for (Value v : body->getTerminator()->getOperands())
            yielded.push_back(mapping.lookupOrDefault(v));
          linalg::YieldOp::create(b, loc, yielded);
        });

    SmallVector<int64_t> flatShape(initType.getShape());
    flatShape.back() = panels * nr;
    Value flat = tensor::CollapseShapeOp::create(
        rewriter, loc,
        RankedTensorType::get(flatShape, initType.getElementType()),
        product.getResult(0), reassociation);
    Value replacement = flat;
    if (padded) {
      SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
      SmallVector<OpFoldResult> strides(rank, rewriter.getIndexAttr(1));
      SmallVector<OpFoldResult> sizes =
          tensor::getMixedSizes(rewriter, loc, init);
      replacement = tensor::ExtractSliceOp::create(
          rewriter, loc, initType, flat, offsets, sizes, strides);
    }
    rewriter.replaceOp(op, replacement);
  }
};

} // namespace
