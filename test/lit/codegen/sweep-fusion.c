// Sweep fusion: when the adjoint of the code after the last active loop needs
// no forward values (here the seed goes back through the Allreduce and the
// scaling unchanged), that adjoint runs first and the loop's adjoint runs
// inside the loop, one pass over x and y instead of two.  Not fused: a loop
// that records values, and a loop whose adjoint writes another iteration's
// element.
//
// RUN: %mpiad-emit %s -o %t.c
// RUN: sed '/^\/\/ [A-Z-]*:/d' %t.c | FileCheck %s
#include <mpi.h>

#pragma mpiad differentiate wrt(x, y) varying(x, y)
double dot(const double *x, const double *y, int n, MPI_Comm comm) {
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += x[i] * y[i];
  double J = 0.0;
  MPI_Allreduce(&s, &J, 1, MPI_DOUBLE, MPI_SUM, comm);
  return 2.0 * J;
}
// CHECK-LABEL: double dot_b(
// CHECK:      /* forward sweep */
// CHECK-NEXT: s = 0.0;
// CHECK-NEXT: /* the adjoint of the code after this loop needs no forward values: it runs first, and the loop's adjoint runs inside the loop */
// CHECK-NEXT: mpiad_ret_b = dot_bar;
// CHECK-NEXT: J_b += 2.0 * mpiad_ret_b;
// CHECK-NEXT: mpiad_ret_b = 0;
// CHECK-NEXT: s_b += J_b;
// CHECK-NEXT: J_b = 0;
// CHECK-NEXT: for (int i = 0; i < n; i++) {
// CHECK-NEXT:   s += x[i] * y[i];
// CHECK-NEXT:   /* adjoint of this iteration */
// CHECK-NEXT:   x_b[i] += s_b * y[i];
// CHECK-NEXT:   y_b[i] += x[i] * s_b;
// CHECK-NEXT: }
// CHECK-NEXT: J = 0.0;
// CHECK-NEXT: MPI_Allreduce(&s, &J, 1, MPI_DOUBLE, MPI_SUM, comm);
// CHECK-NEXT: mpiad_ret = 2.0 * J;
// CHECK-EMPTY:
// CHECK-NEXT: /* reverse sweep */
// CHECK-NEXT: s_b = 0;
// CHECK-NEXT: return mpiad_ret;

#pragma mpiad differentiate wrt(x) varying(x)
double quart(const double *x, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    double t = x[i] * x[i];
    s += t * t;
  }
  return s;
}
// t is computed again by the loop's reverse (Recompute.cpp) instead of
// recorded; that assignment is not an adjoint update at [i]: not fused.
// CHECK-LABEL: double quart_b(
// CHECK-NOT:  adjoint of this iteration
// CHECK:      /* reverse sweep */
// CHECK:      for (int i = n - 1; i >= 0; i--) {
// CHECK-NEXT: t = x[i] * x[i];
// CHECK-NOT:  mpiad_pop_f64

#pragma mpiad differentiate wrt(x) varying(x)
double chain(const double *x, int n) {
  double s = 0.0;
  for (int i = 1; i < n; i++)
    s += x[i] * x[i - 1];
  return s;
}
// The adjoint writes x_b[i - 1]: not fused (its reverse is a gather).
// CHECK-LABEL: double chain_b(
// CHECK-NOT:  adjoint of this iteration
// CHECK:      /* reverse sweep */
// CHECK:      /* reverse of the stencil loop over i, as a gather (boundary iterations peeled) */
// CHECK:      x_b[mpiad_j2] += s_b * x[mpiad_j2 - 1] + x[mpiad_j2 + 1] * s_b;
