/* Greedy generation with a model compiled as a library with key/value
 * caches, through the prefill and step functions of its header:
 *
 *   tfm-compile gpt.onnx --kv-cache=64 --emit=lib \
 *       --symbol-prefix=gpt -o libgpt.so
 *   cc -I. examples/generate.c -L. -lgpt -Wl,-rpath,. -o generate
 *   ./generate 16 5 7 11 13      # 16 tokens after the prompt 5 7 11 13
 *
 * It prints the generated tokens, one line. One sequence (batch 1); the
 * caches are allocated once and each call appends to them in place. */

#include "libgpt.h"

#include <stdio.h>
#include <stdlib.h>

static int64_t argmax(const float *logits, int64_t vocab) {
  int64_t best = 0;
  for (int64_t i = 1; i < vocab; ++i)
    if (logits[i] > logits[best])
      best = i;
  return best;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s TOKENS PROMPT_ID...\n", argv[0]);
    return 2;
  }
  int64_t steps = atoll(argv[1]);
  int64_t length = argc - 2;
  int64_t *prompt = malloc(sizeof(int64_t) * length);
  for (int64_t i = 0; i < length; ++i)
    prompt[i] = atoll(argv[i + 2]);

  char error[256];
  tfm_kv_state *state = gpt_kv_state_create(/*batch=*/1, error, sizeof error);
  if (!state) {
    fprintf(stderr, "error: %s\n", error);
    return 1;
  }
  int64_t vocab = gpt_kv_state_vocab(state);
  float *logits = malloc(sizeof(float) * length * vocab);

  /* The prompt in one call: the logits of its last position choose the
   * first token. */
  if (gpt_prefill(state, prompt, length, logits) != 0) {
    fprintf(stderr, "error: %s\n", gpt_kv_state_error(state));
    return 1;
  }
  int64_t token = argmax(logits + (length - 1) * vocab, vocab);
  for (int64_t i = 0; i < steps; ++i) {
    printf(i ? " %lld" : "%lld", (long long)token);
    if (i + 1 == steps)
      break;
    /* One token against the caches: its logits choose the next. */
    if (gpt_step(state, &token, logits) != 0) {
      fprintf(stderr, "error: %s\n", gpt_kv_state_error(state));
      return 1;
    }
    token = argmax(logits, vocab);
  }
  printf("\n");
  fprintf(stderr, "%lld of %lld positions used\n",
          (long long)gpt_kv_state_length(state),
          (long long)gpt_kv_state_capacity(state));
  gpt_kv_state_destroy(state);
  free(logits);
  free(prompt);
  return 0;
}
