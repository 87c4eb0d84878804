//===- Signature.cpp - The interface a compiled model exports -------------===//

#include "Signature.h"

#include <sstream>

using namespace tfm::runtime;

/// Parses "2x10x32" or "scalar".
static bool parseDims(const std::string &text, std::vector<int64_t> &dims) {
  if (text == "scalar")
    return true;
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, 'x')) {
    if (item.empty() || item.find_first_not_of("0123456789") != std::string::npos)
      return false;
    dims.push_back(std::stoll(item));
  }
  return !dims.empty();
}

bool tfm::runtime::parseSignature(const char *text, Signature &signature,
                                  std::string &error) {
  std::stringstream stream(text);
  std::string line;
  if (!std::getline(stream, line) || line != "tfm-signature-v1") {
    error = "the model's signature has an unknown version";
    return false;
  }
  while (std::getline(stream, line)) {
    if (line.empty())
      continue;
    std::stringstream fields(line);
    std::string kind, dtype, dims;
    TensorSpec spec;
    if (!(fields >> kind >> spec.name >> dtype >> dims) ||
        (kind != "in" && kind != "out") ||
        !parseDTypeName(dtype, spec.dtype) || !parseDims(dims, spec.shape)) {
      error = "the model's signature has a malformed line: " + line;
      return false;
    }
    (kind == "in" ? signature.inputs : signature.outputs).push_back(spec);
  }
  return true;
}
