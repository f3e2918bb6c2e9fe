// Loop counters declared at function scope and reused by several loop nests
// (`int i, j, jj;` as in the Parallel Research Kernels) are not recorded when
// a loop starts: the reversed loop sets its counter before each reversed
// iteration, so the reads of the counter in the loop's reverse never need the
// value it had before the loop.  A counter read after its loop (the exit value
// `i` in `t = x[i - 1]`) is still restored for the reverse of the code before
// the loop when that code reads it.  exec/counter_function_scope.c runs these.
//
// RUN: %mpiad-emit %s -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck %s
#include <mpi.h>

#pragma mpiad differentiate wrt(x) varying(x)
double star(const double *x, int n, int m) {
  int i, j, jj;
  double s = 0.0;
  for (j = 2; j < m - 2; j++)
    for (i = 0; i < n; i++)
      for (jj = -2; jj <= 2; jj++)
        s += jj * x[(j + jj) * n + i] * x[j * n + i];
  return s;
}
// CHECK-LABEL: double star_b(
// CHECK: /* forward sweep */
// CHECK-NOT: mpiad_push_i64
// CHECK: /* reverse sweep */
// CHECK-NOT: mpiad_pop_i64
// CHECK: return mpiad_ret;

#pragma mpiad differentiate wrt(x) varying(x)
double exitval(const double *x, int n) {
  int i;
  double s = 0.0;
  i = n / 2;
  s = x[i] * x[i];
  for (i = 1; i < n; i++)
    s += x[i] * x[i - 1];
  s += x[i - 1] * x[0];
  return s;
}
// CHECK-LABEL: double exitval_b(
// CHECK: /* forward sweep */
// CHECK: s = x[i] * x[i];
// CHECK-NEXT: mpiad_push_i64(i);
// CHECK-NEXT: for (i = 1; i < n; i++) {
// CHECK: /* reverse sweep */
// CHECK: x_b[i - 1] +=
// CHECK: for (i = n - 1; i >= 1; i--) {
// CHECK: i = mpiad_pop_i64();
// CHECK: x_b[i] +=
