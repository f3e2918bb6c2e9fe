// realloc of a buffer whose values carry derivatives is a located error
// that says what to write (a general "no derivative known" before).
//
// RUN: not %mpiad-emit %s -o /dev/null 2>&1 | FileCheck %s --implicit-check-not=error:
#include <stdlib.h>

#pragma mpiad differentiate wrt(x) varying(x)
double f(const double *x, int n) {
  double *a = malloc(2 * sizeof(double));
  a[0] = x[0];
  // CHECK: realloc.c:[[@LINE+1]]:7: error: 'realloc' of 'a', whose values carry derivatives, is not supported: allocate the final size with malloc, or malloc a new buffer and copy the values into it
  a = realloc(a, n * sizeof(double));
  for (int i = 1; i < n; i++)
    a[i] = x[i] * a[i - 1];
  double s = a[n - 1];
  free(a);
  return s;
}
