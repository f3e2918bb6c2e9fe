// A file that includes only <mpi.h> before its marked function (no <stdlib.h>):
// the generated adjoint must still compile, whatever helpers it uses (here the
// per-rank shares of a replicated array's gradient).  The adjoint of
//   f = sum_i sum_j theta_j x_{i,j}  (theta replicated)
// is theta_b_j = sum over ranks and i of x_{i,j}; x_b = theta.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
#include <mpi.h>

#pragma mpiad differentiate wrt(theta, x) replicated(theta, d) varying(x)
double f(const double *theta, const double *x, int n, int d) {
  double s = 0.0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < d; j++)
      s += theta[j] * x[i * d + j];
  return s;
}

#include "harness.h" /* after the marked function on purpose */

#define NS 3
#define D 4

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  int r = hx_rank_g;
  double theta[D], theta_b[D], x[NS * D], x_b[NS * D], want[D], loc[D];
  hx_rand(theta, D, 1500, HX_REP, -1.0, 1.0);
  hx_rand(x, NS * D, 1501, r, -1.0, 1.0);
  hx_zero(theta_b, D);
  hx_zero(x_b, NS * D);
  f_b(theta, theta_b, x, x_b, NS, D, 1.0);
  hx_tape("f_b");
  for (int j = 0; j < D; j++) {
    loc[j] = 0.0;
    for (int i = 0; i < NS; i++)
      loc[j] += x[i * D + j];
  }
  MPI_Allreduce(loc, want, D, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  hx_check_vec("theta_b", theta_b, want, D, 1e-14, 1e-300);
  double wx[NS * D];
  for (int i = 0; i < NS * D; i++)
    wx[i] = theta[i % D];
  hx_check_vec("x_b", x_b, wx, NS * D, 0.0, 1e-300);
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
