//===- TfmToLinalg.h - Lowering tfm to linalg on tensors --------*- C++ -*-===//
//
// The patterns are split by op family, as the dialect's verifiers are; each
// family's populate function lives in the file named after it in
// lib/Conversion/TfmToLinalg/.
//
//===----------------------------------------------------------------------===//

#ifndef TFM_CONVERSION_TFMTOLINALG_TFMTOLINALG_H
#define TFM_CONVERSION_TFMTOLINALG_TFMTOLINALG_H

namespace mlir {
class RewritePatternSet;

namespace tfm {

/// batch_matmul, masked_softmax, attention, additive_attention,
/// kernel_pooling, split_heads, merge_heads, kv_cache_append
/// (AttentionOps.cpp). With `decodePath`, an attention of one query row
/// per batch (a decoding step; at run time when the number of queries is
/// dynamic) reads its keys in place instead of through the flash
/// attention's transposed copy.
void populateAttentionToLinalgPatterns(RewritePatternSet &patterns,
                                       bool decodePath = false);

/// linear, layer_norm, rms_norm, gelu, dropout (LayerOps.cpp).
void populateLayerToLinalgPatterns(RewritePatternSet &patterns);

/// embedding, positional_encoding, patch_embed, prepend_class_token
/// (EmbeddingOps.cpp).
void populateEmbeddingToLinalgPatterns(RewritePatternSet &patterns);

/// All of the above plus the decomposition of composite ops.
void populateTfmToLinalgPatterns(RewritePatternSet &patterns,
                                 bool decodePath = false);

} // namespace tfm
} // namespace mlir

#endif // TFM_CONVERSION_TFMTOLINALG_TFMTOLINALG_H
