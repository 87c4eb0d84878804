//===- SymbolicSize.cpp - Sizes in terms of a graph's dim_params ----------===//

#include "SymbolicSize.h"

#include "mlir/IR/BuiltinTypeInterfaces.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVectorExtras.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::tfm::onnx_import;

SymbolicSize::SymbolicSize(int64_t constant) {
  if (constant != 0)
    terms[{}] = constant;
}

SymbolicSize SymbolicSize::symbol(unsigned id) {
  SymbolicSize size;
  size.terms[{id}] = 1;
  return size;
}

bool SymbolicSize::isConstant() const {
  return terms.empty() || (terms.size() == 1 && terms.begin()->first.empty());
}

std::optional<int64_t> SymbolicSize::getConstant() const {
  if (!isConstant())
    return std::nullopt;
  return terms.empty() ? 0 : terms.begin()->second;
}

std::optional<std::vector<unsigned>> SymbolicSize::getMonomial() const {
  if (terms.size() != 1 || terms.begin()->second != 1)
    return std::nullopt;
  return terms.begin()->first;
}

SymbolicSize SymbolicSize::operator+(const SymbolicSize &other) const {
  SymbolicSize result = *this;
  for (const auto &[monomial, coefficient] : other.terms) {
    int64_t &sum = result.terms[monomial];
    sum += coefficient;
    if (sum == 0)
      result.terms.erase(monomial);
  }
  return result;
}

SymbolicSize SymbolicSize::operator-(const SymbolicSize &other) const {
  return *this + other * SymbolicSize(-1);
}

SymbolicSize SymbolicSize::operator*(const SymbolicSize &other) const {
  SymbolicSize result;
  for (const auto &[a, x] : terms) {
    for (const auto &[b, y] : other.terms) {
      Monomial monomial = a;
      llvm::append_range(monomial, b);
      llvm::sort(monomial);
      int64_t &sum = result.terms[monomial];
      sum += x * y;
      if (sum == 0)
        result.terms.erase(monomial);
    }
  }
  return result;
}

std::optional<SymbolicSize>
SymbolicSize::divideExactly(const SymbolicSize &divisor) const {
  if (divisor.terms.size() != 1)
    return std::nullopt;
  const auto &[symbols, coefficient] = *divisor.terms.begin();
  SymbolicSize result;
  for (const auto &[monomial, value] : terms) {
    if (value % coefficient != 0 ||
        !std::includes(monomial.begin(), monomial.end(), symbols.begin(),
                       symbols.end()))
      return std::nullopt;
    Monomial rest;
    std::set_difference(monomial.begin(), monomial.end(), symbols.begin(),
                        symbols.end(), std::back_inserter(rest));
    result.terms[rest] = value / coefficient;
  }
  return result;
}

std::string SymbolicSize::str(ArrayRef<std::string> names) const {
  if (terms.empty())
    return "0";
  std::string text;
  // Highest degree first: `4*batch*seq + 1`.
  for (const auto &[monomial, coefficient] : llvm::reverse(terms)) {
    int64_t magnitude = coefficient;
    if (!text.empty()) {
      text += coefficient < 0 ? " - " : " + ";
      magnitude = std::abs(coefficient);
    }
    std::string factors;
    for (unsigned id : monomial) {
      if (!factors.empty())
        factors += "*";
      factors += id < names.size() ? names[id] : "?";
    }
    if (factors.empty())
      text += std::to_string(magnitude);
    else if (magnitude == 1)
      text += factors;
    else if (magnitude == -1)
      text += "-" + factors;
    else
      text += std::to_string(magnitude) + "*" + factors;
  }
  return text;
}

SmallVector<int64_t>
mlir::tfm::onnx_import::getStaticShape(ArrayRef<SymbolicSize> sizes) {
  return llvm::map_to_vector(sizes, [](const SymbolicSize &size) {
    return size.getConstant().value_or(ShapedType::kDynamic);
  });
}

SymbolicShape mlir::tfm::onnx_import::getSymbolicShape(ArrayRef<int64_t> shape) {
  return llvm::map_to_vector(
      shape, [](int64_t dim) { return SymbolicSize(dim); });
}

SymbolicSize mlir::tfm::onnx_import::productOf(ArrayRef<SymbolicSize> sizes) {
  SymbolicSize result(1);
  for (const SymbolicSize &size : sizes)
    result = result * size;
  return result;
}
