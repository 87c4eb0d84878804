//===- Generate.h - Generation over a model's key/value caches --*- C++ -*-===//
//
// A model compiled with tfm-compile --kv-cache takes token ids, the number
// of positions its caches hold and the caches, which it updates in place
// (runtime/Signature.h marks them `kv_position` and `kv_cache`). A
// tfm_kv_state owns those caches for one batch of sequences and runs the
// model on them: a prefill is a run with the prompt, a decoding step a run
// with one token per sequence. The executables' --generate and the shared
// libraries' prefill/step functions (see the generated header) use it.
//
//===----------------------------------------------------------------------===//

#ifndef TFM_RUNTIME_GENERATE_H
#define TFM_RUNTIME_GENERATE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tfm_kv_state tfm_kv_state;

/// A compiled model's packed entry point (tfm_run_dims).
typedef int (*tfm_run_dims_fn)(const int64_t *dims, void **buffers);

// The declarations from here to the end marker are also a library's: its
// header (lib/Target/Native/Header.cpp) copies them with the library's
// symbol prefix for `tfm` (gpt_kv_state_run for tfm_kv_state_run), the
// names under which the library exports these functions.
// BEGIN LIBRARY API

/// Allocates empty caches for `batch` sequences of the model whose
/// signature text and entry point these are. Returns NULL, with a message
/// in error[0..error_size), when the model has no caches, is not a decoder
/// of token ids to logits, does not take this batch, or memory runs out.
tfm_kv_state *tfm_kv_state_create_for(const char *signature,
                                      tfm_run_dims_fn run, int64_t batch,
                                      char *error, size_t error_size);

/// Frees the caches.
void tfm_kv_state_destroy(tfm_kv_state *state);

/// Forgets every position, to start new sequences.
void tfm_kv_state_reset(tfm_kv_state *state);

/// The positions the caches hold, and the most they can hold.
int64_t tfm_kv_state_length(const tfm_kv_state *state);
int64_t tfm_kv_state_capacity(const tfm_kv_state *state);

/// The size of the vocabulary: the logits of one position.
int64_t tfm_kv_state_vocab(const tfm_kv_state *state);

/// Runs the model on `ids` ([batch, seq], int64) at the caches' position,
/// writes `logits` ([batch, seq, vocab], float) and appends the seq
/// positions to the caches. Returns 0; or, leaving the state as it was, 1
/// when seq is below 1, an id is outside the vocabulary or the caches
/// cannot hold seq more positions, with a message in the state
/// (tfm_kv_state_error).
int tfm_kv_state_run(tfm_kv_state *state, const int64_t *ids, int64_t seq,
                     float *logits);

/// The message of the last failed run.
const char *tfm_kv_state_error(const tfm_kv_state *state);

// END LIBRARY API

#ifdef __cplusplus
}
#endif

#endif // TFM_RUNTIME_GENERATE_H
