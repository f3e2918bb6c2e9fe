// Non-blocking calls: each start becomes its _fwd helper, given the adjoint of
// its buffer (and partial(recvbuf) for a collective); each completion its
// _fwd helper.  The reverse sweep mirrors them: the completion's reverse
// (mpiad_complete_rev, which starts the reverse transfers) comes first, the
// starts' reverses (mpiad_start_rev, which wait and accumulate) after.  A
// polling loop around Waitsome is reversed by its recorded trip count.  No
// barrier between the sweeps for MPI_ANY_SOURCE with a fixed tag (adjoint
// messages carry tags above every user tag); one for MPI_ANY_TAG.  Forward
// mode calls the _tan helpers.
//
// RUN: %mpiad-emit %s -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck %s
#include <mpi.h>

#pragma mpiad differentiate forward wrt(x) output(y)
#pragma mpiad differentiate reverse wrt(x) output(y) varying(x)
void halo(const double *x, double *y, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  double a[4], b[4], s[4];
  MPI_Request rq[3];
  for (int i = 0; i < 4; i++)
    a[i] = x[i] * x[i];
  MPI_Irecv(b, 4, MPI_DOUBLE, MPI_ANY_SOURCE, 1, comm, &rq[0]);
  MPI_Isend(a, 4, MPI_DOUBLE, (r + 1) % P, 1, comm, &rq[1]);
  MPI_Iallreduce(a, s, 4, MPI_DOUBLE, MPI_SUM, comm, &rq[2]);
  int out, idx[3], done = 0;
  while (done < 3) {
    MPI_Waitsome(3, rq, &out, idx, MPI_STATUSES_IGNORE);
    done = done + out;
  }
  for (int i = 0; i < 4; i++)
    y[i] = b[i] * s[i];
}
// CHECK-LABEL: void halo_d(
// CHECK: mpiad_irecv_tan(b, b_d, 4, MPI_DOUBLE, MPI_ANY_SOURCE, 1, comm, &rq[0]);
// CHECK-NEXT: mpiad_isend_tan(a, a_d, 4, MPI_DOUBLE, (r + 1) % P, 1, comm, &rq[1]);
// CHECK-NEXT: mpiad_iallreduce_tan(a, a_d, s, s_d, 4, MPI_DOUBLE, MPI_SUM, comm, &rq[2]);
// CHECK: mpiad_waitsome_tan(3, rq, &out, idx, MPI_STATUSES_IGNORE);
// CHECK-LABEL: void halo_b(
// CHECK: /* forward sweep */
// CHECK: mpiad_irecv_fwd(b, b_b, 4, MPI_DOUBLE, MPI_ANY_SOURCE, 1, comm, &rq[0]);
// CHECK-NEXT: mpiad_isend_fwd(a, a_b, 4, MPI_DOUBLE, (r + 1) % P, 1, comm, &rq[1]);
// CHECK-NEXT: mpiad_iallreduce_fwd(a, a_b, s, s_b, 4, MPI_DOUBLE, MPI_SUM, comm, 1, &rq[2]);
// CHECK: while (done < 3) {
// CHECK-NEXT: mpiad_waitsome_fwd(3, rq, &out, idx, MPI_STATUSES_IGNORE);
// CHECK-NOT: MPI_Barrier
// CHECK: /* reverse sweep */
// CHECK: for (mpiad_iter = mpiad_pop_i64(); mpiad_iter > 0; mpiad_iter--) {
// CHECK-NEXT: mpiad_complete_rev();
// CHECK-NEXT: }
// CHECK-NEXT: mpiad_start_rev();
// CHECK-NEXT: mpiad_start_rev();
// CHECK-NEXT: mpiad_start_rev();
// CHECK-NEXT: for (int i = 3; i >= 0; i--) {
// CHECK-NEXT: x_b[i] += a_b[i] * x[i];

#pragma mpiad differentiate wrt(x) output(y) varying(x)
void anytag(const double *x, double *y, MPI_Comm comm) {
  double a = 2.0 * x[0], b = 0.0;
  MPI_Request rq[2];
  MPI_Irecv(&b, 1, MPI_DOUBLE, 0, MPI_ANY_TAG, comm, &rq[0]);
  MPI_Isend(&a, 1, MPI_DOUBLE, 0, 4, comm, &rq[1]);
  MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
  y[0] = a * b;
}
// CHECK-LABEL: void anytag_b(
// CHECK: mpiad_waitall_fwd(2, rq, MPI_STATUSES_IGNORE);
// CHECK: /* reverse sweep */
// CHECK: MPI_Barrier(comm);
// CHECK: mpiad_complete_rev();
// CHECK-NEXT: mpiad_start_rev();
// CHECK-NEXT: mpiad_start_rev();
