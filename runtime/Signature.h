//===- Signature.h - The interface a compiled model exports ----*- C++ -*-===//
//
// tfm-compile embeds, next to the model's code, a text describing its
// inputs and outputs (`tfm_signature`) and a packed entry point (`tfm_run`)
// that takes one buffer per input, then one per output. The text is
//
//   tfm-signature-v1
//   in <name> <dtype> <d0>x<d1>x...     (one line per input, in order)
//   out <name> <dtype> <d0>x<d1>x...    (one line per output, in order)
//
// with dtype one of f32, f16, i32, i64 and the shape "scalar" for rank 0.
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
/// Runs the model on buffers[0..inputs) and writes buffers[inputs..).
int tfm_run(void **buffers);
}

namespace tfm {
namespace runtime {

struct TensorSpec {
  std::string name;
  DType dtype;
  std::vector<int64_t> shape;
};

struct Signature {
  std::vector<TensorSpec> inputs;
  std::vector<TensorSpec> outputs;
};

/// Parses a signature text; returns false and sets `error` if malformed.
bool parseSignature(const char *text, Signature &signature,
                    std::string &error);

} // namespace runtime
} // namespace tfm

#endif // TFM_RUNTIME_SIGNATURE_H
