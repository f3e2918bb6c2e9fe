// MPI_Finalize just before a call that ends the program (the error exit of
// Pacheco's Check_for_error: MPI_Finalize(); exit(-1);) is part of a path that
// needs no adjoint: accepted, and kept as written. Anywhere else it has no
// adjoint (the reverse sweep would communicate after it): a located error.
// RUN: %mpiad-emit %s -DEXIT_AFTER -o - | sed '/^\/\/ /d' | FileCheck --check-prefix=OK %s
// RUN: not %mpiad-emit %s -o /dev/null 2>&1 | FileCheck %s --implicit-check-not error:
#include <mpi.h>
#include <stdlib.h>

static void check(int ok, MPI_Comm comm) {
  int all;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
  if (!all) {
    // CHECK: mpi-finalize.c:[[@LINE+1]]:5: error: 'MPI_Finalize' is not supported in a differentiated function yet (no communication rule for it in rules/)
    MPI_Finalize();
#ifdef EXIT_AFTER
    exit(-1);
#endif
  }
}

#pragma mpiad differentiate wrt(x) varying(x)
double f(const double *x, int n, MPI_Comm comm) {
  check(n > 0, comm);
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += x[i] * x[i];
  return s;
}
// OK: {{^}}    MPI_Finalize();
// OK: exit(-1);
// OK: double f_b(
