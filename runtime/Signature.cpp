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

bool Signature::computeSums(std::vector<int64_t> &dims) const {
  for (size_t symbol = 0; symbol < dimSums.size(); ++symbol) {
    if (dimSums[symbol].empty())
      continue;
    int64_t total = 0;
    for (int64_t term : dimSums[symbol]) {
      int64_t part = TensorSpec::getSymbol(term);
      if (__builtin_add_overflow(total, part >= 0 ? dims[part] : term, &total))
        return false;
    }
    dims[symbol] = total;
  }
  return true;
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
      // "scalar" is rank 0 in the shapes; tfm-compile renames such a size.
      if (name.empty() || name == "scalar" || bound < 0) {
        error = "the model's signature has a malformed line: " + line;
        return false;
      }
      signature.dimNames.push_back(name);
      signature.dimBounds.push_back(bound);
      signature.dimSums.emplace_back();
      continue;
    }
    // A sum of the sizes before it and of numbers.
    if (v2 && line.rfind("sum ", 0) == 0 && signature.inputs.empty()) {
      std::string name, term;
      std::vector<int64_t> terms;
      bool valid = true;
      fields >> kind >> name;
      while (valid && fields >> term)
        valid = parseDims(term, ',', signature.dimNames, terms);
      if (!valid || name.empty() || name == "scalar" || terms.size() < 2) {
        error = "the model's signature has a malformed line: " + line;
        return false;
      }
      signature.dimNames.push_back(name);
      signature.dimBounds.push_back(0);
      signature.dimSums.push_back(terms);
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
