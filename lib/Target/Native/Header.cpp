//===- Header.cpp - The C header of a compiled library --------------------===//
//
// renderHeader: the declarations of a shared library's entry points, its
// signature and, for a model with key/value caches, the generation API.
//
//===----------------------------------------------------------------------===//

#include "tfm/Target/Native/EntryPoint.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <cassert>
#include <cstring>

using namespace mlir;

namespace mlir {
namespace tfm {

/// The C type of `type`'s elements.
static StringRef getCType(Type type) {
  if (type.isF32())
    return "float";
  if (type.isF16())
    return "uint16_t"; /* IEEE half, raw bits */
  if (type.isBF16())
    return "uint16_t"; /* bfloat16, raw bits */
  if (type.isF64())
    return "double";
  if (type.isSignlessInteger(32))
    return "int32_t";
  if (type.isSignlessInteger(1))
    return "uint8_t"; /* bool: 0 or 1, one byte each */
  return "int64_t";
}

/// The runtime's generation API (runtime/Generate.h), which a library of a
/// model with key/value caches exports under its prefix.
static constexpr llvm::StringLiteral kGenerateH =
#include "GenerateH.inc"
    ;

/// The declarations between runtime/Generate.h's markers.
static StringRef getLibraryApi() {
  StringRef begin = "// BEGIN LIBRARY API\n", end = "// END LIBRARY API";
  size_t from = kGenerateH.find(begin), to = kGenerateH.find(end);
  assert(from != StringRef::npos && to != StringRef::npos &&
         "runtime/Generate.h lost its markers");
  return StringRef(kGenerateH).slice(from + begin.size(), to);
}

std::vector<std::string> getGenerationFunctions() {
  std::vector<std::string> names;
  StringRef api = getLibraryApi();
  for (size_t at = api.find("tfm_kv_state_"); at != StringRef::npos;
       at = api.find("tfm_kv_state_", at + 1)) {
    StringRef name = api.substr(at).take_while(
        [](char c) { return llvm::isAlnum(c) || c == '_'; });
    // A declaration: the name, then its parameters.
    if (api.substr(at + name.size()).starts_with("(") &&
        !llvm::is_contained(names, name))
      names.push_back(name.str());
  }
  return names;
}

/// The generation API of a model compiled with --kv-cache: the runtime's
/// tfm_kv_state functions between Generate.h's markers, with the library's
/// prefix for `tfm` (the names it exports them under, so that libraries of
/// different prefixes load into one process), and this model's create,
/// prefill and step on them.
static void renderGenerationApi(raw_ostream &os, StringRef prefix) {
  std::string api = getLibraryApi().str();
  std::string prefixed = (prefix + "_kv_state_").str();
  for (size_t at = api.find("tfm_kv_state_"); at != std::string::npos;
       at = api.find("tfm_kv_state_", at + prefixed.size()))
    api.replace(at, strlen("tfm_kv_state_"), prefixed);

  os << R"(/* Generation (compiled with --kv-cache): the key/value caches of a batch of
 * sequences are an opaque state, created once and updated in place by each
 * call. The functions below are tfm's runtime/Generate.h, exported under
 * this library's prefix. */
#ifndef TFM_KV_STATE_DECLARED
#define TFM_KV_STATE_DECLARED
typedef struct tfm_kv_state tfm_kv_state;
typedef int (*tfm_run_dims_fn)(const int64_t *dims, void **buffers);
#endif

)" << api;
  // The model's own functions, with `PREFIX` its prefix.
  std::string functions = R"(/* Empty caches for `batch` sequences; NULL, with a message in
 * error[0..error_size), if the model cannot take the batch or memory runs
 * out. */
static inline tfm_kv_state *PREFIX_kv_state_create(
    int64_t batch, char *error, size_t error_size) {
  return PREFIX_kv_state_create_for(PREFIX_signature, PREFIX_run_dims, batch,
                                    error, error_size);
}

/* Runs the prompts ids[batch][seq] after the positions the state holds,
 * writes logits[batch][seq][vocab] and appends the seq positions to the
 * caches. Returns 0, or 1 (the state unchanged; PREFIX_kv_state_error says
 * why) when seq is below 1, an id is outside the vocabulary or the caches
 * cannot hold seq more positions. */
static inline int PREFIX_prefill(
    tfm_kv_state *state, const int64_t *ids, int64_t seq, float *logits) {
  return PREFIX_kv_state_run(state, ids, seq, logits);
}

/* One token per sequence, ids[batch]: writes logits[batch][vocab]. */
static inline int PREFIX_step(
    tfm_kv_state *state, const int64_t *ids, float *logits) {
  return PREFIX_kv_state_run(state, ids, 1, logits);
}

)";
  for (size_t at = functions.find("PREFIX"); at != std::string::npos;
       at = functions.find("PREFIX", at + prefix.size()))
    functions.replace(at, 6, prefix.str());
  os << functions;
}

std::string renderHeader(const EntrySignature &signature, StringRef source,
                         StringRef prefix) {
  std::string guard =
      (prefix.upper() + "_" + StringRef(signature.name).upper() + "_H");
  bool dynamic = !signature.dimNames.empty();
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "/* Generated by tfm-compile from " << source
     << ". Do not edit. */\n"
     << "#ifndef " << guard << "\n#define " << guard << "\n\n"
     << "#include <stddef.h>\n#include <stdint.h>\n\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n"
     << "/* Runs @" << signature.name << ".\n *\n";
  if (dynamic) {
    os << " *   ";
    llvm::interleaveComma(signature.dimNames, os);
    os << ": the dynamic sizes, each at least 1";
    bool bounded = false;
    for (auto [name, bound] :
         llvm::zip_equal(signature.dimNames, signature.dimBounds)) {
      if (!bound)
        continue;
      os << (bounded ? ", " : "; ") << name << " at most " << bound;
      bounded = true;
    }
    if (bounded)
      os << " (larger sizes end the\n *   process with a message and exit "
            "code 1)";
    os << "\n";
    for (auto [symbol, name] : llvm::enumerate(signature.dimNames)) {
      ArrayRef<int64_t> terms = signature.getSum(symbol);
      if (terms.empty())
        continue;
      os << " *   " << name << " = ";
      llvm::interleave(
          terms, os,
          [&](int64_t term) {
            std::optional<int64_t> part = TensorSpec::getSymbol(term);
            os << (part ? signature.dimNames[*part] : std::to_string(term));
          },
          " + ");
      os << ": an output's size, passed computed\n";
    }
  }
  auto describe = [&](const TensorSpec &spec, StringRef role) {
    os << " *   " << spec.name << ": " << getCType(spec.type.getElementType())
       << " [";
    llvm::interleaveComma(spec.dims, os, [&](int64_t dim) {
      std::optional<int64_t> symbol = TensorSpec::getSymbol(dim);
      os << (symbol ? signature.dimNames[*symbol] : std::to_string(dim));
    });
    os << "] (" << role << ")\n";
  };
  for (const TensorSpec &in : signature.inputs)
    describe(in, in.role == TensorSpec::Role::KvCache
                     ? "input: a key/value cache, updated in place"
                 : in.role == TensorSpec::Role::KvPosition
                     ? "input: the positions the caches hold"
                     : "input");
  for (const TensorSpec &out : signature.outputs)
    describe(out, out.attention.empty()
                      ? std::string("output, written by the call")
                      : "output: the weights of the attention at " +
                            out.attention);
  os << " *\n * Arrays are dense, in C (row-major) order. Returns 0 on "
        "success. */\n"
     << "int " << prefix << "_" << signature.name << "(";
  bool first = true;
  for (const std::string &dim : signature.dimNames) {
    os << (first ? "" : ", ") << "int64_t " << dim;
    first = false;
  }
  for (const TensorSpec &in : signature.inputs) {
    // Caches are updated in place.
    os << (first ? "" : ", ")
       << (in.role == TensorSpec::Role::KvCache ? "" : "const ")
       << getCType(in.type.getElementType()) << " *" << in.name;
    first = false;
  }
  for (const TensorSpec &out : signature.outputs) {
    os << (first ? "" : ", ") << getCType(out.type.getElementType()) << " *"
       << out.name;
    first = false;
  }
  os << ");\n\n";
  if (!dynamic)
    os << "/* The same, with buffers[] holding the inputs, then the outputs. "
          "*/\n"
       << "int " << prefix << "_run(void **buffers);\n\n";
  os << "/* The same, with dims[] holding "
     << (dynamic ? "the dynamic sizes, in the order above,"
                 : "the dynamic sizes (there are none: it may be NULL)")
     << " and buffers[] the inputs, then the outputs. */\n"
     << "int " << prefix << "_run_dims(const int64_t *dims, void **buffers);\n\n"
     << "/* The inputs and outputs, as text (see runtime/Signature.h). */\n"
     << "extern const char " << prefix << "_signature[];\n\n";
  if (llvm::any_of(signature.inputs, [](const TensorSpec &in) {
        return in.role == TensorSpec::Role::KvCache;
      }))
    renderGenerationApi(os, prefix);
  os << "#ifdef __cplusplus\n}\n#endif\n\n#endif /* " << guard << " */\n";
  return text;
}

} // namespace tfm
} // namespace mlir
