// A runtime call of the adjoint that fails stops the program with the
// call's name and the result code, instead of returning a wrong gradient
// (mpiad_ensure, mpiad.h): here MPI_Scatterv with a receive count larger
// than what arrives (the buffer's capacity, as many examples pass it; MPI
// requires the two sides of a collective to match), whose adjoint's gather
// refuses it.  Before, the refusal was ignored and the gradient was zero.
// With the counts matched the same function is exact.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: not %mpirun 1 %t 100 2>&1 | FileCheck %s --check-prefix=FAIL100
// FAIL100: mpiad: mpiad_scatterv_rev failed: MPIAD_ERR_ARG (an argument the adjoint cannot use, such as counts that differ between the two sides of a collective)
// RUN: %mpirun 1 %t 0 | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t 0 | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"

#pragma mpiad differentiate wrt(x) output(total) replicated(x[8]) varying(cap)
void sumsq(const double *x, const int *counts, const int *displs, int cap,
           double *total) {
  double part[100], s = 0.0;
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Scatterv(x, counts, displs, MPI_DOUBLE, part,
               cap ? cap : counts[rank], MPI_DOUBLE, 0, MPI_COMM_WORLD);
  for (int i = 0; i < counts[rank]; i++)
    s += part[i] * part[i];
  MPI_Reduce(&s, total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  int P = hx_size_g, cap = argc > 1 ? atoi(argv[1]) : 0;
  int counts[8], displs[8], at = 0;
  for (int r = 0; r < P; r++) {
    counts[r] = 8 / P + (r < 8 % P);
    displs[r] = at;
    at += counts[r];
  }
  double x[8], xb[8] = {0}, want[8], t = 0.0, tb = hx_rank_g == 0 ? 1.0 : 0.0;
  hx_rand(x, 8, 3, HX_REP, -1.0, 1.0);
  for (int k = 0; k < 8; k++)
    want[k] = 2.0 * x[k];
  sumsq_b(x, xb, counts, displs, cap, &t, &tb);
  hx_check_vec("dJ/dx = 2x", xb, want, 8, 1e-15, 1e-300);
  hx_tape("sumsq_b");
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
