// Helpers whose result is not differentiated (a convergence test's sum):
// the shadows of their pointer parameters carry nothing back.  The generated
// code was not warning-free: `unused parameter 'a_b'` in the reverse helper
// of a helper left a call, `variable 'a_b' set but not used` for the
// shadow copies of an inlined helper's parameters.  Now the first are cast
// to void and the second are not made.
// RUN: %mpiad-cc -c -Wall -Wextra -pedantic -Werror -Wno-mpiad-restored-output %s -o %t.o
// RUN: %mpiad-emit -Wno-mpiad-restored-output %s -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck %s
#include <mpi.h>

static double diff(const double *a, const double *b, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += (a[i] - b[i]) * (a[i] - b[i]);
  return s;
}

static double gdiff(const double *a, const double *b, int n, MPI_Comm comm) {
  double s = 0.0, g;
  for (int i = 0; i < n; i++)
    s += (a[i] - b[i]) * (a[i] - b[i]);
  MPI_Allreduce(&s, &g, 1, MPI_DOUBLE, MPI_SUM, comm);
  return g;
}

// CHECK-LABEL: static void mpiad_rev_diff(const double *a, double *a_b, const double *b, double *b_b, int n) {
// CHECK: (void)a_b;
// CHECK-NEXT: (void)b_b;
// CHECK-LABEL: void f_b(
// CHECK: /* inlined: gdiff(u, w, n, comm) */
// CHECK-NOT: a_b = u_b;
// CHECK: free(w_b);
#pragma mpiad differentiate wrt(u) output(u) varying(u) replicated(n, maxit) scratch(w[n])
void f(double *u, double *w, int n, int maxit, MPI_Comm comm) {
  for (int it = 0; it < maxit; it++) {
    for (int i = 1; i < n - 1; i++)
      w[i] = 0.5 * (u[i - 1] + u[i + 1]);
    for (int i = 1; i < n - 1; i++)
      u[i] = w[i] * u[i];
    double l = diff(u, w, n), g;
    MPI_Allreduce(&l, &g, 1, MPI_DOUBLE, MPI_SUM, comm);
    double d = gdiff(u, w, n, comm);
    if (g < 1e-12 || d < 1e-12)
      break;
  }
}
