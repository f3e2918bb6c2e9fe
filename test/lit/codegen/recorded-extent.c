// The recorded extent of a receive buffer is what the call writes on this
// rank (the rule's `extent`, rules/mpi.rules): recvcount * size for
// MPI_Allgather (also in place) and MPI_Alltoall, the end of the last block
// for the v variants, the root's buffer only for MPI_Gather(v) and
// MPI_Reduce, this rank's count for MPI_Reduce_scatter.  The pop in the
// reverse sweep restores the same extent.  Each buffer is overwritten in a
// loop and read squared afterwards, so its old values are needed.
//
// RUN: %mpiad-emit %s -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck %s
#include <mpi.h>

#pragma mpiad differentiate wrt(x) output(y) semantics(per_rank)
void colls(const double *x, double *y, int n, const int *counts,
           const int *displs, MPI_Comm comm) {
  double v[64], w[64], s = 0.0;
  for (int k = 0; k < 64; k++)
    w[k] = x[k];
  for (int it = 0; it < 2; it++) {
    MPI_Allgather(MPI_IN_PLACE, n, MPI_DOUBLE, w, n, MPI_DOUBLE, comm);
    for (int k = 0; k < 64; k++)
      s += w[k] * w[k];
    MPI_Allgather(x, n, MPI_DOUBLE, v, n, MPI_DOUBLE, comm);
    for (int k = 0; k < 64; k++)
      s += v[k] * v[k];
    MPI_Alltoall(x, n, MPI_DOUBLE, v, n, MPI_DOUBLE, comm);
    for (int k = 0; k < 64; k++)
      s += v[k] * v[k];
    MPI_Allgatherv(x, n, MPI_DOUBLE, v, counts, displs, MPI_DOUBLE, comm);
    for (int k = 0; k < 64; k++)
      s += v[k] * v[k];
    MPI_Alltoallv(x, counts, displs, MPI_DOUBLE, v, counts, displs, MPI_DOUBLE,
                  comm);
    for (int k = 0; k < 64; k++)
      s += v[k] * v[k];
    MPI_Gather(x, n, MPI_DOUBLE, v, n, MPI_DOUBLE, 2, comm);
    for (int k = 0; k < 64; k++)
      s += v[k] * v[k];
    MPI_Gatherv(x, n, MPI_DOUBLE, v, counts, displs, MPI_DOUBLE, 0, comm);
    for (int k = 0; k < 64; k++)
      s += v[k] * v[k];
    MPI_Reduce(x, v, n, MPI_DOUBLE, MPI_SUM, 1, comm);
    for (int k = 0; k < 64; k++)
      s += v[k] * v[k];
    MPI_Reduce_scatter(x, v, counts, MPI_DOUBLE, MPI_SUM, comm);
    for (int k = 0; k < 64; k++)
      s += v[k] * v[k];
    MPI_Scatter(x, n, MPI_DOUBLE, v, n, MPI_DOUBLE, 0, comm);
    for (int k = 0; k < 64; k++)
      s += v[k] * v[k];
  }
  y[0] = s;
}
// CHECK-LABEL: void colls_b(
// CHECK:       /* forward sweep */
// CHECK:       mpiad_push_f64_array(w, n * mpiad_comm_size(comm));
// CHECK-NEXT:  MPI_Allgather(MPI_IN_PLACE, n, MPI_DOUBLE, w, n, MPI_DOUBLE, comm);
// CHECK:       mpiad_push_f64_array(v, n * mpiad_comm_size(comm));
// CHECK-NEXT:  MPI_Allgather(x, n, MPI_DOUBLE, v, n, MPI_DOUBLE, comm);
// CHECK:       mpiad_push_f64_array(v, n * mpiad_comm_size(comm));
// CHECK-NEXT:  MPI_Alltoall(x, n, MPI_DOUBLE, v, n, MPI_DOUBLE, comm);
// CHECK:       mpiad_push_f64_array(v, mpiad_counts_extent(counts, displs, comm));
// CHECK-NEXT:  MPI_Allgatherv(
// CHECK:       mpiad_push_f64_array(v, mpiad_counts_extent(counts, displs, comm));
// CHECK-NEXT:  MPI_Alltoallv(
// CHECK:       mpiad_push_f64_array(v, mpiad_comm_rank(comm) == 2 ? n * mpiad_comm_size(comm) : 0);
// CHECK-NEXT:  MPI_Gather(
// CHECK:       mpiad_push_f64_array(v, mpiad_comm_rank(comm) == 0 ? mpiad_counts_extent(counts, displs, comm) : 0);
// CHECK-NEXT:  MPI_Gatherv(
// CHECK:       mpiad_push_f64_array(v, mpiad_comm_rank(comm) == 1 ? n : 0);
// CHECK-NEXT:  MPI_Reduce(
// CHECK:       mpiad_push_f64_array(v, mpiad_count_of_rank(counts, comm));
// CHECK-NEXT:  MPI_Reduce_scatter(
// CHECK:       mpiad_push_f64_array(v, n);
// CHECK-NEXT:  MPI_Scatter(
// CHECK:       /* reverse sweep */
// CHECK:       mpiad_pop_f64_array(v, n);
// CHECK:       mpiad_pop_f64_array(v, mpiad_count_of_rank(counts, comm));
// CHECK:       mpiad_pop_f64_array(v, mpiad_comm_rank(comm) == 1 ? n : 0);
// CHECK:       mpiad_pop_f64_array(v, mpiad_comm_rank(comm) == 0 ? mpiad_counts_extent(counts, displs, comm) : 0);
// CHECK:       mpiad_pop_f64_array(v, mpiad_comm_rank(comm) == 2 ? n * mpiad_comm_size(comm) : 0);
// CHECK:       mpiad_pop_f64_array(v, mpiad_counts_extent(counts, displs, comm));
// CHECK:       mpiad_pop_f64_array(v, mpiad_counts_extent(counts, displs, comm));
// CHECK:       mpiad_pop_f64_array(v, n * mpiad_comm_size(comm));
// CHECK:       mpiad_pop_f64_array(v, n * mpiad_comm_size(comm));
// CHECK:       mpiad_pop_f64_array(w, n * mpiad_comm_size(comm));
