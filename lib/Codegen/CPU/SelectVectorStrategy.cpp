//===- SelectVectorStrategy.cpp - tfm-cpu-select-vector-strategy ----------===//
//
// Implements `tfm-cpu-select-vector-strategy`: the tiles the CPU's vector
// stage cuts every linalg op on tensors into, recorded as the op's
// #tfm.lowering_config for `tfm-tile-by-config` to apply and
// `tfm-cpu-vectorize` to turn into vector code.
//
// - Contractions (matmuls, batched or not, with a row-major right operand)
//   get a register-blocked micro-kernel: tiles of Mr rows x Nr columns (Nr
//   two vector registers wide) with the column loop outermost and an
//   innermost reduction loop of step 1. The pipeline later hoists the
//   accumulator tile out of that loop (loop-invariant-subset-hoisting), so
//   that it stays in vector registers: one broadcast FMA per row and
//   register and step.
// - Every other op is tiled so that a tile covers one vector along its
//   innermost loop and one iteration of every other loop.
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/CPU/Passes.h"
#include "tfm/Codegen/CPU/Strategy.h"

#include "tfm/Dialect/Tfm/IR/TfmOps.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"

namespace mlir {
namespace tfm {
#define GEN_PASS_DEF_TFMCPUSELECTVECTORSTRATEGY
#include "tfm/Codegen/CPU/Passes.h.inc"
} // namespace tfm
} // namespace mlir

using namespace mlir;
using namespace mlir::tfm;

/// The widest element type, in bits, among the operands of `op`.
static unsigned getWidestElementBits(linalg::LinalgOp op) {
  unsigned bits = 8;
  for (OpOperand &operand : op->getOpOperands()) {
    Type type = getElementTypeOrSelf(operand.get().getType());
    if (type.isIntOrFloat())
      bits = std::max(bits, type.getIntOrFloatBitWidth());
  }
  return bits;
}

/// The elements of `op`'s widest type that one vector register holds.
static int64_t getLanes(linalg::LinalgOp op, unsigned vectorWidthBits) {
  return std::max<int64_t>(1, vectorWidthBits / getWidestElementBits(op));
}

SmallVector<int64_t> tfm::getCpuVectorShape(linalg::LinalgOp op,
                                            unsigned vectorWidthBits) {
  unsigned numLoops = op.getNumLoops();
  SmallVector<int64_t> shape(numLoops, 1);
  if (numLoops == 0)
    return shape;
  int64_t lanes = getLanes(op, vectorWidthBits);
  int64_t innermost = op.getStaticLoopRanges().back();
  if (!ShapedType::isDynamic(innermost))
    lanes = std::min(lanes, std::max<int64_t>(innermost, 1));
  shape.back() = lanes;
  return shape;
}

/// The m, n and k dimensions of `op` if it is a matmul, batched or not, whose
/// right operand is row-major ([k, n]), so that a row of it is contiguous.
/// Several m dimensions are allowed (a matmul on a [B, S, K] input whose
/// leading dimensions were not collapsed): all but the innermost are then
/// iterated like batch dimensions.
static std::optional<linalg::ContractionDimensions>
getRowMajorMatmulDims(linalg::LinalgOp op) {
  if (!linalg::isaContractionOpInterface(op) || op.getNumDpsInputs() != 2)
    return std::nullopt;
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || dims->m.empty() || dims->n.size() != 1 ||
      dims->k.size() != 1)
    return std::nullopt;
  // The innermost result of the right operand's map must be n.
  AffineMap rhs = op.getMatchingIndexingMap(op.getDpsInputOperand(1));
  auto last = dyn_cast<AffineDimExpr>(rhs.getResults().back());
  if (!last || last.getPosition() != dims->n.front())
    return std::nullopt;
  while (dims->m.size() > 1) {
    dims->batch.push_back(dims->m.front());
    dims->m.erase(dims->m.begin());
  }
  return *dims;
}

/// The micro-kernel's strategy for a row-major matmul:
///
///   level 0  the parallel tiles: one batch element each if there are two
///            or more, else column panels of a few register tiles each if
///            they divide the columns into two or more, else none;
///   level 1  register tiles of Mr rows x Nr columns, Nr two vector
///            registers wide and Mr as many rows as leave registers for the
///            operands (8 of AVX-512's 32, 6 of AVX2's 16), column tiles
///            outermost so that a panel of the right operand stays in cache
///            while every row block uses it;
///   level 2  the reduction, one step at a time.
static LoweringConfigAttr
getContractionConfig(linalg::LinalgOp op,
                     const linalg::ContractionDimensions &dims,
                     unsigned vectorWidthBits) {
  MLIRContext *ctx = op.getContext();
  unsigned numLoops = op.getNumLoops();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  unsigned m = dims.m.front(), n = dims.n.front(), k = dims.k.front();
  int64_t rows = vectorWidthBits >= 512 ? 8 : 6;
  int64_t cols = 2 * getLanes(op, vectorWidthBits);

  SmallVector<int64_t> parallel(numLoops, 0);
  int64_t batches = 1;
  for (unsigned b : dims.batch)
    batches = ShapedType::isDynamic(ranges[b]) || batches < 0
                  ? -1
                  : batches * ranges[b];
  if (batches >= 2) {
    for (unsigned b : dims.batch)
      parallel[b] = 1;
  } else if (!ShapedType::isDynamic(ranges[n])) {
    for (int64_t panel : {4 * cols, 2 * cols, cols})
      if (ranges[n] % panel == 0 && ranges[n] / panel >= 2) {
        parallel[n] = panel;
        break;
      }
  }

  auto clampTo = [&](unsigned dim, int64_t size) {
    return ShapedType::isDynamic(ranges[dim])
               ? size
               : std::min(size, std::max<int64_t>(ranges[dim], 1));
  };
  SmallVector<int64_t> registers(numLoops, 0);
  for (unsigned b : dims.batch)
    registers[b] = 1;
  registers[m] = clampTo(m, rows);
  registers[n] = clampTo(n, cols);
  SmallVector<int64_t> order(dims.batch.begin(), dims.batch.end());
  order.append({n, m, k});

  SmallVector<int64_t> steps(numLoops, 0);
  steps[k] = 1;

  auto array = [&](ArrayRef<int64_t> values) {
    return DenseI64ArrayAttr::get(ctx, values);
  };
  return LoweringConfigAttr::get(
      ctx, {array(parallel), array(registers), array(steps)},
      {array({}), array(order), array({})});
}

/// One vector along the innermost loop, one iteration of every other.
static LoweringConfigAttr getVectorConfig(linalg::LinalgOp op,
                                          unsigned vectorWidthBits) {
  MLIRContext *ctx = op.getContext();
  SmallVector<int64_t> none(op.getNumLoops(), 0);
  return LoweringConfigAttr::get(
      ctx,
      {DenseI64ArrayAttr::get(ctx, none),
       DenseI64ArrayAttr::get(ctx, getCpuVectorShape(op, vectorWidthBits))},
      {});
}

namespace {
struct TfmCpuSelectVectorStrategyPass
    : tfm::impl::TfmCpuSelectVectorStrategyBase<
          TfmCpuSelectVectorStrategyPass> {
  using Base::Base;

  void runOnOperation() override {
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (!op.hasPureTensorSemantics() || op.getNumLoops() == 0 ||
          getLoweringConfig(op))
        return;
      if (std::optional<linalg::ContractionDimensions> dims =
              getRowMajorMatmulDims(op))
        setLoweringConfig(op,
                          getContractionConfig(op, *dims, vectorWidthBits));
      else
        setLoweringConfig(op, getVectorConfig(op, vectorWidthBits));
    });
  }
};
} // namespace
