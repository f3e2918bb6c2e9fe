// Derived datatypes other than MPI_Type_contiguous of a floating type, or a
// contiguous type whose block count changes, cannot carry derivatives yet: a
// located error at the datatype argument.
// RUN: not %mpiad-emit %s -o /dev/null 2>&1 | FileCheck %s --implicit-check-not error:
#include <mpi.h>

#pragma mpiad differentiate wrt(x) varying(x) replicated(n)
double f(const double *x, int n, MPI_Comm comm) {
  MPI_Datatype col;
  // CHECK: mpi-type-derived.c:[[@LINE+1]]:3: error: 'MPI_Type_vector' is not supported in a differentiated function yet (no communication rule for it in rules/)
  MPI_Type_vector(n, 1, 2, MPI_DOUBLE, &col);
  MPI_Type_commit(&col);
  double y[8];
  MPI_Bcast((double *)x, 1, col, 0, comm);
  MPI_Type_free(&col);
  return x[0];
}

#pragma mpiad differentiate wrt(x) varying(x)
double g(const double *x, int n, MPI_Comm comm) {
  MPI_Datatype row;
  MPI_Type_contiguous(n, MPI_DOUBLE, &row);
  n = n + 1; /* the count the type was made with is gone */
  double y[8];
  // CHECK: mpi-type-derived.c:[[@LINE+2]]:33: error: datatype 'row' of MPI_Allgather cannot carry derivatives; use MPI_DOUBLE or MPI_FLOAT
  // CHECK: mpi-type-derived.c:[[@LINE+1]]:44: error: datatype 'row' of MPI_Allgather cannot carry derivatives; use MPI_DOUBLE or MPI_FLOAT
  MPI_Allgather((double *)x, 1, row, y, 1, row, comm);
  return y[0] * n;
}
