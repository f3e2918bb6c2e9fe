// Macros in a marked function: expression macros (SQ, a constant) and a macro
// that expands to whole statements (the same body shared by two variants).
// The adjoint against the hand-derived gradient 2.5 * 2 x_i (+ the statement
// macro's x_i * 3) and central differences.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
#include <math.h>
#include <mpi.h>
#include <stdio.h>

#include "harness.h"

#define N 4
#define SQ(a) ((a) * (a))
#define SCALE 2.5

#pragma mpiad differentiate wrt(x) varying(x)
double expr_macros(const double *x, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += SCALE * SQ(x[i]);
  return s;
}

#define BODY                                                                   \
  double s = 0.0;                                                              \
  for (int i = 0; i < n; i++)                                                  \
    s += 1.5 * x[i] * x[i];                                                    \
  return s;

#pragma mpiad differentiate wrt(x) varying(x)
double stmt_macro(const double *x, int n) {
  BODY
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  int r = hx_rank_g;
  double x[N], xb[N], want[N];
  hx_rand(x, N, 1300, r, -1.0, 1.0);
  hx_zero(xb, N);
  expr_macros_b(x, xb, N, 1.0);
  hx_tape("expr_macros_b");
  for (int i = 0; i < N; i++)
    want[i] = 5.0 * x[i];
  hx_check_vec("expression macros", xb, want, N, 1e-15, 1e-300);
  hx_zero(xb, N);
  stmt_macro_b(x, xb, N, 1.0);
  hx_tape("stmt_macro_b");
  for (int i = 0; i < N; i++)
    want[i] = 3.0 * x[i];
  hx_check_vec("statement macro", xb, want, N, 1e-15, 1e-300);
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
