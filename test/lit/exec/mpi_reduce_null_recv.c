// MPI_Reduce with a NULL receive buffer on the ranks other than the root, as
// MPI allows (issue 14): the root passes its buffer, the others NULL, in two
// calls under a rank test, with MPI_SUM and MPI_MAX; the adjoint passes a
// NULL adjoint there, the tangent a NULL tangent.  F_b and F_d are checked
// against central differences of the primal (lowering_check.h); x differs
// between ranks.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "lowering_check.h"

#define N 4

#pragma mpiad differentiate forward wrt(x)
#pragma mpiad differentiate reverse wrt(x) varying(x, n)
double reduce_null(const double *x, int n) {
  int r, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int root = size - 1;
  double a[N], s[N], m[N];
  for (int i = 0; i < n; i++) {
    a[i] = x[i] * x[i] + 0.5 * x[i];
    s[i] = 0.0;
    m[i] = 0.0;
  }
  if (r == root)
    MPI_Reduce(a, s, n, MPI_DOUBLE, MPI_SUM, root, MPI_COMM_WORLD);
  else
    MPI_Reduce(a, NULL, n, MPI_DOUBLE, MPI_SUM, root, MPI_COMM_WORLD);
  if (r == 0)
    MPI_Reduce(x, m, n, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  else
    MPI_Reduce(x, NULL, n, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  double v = 0.1 * x[0];
  for (int i = 0; i < n; i++)
    v += s[i] * s[i] + sin(s[i]) + m[i] * s[i] + m[i];
  return v;
}

LC_DECLARE(reduce_null)

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  lc_init();
  double x[N];
  for (int i = 0; i < N; i++)
    x[i] = 0.3 * sin(1.0 + 1.7 * i + 0.9 * lc_rank) + 0.2 * i;
  lc_check("reduce_null", reduce_null, reduce_null_b, reduce_null_d, x, N);
  int rc = lc_finish();
  MPI_Finalize();
  return rc;
}
