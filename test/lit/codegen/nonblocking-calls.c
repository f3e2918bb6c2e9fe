// The other non-blocking calls and their mirrors: Ibcast and Iallgather get
// partial(buffer) in their forward helper; Issend, Testall, Waitany,
// Request_free of a send; blocking Send/Recv record through mpiad_send_fwd /
// mpiad_recv_fwd.  Every completion's reverse (mpiad_complete_rev) comes
// before the reverses of the starts it completed (mpiad_start_rev).  Two
// block-scoped `MPI_Status st` become st and st_2, and each member access
// reads its own one in both sweeps.
//
// RUN: %mpiad-emit %s -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck %s
#include <mpi.h>

#pragma mpiad differentiate forward wrt(x) output(y)
#pragma mpiad differentiate reverse wrt(x) output(y) varying(x)
void calls(const double *x, double *y, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  double a[2], b[2], c[2], g[8];
  MPI_Request q[4];
  for (int i = 0; i < 2; i++) {
    a[i] = x[i] * x[i];
    c[i] = x[i];
  }
  MPI_Ibcast(c, 2, MPI_DOUBLE, 0, comm, &q[0]);
  MPI_Iallgather(a, 1, MPI_DOUBLE, g, 1, MPI_DOUBLE, comm, &q[1]);
  MPI_Irecv(b, 2, MPI_DOUBLE, MPI_ANY_SOURCE, 3, comm, &q[2]);
  MPI_Issend(a, 2, MPI_DOUBLE, (r + 1) % P, 3, comm, &q[3]);
  int flag;
  MPI_Testall(2, q, &flag, MPI_STATUSES_IGNORE);
  int idx;
  {
    MPI_Status st;
    MPI_Waitany(4, q, &idx, &st);
    b[0] = b[0] * (double)st.MPI_TAG;
  }
  {
    MPI_Status st;
    MPI_Waitall(4, q, MPI_STATUSES_IGNORE);
    MPI_Send(a, 2, MPI_DOUBLE, (r + 1) % P, 4, comm);
    MPI_Recv(b, 1, MPI_DOUBLE, MPI_ANY_SOURCE, 4, comm, &st);
    b[1] = b[1] * (double)st.MPI_SOURCE;
  }
  MPI_Request f;
  MPI_Isend(c, 2, MPI_DOUBLE, 0, 5, comm, &f);
  MPI_Request_free(&f);
  for (int i = 0; i < 2; i++)
    y[i] = b[i] * c[i] + g[i];
}
// CHECK-LABEL: void calls_d(
// CHECK: mpiad_ibcast_tan(c, c_d, 2, MPI_DOUBLE, 0, comm, &q[0]);
// CHECK-NEXT: mpiad_iallgather_tan(a, a_d, 1, MPI_DOUBLE, g, g_d, 1, MPI_DOUBLE, comm, &q[1]);
// CHECK-NEXT: mpiad_irecv_tan(b, b_d, 2, MPI_DOUBLE, MPI_ANY_SOURCE, 3, comm, &q[2]);
// CHECK-NEXT: mpiad_issend_tan(a, a_d, 2, MPI_DOUBLE, (r + 1) % P, 3, comm, &q[3]);
// CHECK-NEXT: mpiad_testall_tan(2, q, &flag, MPI_STATUSES_IGNORE);
// CHECK-NEXT: mpiad_waitany_tan(4, q, &idx, &st);
// CHECK-NEXT: b_d[0] = b_d[0] * (double)st.MPI_TAG;
// CHECK: mpiad_recv_tan(b, b_d, 1, MPI_DOUBLE, MPI_ANY_SOURCE, 4, comm, &st_2);
// CHECK-NEXT: b_d[1] = b_d[1] * (double)st_2.MPI_SOURCE;
// CHECK: mpiad_request_free_tan(&f);
// CHECK-LABEL: void calls_b(
// CHECK: /* forward sweep */
// CHECK: mpiad_ibcast_fwd(c, c_b, 2, MPI_DOUBLE, 0, comm, 1, &q[0]);
// CHECK-NEXT: mpiad_iallgather_fwd(a, a_b, 1, MPI_DOUBLE, g, g_b, 1, MPI_DOUBLE, comm, 1, &q[1]);
// CHECK-NEXT: mpiad_irecv_fwd(b, b_b, 2, MPI_DOUBLE, MPI_ANY_SOURCE, 3, comm, &q[2]);
// CHECK-NEXT: mpiad_issend_fwd(a, a_b, 2, MPI_DOUBLE, (r + 1) % P, 3, comm, &q[3]);
// CHECK-NEXT: mpiad_testall_fwd(2, q, &flag, MPI_STATUSES_IGNORE);
// CHECK-NEXT: mpiad_waitany_fwd(4, q, &idx, &st);
// CHECK-NEXT: b[0] = b[0] * (double)st.MPI_TAG;
// CHECK-NEXT: mpiad_waitall_fwd(4, q, MPI_STATUSES_IGNORE);
// CHECK-NEXT: mpiad_send_fwd(a, 2, MPI_DOUBLE, (r + 1) % P, 4, comm);
// CHECK-NEXT: mpiad_recv_fwd(b, 1, MPI_DOUBLE, MPI_ANY_SOURCE, 4, comm, &st_2);
// CHECK-NEXT: b[1] = b[1] * (double)st_2.MPI_SOURCE;
// CHECK-NEXT: mpiad_isend_fwd(c, c_b, 2, MPI_DOUBLE, 0, 5, comm, &f);
// CHECK-NEXT: mpiad_request_free_fwd(&f);
// CHECK-NOT: MPI_Barrier
// CHECK: /* reverse sweep */
// CHECK: mpiad_complete_rev();
// CHECK-NEXT: mpiad_start_rev();
// CHECK: b_b[1] += mpiad_t2 * (double)st_2.MPI_SOURCE;
// CHECK-NEXT: mpiad_recv_rev(b_b, 1, MPI_DOUBLE, comm);
// CHECK-NEXT: mpiad_send_rev(a_b, 2, MPI_DOUBLE, (r + 1) % P, 4, comm);
// CHECK-NEXT: mpiad_complete_rev();
// CHECK: b_b[0] += mpiad_t1 * (double)st.MPI_TAG;
// CHECK-NEXT: mpiad_complete_rev();
// CHECK-NEXT: mpiad_complete_rev();
// CHECK-NEXT: mpiad_start_rev();
// CHECK-NEXT: mpiad_start_rev();
// CHECK-NEXT: mpiad_start_rev();
// CHECK-NEXT: mpiad_start_rev();
