// An integer declared in a loop body and computed from loop counters and
// unchanged values (`int c = i * ys + j;`) is not recorded at every
// iteration: the reverse of the body computes it again first.  One that
// depends on data written in the loop (`k`) is still recorded.
//
// RUN: %mpiad-emit %s -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck %s
#include <mpi.h>

#pragma mpiad differentiate wrt(a) output(b) varying(a)
void f(const double *a, double *b, int nx, int ny, const int *perm) {
  int ys = ny + 2;
  for (int i = 1; i <= nx; i++)
    for (int j = 1; j <= ny; j++) {
      int c = i * ys + j;
      int k = perm[c];
      b[c] = a[c] * a[c - 1] + a[k];
    }
}
// CHECK-LABEL: void f_b(
// CHECK: /* forward sweep */
// CHECK-NOT: mpiad_push_i64(c)
// CHECK: c = i * ys + j;
// CHECK-NEXT: mpiad_push_i64(k);
// CHECK-NEXT: k = perm[c];
// CHECK-NOT: mpiad_push_i64(c)
// CHECK: /* reverse sweep */
// CHECK: for (int j = ny; j >= 1; j--) {
// CHECK-NEXT: c = i * ys + j;
// CHECK: a_b[k] += b_b[c];
// CHECK: k = mpiad_pop_i64();
