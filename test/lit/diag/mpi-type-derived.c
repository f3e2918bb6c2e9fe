// Derived datatypes are taken by the point-to-point calls, MPI_Bcast,
// MPI_Gather(v), MPI_Scatter(v), MPI_Allgather(v) and MPI_Alltoall(v) (rules/mpi.rules:
// `derived`); in other calls on values that carry
// derivatives, and in a function with replicas(...), they are a located
// error at the datatype argument.  A contiguous type whose block count
// changes after it was made is a derived type like any other.
// RUN: not %mpiad-emit %s -o /dev/null 2>&1 | FileCheck %s --implicit-check-not error:
#include <mpi.h>

#pragma mpiad differentiate wrt(x) varying(x) replicated(n)
double f(const double *x, int n, MPI_Comm comm) {
  MPI_Datatype col;
  MPI_Type_vector(n, 1, 2, MPI_DOUBLE, &col);
  MPI_Type_commit(&col);
  double y[8];
  // CHECK: mpi-type-derived.c:[[@LINE+1]]:36: error: derived datatype 'col' in MPI_Allreduce on values that carry derivatives is not supported; copy the elements into a contiguous buffer and use MPI_DOUBLE (derived datatypes are taken by the point-to-point calls, MPI_Bcast, MPI_Gather(v), MPI_Scatter(v), MPI_Allgather(v) and MPI_Alltoall(v))
  MPI_Allreduce((double *)x, y, 1, col, MPI_SUM, comm);
  MPI_Type_free(&col);
  return y[0];
}

#pragma mpiad differentiate wrt(x) varying(x)
double g(const double *x, int n, MPI_Comm comm) {
  MPI_Datatype row;
  MPI_Type_contiguous(n, MPI_DOUBLE, &row);
  n = n + 1; /* the count the type was made with is gone */
  double y[8];
  // CHECK: mpi-type-derived.c:[[@LINE+1]]:31: error: derived datatype 'row' in MPI_Scan on values
  MPI_Scan((double *)x, y, 1, row, MPI_SUM, comm);
  return y[0] * n;
}

#pragma mpiad differentiate wrt(w) replicated(w) replicas(w[4])
double h(const double *w, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  double u[8];
  for (int k = 0; k < 4; k++) {
    u[2 * k] = w[k] * w[k];
    u[2 * k + 1] = 0.0;
  }
  MPI_Datatype c;
  MPI_Type_vector(4, 1, 2, MPI_DOUBLE, &c);
  MPI_Type_commit(&c);
  // CHECK: mpi-type-derived.c:[[@LINE+1]]:26: error: replicas: derived datatype 'c' in 'MPI_Sendrecv' on per-replica values: its layout does not know the replica axis; in a function with replicas(...) use MPI_DOUBLE on a contiguous buffer
  MPI_Sendrecv(&u[0], 1, c, (r + 1) % P, 0, &u[1], 1, c, (r + P - 1) % P, 0,
               comm, MPI_STATUS_IGNORE);
  MPI_Type_free(&c);
  double l = 0.0;
  for (int k = 0; k < 4; k++)
    l += u[2 * k] * u[2 * k + 1];
  return l;
}
