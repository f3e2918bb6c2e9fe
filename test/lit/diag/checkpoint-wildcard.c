// A receive from MPI_ANY_SOURCE inside a checkpointed loop: a re-run step
// could match another message than the first run did.
//
// RUN: not %mpiad-emit %s -o %t.c 2>&1 | FileCheck %s --implicit-check-not error:
#include <mpi.h>

#pragma mpiad differentiate wrt(u) output(u) replicated(steps)
void f(double *u, int steps, MPI_Comm comm) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  #pragma mpiad checkpoint
  for (int t = 0; t < steps; t++) {
    if (rank == 0) {
      // CHECK: {{.*}}checkpoint-wildcard.c:[[@LINE+1]]:7: error: a receive from MPI_ANY_SOURCE inside a checkpointed loop: a re-run step could match a different message
      MPI_Recv(&u[1], 1, MPI_DOUBLE, MPI_ANY_SOURCE, 0, comm, MPI_STATUS_IGNORE);
    } else {
      MPI_Send(&u[0], 1, MPI_DOUBLE, 0, 0, comm);
    }
    u[0] = u[0] * u[1];
  }
}
