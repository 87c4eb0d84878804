/* Calls a library compiled with --max-seq=4 within the bound and past it:
 * y = x + x over [batch, seq, 4], with the sizes passed before the buffers.
 * Prints each y, one value a line. */
#include <stdio.h>

#include "libbounded.h"

static int run(int64_t batch, int64_t seq) {
  float x[3 * 5 * 4], y[3 * 5 * 4];
  int64_t n = batch * seq * 4;
  for (int64_t i = 0; i < n; ++i)
    x[i] = (float)i;
  if (tfm_main(batch, seq, x, y) != 0)
    return 1;
  for (int64_t i = 0; i < n; ++i)
    printf("%g\n", y[i]);
  return 0;
}

int main(void) { return run(1, 2) || run(3, 5); }
