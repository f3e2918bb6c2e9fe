#include "project-header.h"
#include <mpi.h>

#pragma mpiad differentiate wrt(x)
double sq(double x) { return R * x * x + J; }

/* posix_memalign is declared only when _POSIX_C_SOURCE >= 200112L is set
   before the first system header. */
void *aligned(size_t n) {
  void *p = NULL;
  return posix_memalign(&p, 64, n) == 0 ? p : NULL;
}
