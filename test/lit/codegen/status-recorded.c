// A status read in the loop that receives into it: the receive overwrites it,
// so the forward sweep pushes its old bytes before each receive and the
// reverse sweep pops them after the receive's adjoint, and each reversed
// iteration reads its own status.  The same for the count of MPI_Get_count
// (an int the call writes) and for a status array of MPI_Waitsome (element by
// element).  A status nothing reads afterwards is not recorded.
//
// RUN: %mpiad-emit %s -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck %s
#include <mpi.h>

#pragma mpiad differentiate wrt(x) varying(x)
double by_source(const double *x, MPI_Comm comm) {
  int r, size;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &size);
  double part, total = x[0];
  if (r > 0)
    MPI_Send(x, 1, MPI_DOUBLE, 0, 5, comm);
  MPI_Status st, unread;
  int cnt;
  for (int k = 1; k < size; k++) {
    MPI_Recv(&part, 1, MPI_DOUBLE, MPI_ANY_SOURCE, 5, comm, &st);
    MPI_Get_count(&st, MPI_DOUBLE, &cnt);
    total += part * (st.MPI_SOURCE + 1) * cnt;
  }
  MPI_Recv(&part, 1, MPI_DOUBLE, MPI_ANY_SOURCE, 6, comm, &unread);
  return total + part;
}
// CHECK-LABEL: double by_source_b(
// CHECK:       /* forward sweep */
// CHECK:       for (int k = 1; k < size; k++) {
// CHECK-NEXT:    mpiad_push_bytes(&st, sizeof(st));
// CHECK-NEXT:    mpiad_recv_fwd(&part, 1, MPI_DOUBLE, MPI_ANY_SOURCE, 5, comm, &st);
// CHECK-NEXT:    mpiad_push_i64(cnt);
// CHECK-NEXT:    MPI_Get_count(&st, MPI_DOUBLE, &cnt);
// CHECK-NOT:   mpiad_push_bytes(&unread
// CHECK:       mpiad_recv_fwd(&part, 1, MPI_DOUBLE, MPI_ANY_SOURCE, 6, comm, &unread);
// CHECK:       /* reverse sweep */
// CHECK:       for (int k = size - 1; k >= 1; k--) {
// CHECK-NEXT:    part_b += total_b * cnt * (st.MPI_SOURCE + 1);
// CHECK-NEXT:    cnt = mpiad_pop_i64();
// CHECK-NEXT:    mpiad_recv_rev(&part_b, 1, MPI_DOUBLE, comm);
// CHECK-NEXT:    mpiad_pop_bytes(&st, sizeof(st));

#pragma mpiad differentiate wrt(x) varying(x)
double some(const double *x, MPI_Comm comm) {
  int r, size;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &size);
  if (r > 0)
    MPI_Send(x, 1, MPI_DOUBLE, 0, r, comm);
  double g[4], total = x[0];
  MPI_Request rq[4];
  MPI_Status sts[4];
  int ind[4], outc;
  for (int q = 1; q < size; q++)
    MPI_Irecv(&g[q - 1], 1, MPI_DOUBLE, MPI_ANY_SOURCE, q, comm, &rq[q - 1]);
  int left = size - 1;
  while (left > 0) {
    MPI_Waitsome(size - 1, rq, &outc, ind, sts);
    for (int j = 0; j < outc; j++)
      total += g[ind[j]] * sts[j].MPI_SOURCE;
    left -= outc;
  }
  return total;
}
// CHECK-LABEL: double some_b(
// CHECK:       /* forward sweep */
// CHECK:       for (int [[K:mpiad_k[0-9]*]] = 0; [[K]] < size - 1; [[K]]++) {
// CHECK-NEXT:    mpiad_push_i64(ind[[[K]]]);
// CHECK:       for (int [[S:mpiad_k[0-9]*]] = 0; [[S]] < size - 1; [[S]]++) {
// CHECK-NEXT:    mpiad_push_bytes(&sts[[[S]]], sizeof(sts[[[S]]]));
// CHECK:       mpiad_waitsome_fwd(size - 1, rq, &outc, ind, sts);
// CHECK:       /* reverse sweep */
// CHECK:       mpiad_complete_rev();
// CHECK:       mpiad_pop_bytes(&sts[size - 1 - 1 - mpiad_k{{[0-9]*}}], sizeof(sts[size - 1 - 1 - mpiad_k{{[0-9]*}}]));
// CHECK:       ind[size - 1 - 1 - mpiad_k{{[0-9]*}}] = mpiad_pop_i64();
