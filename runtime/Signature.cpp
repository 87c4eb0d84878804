//===- Signature.cpp - The interface a compiled model exports -------------===//

#include "Signature.h"

#include <algorithm>
#include <sstream>

using namespace tfm::runtime;

/// Parses "2x10x32" (version 1), "batch,seq,32" (version 2) or "scalar".
static bool parseDims(const std::string &text, char separator,
                      const std::vector<std::string> &dimNames,
                      std::vector<int64_t> &dims) {
  if (text == "scalar")
    return true;
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, separator)) {
    if (item.empty())
      return false;
    if (item.find_first_not_of("0123456789") == std::string::npos) {
      if (item.size() > 18)
        return false;
      dims.push_back(std::stoll(item));
      continue;
    }
    auto it = std::find(dimNames.begin(), dimNames.end(), item);
    if (it == dimNames.end())
      return false;
    dims.push_back(TensorSpec::symbolDim(it - dimNames.begin()));
  }
  return !dims.empty();
}

size_t Signature::numResults() const {
  size_t n = 0;
  while (n < outputs.size() && outputs[n].attention.empty())
    ++n;
  return n;
}

std::string Signature::shapeText(const TensorSpec &spec) const {
  std::string text = "[";
  for (size_t i = 0; i < spec.shape.size(); ++i) {
    int64_t symbol = TensorSpec::getSymbol(spec.shape[i]);
    text += (i ? ", " : "") +
            (symbol >= 0 ? dimNames[symbol] : std::to_string(spec.shape[i]));
  }
  return text + "]";
}

bool tfm::runtime::parseSignature(const char *text, Signature &signature,
                                  std::string &error) {
  std::stringstream stream(text);
  std::string line;
  bool v2 = false;
  if (!std::getline(stream, line) ||
      (line != "tfm-signature-v1" && !(v2 = line == "tfm-signature-v2"))) {
    error = "the model's signature has an unknown version";
    return false;
  }
  while (std::getline(stream, line)) {
    if (line.empty())
      continue;
    std::stringstream fields(line);
    std::string kind, dtype, dims;
    TensorSpec spec;
    if (v2 && line.rfind("dim ", 0) == 0 && signature.inputs.empty()) {
      std::string name;
      int64_t bound = 0;
      fields >> kind >> name;
      if (!(fields >> bound))
        bound = 0;
      if (name.empty() || bound < 0) {
        error = "the model's signature has a malformed line: " + line;
        return false;
      }
      signature.dimNames.push_back(name);
      signature.dimBounds.push_back(bound);
      continue;
    }
    if (!(fields >> kind >> spec.name >> dtype >> dims) ||
        (kind != "in" && kind != "out" && kind != "attn") ||
        !parseDTypeName(dtype, spec.dtype) ||
        !parseDims(dims, v2 ? ',' : 'x', signature.dimNames, spec.shape)) {
      error = "the model's signature has a malformed line: " + line;
      return false;
    }
    if (kind == "in") {
      std::string role;
      if (fields >> role) {
        if (role == "kv_cache")
          spec.role = TensorSpec::Role::KvCache;
        else if (role == "kv_position")
          spec.role = TensorSpec::Role::KvPosition;
        else {
          error = "the model's signature has a malformed line: " + line;
          return false;
        }
      }
    } else if (kind == "attn") {
      std::getline(fields >> std::ws, spec.attention);
      if (spec.attention.empty())
        spec.attention = spec.name;
    } else if (kind == "out" && !signature.outputs.empty() &&
               !signature.outputs.back().attention.empty()) {
      error = "the model's signature lists an output after attention "
              "weights: " + line;
      return false;
    }
    (kind == "in" ? signature.inputs : signature.outputs).push_back(spec);
  }
  return true;
}
