/* Calls two models, both with an entry @main, compiled into libraries of
 * different symbol prefixes, from one program. */
#include <stdio.h>

#include "libdouble.h"
#include "libsquare.h"

int main(void) {
  float x[4] = {1, 2, 3, 4}, d[4], s[4];
  if (dbl_main(x, d) != 0 || sq_main(x, s) != 0)
    return 1;
  for (int i = 0; i < 4; ++i)
    printf("%g %g\n", d[i], s[i]);
  /* Each library's signature is its own. */
  printf("%s", dbl_signature);
  return 0;
}
