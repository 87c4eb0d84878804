//===- LayerOps.cpp - Layer family of tfm ops -----------------------------===//
//
// Verifiers, type inference and folders of linear, ffn, layer_norm,
// add_norm, gelu and dropout.
//
//===----------------------------------------------------------------------===//

#include "VerifyUtils.h"
#include "tfm/Dialect/Tfm/IR/TfmOps.h"

using namespace mlir;
using namespace mlir::tfm;

/// Checks a linear layer's `weight` (`[N, K]`) and optional `bias` (`[N]`)
/// against an input whose last dimension is `inFeatures`; `inFeaturesReason`
/// says where `inFeatures` comes from.
static LogicalResult verifyLinearParams(Operation *op, const NamedValue &weight,
                                        const NamedValue &bias,
                                        int64_t inFeatures,
                                        const Twine &inFeaturesReason) {
  if (failed(verifyRank(op, weight, 2, "[out_features, in_features]")) ||
      failed(verifyDim(op, weight, 1, inFeatures, inFeaturesReason)))
    return failure();
  if (!bias.value)
    return success();
  if (failed(verifyRank(op, bias, 1, "[out_features]")))
    return failure();
  return verifyDim(op, bias, 0, weight.getDim(0),
                   weight.name + "'s out_features");
}

/// Infers `[..., N]` from an input `[..., K]` and a weight `[N, K]`.
static LogicalResult inferLinearResult(std::optional<Location> loc,
                                       StringRef opName, Value input,
                                       Value weight,
                                       SmallVectorImpl<Type> &types) {
  auto in = getRankedOrError(loc, opName, "input", input, 1);
  auto w = getRankedOrError(loc, opName, "weight", weight, 1);
  if (!in || !w)
    return failure();
  SmallVector<int64_t> shape(in.getShape().drop_back());
  shape.push_back(w.getShape().front());
  return inferTensor(types, shape, in.getElementType());
}

//===----------------------------------------------------------------------===//
// LinearOp
//===----------------------------------------------------------------------===//

LogicalResult LinearOp::verify() {
  NamedValue input{"input", getInput()}, weight{"weight", getWeight()},
      bias{"bias", getBias()};
  if (failed(verifyMinRank(*this, input, 1, "[..., in_features]")) ||
      failed(verifySameElementType(*this, input, {weight, bias})))
    return failure();
  return verifyLinearParams(*this, weight, bias, input.getDim(-1),
                            "input's last dimension");
}

LogicalResult LinearOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  return inferLinearResult(loc, getOperationName(), adaptor.getInput(),
                           adaptor.getWeight(), types);
}

//===----------------------------------------------------------------------===//
// FfnOp
//===----------------------------------------------------------------------===//

LogicalResult FfnOp::verify() {
  NamedValue input{"input", getInput()};
  NamedValue w1{"w1", getW1()}, b1{"b1", getB1()}, w2{"w2", getW2()},
      b2{"b2", getB2()};
  if (failed(verifyMinRank(*this, input, 1, "[..., features]")) ||
      failed(verifySameElementType(*this, input, {w1, b1, w2, b2})) ||
      failed(verifyLinearParams(*this, w1, b1, input.getDim(-1),
                                "input's last dimension")))
    return failure();
  if (getActivation() == Activation::none)
    return emitOpError() << "expected an activation between the two layers "
                            "(relu, gelu, gelu_tanh or silu), found none";
  if (failed(verifyLinearParams(*this, w2, b2, w1.getDim(0),
                                "the hidden size, w1's out_features")))
    return failure();
  // The gate of a GLU: w1's shape, the same element type.
  if (Value gate = getWGate()) {
    NamedValue wg{"w_gate", gate}, bg{"b_gate", getBGate()};
    if (failed(verifySameElementType(*this, input, {wg, bg})) ||
        failed(verifyLinearParams(*this, wg, bg, input.getDim(-1),
                                  "input's last dimension")) ||
        failed(verifyDim(*this, wg, 0, w1.getDim(0),
                         "the hidden size, w1's out_features")))
      return failure();
  }
  return verifyDropoutRate(*this, "dropout", getDropout().convertToDouble());
}

LogicalResult FfnOp::inferReturnTypes(MLIRContext *,
                                      std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &types) {
  return inferLinearResult(loc, getOperationName(), adaptor.getInput(),
                           adaptor.getW2(), types);
}

//===----------------------------------------------------------------------===//
// LayerNormOp and AddNormOp
//===----------------------------------------------------------------------===//

/// Checks LayerNorm's `gamma` and `beta` (`[D]`) and `epsilon` against an
/// input whose last dimension is `features`.
static LogicalResult verifyNormParams(Operation *op, const NamedValue &gamma,
                                      const NamedValue &beta,
                                      int64_t features, double epsilon) {
  if (failed(verifyRank(op, gamma, 1, "[features]")) ||
      failed(verifyRank(op, beta, 1, "[features]")) ||
      failed(verifyDim(op, gamma, 0, features, "the input's last dimension")) ||
      failed(verifyDim(op, beta, 0, features, "the input's last dimension")))
    return failure();
  if (!(epsilon >= 0.0) || !std::isfinite(epsilon))
    return op->emitOpError()
           << "expected a non-negative finite epsilon, found " << epsilon;
  return success();
}

LogicalResult LayerNormOp::verify() {
  NamedValue input{"input", getInput()}, gamma{"gamma", getGamma()},
      beta{"beta", getBeta()};
  if (failed(verifyMinRank(*this, input, 1, "[..., features]")) ||
      failed(verifySameElementType(*this, input, {gamma, beta})))
    return failure();
  return verifyNormParams(*this, gamma, beta, input.getDim(-1),
                          getEpsilon().convertToDouble());
}

LogicalResult LayerNormOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  auto input = getRankedOrError(loc, getOperationName(), "input",
                                adaptor.getInput(), 1);
  if (!input)
    return failure();
  types.push_back(input);
  return success();
}

LogicalResult RmsNormOp::verify() {
  NamedValue input{"input", getInput()}, gamma{"gamma", getGamma()};
  if (failed(verifyMinRank(*this, input, 1, "[..., features]")) ||
      failed(verifySameElementType(*this, input, {gamma})) ||
      failed(verifyRank(*this, gamma, 1, "[features]")) ||
      failed(verifyDim(*this, gamma, 0, input.getDim(-1),
                       "the input's last dimension")))
    return failure();
  double epsilon = getEpsilon().convertToDouble();
  if (!(epsilon >= 0.0) || !std::isfinite(epsilon))
    return emitOpError() << "expected a non-negative finite epsilon, found "
                         << epsilon;
  return success();
}

LogicalResult RmsNormOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  auto input = getRankedOrError(loc, getOperationName(), "input",
                                adaptor.getInput(), 1);
  if (!input)
    return failure();
  types.push_back(input);
  return success();
}

LogicalResult AddNormOp::verify() {
  NamedValue residual{"residual", getResidual()},
      sublayer{"sublayer", getSublayer()}, gamma{"gamma", getGamma()},
      beta{"beta", getBeta()};
  if (failed(verifyMinRank(*this, residual, 1, "[..., features]")) ||
      failed(verifyRank(*this, sublayer, residual.getRank(),
                        "(the rank of residual)")) ||
      failed(verifySameElementType(*this, residual, {sublayer, gamma, beta})))
    return failure();
  // Every dimension must match, the features included: not only the batch
  // dimensions that verifySameLeadingDims names in its diagnostic.
  for (int64_t i = 0, e = residual.getRank(); i < e; ++i)
    if (failed(verifyDim(*this, sublayer, i, residual.getDim(i),
                         "the shape of residual")))
      return failure();
  if (failed(verifyNormParams(*this, gamma, beta, residual.getDim(-1),
                              getEpsilon().convertToDouble())))
    return failure();
  return verifyDropoutRate(*this, "dropout", getDropout().convertToDouble());
}

LogicalResult AddNormOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  auto residual = getRankedOrError(loc, getOperationName(), "residual",
                                   adaptor.getResidual(), 1);
  if (!residual)
    return failure();
  types.push_back(residual);
  return success();
}

//===----------------------------------------------------------------------===//
// DropoutOp
//===----------------------------------------------------------------------===//

LogicalResult DropoutOp::verify() {
  return verifyDropoutRate(*this, "rate", getRate().convertToDouble());
}

OpFoldResult DropoutOp::fold(FoldAdaptor) {
  // tfm compiles for inference, where dropout is the identity.
  return getInput();
}
