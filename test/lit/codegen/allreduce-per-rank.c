// semantics(per_rank) treats every value as varying: the adjoint of an
// Allreduce SUM is an Allreduce SUM of the cotangent, even where the global
// semantics would need none (compare allreduce-global-replicated.c). The
// header comment says which semantics the adjoint implements.
//
// RUN: %mpiad-emit %s -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck %s

// CHECK:      {{^}}// #pragma mpiad differentiate wrt(x) semantics(per_rank)
// CHECK:      {{^}} * mpiad: adjoint (reverse mode) of f, semantics(per_rank)
// CHECK-NEXT: {{^}} *   independents: x
// CHECK-NEXT: {{^}} *   dependents:   return value (per rank)
// CHECK:      {{^}}double f_b(const double *x, double *x_b, int n, MPI_Comm comm, double f_bar) {
// CHECK:      /* reverse sweep */
// CHECK:      s_b += s * mpiad_ret_b;
// CHECK-NEXT: mpiad_ret_b = 0;
// CHECK-NEXT: MPI_Allreduce(MPI_IN_PLACE, &s_b, 1, MPI_DOUBLE, MPI_SUM, comm);
// CHECK-NEXT: local_b += s_b;
// CHECK-NOT:  MPI_
// CHECK:      return mpiad_ret;

#include <mpi.h>

#pragma mpiad differentiate wrt(x) semantics(per_rank)
double f(const double *x, int n, MPI_Comm comm) {
  double local = 0.0;
  for (int i = 0; i < n; i++)
    local += x[i] * x[i];
  double s = 0.0;
  MPI_Allreduce(&local, &s, 1, MPI_DOUBLE, MPI_SUM, comm);
  return s * s;
}
