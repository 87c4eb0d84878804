//===- AttentionScores.h - Attention's masked score, defined once -*- C++ -*-===//
//
// tfm.attention defines the score of query i and key j as
//
//   s = (q_i · k_j) · scale            scale, or 1/sqrt(head_dim)
//   s = s + mask[i, j]                 the additive mask, when given
//   s = j >= valid_len ? -1e6 : s      d2l's valid_lens, when given
//   s = j > i + offset ? -inf : s      causal, after `offset` cached positions
//
// A grouped-query attention that lays the query heads of a key/value head
// out as interleaved rows (row r = position r / g) compares the position.
//
// Every lowering that computes scores (the online attention's step, the
// materialised scores of the reference and decode paths, the exposed
// weights) builds this element-wise part with buildMaskedScore, so that it
// is written in one place.
//
//===----------------------------------------------------------------------===//

#ifndef TFM_DIALECT_TFM_IR_ATTENTIONSCORES_H
#define TFM_DIALECT_TFM_IR_ATTENTIONSCORES_H

#include "mlir/IR/Builders.h"

namespace mlir::tfm {

/// d2l's score for a key at or past its sequence's valid length. It is
/// finite: a row whose every key is masked (a valid length of 0 or less) gets
/// uniform weights over its keys, as d2l's masked_softmax gives, not NaN.
inline constexpr double kMaskedScore = -1e6;

/// What masks one score, each read by the caller inside the body of the op
/// that computes the scores. Null values are absent.
struct ScoreMasking {
  /// Multiplies the score (of the score's type).
  Value scale;
  /// The additive mask's element (of the score's type).
  Value additive;
  /// The valid length of the score's row (any integer type).
  Value validLen;
  /// Whether keys after the query (shifted by `queryOffset`) are masked.
  bool causal = false;
  /// The key's index (index type); needed with `validLen` or `causal`.
  Value key;
  /// The query's index (index type); needed with `causal`.
  Value query;
  /// The rows before the first query (index type), or null for 0.
  Value queryOffset;
  /// The query rows of one position: 1, or a grouped-query attention's
  /// query heads per key/value head when their rows are interleaved (row r
  /// of the group is position r / queryGroup, `queryOffset` counting rows).
  int64_t queryGroup = 1;
};

/// Returns `score` (a float scalar) scaled and masked as tfm.attention
/// defines it, in that order.
Value buildMaskedScore(OpBuilder &b, Location loc, Value score,
                       const ScoreMasking &masking);

/// Combines two scores (float scalars) into their maximum, for the shift m
/// of a softmax, exp(s - m) / sum(exp(s - m)): `arith.maxnumf`. The shift
/// only keeps the exponentials finite, so the two ways in which maxnumf
/// differs from maximumf do not change a softmax: a NaN score is passed
/// over by the maximum but still reaches every weight of its row through
/// its exponential and the row's sum, and the sign of a zero maximum
/// changes no difference. What it buys is code: a row's maximum over a
/// vector's lanes is a tree of vector maxima (tfm-cpu-reassociate-reductions)
/// instead of LLVM's lane-by-lane handling of NaNs and signed zeros, which
/// took a fifth of a CPU attention's time, and a GPU's max.f32 is maxnum.
Value buildSoftmaxMax(OpBuilder &b, Location loc, Value x, Value y);

} // namespace mlir::tfm

#endif // TFM_DIALECT_TFM_IR_ATTENTIONSCORES_H
