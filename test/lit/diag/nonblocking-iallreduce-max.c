// MPI_Iallreduce carries derivatives with MPI_SUM only (the blocking
// MPI_Allreduce also takes PROD, MAX and MIN).
//
// RUN: not %mpiad-emit %s -o %t.c 2>&1 | FileCheck %s --implicit-check-not error:
#include <mpi.h>

#pragma mpiad differentiate wrt(x) output(y)
void f(const double *x, double *y, MPI_Comm comm) {
  double a = x[0] * x[0], m = 0.0;
  MPI_Request rq;
  // CHECK: {{.*}}nonblocking-iallreduce-max.c:[[@LINE+1]]:41: error: reduction operator 'MPI_MAX' of MPI_Iallreduce is not supported for values that carry derivatives (supported: MPI_SUM)
  MPI_Iallreduce(&a, &m, 1, MPI_DOUBLE, MPI_MAX, comm, &rq);
  MPI_Wait(&rq, MPI_STATUS_IGNORE);
  y[0] = m;
}
