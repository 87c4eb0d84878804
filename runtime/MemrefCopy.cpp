//===- MemrefCopy.cpp - The memref copy that lowered code calls ----------===//
//
// MLIR lowers a `memref.copy` between buffers that are not both contiguous
// to a call to `memrefCopy`. This is tfm's implementation of that entry
// point, so that compiled models depend on nothing from LLVM at run time.
// tfm-cpu-lower-copies turns the copies of static layout into loops of
// contiguous copies first; what reaches this function has dynamic sizes or
// strides.
//
//===----------------------------------------------------------------------===//

#include <cstdint>
#include <cstring>
#include <vector>

namespace {
/// The layout of a ranked memref descriptor of any rank.
struct DescriptorHeader {
  char *allocated;
  char *aligned;
  int64_t offset;
  int64_t sizesAndStrides[]; // sizes[rank], then strides[rank]
};

struct UnrankedMemRef {
  int64_t rank;
  DescriptorHeader *descriptor;
};
} // namespace

extern "C" void memrefCopy(int64_t elemSize, UnrankedMemRef *src,
                           UnrankedMemRef *dst) {
  int64_t rank = src->rank;
  const int64_t *sizes = src->descriptor->sizesAndStrides;
  const int64_t *srcStrides = sizes + rank;
  const int64_t *dstStrides = dst->descriptor->sizesAndStrides + rank;
  char *srcBase = src->descriptor->aligned + src->descriptor->offset * elemSize;
  char *dstBase = dst->descriptor->aligned + dst->descriptor->offset * elemSize;

  for (int64_t i = 0; i < rank; ++i)
    if (sizes[i] == 0)
      return;
  // The innermost dimensions that both operands lay out as one contiguous
  // run (dimensions of one element count as either) are copied by one
  // memcpy; the dimensions outside them are iterated.
  int64_t run = 1, outer = rank;
  while (outer > 0 &&
         (sizes[outer - 1] == 1 || (srcStrides[outer - 1] == run &&
                                    dstStrides[outer - 1] == run))) {
    run *= sizes[outer - 1];
    --outer;
  }
  size_t runBytes = static_cast<size_t>(run * elemSize);
  std::vector<int64_t> index(outer, 0);
  while (true) {
    int64_t srcOffset = 0, dstOffset = 0;
    for (int64_t i = 0; i < outer; ++i) {
      srcOffset += index[i] * srcStrides[i];
      dstOffset += index[i] * dstStrides[i];
    }
    std::memcpy(dstBase + dstOffset * elemSize, srcBase + srcOffset * elemSize,
                runBytes);
    int64_t dim = outer - 1;
    for (; dim >= 0; --dim) {
      if (++index[dim] < sizes[dim])
        break;
      index[dim] = 0;
    }
    if (dim < 0)
      return;
  }
}
