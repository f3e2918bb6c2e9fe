// Allreduce forms whose adjoint needs the runtime: MPI_MAX (the cotangent goes to
// the rank holding the maximum, so the forward sweep goes through
// mpiad_allreduce_fwd, which records it) and MPI_IN_PLACE (one buffer for input
// and result). Both reverse with one mpiad_allreduce_rev call.
//
// RUN: %mpiad-emit %s -o - 2>/dev/null | sed '/^\/\/ [A-Z-]*:/d' | FileCheck %s

// CHECK-LABEL: {{^}}double allmax_b(double x, double *x_b, MPI_Comm comm, double allmax_bar) {
// CHECK:       /* forward sweep */
// CHECK-NOT:   MPI_Allreduce
// CHECK:       mpiad_allreduce_fwd(&x, &m, 1, MPI_DOUBLE, MPI_MAX, comm);
// CHECK:       /* reverse sweep */
// CHECK:       mpiad_allreduce_rev(&x_b_acc, &m_b, 1, MPI_DOUBLE, MPI_MAX, comm, {{[01]}});
// CHECK-NOT:   MPI_Allreduce
// CHECK:       return mpiad_ret;

// CHECK-LABEL: {{^}}double finplace_b(const double *x, double *x_b, int n, MPI_Comm comm, double finplace_bar) {
// CHECK:       /* forward sweep */
// CHECK:       MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, comm);
// CHECK:       /* reverse sweep */
// CHECK-NOT:   MPI_Allreduce
// CHECK:       mpiad_allreduce_rev(MPI_IN_PLACE, &s_b, 1, MPI_DOUBLE, MPI_SUM, comm, {{[01]}});
// CHECK-NOT:   MPI_Allreduce
// CHECK:       for (int i = n - 1; i >= 0; i--) {
// CHECK-NEXT:    x_b[i] += {{.*}}s_b{{.*}};

#include <mpi.h>

#pragma mpiad differentiate wrt(x) varying(x)
double allmax(double x, MPI_Comm comm) {
  double m;
  MPI_Allreduce(&x, &m, 1, MPI_DOUBLE, MPI_MAX, comm);
  return m;
}

#pragma mpiad differentiate wrt(x) varying(x)
double finplace(const double *x, int n, MPI_Comm comm) {
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += x[i] * x[i];
  MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, comm);
  return s * s;
}
