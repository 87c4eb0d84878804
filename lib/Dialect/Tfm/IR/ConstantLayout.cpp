//===- ConstantLayout.cpp - Constants rearranged at compile time ----------===//

#include "tfm/Dialect/Tfm/IR/ConstantLayout.h"

#include "mlir/IR/BuiltinTypes.h"

#include <algorithm>
#include <cstring>
#include <vector>

using namespace mlir;
using namespace mlir::tfm;

namespace {
/// An element of N bytes, copied as one value (one move for 2, 4 or 8
/// bytes) whatever the alignment of its address.
template <size_t N>
struct Element {
  char bytes[N];
};
} // namespace

/// The transpose in square blocks, so that both the rows read and the
/// columns written stay in the cache while a block is copied.
template <typename T>
static void transposeBlocks(const char *in, char *out, int64_t rows,
                            int64_t cols) {
  constexpr int64_t kBlock = 32;
  auto *from = reinterpret_cast<const T *>(in);
  auto *to = reinterpret_cast<T *>(out);
  for (int64_t r0 = 0; r0 < rows; r0 += kBlock)
    for (int64_t c0 = 0; c0 < cols; c0 += kBlock) {
      int64_t rEnd = std::min(rows, r0 + kBlock);
      int64_t cEnd = std::min(cols, c0 + kBlock);
      for (int64_t r = r0; r < rEnd; ++r)
        for (int64_t c = c0; c < cEnd; ++c)
          to[c * rows + r] = from[r * cols + c];
    }
}

void mlir::tfm::transposeBytes(const char *in, char *out, int64_t rows,
                               int64_t cols, size_t elementBytes) {
  switch (elementBytes) {
  case 1:
    return transposeBlocks<Element<1>>(in, out, rows, cols);
  case 2:
    return transposeBlocks<Element<2>>(in, out, rows, cols);
  case 4:
    return transposeBlocks<Element<4>>(in, out, rows, cols);
  case 8:
    return transposeBlocks<Element<8>>(in, out, rows, cols);
  default:
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c)
        std::memcpy(out + (c * rows + r) * elementBytes,
                    in + (r * cols + c) * elementBytes, elementBytes);
  }
}

DenseElementsAttr mlir::tfm::transposeConstantMatrix(DenseElementsAttr value) {
  auto type = cast<RankedTensorType>(value.getType());
  auto transposed = RankedTensorType::get(
      {type.getDimSize(1), type.getDimSize(0)}, type.getElementType());
  if (value.isSplat())
    return value.resizeSplat(transposed);
  unsigned bits = type.getElementTypeBitWidth();
  if (bits % 8 != 0)
    return {};
  ArrayRef<char> in = value.getRawData();
  std::vector<char> out(in.size());
  transposeBytes(in.data(), out.data(), type.getDimSize(0),
                 type.getDimSize(1), bits / 8);
  return DenseElementsAttr::getFromRawBuffer(transposed, out);
}

DenseElementsAttr mlir::tfm::sliceConstant(DenseElementsAttr value,
                                           int64_t dim, int64_t begin,
                                           int64_t count, int64_t units,
                                           ArrayRef<int64_t> segments) {
  auto type = cast<RankedTensorType>(value.getType());
  ArrayRef<int64_t> shape = type.getShape();
  SmallVector<int64_t> sliceShape(shape);
  sliceShape[dim] = shape[dim] / units * count;
  auto sliceType = RankedTensorType::get(sliceShape, type.getElementType());
  if (value.isSplat())
    return value.resizeSplat(sliceType);
  unsigned bits = type.getElementTypeBitWidth();
  if (bits % 8 != 0)
    return {};
  SmallVector<int64_t> runs(segments);
  if (runs.empty())
    runs.push_back(shape[dim]);
  // For each index of the dimensions before `dim`, each segment's part, in
  // blocks of the dimensions after it.
  int64_t outer = 1, inner = bits / 8;
  for (int64_t d = 0; d < dim; ++d)
    outer *= shape[d];
  for (int64_t d = dim + 1, e = shape.size(); d < e; ++d)
    inner *= shape[d];
  ArrayRef<char> in = value.getRawData();
  std::vector<char> out;
  out.reserve(in.size() / units * count);
  for (int64_t o = 0; o < outer; ++o) {
    int64_t offset = 0;
    for (int64_t run : runs) {
      int64_t unit = run / units, size = unit * count;
      const char *from =
          in.data() + (o * shape[dim] + offset + begin * unit) * inner;
      out.insert(out.end(), from, from + size * inner);
      offset += run;
    }
  }
  return DenseElementsAttr::getFromRawBuffer(sliceType, out);
}
