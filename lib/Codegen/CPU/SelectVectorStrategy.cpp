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
//   accumulator tile out of that loop (tfm-cpu-hoist-invariant-subsets), so
//   that it stays in vector registers: one broadcast FMA per row and
//   register and step.
// - A matmul whose right operand tfm-cpu-pack-panels packed into panels
//   ([N / Nr, K, Nr], loops (m, nb, nr, k)) gets the same tiles, one panel
//   per register tile, so that a tile's reduction reads its panel as one
//   contiguous stream; its parallel tiles are groups of panels.
// - Every other op is tiled so that a tile covers one vector along its
//   innermost loop and one iteration of every other loop; a transpose's
//   tile is a square block of vectors. Large enough ops are first tiled
//   into parallel tiles, one iteration of each loop outside the vector.
// - An op inside a parallel loop already (the ops of an attention's query
//   tile) gets no parallel tiles of its own.
// - A matmul of a dynamic number of rows is split by rows into parts of
//   one register tile height each: the rows that Mr-row tiles cover, then a
//   tile of 8 rows, of 4, of 2, and single rows (a decoding step's), each
//   part skipped when empty, so that no register tile has a dynamic
//   remainder. Its bias and activation are split with it, into each part's
//   register tiles.
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/CPU/Passes.h"
#include "tfm/Codegen/CPU/Strategy.h"
#include "tfm/Codegen/Common/Strategy.h"

#include "tfm/Dialect/Tfm/IR/TfmOps.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/bit.h"

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
static int64_t getLanes(linalg::LinalgOp op, CpuTargetAttr target) {
  return target.getLanes(getWidestElementBits(op));
}

int64_t tfm::getRegisterTileRows(CpuTargetAttr target) {
  return std::min<int64_t>(12, (target.getVectorRegisters() - 4) / 2);
}

/// The loop that `op` reads innermost from one of its inputs when that is
/// not its innermost loop: the rows of a transpose. None if every input is
/// read along the innermost loop (or not at all), or if a loop is not
/// parallel. An input that does not vary along the innermost loop (a
/// LayerNorm's mean, one per row) is broadcast along the vector, not
/// transposed.
static std::optional<unsigned> getTransposedLoop(linalg::LinalgOp op) {
  unsigned numLoops = op.getNumLoops();
  if (numLoops < 2 || op.getNumReductionLoops() != 0)
    return std::nullopt;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    if (map.getNumResults() == 0 || !map.isProjectedPermutation() ||
        !map.isFunctionOfDim(numLoops - 1))
      continue;
    unsigned inner =
        cast<AffineDimExpr>(map.getResults().back()).getPosition();
    if (inner != numLoops - 1)
      return inner;
  }
  return std::nullopt;
}

/// The most vectors' worth of an innermost reduction that is vectorized as
/// one vector (getCpuVectorShape).
static constexpr int64_t kWholeReductionVectors = 4;

/// The most vectors' worth of an innermost reduction whose rows are
/// vectorized a block of rows at a time (getCpuVectorShape).
static constexpr int64_t kRowBlockVectors = 8;

SmallVector<int64_t> tfm::getCpuVectorShape(linalg::LinalgOp op,
                                            CpuTargetAttr target) {
  unsigned numLoops = op.getNumLoops();
  SmallVector<int64_t> shape(numLoops, 1);
  if (numLoops == 0)
    return shape;
  int64_t lanes = getLanes(op, target);
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  auto clamped = [&](unsigned dim) {
    return ShapedType::isDynamic(ranges[dim])
               ? lanes
               : std::min(lanes, std::max<int64_t>(ranges[dim], 1));
  };
  shape.back() = clamped(numLoops - 1);
  // An innermost reduction of a few whole vectors (a decoding step's
  // scores, each a dot product of the query with a 64-float key row) is
  // one vector of them all: its lanes are summed elementwise, then across
  // once, where a vector at a time would reduce across lanes at every
  // step.
  int64_t inner = ranges[numLoops - 1];
  bool innerReduction =
      linalg::isReductionIterator(op.getIteratorTypesArray().back()) &&
      !ShapedType::isDynamic(inner) && inner % lanes == 0;
  if (innerReduction && inner <= kWholeReductionVectors * lanes)
    shape.back() = inner;
  // Such a reduction in a parallel loop already (flash attention's row
  // maxima and sums over a key block: 64 keys a row), up to eight vectors
  // long, takes a vector's worth of rows at a time where the rows' results
  // are contiguous: tfm-cpu-reduce-row-blocks reduces them together.
  if (innerReduction && inner <= kRowBlockVectors * lanes && numLoops >= 2 &&
      isInParallelLoop(op)) {
    unsigned rows = numLoops - 2;
    AffineExpr row = getAffineDimExpr(rows, op.getContext());
    bool contiguous =
        llvm::all_of(op.getDpsInitsMutable(), [&](OpOperand &init) {
          AffineMap map = op.getMatchingIndexingMap(&init);
          return map.getNumResults() > 0 && map.getResults().back() == row;
        });
    if (contiguous &&
        linalg::isParallelIterator(op.getIteratorTypesArray()[rows]) &&
        !ShapedType::isDynamic(ranges[rows]) && ranges[rows] % lanes == 0) {
      shape[rows] = lanes;
      shape.back() = inner;
    }
  }
  // A transpose reads square blocks, one vector per row, and transposes
  // them in registers, instead of gathering a vector element by element.
  if (std::optional<unsigned> rows = getTransposedLoop(op))
    shape[*rows] = clamped(*rows);
  return shape;
}

std::optional<linalg::ContractionDimensions>
tfm::getRowMajorMatmulDims(linalg::LinalgOp op) {
  if (!linalg::isaContractionOpInterface(op) || op.getNumDpsInputs() != 2)
    return std::nullopt;
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || dims->m.empty() || dims->n.empty() ||
      dims->n.size() > 2 || dims->k.size() != 1)
    return std::nullopt;
  // The innermost result of the right operand's map must be the (inner) n.
  AffineMap rhs = op.getMatchingIndexingMap(op.getDpsInputOperand(1));
  auto last = dyn_cast<AffineDimExpr>(rhs.getResults().back());
  if (!last || last.getPosition() != dims->n.back())
    return std::nullopt;
  // Packed panels ([N / Nr, K, Nr]): the panel index leads the right
  // operand, and the result is [..., M, N / Nr, Nr].
  if (dims->n.size() == 2) {
    AffineMap result = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
    unsigned rank = result.getNumResults();
    if (rhs.getNumResults() != 3 || rank < 3 ||
        result.getResult(rank - 1) != rhs.getResult(2) ||
        result.getResult(rank - 2) != rhs.getResult(0) ||
        rhs.getResult(0) != getAffineDimExpr(dims->n.front(), op.getContext()))
      return std::nullopt;
  }
  while (dims->m.size() > 1) {
    dims->batch.push_back(dims->m.front());
    dims->m.erase(dims->m.begin());
  }
  return *dims;
}

/// The reduction block of the micro-kernel: a register tile's column strip
/// of the right operand, kKc x Nr (32 KiB of f32 with AVX2, 64 KiB with
/// AVX-512), streams from L2 while every row tile of the cache block uses
/// it. Each block boundary costs more than its accumulators' load and store:
/// a product with blocks gets its epilogue as a pass of its own
/// (hasCacheBlocks), and a reduction of 768 (a d_model's) in one block rather
/// than three of 256 ran ViT-B/16's products 7-13% faster on a Zen 5
/// (AVX-512) core, SGEMM 2048^3 from 84% to 87% of the FMA peak.
static constexpr int64_t kKc = 512;

bool tfm::hasCacheBlocks(linalg::LinalgOp op,
                         const linalg::ContractionDimensions &dims) {
  int64_t steps = op.getStaticLoopRanges()[dims.k.front()];
  return ShapedType::isDynamic(steps) || 2 * steps > 3 * kKc;
}

/// The row block: kMc rows of the left operand's reduction block (at most
/// 126 x 512 f32, 252 KiB) stay in L2 while every column strip of the
/// parallel panel uses them.
static constexpr int64_t kMcBytes = 256 * 1024;

/// The register tiles' columns (panels) that one parallel tile of a matmul
/// of `panels` of them takes: one to four, so that the tiles share out
/// evenly between 4 or, failing that, 2 threads (OpenMP gives each thread
/// a block of whole tiles: 3 tiles on 2 threads leave one idle a third of
/// the time), else any that make two tiles or more; 0 for none.
static int64_t getPanelsPerParallelTile(int64_t panels) {
  for (int64_t threads : {4, 2})
    for (int64_t group : {4, 2, 1})
      if (panels % group == 0 && (panels / group) % threads == 0)
        return group;
  for (int64_t group : {4, 2, 1})
    if (panels % group == 0 && panels / group >= 2)
      return group;
  return 0;
}

/// Row blocks that a matmul's parallel tiles are also cut into when its
/// column tiles alone would not share out evenly between threads.
static constexpr int64_t kRowBlocks = 4;

/// Whether `tiles` parallel tiles share out evenly between 2 or 4 threads
/// (OpenMP gives each thread a block of whole tiles).
static bool sharesOutEvenly(int64_t tiles) {
  return tiles >= 4 && tiles % 2 == 0;
}

/// The rows of one of kRowBlocks parallel row blocks of a matmul of `rows`
/// rows: a quarter of them if that is whole (the blocks then need no tile of
/// their own for the rows left over, which the tiling would split off as a
/// separate loop), else whole multiples of `unit`.
static int64_t getRowBlock(int64_t rows, int64_t unit) {
  if (rows % kRowBlocks == 0)
    return rows / kRowBlocks;
  return llvm::alignTo(llvm::divideCeil(rows, kRowBlocks), unit);
}

/// The reduction steps ahead that a product prefetches its packed panels:
/// 16 KiB of an AVX-512 float32 panel (32 columns), 8 KiB of AVX2's (16).
/// Measured on a Zen 5 with both ISAs' code: a few-row part (a decoding
/// step's 8 rows x 32 columns), whose panels stream once from memory, read
/// those of a GPT-2-size layer at 41-45 GB/s without prefetches, 56-75 with
/// them 8 or 16 KiB ahead; nearer (0.5-4 KiB) is no better than none. Mr
/// rows, whose row tiles each read the parallel tile's panels again from
/// L2, gain less but still gain: the S=128 encoder layer of bench/ort.py
/// (128 x 768 against 768 x 3072, twelve 12-row tiles a panel) 5.4 -> 5.1
/// ms at two threads, 10.4 -> 9.8 at one, its products' loads of the panel
/// the loop's hottest instructions without (perf annotate); 64 steps ahead
/// the same as 128; ViT-Ti/16, the S=384 encoder and AVX2's code 2-4%
/// faster, SGEMM 2048^3 (cache blocks of kKc steps) unchanged.
static constexpr int64_t kPrefetchSteps = 128;

/// The FMAs per 64-byte line of the panel from which prefetching pays: the
/// loop then holds enough instructions per line that the out-of-order
/// window ends before the hardware's prefetches run far enough ahead.
/// Measured (float32, the same machine): AVX-512 tiles of 1 or 2 rows (1-2
/// FMAs a line) are slower with prefetches, 4 rows (4) the same, 6 and 8
/// rows 1.4-1.7x faster; AVX2's of 2, 4 and 6 rows (4-12) 1.9-2.3x.
static constexpr int64_t kPrefetchFmasPerLine = 4;

/// The vector FMAs that a register tile of `rows` x `cols` does for each
/// 64-byte line it reads of the right operand's panel.
static int64_t getFmasPerPanelLine(linalg::LinalgOp op, int64_t rows,
                                   int64_t cols, int64_t lanes) {
  Type rhs = getElementTypeOrSelf(op.getDpsInputOperand(1)->get().getType());
  if (!rhs.isIntOrFloat())
    return 0;
  int64_t bytesPerStep = cols * rhs.getIntOrFloatBitWidth() / 8;
  int64_t fmasPerStep = rows * (cols / lanes);
  return fmasPerStep * kCacheLineBytes / std::max<int64_t>(bytesPerStep, 1);
}

/// The bytes ahead that a stream along a cache's keys prefetches
/// (getStreamPrefetchDistance), as far as a few-row product's panels.
static constexpr int64_t kStreamPrefetchBytes = kPrefetchSteps * 128;

/// The fewest contiguous bytes a step must read of an operand for
/// getStreamPrefetchDistance to prefetch it: four lines, a key or value
/// row of 64 floats. A step of one or two lines does too few instructions
/// a line for the prefetches to pay (kPrefetchFmasPerLine).
static constexpr int64_t kStreamRowBytes = 4 * kCacheLineBytes;

/// The prefetch distance, in steps, of an op in a parallel loop already
/// whose innermost tiling level steps one at a time along a loop of dynamic
/// extent, each step reading a contiguous row of at least kStreamRowBytes
/// of an operand: a decoding step's attention, whose scores read one key
/// row a step and whose product with the values one value row a step, each
/// thread a batch x head after another. Such a stream is a few pages long
/// (33 KB at 128 positions), and the hardware's prefetcher starts each page
/// afresh; measured on the same Zen 5 at two threads, the attention of a
/// GPT-2-size step at batch 8 and 1024 positions read its caches at
/// 50 GB/s without prefetches and 53 with them (the step 22.2 -> 21.2 ms).
/// 0 for every other op. `stepTiles` are the sizes of the tile that a step
/// computes (0: the whole loop).
static int64_t getStreamPrefetchDistance(linalg::LinalgOp op,
                                         ArrayRef<int64_t> stepTiles) {
  if (!isInParallelLoop(op))
    return 0;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t distance = 0;
  for (OpOperand *operand : op.getDpsInputOperands()) {
    auto type = dyn_cast<ShapedType>(operand->get().getType());
    AffineMap map = op.getMatchingIndexingMap(operand);
    if (!type || !type.getElementType().isIntOrFloat() ||
        map.getNumResults() < 2 || !map.isProjectedPermutation())
      continue;
    // The operand's rows along a dynamic loop stepped one at a time.
    auto rowDim = cast<AffineDimExpr>(
        map.getResult(map.getNumResults() - 2)).getPosition();
    auto colDim = cast<AffineDimExpr>(map.getResults().back()).getPosition();
    if (!ShapedType::isDynamic(ranges[rowDim]) || stepTiles[rowDim] != 1 ||
        ShapedType::isDynamic(ranges[colDim]))
      continue;
    int64_t columns = stepTiles[colDim] ? stepTiles[colDim] : ranges[colDim];
    int64_t rowBytes = columns * type.getElementTypeBitWidth() / 8;
    if (rowBytes < kStreamRowBytes)
      continue;
    distance = std::max(distance, kStreamPrefetchBytes / rowBytes);
  }
  return distance;
}

/// The micro-kernel's strategy for a row-major matmul:
///
///   parallel   the parallel tiles: one batch element each if there are two
///              or more (or a dynamic number of them), else column panels
///              of one to four register tiles (packed panels) each, as
///              getPanelsPerParallelTile chooses
///              (or, if Nr does not divide the columns, panels of four tiles
///              and a last one of the columns left over), else (or if `op`
///              is `nested` in a parallel loop already) none. If those
///              column tiles are too few or too odd to share out evenly
///              between threads (Swin's first stage: 96 and 288 columns, 3
///              and 9 panels) and the rows are many, the rows are cut into
///              kRowBlocks blocks too (getRowBlock);
///   cache      cache blocks, for a reduction longer than 1.5 kKc only, and
///              not in the parts of fewer rows than Mr (the level is left
///              out otherwise): reduction blocks of kKc steps,
///              and row blocks whose part of the left operand fills about
///              half of L2 if there are more rows. In a column panel the row
///              blocks are outermost, so that a row block's accumulators stay
///              in L2 across the reduction blocks; without panels the
///              reduction blocks are;
///   vector     register tiles of Mr rows x Nr columns, Nr two vector
///              registers wide and Mr as many rows as leave registers for the
///              operands (getRegisterTileRows: 12 of AVX-512's 32, 6 of
///              AVX2's 16). In a column panel (at most four tiles wide) the
///              row tiles are outermost:
///              their rows of the left operand stay in L1 while the panel's
///              column tiles use them, and consecutive accumulator tiles lie
///              along the same rows of the result, which the hardware
///              prefetches. Without panels the column tiles are outermost,
///              so that a strip of the right operand stays in L1 while every
///              row tile uses it. A product of fewer rows than Mr, known
///              statically, without panels or parallel columns gets a wider
///              tile (up to 8 vectors: a value row of a decoding step);
///   reduction  the reduction, one step at a time; with packed panels,
///              prefetching the panel kPrefetchSteps steps ahead where the
///              tile does enough FMAs per line of it (kPrefetchFmasPerLine):
///              Mr rows' tiles and a few-row part's of 4 rows or more.
///
/// With `registerRows`, the register tiles are that many rows high rather
/// than the target's Mr: the parts of a matmul with a dynamic number of
/// rows that cover the rows Mr leaves over (splitRowsByTileHeight).
static LoweringConfigAttr
getContractionConfig(linalg::LinalgOp op,
                     const linalg::ContractionDimensions &dims,
                     CpuTargetAttr target, bool nested,
                     int64_t registerRows = 0) {
  MLIRContext *ctx = op.getContext();
  unsigned numLoops = op.getNumLoops();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  unsigned m = dims.m.front(), n = dims.n.back(), k = dims.k.front();
  // With packed panels, the panel loop: the register tiles are one panel
  // wide, and the parallel tiles whole panels.
  std::optional<unsigned> panel;
  if (dims.n.size() == 2)
    panel = dims.n.front();
  int64_t rows = registerRows ? registerRows : getRegisterTileRows(target);
  int64_t lanes = getLanes(op, target);
  int64_t cols = 2 * lanes;

  SmallVector<int64_t> parallel(numLoops, 0);
  // The number of batches: -1 if dynamic. A dynamic batch of matrices that
  // each operand has (a decoding step's batch x heads, each one query row
  // against its cache) goes parallel as two or more static ones do: its
  // columns split between threads would have each read part of every row
  // of the right operand, a row's cache lines fetched by both.
  int64_t batches = 1;
  for (unsigned b : dims.batch)
    batches = ShapedType::isDynamic(ranges[b]) || batches < 0
                  ? -1
                  : batches * ranges[b];
  AffineMap rhsMap = op.getMatchingIndexingMap(op.getDpsInputOperand(1));
  bool dynamicBatches =
      batches < 0 && llvm::all_of(dims.batch, [&](unsigned b) {
        return rhsMap.isFunctionOfDim(b);
      });
  if (nested) {
    // The enclosing parallel loop shares the work out already.
  } else if (batches >= 2 || dynamicBatches) {
    for (unsigned b : dims.batch)
      parallel[b] = 1;
  } else if (panel) {
    if (!ShapedType::isDynamic(ranges[*panel]))
      parallel[*panel] = getPanelsPerParallelTile(ranges[*panel]);
    if (!parallel[*panel] && !ShapedType::isDynamic(ranges[*panel]) &&
        ranges[*panel] >= 8)
      parallel[*panel] = 4;
  } else if (!ShapedType::isDynamic(ranges[n])) {
    if (ranges[n] % cols == 0)
      parallel[n] = cols * getPanelsPerParallelTile(ranges[n] / cols);
    // Columns that no panel divides (a vocabulary of 50257, an LM head's)
    // still go parallel: the widest panels, and the columns they leave
    // over as a tile of their own (tileLevel splits them off).
    if (!parallel[n] && ranges[n] >= 2 * 4 * cols)
      parallel[n] = 4 * cols;
  }

  SmallVector<int64_t> cache(numLoops, 0);
  // A part of fewer rows than Mr (splitRowsByTileHeight's: a decoding
  // step's few sequences) is one register tile high: no tile of rows reuses
  // a reduction block's strip of the panel, so there are no cache blocks;
  // each panel streams once from memory and the accumulators stay in
  // registers from the first step to the last.
  bool fewRows = registerRows && registerRows < getRegisterTileRows(target);
  if (!fewRows && hasCacheBlocks(op, dims)) {
    cache[k] = kKc;
    int64_t elementBytes = getWidestElementBits(op) / 8;
    int64_t mc = kMcBytes / (kKc * elementBytes) / rows * rows;
    if (ShapedType::isDynamic(ranges[m]) || ranges[m] > mc)
      cache[m] = mc;
  }
  // Rows in parallel too where the column tiles alone leave threads idle.
  bool sharesColumns = !nested && batches < 2 && !dynamicBatches;
  if (sharesColumns && !ShapedType::isDynamic(ranges[m])) {
    unsigned columns = panel.value_or(n);
    int64_t columnTiles =
        parallel[columns] == 0 || ShapedType::isDynamic(ranges[columns])
            ? 1
            : llvm::divideCeil(ranges[columns], parallel[columns]);
    int64_t rowUnit = cache[m] ? cache[m] : rows;
    if (!sharesOutEvenly(columnTiles) &&
        ranges[m] >= 2 * kRowBlocks * rowUnit)
      parallel[m] = getRowBlock(ranges[m], rowUnit);
  }
  // In a column panel, a row block's accumulators (kMc rows by the panel)
  // stay in L2 while the reduction blocks go by; without panels they would
  // not fit, and the reduction blocks go outermost.
  bool panels = parallel[panel.value_or(n)] != 0;
  SmallVector<int64_t> cacheOrder(dims.batch.begin(), dims.batch.end());
  if (panel)
    cacheOrder.push_back(*panel);
  if (panels)
    cacheOrder.append({n, m, k});
  else
    cacheOrder.append({n, k, m});

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
  // Fewer rows than Mr, known statically, in a product whose columns are
  // not cut into parallel tiles (a decoding step's weights · values, one
  // row a batch): the register tile is as wide as the accumulators that
  // Mr x Nr would take allow (at most 8 vectors), so that each row of the
  // right operand is read once, whole, rather than once per 2-vector
  // column tile.
  if (!panel && parallel[n] == 0 && !ShapedType::isDynamic(ranges[m]) &&
      ranges[m] < rows) {
    int64_t vectors = llvm::bit_floor(static_cast<uint64_t>(std::min<int64_t>(
        8, 2 * rows / std::max<int64_t>(ranges[m], 1))));
    registers[n] = clampTo(n, vectors * lanes);
  }
  if (panel)
    registers[*panel] = 1;
  SmallVector<int64_t> order(dims.batch.begin(), dims.batch.end());
  if (panels && panel)
    order.append({m, *panel, n, k});
  else if (panels)
    order.append({m, n, k});
  else if (panel)
    order.append({*panel, n, m, k});
  else
    order.append({n, m, k});

  SmallVector<int64_t> steps(numLoops, 0);
  steps[k] = 1;

  int64_t prefetch = 0;
  if (panel && getFmasPerPanelLine(op, registers[m], registers[n], lanes) >=
                   kPrefetchFmasPerLine)
    prefetch = kPrefetchSteps;
  SmallVector<int64_t> step(registers);
  step[k] = 1;
  prefetch = std::max(prefetch, getStreamPrefetchDistance(op, step));

  if (llvm::all_of(cache, [](int64_t size) { return size == 0; }))
    return LoweringConfigAttr::get(
        ctx,
        {TilingLevel::parallel, TilingLevel::vector, TilingLevel::reduction},
        {parallel, registers, steps}, {{}, order, {}}, prefetch);
  return LoweringConfigAttr::get(ctx,
                                 {TilingLevel::parallel, TilingLevel::cache,
                                  TilingLevel::vector, TilingLevel::reduction},
                                 {parallel, cache, registers, steps},
                                 {{}, cacheOrder, order, {}}, prefetch);
}

/// The parallel tiles of an op that is not a micro-kernel contraction: one
/// iteration of each parallel loop outside the vector, when there are
/// enough iterations to share. OpenMP hands the threads blocks of these
/// tiles.
static SmallVector<int64_t> getParallelTiles(linalg::LinalgOp op,
                                             ArrayRef<int64_t> vectorShape) {
  unsigned numLoops = op.getNumLoops();
  SmallVector<int64_t> parallel(numLoops, 0);
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  int64_t iterations = 1, tiles = 1;
  bool dynamic = false;
  for (unsigned i = 0; i < numLoops; ++i) {
    if (ShapedType::isDynamic(ranges[i])) {
      dynamic = true;
      continue;
    }
    iterations *= ranges[i];
  }
  for (unsigned i = 0; i + 1 < numLoops; ++i) {
    if (iterators[i] != utils::IteratorType::parallel || vectorShape[i] != 1)
      continue;
    parallel[i] = 1;
    tiles = ShapedType::isDynamic(ranges[i]) ? 2 : tiles * ranges[i];
  }
  if (tiles < 2 || (!dynamic && iterations < kMinParallelIterations))
    return SmallVector<int64_t>(numLoops, 0);
  return parallel;
}

/// Parallel tiles (unless `nested` in a parallel loop already), then one
/// vector along the innermost loop (and a transpose's rows), one iteration
/// of every other loop.
static LoweringConfigAttr getVectorConfig(linalg::LinalgOp op,
                                          CpuTargetAttr target,
                                          bool nested) {
  MLIRContext *ctx = op.getContext();
  SmallVector<int64_t> vector = getCpuVectorShape(op, target);
  SmallVector<int64_t> parallel =
      nested ? SmallVector<int64_t>(op.getNumLoops(), 0)
             : getParallelTiles(op, vector);
  return LoweringConfigAttr::get(
      ctx, {TilingLevel::parallel, TilingLevel::vector}, {parallel, vector},
      /*interchange=*/{}, getStreamPrefetchDistance(op, vector));
}

bool tfm::isInParallelLoop(Operation *op) {
  return op->getParentOfType<scf::ForallOp>() ||
         op->getParentOfType<scf::ParallelOp>();
}

/// The register tile heights below the target's Mr that a matmul of a
/// dynamic number of rows also runs with: the rows that Mr leaves over.
static constexpr int64_t kFewRowHeights[] = {8, 4, 2, 1};

/// The destination of the result of `ops`, the ops of one part of a split
/// product in order (its epilogue's init, the product, its epilogue's
/// reader): the last op's, or, where an op of the part computes that (the
/// product's init), that op's.
static Value getPartDestination(ArrayRef<Operation *> ops) {
  Value destination =
      cast<DestinationStyleOpInterface>(ops.back()).getDpsInits()[0];
  while (Operation *def = destination.getDefiningOp()) {
    if (!llvm::is_contained(ops, def))
      break;
    destination = cast<DestinationStyleOpInterface>(def).getDpsInits()[0];
  }
  return destination;
}

/// Wraps `ops`, the ops of one part of a split product in order (its
/// epilogue's init, the product, its epilogue's reader), in `scf.if rows >
/// 0` and returns the part's result: a part that may be empty starts no
/// parallel loop then. The empty case yields the part's destination.
static Value skipWhenEmpty(RewriterBase &rewriter, ArrayRef<Operation *> ops,
                           OpFoldResult rows) {
  Operation *last = ops.back();
  if (getConstantIntValue(rows))
    return last->getResult(0);
  Location loc = last->getLoc();
  rewriter.setInsertionPoint(last);
  Value any = arith::CmpIOp::create(
      rewriter, loc, arith::CmpIPredicate::ugt,
      getValueOrCreateConstantIndexOp(rewriter, loc, rows),
      arith::ConstantIndexOp::create(rewriter, loc, 0));
  auto branch = scf::IfOp::create(rewriter, loc, last->getResultTypes(), any,
                                  /*addThenBlock=*/true,
                                  /*addElseBlock=*/true);
  rewriter.setInsertionPointToStart(branch.elseBlock());
  scf::YieldOp::create(rewriter, loc, getPartDestination(ops));
  for (Operation *op : ops)
    rewriter.moveOpBefore(op, branch.thenBlock(), branch.thenBlock()->end());
  rewriter.setInsertionPointToEnd(branch.thenBlock());
  scf::YieldOp::create(rewriter, loc, last->getResults());
  return branch.getResult(0);
}

/// Whether `op` is an elementwise op in the block of `product` that a
/// product's register tiles can take in: every loop parallel, its result
/// indexed by its loops in order, a config of its own to fall back on.
static bool isEpilogueOp(Operation *op, linalg::LinalgOp product) {
  auto generic = dyn_cast_or_null<linalg::GenericOp>(op);
  return generic && generic->getBlock() == product->getBlock() &&
         generic->getNumResults() == 1 && getLoweringConfig(generic) &&
         generic.getNumLoops() == generic.getNumParallelLoops() &&
         generic.getIndexingMapsArray().back().isIdentity() &&
         !getTransposedLoop(generic);
}

/// The elementwise ops of `product`'s epilogue that its register tiles can
/// compute: the op that computes its accumulator (bias + residual, which
/// tfm-fold-epilogue-into-accumulator made its initial value; a flash
/// attention's running accumulator times its correction; or the fill of
/// zeros that a plain product starts from), or null, and the op that reads
/// its result (the activation; the scale of attention's scores), or null.
static std::pair<Operation *, linalg::LinalgOp>
getEpilogue(linalg::LinalgOp product) {
  if (product->getNumResults() != 1)
    return {};
  Operation *init = product.getDpsInits()[0].getDefiningOp();
  auto fill = dyn_cast_or_null<linalg::FillOp>(init);
  bool fillsTile = fill && fill->getBlock() == product->getBlock() &&
                   getLoweringConfig(fill);
  if (!(isEpilogueOp(init, product) || fillsTile) || !init->hasOneUse())
    init = nullptr;
  Value result = product->getResult(0);
  if (!result.hasOneUse())
    return {init, nullptr};
  OpOperand &use = *result.getUses().begin();
  auto reader = dyn_cast<linalg::LinalgOp>(use.getOwner());
  if (!reader || !isEpilogueOp(reader, product) ||
      !reader.getMatchingIndexingMap(&use).isIdentity() ||
      !reader.isDpsInput(&use))
    return {init, nullptr};
  return {init, reader};
}

/// Computes the producer of `operand`, the slice of a whole op's result
/// that a part of a split product reads, for that slice only, and returns
/// the op that does, or null if `operand` is not such a slice.
static Operation *fuseProducerOfSlice(RewriterBase &rewriter,
                                      OpOperand &operand) {
  auto slice = operand.get().getDefiningOp<tensor::ExtractSliceOp>();
  if (!slice)
    return nullptr;
  auto producer = dyn_cast<OpResult>(slice.getSource());
  if (!producer || !isa<TilingInterface>(producer.getOwner()))
    return nullptr;
  rewriter.setInsertionPoint(slice);
  FailureOr<TilingResult> tiled =
      tensor::replaceExtractSliceWithTiledProducer(rewriter, slice, producer);
  if (failed(tiled) || tiled->tiledOps.size() != 1)
    return nullptr;
  rewriter.replaceOp(slice, tiled->tiledValues);
  return tiled->tiledOps.front();
}

/// Splits `op`, a contraction of a dynamic number of rows, into parts by
/// rows, each with register tiles of one height and no remainder: the
/// rows that tiles of the target's Mr cover, then at most one tile of 8
/// rows, one of 4, one of 2, and the last row alone (AVX-512: 12, 8, 4, 2,
/// 1; AVX2: 6, 4, 2, 1), each part skipped when it has no rows. A decoding
/// step (one token per sequence) then streams the weights in single-row
/// tiles; a few sequences read each weight panel once (8 with AVX-512) or
/// twice (8 with AVX2: 6 + 2, where 6 + 1 + 1 read it three times); a
/// prefill of 128 tokens is ten tiles of 12 rows and one of 8. Left whole,
/// the rows that Mr does not divide would be its tiles' dynamic remainder,
/// computed a row at a time through memory at every reduction step: a
/// product of 13 rows took twice as long as one of 12.
///
/// The product's epilogue (getEpilogue) is split with it: each part
/// computes its rows' bias and activation in its tiles, where the whole
/// ops would be two more passes (and kernels) over the result, which at a
/// decoding step's few rows cost about what the part's weights do.
static void splitRowsByTileHeight(linalg::LinalgOp op,
                                  const linalg::ContractionDimensions &dims,
                                  CpuTargetAttr target) {
  IRRewriter rewriter(op.getContext());
  unsigned m = dims.m.front();
  SmallVector<int64_t, 4> heights{getRegisterTileRows(target)};
  for (int64_t height : kFewRowHeights)
    if (height < heights.front())
      heights.push_back(height);
  auto [epilogueInit, epilogueReader] = getEpilogue(op);
  Operation *init = epilogueInit;
  linalg::LinalgOp reader = epilogueReader;
  rewriter.setInsertionPoint(op);
  Location loc = op.getLoc();
  SmallVector<Range> productDomain =
      cast<TilingInterface>(op.getOperation()).getIterationDomain(rewriter);
  // The rows (from the left operand's shape).
  OpFoldResult numRows = productDomain[m].size;
  // The product's whole result, by its loops.
  SmallVector<OpFoldResult> zeros, productSizes, resultOffsets, resultSizes;
  for (const Range &range : productDomain) {
    zeros.push_back(range.offset);
    productSizes.push_back(range.size);
  }
  if (failed(cast<TilingInterface>(op.getOperation())
                 .getResultTilePosition(rewriter, 0, zeros, productSizes,
                                        resultOffsets, resultSizes))) {
    reader = nullptr;
    init = nullptr;
  }
  // If the reader is split with the product, the rows are its loop `rows`
  // (its loops are the product's result dimensions in order), and its
  // other loops must be static: their extents would be read off the
  // product's whole result.
  unsigned rows = m;
  unsigned readerOperand = 0;
  if (reader) {
    std::optional<unsigned> pos =
        op.getIndexingMapMatchingResult(op->getResult(0))
            .getResultPosition(rewriter.getAffineDimExpr(m));
    SmallVector<int64_t> ranges = reader.getStaticLoopRanges();
    if (pos && llvm::all_of(llvm::enumerate(ranges), [&](auto range) {
          return range.index() == *pos || !ShapedType::isDynamic(range.value());
        })) {
      rows = *pos;
      readerOperand = op->getResult(0).getUses().begin()->getOperandNumber();
    } else {
      reader = nullptr;
    }
  }
  // The ops of the part whose last op is `last`, in order: the product
  // and its init computed for the slices of them that `last` reads.
  auto getPartOps = [&](Operation *last) {
    SmallVector<Operation *, 3> ops{last};
    Operation *product = last;
    if (reader) {
      product =
          fuseProducerOfSlice(rewriter, last->getOpOperand(readerOperand));
      if (!product)
        return ops;
      ops.insert(ops.begin(), product);
    }
    auto productDps = cast<DestinationStyleOpInterface>(product);
    if (init)
      if (Operation *initPart =
              fuseProducerOfSlice(rewriter, *productDps.getDpsInitOperand(0)))
        ops.insert(ops.begin(), initPart);
    return ops;
  };
  auto configure = [&](ArrayRef<Operation *> ops, int64_t height) {
    for (Operation *part : ops)
      if (auto product = dyn_cast<linalg::LinalgOp>(part);
          product && getRowMajorMatmulDims(product))
        setLoweringConfig(product, getContractionConfig(product, dims, target,
                                                        /*nested=*/false,
                                                        height));
  };

  // Each part is the last op (the reader, or the product) tiled to its
  // rows, inserted into the whole result: the destination of the part's
  // first op (the reader's; the product's init's, which the parts compute;
  // or the product's). Each part's destination is a slice of the result
  // of the parts before it, so that bufferization writes them all in place.
  auto last = cast<TilingInterface>(reader ? reader.getOperation()
                                           : op.getOperation());
  SmallVector<OpFoldResult> offsets = zeros, sizes = productSizes;
  if (reader) {
    offsets = SmallVector<OpFoldResult>(resultSizes.size(),
                                        rewriter.getIndexAttr(0));
    sizes = resultSizes;
  }
  Value whole = last->getResult(0);
  Operation *first = reader ? reader.getOperation()
                            : (init ? init : op.getOperation());
  Value result = cast<DestinationStyleOpInterface>(first).getDpsInits()[0];
  Value base = result;
  AffineExpr d0, d1;
  bindDims(rewriter.getContext(), d0, d1);
  OpFoldResult offset = rewriter.getIndexAttr(0);
  for (int64_t height : heights) {
    // The rows past `offset` that tiles of `height` cover exactly (all of
    // them for the last part), as an affine map of the rows, so that the
    // tiles leave no remainder to peel.
    rewriter.setInsertionPoint(last);
    OpFoldResult size = affine::makeComposedFoldedAffineApply(
        rewriter, loc,
        height == 1 ? d0 - d1 : (d0 - d1).floorDiv(height) * height,
        {numRows, offset});
    offsets[rows] = offset;
    sizes[rows] = size;
    FailureOr<TilingResult> tiled =
        last.getTiledImplementation(rewriter, offsets, sizes);
    SmallVector<OpFoldResult> partOffsets, partSizes;
    if (failed(tiled) || tiled->tiledOps.size() != 1 ||
        failed(last.getResultTilePosition(rewriter, 0, offsets, sizes,
                                          partOffsets, partSizes))) {
      // Not expected of a linalg op; the product stays whole.
      configure({op}, heights.front());
      return;
    }
    SmallVector<Operation *, 3> ops = getPartOps(tiled->tiledOps.front());
    if (auto slice =
            getPartDestination(ops).getDefiningOp<tensor::ExtractSliceOp>())
      if (slice.getSource() == base)
        rewriter.modifyOpInPlace(
            slice, [&] { slice.getSourceMutable().assign(result); });
    configure(ops, height);
    Value part = skipWhenEmpty(rewriter, ops, size);
    rewriter.setInsertionPoint(last);
    SmallVector<OpFoldResult> strides(partOffsets.size(),
                                      rewriter.getIndexAttr(1));
    result = tensor::InsertSliceOp::create(rewriter, loc, part, result,
                                           partOffsets, partSizes, strides);
    offset = affine::makeComposedFoldedAffineApply(rewriter, loc, d0 + d1,
                                                   {offset, size});
  }
  rewriter.replaceAllUsesWith(whole, result);
  // The whole ops, which the parts took in (each computes them for its
  // rows), with the extents of their results that tiling read and left
  // unused; a product that a part still reads whole (not expected) runs
  // whole in Mr-row tiles.
  auto eraseIfUnused = [&](Operation *wholeOp) {
    for (Operation *user : llvm::make_early_inc_range(wholeOp->getUsers()))
      if (isa<tensor::DimOp>(user) && user->use_empty())
        rewriter.eraseOp(user);
    if (!wholeOp->use_empty())
      return false;
    rewriter.eraseOp(wholeOp);
    return true;
  };
  rewriter.eraseOp(last);
  if (reader && !eraseIfUnused(op))
    configure({op}, heights.front());
  if (init)
    (void)eraseIfUnused(init);
}

/// Marks the ops of `product`'s epilogue (getEpilogue) to be computed in
/// its register tiles: the op that computes its accumulator with
/// tfm.fuse_into_consumer, the op that reads its result with
/// tfm.fuse_into_producer. A register tile then starts from the bias it
/// loads (or from a zero vector) and stores the activation of its sums:
/// neither op is a pass over memory of its own. Products in a parallel
/// loop already (a flash attention's, in its query tile) are marked too,
/// when their extents are static. Only products whose reduction is not cut
/// into cache blocks: with blocks, a tile's sums are finished only after
/// the last block, outside the register tiles.
static void markEpilogue(linalg::LinalgOp product) {
  LoweringConfigAttr config = getLoweringConfig(product);
  if (!config ||
      !config.hasLevels({TilingLevel::parallel, TilingLevel::vector,
                         TilingLevel::reduction}) ||
      product->getNumResults() != 1)
    return;
  // In a parallel loop, a product of dynamic extent (a flash attention's
  // block of a dynamic number of keys) has tiles of a size only known at
  // run time, which an elementwise op taken in could not be vectorized on.
  if (isInParallelLoop(product) &&
      llvm::any_of(product.getStaticLoopRanges(), ShapedType::isDynamic))
    return;
  UnitAttr unit = UnitAttr::get(product.getContext());
  auto [init, reader] = getEpilogue(product);
  if (init)
    init->setAttr(LoweringConfigAttr::getFuseIntoConsumerAttrName(), unit);
  if (reader)
    reader->setAttr(LoweringConfigAttr::getFuseIntoProducerAttrName(), unit);
}

/// Marks tfm.fuse_into_consumer the copy that packs `product`'s right
/// operand at run time (tfm-cpu-pack-panels' transpose into panels), and
/// the fill of its accumulator, where each of the product's parallel tiles
/// reads a part of them that no other tile reads: every loop tiled at the
/// parallel level indexes the operand. Each tile then packs its own panels
/// (into a buffer of its own) and zeroes its own columns right before its
/// cache blocks, rather than two passes over the whole before the product. For
/// SGEMM 2048^3 that is two kernels fewer and a peak RSS of 88 MB instead of
/// 103 (the 16 MB of packed panels become 1 MB a tile); the time is the
/// same (12 interleaved runs at one and two threads on a Zen 5: median
/// ratios 1.000 and 1.001), the copy's work being the same wherever it
/// runs. Only products with cache blocks: one without takes its fill into
/// its register tiles (markEpilogue).
static void markRuntimePacking(linalg::LinalgOp product) {
  LoweringConfigAttr config = getLoweringConfig(product);
  if (!config || !config.findLevel(TilingLevel::cache) ||
      isInParallelLoop(product))
    return;
  ArrayRef<int64_t> parallel = config.getTileSizes(TilingLevel::parallel);
  UnitAttr unit = UnitAttr::get(product.getContext());
  for (OpOperand *operand :
       {product.getDpsInputOperand(1), product.getDpsInitOperand(0)}) {
    auto producer = operand->get().getDefiningOp<linalg::LinalgOp>();
    if (!producer || !producer->hasOneUse() || !getLoweringConfig(producer) ||
        producer->getBlock() != product->getBlock() ||
        !(isa<linalg::TransposeOp, linalg::FillOp>(producer)))
      continue;
    AffineMap map = product.getMatchingIndexingMap(operand);
    bool disjoint =
        llvm::all_of(llvm::seq<unsigned>(0, parallel.size()), [&](unsigned d) {
          return parallel[d] == 0 || map.isFunctionOfDim(d);
        });
    if (!disjoint || llvm::all_of(parallel, [](int64_t s) { return s == 0; }))
      continue;
    producer->setAttr(LoweringConfigAttr::getFuseIntoConsumerAttrName(), unit);
  }
}

namespace {
struct TfmCpuSelectVectorStrategyPass
    : tfm::impl::TfmCpuSelectVectorStrategyBase<
          TfmCpuSelectVectorStrategyPass> {
  using Base::Base;

  void runOnOperation() override {
    CpuTargetAttr target = CpuTargetAttr::lookup(getOperation());
    SmallVector<std::pair<linalg::LinalgOp, linalg::ContractionDimensions>>
        toVersion;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (!op.hasPureTensorSemantics() || op.getNumLoops() == 0 ||
          getLoweringConfig(op))
        return;
      bool nested = isInParallelLoop(op);
      if (std::optional<linalg::ContractionDimensions> dims =
              getRowMajorMatmulDims(op)) {
        if (!nested && dims->batch.empty() &&
            ShapedType::isDynamic(op.getStaticLoopRanges()[dims->m.front()]))
          toVersion.push_back({op, *dims});
        else
          setLoweringConfig(
              op, getContractionConfig(op, *dims, target, nested));
      } else {
        setLoweringConfig(op, getVectorConfig(op, target, nested));
      }
    });
    for (auto &[op, dims] : toVersion)
      splitRowsByTileHeight(op, dims, target);
    // Each op that is not a micro-kernel contraction takes the row-wise ops
    // that only it reads into its parallel tiles; the last reader of a
    // group is its root.
    SmallVector<linalg::LinalgOp> readers;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (!getLoweringConfig(op))
        return;
      if (!getRowMajorMatmulDims(op)) {
        readers.push_back(op);
      } else {
        markEpilogue(op);
        markRuntimePacking(op);
      }
    });
    for (linalg::LinalgOp op : llvm::reverse(readers))
      if (!op->hasAttr(LoweringConfigAttr::getFuseIntoConsumerAttrName()) &&
          !op->hasAttr(LoweringConfigAttr::getFuseIntoProducerAttrName()))
        markRowwiseProducers(op, [](linalg::LinalgOp producer) {
          // Ops tiled for vectors along their innermost loop: not a
          // micro-kernel contraction, whose tiles are blocks of rows and
          // columns, nor a transpose, whose tiles are square blocks.
          return getLoweringConfig(producer) &&
                 !getRowMajorMatmulDims(producer) &&
                 !getTransposedLoop(producer);
        });
  }
};
} // namespace
