// semantics(global): s = Allreduce_SUM(local) is replicated and only replicated
// code uses it (y = s * s, counted once). Its adjoint is a local copy of the
// cotangent: the reverse sweep makes no MPI call at all (no defensive
// all-reduce, JAX issue 21855).
//
// RUN: %mpiad-emit %s -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck %s

// CHECK:      {{^}} * mpiad: adjoint (reverse mode) of f, semantics(global)
// CHECK:      {{^}} *   dependents:   return value (replicated: counted once)
// CHECK:      {{^}}double f_b(const double *x, double *x_b, int n, MPI_Comm comm, double f_bar) {
// CHECK:      /* forward sweep */
// CHECK:      MPI_Allreduce(&local, &s, 1, MPI_DOUBLE, MPI_SUM, comm);
// CHECK-NEXT: mpiad_ret = s * s;
// CHECK:      /* reverse sweep */
// CHECK-NOT:  MPI_
// CHECK-NOT:  mpiad_batch
// CHECK:      s_b += mpiad_ret_b * s;
// CHECK-NEXT: s_b += s * mpiad_ret_b;
// CHECK-NEXT: mpiad_ret_b = 0;
// The transpose of the Allreduce: local's adjoint takes s's, on every rank.
// CHECK-NEXT: local_b += s_b;
// CHECK:      for (int i = n - 1; i >= 0; i--) {
// CHECK-NEXT:   x_b[i] += local_b * x[i];
// CHECK-NEXT:   x_b[i] += x[i] * local_b;
// CHECK-NEXT: }
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
  return s * s;
}
