//===- LowerCopies.cpp - tfm-cpu-lower-copies -----------------------------===//
//
// Implements `tfm-cpu-lower-copies`: a buffer copy whose operands are not
// both contiguous (or that is large) becomes a loop nest, parallel when the
// copy is large, around copies of the contiguous runs its operands share.
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/CPU/Passes.h"
#include "tfm/Codegen/CPU/Strategy.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir {
namespace tfm {
#define GEN_PASS_DEF_TFMCPULOWERCOPIES
#include "tfm/Codegen/CPU/Passes.h.inc"
} // namespace tfm
} // namespace mlir

using namespace mlir;
using namespace mlir::tfm;

namespace {

/// Copies of at least this many bytes are shared out between the threads:
/// at a few GB/s per core, 64 KiB take tens of microseconds, several times
/// an OpenMP fork and join.
constexpr int64_t kParallelBytes = 64 * 1024;

/// The static sizes and strides of a copy's operands, and the bytes of an
/// element; none if a size, a stride or the element's width is dynamic or
/// not whole bytes.
struct CopyShape {
  SmallVector<int64_t> sizes, srcStrides, dstStrides;
  int64_t elementBytes;

  static std::optional<CopyShape> get(memref::CopyOp copy) {
    auto src = dyn_cast<MemRefType>(copy.getSource().getType());
    auto dst = dyn_cast<MemRefType>(copy.getTarget().getType());
    if (!src || !dst || !src.hasStaticShape() ||
        !src.getElementType().isIntOrFloat() ||
        src.getElementTypeBitWidth() % 8 != 0)
      return std::nullopt;
    CopyShape shape;
    int64_t srcOffset, dstOffset;
    if (failed(src.getStridesAndOffset(shape.srcStrides, srcOffset)) ||
        failed(dst.getStridesAndOffset(shape.dstStrides, dstOffset)) ||
        llvm::any_of(shape.srcStrides, ShapedType::isDynamic) ||
        llvm::any_of(shape.dstStrides, ShapedType::isDynamic))
      return std::nullopt;
    shape.sizes = llvm::to_vector(src.getShape());
    shape.elementBytes = src.getElementTypeBitWidth() / 8;
    return shape;
  }

  int64_t getBytes() const {
    int64_t elements = 1;
    for (int64_t size : sizes)
      elements *= size;
    return elements * elementBytes;
  }

  /// The first of the innermost dimensions that both operands lay out as
  /// one contiguous run (unit dimensions count as either); the rank if the
  /// innermost one is strided in either.
  unsigned getRunStart() const {
    int64_t run = 1;
    unsigned dim = sizes.size();
    while (dim > 0 && (sizes[dim - 1] == 1 || (srcStrides[dim - 1] == run &&
                                               dstStrides[dim - 1] == run))) {
      run *= sizes[dim - 1];
      --dim;
    }
    return dim;
  }
};

/// Rewrites `copy` as loops over the dimensions `loops` (outside `runStart`)
/// around a copy of one contiguous run (`runStart` < rank) or one element.
void lowerCopy(memref::CopyOp copy, const CopyShape &shape,
               ArrayRef<unsigned> loops, unsigned runStart, bool parallel) {
  OpBuilder b(copy);
  Location loc = copy.getLoc();
  unsigned rank = shape.sizes.size();
  auto index = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(b, loc, value);
  };
  SmallVector<Value> lower, upper, steps;
  for (unsigned dim : loops) {
    lower.push_back(index(0));
    upper.push_back(index(shape.sizes[dim]));
    steps.push_back(index(1));
  }

  // The body: `ivs` index the loops' dimensions; every other dimension
  // outside the run has one element.
  auto buildBody = [&](OpBuilder &nested, Location loc, ValueRange ivs) {
    SmallVector<OpFoldResult> offsets(rank, nested.getIndexAttr(0));
    SmallVector<OpFoldResult> sizes(rank, nested.getIndexAttr(1));
    SmallVector<OpFoldResult> strides(rank, nested.getIndexAttr(1));
    for (auto [dim, iv] : llvm::zip_equal(loops, ivs))
      offsets[dim] = iv;
    for (unsigned dim = runStart; dim < rank; ++dim)
      sizes[dim] = nested.getIndexAttr(shape.sizes[dim]);
    if (runStart == rank) {
      SmallVector<Value> indices;
      for (OpFoldResult offset : offsets)
        indices.push_back(getValueOrCreateConstantIndexOp(nested, loc, offset));
      Value element =
          memref::LoadOp::create(nested, loc, copy.getSource(), indices);
      memref::StoreOp::create(nested, loc, element, copy.getTarget(), indices);
      return;
    }
    Value src = memref::SubViewOp::create(nested, loc, copy.getSource(),
                                          offsets, sizes, strides);
    Value dst = memref::SubViewOp::create(nested, loc, copy.getTarget(),
                                          offsets, sizes, strides);
    memref::CopyOp::create(nested, loc, src, dst);
  };

  if (parallel)
    scf::ParallelOp::create(b, loc, lower, upper, steps, buildBody);
  else
    scf::buildLoopNest(b, loc, lower, upper, steps, buildBody);
  copy.erase();
}

struct TfmCpuLowerCopiesPass
    : tfm::impl::TfmCpuLowerCopiesBase<TfmCpuLowerCopiesPass> {
  void runOnOperation() override {
    SmallVector<memref::CopyOp> copies;
    getOperation().walk([&](memref::CopyOp copy) { copies.push_back(copy); });
    for (memref::CopyOp copy : copies) {
      std::optional<CopyShape> shape = CopyShape::get(copy);
      if (!shape)
        continue;
      unsigned runStart = shape->getRunStart();
      bool large = shape->getBytes() >= kParallelBytes;
      bool parallel = large && !isInParallelLoop(copy);
      // The dimensions outside the run that have more than one element.
      SmallVector<unsigned> loops;
      for (unsigned dim = 0; dim < runStart; ++dim)
        if (shape->sizes[dim] != 1)
          loops.push_back(dim);
      if (loops.empty()) {
        // One contiguous run: a memcpy as it stands, unless it is worth
        // sharing out along its outermost dimension of several elements
        // (not its innermost: runs of one element would be slower).
        if (!parallel)
          continue;
        auto outer = llvm::find_if(shape->sizes,
                                   [](int64_t size) { return size > 1; });
        unsigned dim = outer - shape->sizes.begin();
        if (dim + 1 >= shape->sizes.size())
          continue;
        loops.push_back(dim);
        runStart = dim + 1;
      }
      lowerCopy(copy, *shape, loops, runStart, parallel);
    }
  }
};

} // namespace
