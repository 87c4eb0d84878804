//===- Signature.h - The interface a compiled model exports ----*- C++ -*-===//
//
// tfm-compile embeds, next to the model's code, a text describing its
// inputs and outputs (`tfm_signature`) and a packed entry point
// (`tfm_run_dims`) that takes the model's dynamic sizes, then one buffer
// per input and one per output. For a model of static shape the text is
//
//   tfm-signature-v1
//   in <name> <dtype> <d0>x<d1>x...     (one line per input, in order)
//   out <name> <dtype> <d0>x<d1>x...    (one line per output, in order)
//
// with dtype one of f32, f16, f64, i32, i64, b1 and the shape "scalar" for rank
// 0. A model with dynamic sizes lists them first and names them in the
// shapes, which are separated by commas:
//
//   tfm-signature-v2
//   dim <name> [<max>]                  (one line per dynamic size, with
//                                        its bound if compiled with one;
//                                        never named `scalar`, which
//                                        tfm-compile renames `scalar_`)
//   sum <name> <term> <term> ...        (a size that only outputs have,
//                                        the sum of the terms, each a
//                                        dim's name or a number: the
//                                        `past + seq` of a concatenation;
//                                        the caller passes it too)
//   in <name> <dtype> <d0>,<d1>,...     (each a size or a dim's name)
//   out <name> <dtype> <d0>,<d1>,...
//
// In both versions, a model compiled with --attention-weights ends with
// one more output per attention, its weights, marked `attn` and followed by
// the attention's location (the rest of the line):
//
//   attn <name> <dtype> <shape> <location>
//
// and a model compiled with --kv-cache marks its key/value caches, which it
// updates in place, and the number of positions they hold (runtime/
// Generate.h runs such models):
//
//   in <name> <dtype> <shape> kv_cache
//   in <name> i64 scalar kv_position
//
//===----------------------------------------------------------------------===//

#ifndef TFM_RUNTIME_SIGNATURE_H
#define TFM_RUNTIME_SIGNATURE_H

#include "Npy.h"

#include <string>
#include <vector>

extern "C" {
/// The model's signature text (see above).
extern const char tfm_signature[];
/// Runs the model with the dynamic sizes dims[0..dims) on
/// buffers[0..inputs) and writes buffers[inputs..).
int tfm_run_dims(const int64_t *dims, void **buffers);
}

namespace tfm {
namespace runtime {

struct TensorSpec {
  std::string name;
  DType dtype;
  /// Per dimension its size, or symbolDim(i) for the i-th dynamic size.
  std::vector<int64_t> shape;
  /// For the weights of an attention (`attn`), its location; else empty.
  std::string attention;
  /// For an input, whether generation fills it (see above).
  enum class Role { Data, KvCache, KvPosition } role = Role::Data;

  static int64_t symbolDim(int64_t symbol) { return -2 - symbol; }
  /// The dynamic size that `dim` is, or -1 for a fixed size.
  static int64_t getSymbol(int64_t dim) { return dim <= -2 ? -2 - dim : -1; }
};

struct Signature {
  std::vector<std::string> dimNames;
  /// Per dynamic size its upper bound, or 0 for none.
  std::vector<int64_t> dimBounds;
  /// Per dynamic size, empty for one that inputs give; else the terms of
  /// its sum (`sum` lines): symbolDim(i) for the i-th size, or a constant.
  std::vector<std::vector<int64_t>> dimSums;
  std::vector<TensorSpec> inputs;
  /// The outputs, attention weights (which come last) included.
  std::vector<TensorSpec> outputs;

  /// The outputs that are not attention weights: those the caller names.
  size_t numResults() const;
  /// The shape of `spec` as text, "[batch, seq, 64]".
  std::string shapeText(const TensorSpec &spec) const;
  /// Sets the sizes that are sums in `dims` (one per dynamic size) from the
  /// others; returns false if one would overflow.
  bool computeSums(std::vector<int64_t> &dims) const;
};

/// Parses a signature text; returns false and sets `error` if malformed.
bool parseSignature(const char *text, Signature &signature,
                    std::string &error);

} // namespace runtime
} // namespace tfm

#endif // TFM_RUNTIME_SIGNATURE_H
