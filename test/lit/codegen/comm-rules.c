// The communication calls of a marked function and their adjoints, as the
// rule table (rules/mpi.rules) writes them: a recording forward call where the
// adjoint needs the owner of a MAX or the actual source of a message, and one
// runtime helper per call in the reverse sweep, in reverse order.  partial(B)
// is 1 where rank-varying code reads B (its adjoint is a per-rank share to be
// summed) and 0 where only replicated code does (no communication needed).
// RUN: %mpiad-emit %s -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck %s
// CHECK-LABEL: {{^}}void f_b(
// CHECK:      /* forward sweep */
// CHECK:      MPI_Bcast(b, 4, MPI_DOUBLE, 0, comm);
// CHECK-NEXT: MPI_Allgather(b, 4, MPI_DOUBLE, g_2, 4, MPI_DOUBLE, comm);
// CHECK-NEXT: mpiad_reduce_fwd(b, h, 4, MPI_DOUBLE, MPI_MAX, 0, comm);
// CHECK-NEXT: mpiad_sendrecv_fwd(h, 4, MPI_DOUBLE, (r + 1) % P, 3, left, 4, MPI_DOUBLE, (r + P - 1) % P, 3, comm, MPI_STATUS_IGNORE);
// CHECK:      /* reverse sweep */
// CHECK:      mpiad_sendrecv_rev(h_b, 4, MPI_DOUBLE, (r + 1) % P, 3, left_b, 4, MPI_DOUBLE, 3, comm);
// CHECK-NEXT: mpiad_reduce_rev(b_b, h_b, 4, MPI_DOUBLE, MPI_MAX, 0, comm);
// CHECK-NEXT: mpiad_allgather_rev(b_b, 4, g_2_b, 4, MPI_DOUBLE, comm, 1);
// CHECK-NEXT: mpiad_bcast_rev(b_b, 4, MPI_DOUBLE, 0, comm, 1);
// CHECK-LABEL: {{^}}double g_b(
// CHECK-NOT:  MPI_Barrier
// CHECK:      mpiad_bcast_rev(b_b, 2, MPI_DOUBLE, 1, comm, 0);
// CHECK-NOT:  MPI_Allreduce
// CHECK:      return mpiad_ret;
#include <mpi.h>

#pragma mpiad differentiate wrt(x) output(y) varying(x)
void f(const double *x, double *y, int n, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  double b[4], g[16], h[4], left[4];
  for (int i = 0; i < 4; i++)
    b[i] = x[i] * x[i];
  MPI_Bcast(b, 4, MPI_DOUBLE, 0, comm);
  MPI_Allgather(b, 4, MPI_DOUBLE, g, 4, MPI_DOUBLE, comm);
  MPI_Reduce(b, h, 4, MPI_DOUBLE, MPI_MAX, 0, comm);
  MPI_Sendrecv(h, 4, MPI_DOUBLE, (r + 1) % P, 3, left, 4, MPI_DOUBLE,
               (r + P - 1) % P, 3, comm, MPI_STATUS_IGNORE);
  for (int i = 0; i < 4; i++)
    y[i] = g[i] * left[i] + b[i];
}

// The broadcast value is used only by replicated code: the adjoint keeps the
// root's share and zeroes the others, with no communication.
#pragma mpiad differentiate wrt(x) varying(x)
double g(const double *x, MPI_Comm comm) {
  double b[2];
  b[0] = x[0] * x[1];
  b[1] = x[1];
  MPI_Bcast(b, 2, MPI_DOUBLE, 1, comm);
  return b[0] * b[1];
}
