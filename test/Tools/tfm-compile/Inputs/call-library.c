/* Calls a model compiled with --emit=lib through its generated header. */
#include <stdio.h>

#include "libmodel.h"

int main(void) {
  float x[3 * 20], y[3 * 5];
  for (int i = 0; i < 3 * 20; ++i)
    x[i] = (float)(i % 7 - 3) / 4;
  if (tfm_main(x, y) != 0)
    return 1;
  for (int i = 0; i < 3 * 5; ++i)
    printf("%.7g\n", y[i]);
  return 0;
}
