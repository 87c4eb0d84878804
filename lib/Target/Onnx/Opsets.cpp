//===- Opsets.cpp - The opset versions of each op that tfm imports -------===//
//
// An ONNX model imports one version of the default opset, and each op has
// the semantics of its newest version at or below it (`since_version` in
// the op's schema). Each handler implements one set of semantics, that of
// opset 13 to 17 as PyTorch exports them; most ops had those semantics
// long before 13 and keep them after 17, where new versions only added
// data types. The table below says, op by op, over which opsets the
// handler's semantics are the op's, and what changed at either end, so that
// a model of another opset is imported where its ops mean what the
// handlers implement and refused, naming the op, where one does not.
//
// Checked against the operator changelog of ONNX (docs/Changelog.md) up to
// kNewestOpset: the versions of each op there, and what each changed.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "llvm/ADT/StringMap.h"

using namespace mlir;
using namespace mlir::tfm::onnx_import;

namespace {
/// The opsets [first, last] over which an op has the semantics its handler
/// implements, and why not outside them.
struct OpsetRange {
  int64_t first;
  int64_t last;
  /// What the op was before `first` (empty when `first` is 1).
  const char *before;
  /// What the op became after `last` (empty when `last` is kNewestOpset).
  const char *after;
};
} // namespace

/// Ops whose versions 1 to 6 only differ by the legacy `consumed_inputs`
/// attribute, or that took the NumPy broadcast of opset 7 over the legacy
/// `broadcast` and `axis` attributes.
static constexpr const char *kLegacyBroadcast =
    "before opset 7 it broadcast by its 'broadcast' and 'axis' attributes, "
    "not by NumPy's rules";
static constexpr const char *kConsumedInputs =
    "before opset 6 it had the legacy 'consumed_inputs' attribute";

static const llvm::StringMap<OpsetRange> &getOpsetRanges() {
  static const llvm::StringMap<OpsetRange> ranges = {
      {"Add", {7, kNewestOpset, kLegacyBroadcast, ""}},
      {"Sub", {7, kNewestOpset, kLegacyBroadcast, ""}},
      {"Mul", {7, kNewestOpset, kLegacyBroadcast, ""}},
      {"Div", {7, kNewestOpset, kLegacyBroadcast, ""}},
      {"Pow", {7, kNewestOpset, kLegacyBroadcast, ""}},
      {"Equal", {7, kNewestOpset, kLegacyBroadcast, ""}},
      {"Less", {7, kNewestOpset, kLegacyBroadcast, ""}},
      {"Greater", {7, kNewestOpset, kLegacyBroadcast, ""}},
      {"And", {7, kNewestOpset, kLegacyBroadcast, ""}},
      {"Or", {7, kNewestOpset, kLegacyBroadcast, ""}},
      {"LessOrEqual",
       {12, kNewestOpset, "it was introduced in opset 12", ""}},
      {"GreaterOrEqual",
       {12, kNewestOpset, "it was introduced in opset 12", ""}},
      {"Max",
       {8, kNewestOpset, "before opset 8 it did not broadcast its inputs",
        ""}},
      {"Min",
       {8, kNewestOpset, "before opset 8 it did not broadcast its inputs",
        ""}},
      {"Clip",
       {11, kNewestOpset,
        "before opset 11 its bounds were attributes, not inputs", ""}},
      {"Gemm",
       {7, kNewestOpset,
        "before opset 7 it broadcast C by its 'broadcast' attribute", ""}},
      {"Mod", {10, kNewestOpset, "it was introduced in opset 10", ""}},
      {"Not", {1, kNewestOpset, "", ""}},
      {"Where", {9, kNewestOpset, "it was introduced in opset 9", ""}},
      {"Erf", {9, kNewestOpset, "it was introduced in opset 9", ""}},
      {"Sqrt", {6, kNewestOpset, kConsumedInputs, ""}},
      {"Tanh", {6, kNewestOpset, kConsumedInputs, ""}},
      {"Exp", {6, kNewestOpset, kConsumedInputs, ""}},
      {"Neg", {6, kNewestOpset, kConsumedInputs, ""}},
      {"Relu", {6, kNewestOpset, kConsumedInputs, ""}},
      {"Sigmoid", {6, kNewestOpset, kConsumedInputs, ""}},
      {"Reciprocal", {6, kNewestOpset, kConsumedInputs, ""}},
      {"Log", {6, kNewestOpset, kConsumedInputs, ""}},
      {"Floor", {6, kNewestOpset, kConsumedInputs, ""}},
      {"Abs", {6, kNewestOpset, kConsumedInputs, ""}},
      {"Sin", {7, kNewestOpset, "it was introduced in opset 7", ""}},
      {"Cos", {7, kNewestOpset, "it was introduced in opset 7", ""}},
      {"Cast", {6, kNewestOpset, "before opset 6 its 'to' was a string", ""}},
      {"CastLike", {15, kNewestOpset, "it was introduced in opset 15", ""}},
      {"MatMul", {1, kNewestOpset, "", ""}},
      // Before 13, over the 2-D coercion of the input at `axis` (default
      // 1): the same where `axis` is the last, which getSoftmaxAxis checks
      // (for LogSoftmax too).
      {"Softmax", {1, kNewestOpset, "", ""}},
      {"ReduceMean",
       {1, 17, "", "from opset 18 it takes its axes as an input"}},
      {"GlobalAveragePool", {1, kNewestOpset, "", ""}},
      // Before opset 13 its axes were an attribute, read as the input is.
      {"ReduceSum", {1, kNewestOpset, "", ""}},
      {"ReduceMax",
       {1, 17, "", "from opset 18 it takes its axes as an input"}},
      // Before opset 11 a negative axis was invalid; the others mean the
      // same.
      {"ArgMax", {1, kNewestOpset, "", ""}},
      {"CumSum", {11, kNewestOpset, "it was introduced in opset 11", ""}},
      {"LogSoftmax", {1, kNewestOpset, "", ""}},
      {"Einsum", {12, kNewestOpset, "it was introduced in opset 12", ""}},
      {"Tile",
       {6, kNewestOpset,
        "before opset 6 it took the tiles and the axis as inputs", ""}},
      {"Pad",
       {11, 17,
        "before opset 11 its pads and value were attributes, not inputs",
        "from opset 18 it takes the axes to pad as an input"}},
      {"ScatterND",
       {11, 17, "it was introduced in opset 11",
        "from opset 18 its 'reduction' may be max or min"}},
      {"LayerNormalization",
       {17, kNewestOpset, "it was introduced in opset 17", ""}},
      {"Conv", {1, kNewestOpset, "", ""}},
      {"Gather", {1, kNewestOpset, "", ""}},
      {"Transpose", {1, kNewestOpset, "", ""}},
      {"Reshape",
       {5, kNewestOpset, "before opset 5 its shape was an attribute", ""}},
      {"Flatten", {1, kNewestOpset, "", ""}},
      // Before opset 13 the axes were an attribute (getIntsInputOrAttribute
      // reads either), and before 11 they could not be negative.
      {"Squeeze", {1, kNewestOpset, "", ""}},
      {"Unsqueeze", {1, kNewestOpset, "", ""}},
      {"Slice",
       {10, kNewestOpset,
        "before opset 10 its starts, ends and axes were attributes", ""}},
      // Before opset 13 its 'split' was an attribute, read as the input is.
      {"Split",
       {2, 17, "before opset 2 its 'split' could be a second input",
        "from opset 18 it may split by a 'num_outputs' attribute"}},
      {"Concat",
       {4, kNewestOpset, "before opset 4 its axis defaulted to 1", ""}},
      {"Expand", {8, kNewestOpset, "it was introduced in opset 8", ""}},
      {"Constant", {1, kNewestOpset, "", ""}},
      {"ConstantOfShape",
       {9, kNewestOpset, "it was introduced in opset 9", ""}},
      {"Shape", {1, kNewestOpset, "", ""}},
      {"Size", {1, kNewestOpset, "", ""}},
      {"Range", {11, kNewestOpset, "it was introduced in opset 11", ""}},
      {"Trilu", {14, kNewestOpset, "it was introduced in opset 14", ""}},
      {"Identity", {1, kNewestOpset, "", ""}},
      {"Dropout",
       {10, kNewestOpset,
        "before opset 10 its mask had the input's type, and before opset 7 "
        "it had an 'is_test' attribute",
        ""}},
  };
  return ranges;
}

std::optional<std::string> mlir::tfm::onnx_import::checkOpset(StringRef opType,
                                                              int64_t opset) {
  // An op without an entry is imported at the opsets its handler was
  // written for.
  static const OpsetRange unchecked = {
      13, 17, "its versions before opset 13 were not checked against tfm's",
      "its versions after opset 17 were not checked against tfm's"};
  const llvm::StringMap<OpsetRange> &ranges = getOpsetRanges();
  auto it = ranges.find(opType);
  const OpsetRange &range = it == ranges.end() ? unchecked : it->second;
  if (opset >= range.first && opset <= range.last)
    return std::nullopt;
  return std::string(opset < range.first ? range.before : range.after) +
         "; tfm imports " + opType.str() + " of opsets " +
         std::to_string(range.first) + " to " + std::to_string(range.last);
}
