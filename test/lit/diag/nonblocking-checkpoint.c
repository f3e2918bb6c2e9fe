// Non-blocking calls inside a checkpointed loop: a snapshot between two steps
// cannot hold an outstanding request.
//
// RUN: not %mpiad-emit %s -o %t.c 2>&1 | FileCheck %s --implicit-check-not error:
#include <mpi.h>

#pragma mpiad differentiate wrt(u) output(u) replicated(steps)
void f(double *u, int steps, MPI_Comm comm) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  double ghost = 0.0;
  MPI_Request rq[2];
  #pragma mpiad checkpoint
  for (int t = 0; t < steps; t++) {
    // CHECK: {{.*}}nonblocking-checkpoint.c:[[@LINE+1]]:5: error: MPI_Irecv in a checkpointed loop: a snapshot cannot hold an outstanding request (use blocking calls in the loop, or drop the checkpoint pragma)
    MPI_Irecv(&ghost, 1, MPI_DOUBLE, (rank + size - 1) % size, 0, comm, &rq[0]);
    // CHECK: {{.*}}nonblocking-checkpoint.c:[[@LINE+1]]:5: error: MPI_Isend in a checkpointed loop
    MPI_Isend(&u[0], 1, MPI_DOUBLE, (rank + 1) % size, 0, comm, &rq[1]);
    // CHECK: {{.*}}nonblocking-checkpoint.c:[[@LINE+1]]:5: error: MPI_Waitall in a checkpointed loop
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    u[0] = u[0] * ghost;
  }
}
