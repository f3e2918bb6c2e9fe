// memcpy / memmove / memset on float or double data are lowered to loops;
// the forms mpiad cannot count or order are located errors.
// RUN: not %mpiad-emit %s -o /dev/null 2>&1 | FileCheck %s --implicit-check-not error:
#include <string.h>

#pragma mpiad differentiate wrt(x) varying(x)
double f(const double *x, int n, int bytes) {
  double a[8], b[8];
  // CHECK: memcpy-errors.c:[[@LINE+1]]:16: error: the size of 'memcpy' on double data must be written as 'N * sizeof(double)' or 'sizeof array', so that mpiad can count its elements
  memcpy(a, x, bytes);
  // CHECK: memcpy-errors.c:[[@LINE+1]]:13: error: memset of float or double data to a byte other than 0 is not supported in a differentiated function; assign the values in a loop
  memset(b, 1, sizeof b);
  // CHECK: memcpy-errors.c:[[@LINE+1]]:3: error: memmove within one array is not supported in a differentiated function; copy through a second array
  memmove(a + 1, a, 4 * sizeof(double));
  return a[0] + b[0] + n;
}
