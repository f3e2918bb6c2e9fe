// semantics(global): s = Allreduce_SUM(local) is replicated, but a varying
// computation uses it (r += s * x[i], x differs per rank), so each rank holds only
// its share of s's cotangent. The reverse sweep sums the shares with one in-place
// MPI_Allreduce, then hands the cotangent to local.
//
// RUN: %mpiad-emit %s -o - 2>&1 | sed '/^\/\/ [A-Z-]*:/d' | FileCheck %s

// r varies across ranks (it depends on x, listed in varying(...)): the objective
// sums it.  The size n needs no clause: with x varying, the code is the same
// whether n is equal on all ranks or not, and the tool says nothing.
// CHECK-NOT:  warning
// CHECK:      {{^}} *   dependents:   return value (varying: summed over ranks)
// CHECK:      {{^}}double f_b(const double *x, double *x_b, int n, MPI_Comm comm, double f_bar) {
// CHECK:      /* reverse sweep */
// CHECK-NOT:  MPI_
// CHECK:      for (int i = n - 1; i >= 0; i--) {
// CHECK-NEXT:   s_b += r_b * x[i];
// CHECK-NEXT:   x_b[i] += s * r_b;
// CHECK-NEXT: }
// CHECK-NEXT: r_b = 0;
// CHECK-NEXT: MPI_Allreduce(MPI_IN_PLACE, &s_b, 1, MPI_DOUBLE, MPI_SUM, comm);
// CHECK-NEXT: local_b += s_b;
// CHECK-NOT:  MPI_
// CHECK:      return mpiad_ret;

#include <mpi.h>

#pragma mpiad differentiate wrt(x) varying(x)
double f(const double *x, int n, MPI_Comm comm) {
  double local = 0.0;
  for (int i = 0; i < n; i++)
    local += x[i] * x[i];
  double s = 0.0;
  MPI_Allreduce(&local, &s, 1, MPI_DOUBLE, MPI_SUM, comm);
  double r = 0.0;
  for (int i = 0; i < n; i++)
    r += s * x[i];
  return r;
}
