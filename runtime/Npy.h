//===- Npy.h - Reading and writing NumPy .npy files -------------*- C++ -*-===//
//
// The .npy subset that tfm binaries exchange: little-endian float32,
// float16, float64, int32 and int64 arrays, bool arrays (one byte an
// element) and bfloat16 arrays as uint16 (the top half of each float32's
// bits: NumPy has no bfloat16) in C order, format versions 1 to 3.
//
//===----------------------------------------------------------------------===//

#ifndef TFM_RUNTIME_NPY_H
#define TFM_RUNTIME_NPY_H

#include <cstdint>
#include <string>
#include <vector>

namespace tfm {
namespace runtime {

/// Element types that cross the boundary of a compiled model.
enum class DType { F32, F16, F64, I32, I64, B1, BF16 };

/// The name NumPy users know the type by, e.g. "float32".
const char *dtypeName(DType type);

/// Size of one element in bytes.
size_t dtypeSize(DType type);

/// Parses the names used in tfm signatures ("f32", "f16", "f64", "i32",
/// "i64", "b1", "bf16").
bool parseDTypeName(const std::string &name, DType &type);

/// An n-dimensional array in C order.
struct Array {
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;

  int64_t numElements() const;
};

/// Renders a shape as "[2, 10, 32]".
std::string shapeToString(const std::vector<int64_t> &shape);

/// Reads `path` into `array`. On failure returns false and sets `error` to a
/// message that says what is wrong with the file. Only a regular file's
/// header is read before it is checked, and only as much data as the header
/// announces; bool elements are normalized to 0 and 1. Memory that cannot
/// be allocated for the data is a failure too, which sets `*outOfMemory`
/// (the caller's `error: out of memory: ...`), never std::bad_alloc.
bool readNpy(const std::string &path, Array &array, std::string &error,
             bool *outOfMemory = nullptr);

/// Writes `array` to `path` (format version 1.0). On failure returns false
/// and sets `error`.
bool writeNpy(const std::string &path, const Array &array,
              std::string &error);

} // namespace runtime
} // namespace tfm

#endif // TFM_RUNTIME_NPY_H
