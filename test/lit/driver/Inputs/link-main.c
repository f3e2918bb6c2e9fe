/* The caller of link-two-files.c: calls sq_b through the header that
 * mpiad-cc --emit-header wrote (sq_ad.h, found with -I). */
#include <stdio.h>

#include "sq_ad.h"

int main(void) {
  double x_b = 0.0;
  double y = sq_b(3.0, &x_b, 1.0);
  printf("y = %g, dy/dx = %g\n", y, x_b);
  return 0;
}
