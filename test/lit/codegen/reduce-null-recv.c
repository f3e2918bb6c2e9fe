// MPI_Reduce with a NULL receive buffer on the ranks other than the root
// (exec/mpi_reduce_null_recv.c runs it): the tangent call and the adjoint
// helper get NULL where the primal has NULL.
// RUN: %mpiad-emit %s -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck %s
#include <mpi.h>
#include <stddef.h>

#pragma mpiad differentiate forward wrt(x)
#pragma mpiad differentiate reverse wrt(x) varying(x)
double f(const double *x, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double a = x[0] * x[1], s = 0.0;
  if (r == 0)
    MPI_Reduce(&a, &s, 1, MPI_DOUBLE, MPI_SUM, 0, comm);
  else
    MPI_Reduce(&a, NULL, 1, MPI_DOUBLE, MPI_SUM, 0, comm);
  return s * s;
}
// CHECK-LABEL: {{^}}double f_d(
// CHECK:      MPI_Reduce(&a, NULL, 1, MPI_DOUBLE, MPI_SUM, 0, comm);
// CHECK-NEXT: MPI_Reduce(&a_d, NULL, 1, MPI_DOUBLE, MPI_SUM, 0, comm);
// CHECK-LABEL: {{^}}double f_b(
// CHECK:      /* reverse sweep */
// CHECK:      mpiad_reduce_rev(&a_b, &s_b, 1, MPI_DOUBLE, MPI_SUM, 0, comm);
// CHECK:      mpiad_reduce_rev(&a_b, NULL, 1, MPI_DOUBLE, MPI_SUM, 0, comm);
