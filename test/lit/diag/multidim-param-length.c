// The length of a pointer to rows (double u[][NY]) is never inferred: its
// uses count rows, not elements. Where a length is needed (the per-rank share
// of a replicated input's gradient), the error asks for it.
// RUN: not %mpiad-emit %s -o /dev/null 2>&1 | FileCheck %s --implicit-check-not error:
// RUN: sed 's/replicated(u, nx)/replicated(u[nx * 4], nx)/' %s > %t.c
// RUN: %mpiad-emit %t.c -o - | FileCheck --check-prefix=GIVEN %s
#include <mpi.h>
#define NY 4
#pragma mpiad differentiate wrt(u) replicated(u, nx) varying(x)
// CHECK: multidim-param-length.c:[[@LINE+1]]:17: error: cannot infer the length of replicated array 'u' (from 'u[...][...]'); write replicated(u[LENGTH]) in the pragma
double f(double u[][NY], const double *x, int nx, MPI_Comm comm) {
  double l = 0.0, s;
  for (int i = 0; i < nx; i++)
    for (int j = 0; j < NY; j++)
      l += u[i][j] * x[j];
  MPI_Allreduce(&l, &s, 1, MPI_DOUBLE, MPI_SUM, comm);
  return s * x[0];
}
// GIVEN: mpiad_alloc_zeroed((nx * 4), sizeof(double), "f_b", "u", comm);
