// When the steps of a checkpointed loop communicate, every rank must run the
// same schedule, so the step count must be replicated.
//
// RUN: not %mpiad-emit %s -o %t.c 2>&1 | FileCheck %s --implicit-check-not error:
#include <mpi.h>

#pragma mpiad differentiate wrt(u) output(u) varying(steps)
void f(double *u, int steps, MPI_Comm comm) {
  #pragma mpiad checkpoint
  // CHECK: {{.*}}checkpoint-varying-steps.c:[[@LINE+1]]:3: error: the steps of this checkpointed loop communicate, so every rank must follow the same schedule; 'steps' in its bounds or snapshots is not replicated (list it in replicated(...))
  for (int t = 0; t < steps; t++) {
    MPI_Allreduce(MPI_IN_PLACE, &u[0], 1, MPI_DOUBLE, MPI_SUM, comm);
    u[0] = u[0] * 0.5;
  }
}

