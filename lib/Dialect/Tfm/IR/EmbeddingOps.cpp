//===- EmbeddingOps.cpp - Embedding family of tfm ops ---------------------===//
//
// Verifiers and type inference of embedding, positional_encoding,
// rotary_embedding, patch_embed and prepend_class_token.
//
//===----------------------------------------------------------------------===//

#include "VerifyUtils.h"
#include "tfm/Dialect/Tfm/IR/TfmOps.h"

using namespace mlir;
using namespace mlir::tfm;

//===----------------------------------------------------------------------===//
// EmbeddingOp
//===----------------------------------------------------------------------===//

LogicalResult EmbeddingOp::verify() {
  return verifyRank(*this, {"table", getTable()}, 2,
                    "[vocab_size, embedding_dim]");
}

LogicalResult EmbeddingOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  auto indices = getRankedOrError(loc, getOperationName(), "indices",
                                  adaptor.getIndices(), 0);
  auto table = getRankedOrError(loc, getOperationName(), "table",
                                adaptor.getTable(), 1);
  if (!indices || !table)
    return failure();
  SmallVector<int64_t> shape(indices.getShape());
  shape.push_back(table.getShape().back());
  return inferTensor(types, shape, table.getElementType());
}

//===----------------------------------------------------------------------===//
// RotaryEmbeddingOp
//===----------------------------------------------------------------------===//

LogicalResult RotaryEmbeddingOp::verify() {
  NamedValue input{"input", getInput()}, cos{"cos", getCos()},
      sin{"sin", getSin()};
  if (failed(verifyMinRank(*this, input, 2, "[..., positions, features]")) ||
      failed(verifySameElementType(*this, input, {cos, sin})) ||
      failed(verifyRank(*this, cos, 2, "[positions, features / 2]")) ||
      failed(verifyRank(*this, sin, 2, "[positions, features / 2]")))
    return failure();
  int64_t features = input.getDim(-1);
  if (ShapedType::isDynamic(features) || features % 2 != 0)
    return emitOpError() << "expected a static, even number of features "
                            "(the last dimension of input), found "
                         << input.getType();
  if (failed(verifyDim(*this, cos, 1, features / 2,
                       "half the input's features")) ||
      failed(verifyDim(*this, sin, 1, features / 2,
                       "half the input's features")) ||
      failed(verifyDim(*this, sin, 0, cos.getDim(0), "the rows of cos")))
    return failure();
  int64_t positions = input.getDim(-2), rows = cos.getDim(0);
  if (!getOffset() && !ShapedType::isDynamic(positions) &&
      !ShapedType::isDynamic(rows) && positions > rows)
    return emitOpError() << "expected at most " << rows
                         << " positions (the rows of the tables), found "
                         << input.getType();
  return success();
}

LogicalResult RotaryEmbeddingOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &types) {
  auto input = getRankedOrError(loc, getOperationName(), "input",
                                adaptor.getInput(), 2);
  if (!input)
    return failure();
  types.push_back(input);
  return success();
}

//===----------------------------------------------------------------------===//
// PositionalEncodingOp
//===----------------------------------------------------------------------===//

LogicalResult PositionalEncodingOp::verify() {
  NamedValue input{"input", getInput()};
  if (failed(verifyMinRank(*this, input, 2, "[..., seq, features]")))
    return failure();
  int64_t features = input.getDim(-1);
  if (!ShapedType::isDynamic(features) && features % 2 != 0)
    return emitOpError() << "expected an even number of features for the "
                            "sine/cosine pairs, found "
                         << input.getType();
  return success();
}

//===----------------------------------------------------------------------===//
// PatchEmbedOp
//===----------------------------------------------------------------------===//

LogicalResult PatchEmbedOp::verify() {
  NamedValue image{"image", getImage()}, weight{"weight", getWeight()},
      bias{"bias", getBias()};
  if (failed(verifyRank(*this, image, 4, "[batch, channels, height, width]")) ||
      failed(verifyRank(*this, weight, 4,
                        "[embed_dim, channels, patch_h, patch_w]")) ||
      failed(verifySameElementType(*this, image, {weight, bias})) ||
      failed(verifyDim(*this, weight, 1, image.getDim(1),
                       "the image's channels")))
    return failure();
  for (int64_t i : {2, 3}) {
    int64_t patch = weight.getDim(i), size = image.getDim(i);
    StringRef side = i == 2 ? "height" : "width";
    if (ShapedType::isDynamic(patch))
      return emitOpError() << "expected a static patch size in weight, found "
                           << weight.getType();
    // A zero-sized patch would make the patch count a division by zero.
    if (patch == 0)
      return emitOpError() << "expected a positive patch " << side
                           << " in weight, found " << weight.getType();
    if (!ShapedType::isDynamic(size) && size % patch != 0)
      return emitOpError() << "expected the image's " << side << " (" << size
                           << ") to be a multiple of the patch " << side << " ("
                           << patch << "), found " << image.getType();
  }
  if (!bias.value)
    return success();
  if (failed(verifyRank(*this, bias, 1, "[embed_dim]")))
    return failure();
  return verifyDim(*this, bias, 0, weight.getDim(0), "weight's embed_dim");
}

LogicalResult PatchEmbedOp::inferReturnTypes(MLIRContext *,
                                             std::optional<Location> loc,
                                             Adaptor adaptor,
                                             SmallVectorImpl<Type> &types) {
  auto image = getRankedOrError(loc, getOperationName(), "image",
                                adaptor.getImage(), 4);
  auto weight = getRankedOrError(loc, getOperationName(), "weight",
                                 adaptor.getWeight(), 4);
  if (!image || !weight)
    return failure();
  ArrayRef<int64_t> img = image.getShape(), w = weight.getShape();
  int64_t patches = ShapedType::kDynamic;
  if (!llvm::any_of(ArrayRef<int64_t>{img[2], img[3], w[2], w[3]},
                    ShapedType::isDynamic) &&
      w[2] > 0 && w[3] > 0)
    patches = (img[2] / w[2]) * (img[3] / w[3]);
  return inferTensor(types, {img[0], patches, w[0]}, image.getElementType());
}

//===----------------------------------------------------------------------===//
// PrependClassTokenOp
//===----------------------------------------------------------------------===//

LogicalResult PrependClassTokenOp::verify() {
  NamedValue input{"input", getInput()}, token{"class_token", getClassToken()};
  if (failed(verifyRank(*this, input, 3, "[batch, seq, features]")) ||
      failed(verifyRank(*this, token, 3, "[1, 1, features]")) ||
      failed(verifySameElementType(*this, input, {token})) ||
      failed(verifyDim(*this, token, 0, 1, "one token shared by the batch")) ||
      failed(verifyDim(*this, token, 1, 1, "a single token")) ||
      failed(verifyDim(*this, token, 2, input.getDim(2),
                       "the input's features")) ||
      failed(verifyNonZeroDim(*this, input, 2, "the feature size")))
    return failure();
  return success();
}

LogicalResult PrependClassTokenOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &types) {
  auto input = getRankedOrError(loc, getOperationName(), "input",
                                adaptor.getInput(), 3);
  if (!input)
    return failure();
  ArrayRef<int64_t> shape = input.getShape();
  int64_t seq = ShapedType::isDynamic(shape[1]) ? shape[1] : shape[1] + 1;
  return inferTensor(types, {shape[0], seq, shape[2]},
                     input.getElementType());
}
