// DESIGN.md section 2, first worked example written with a pointer output and
// no replicated(y): "s = Allreduce_SUM((r+2)x); y = s*s; output y".  y holds a
// value computed only from an Allreduce result, so it is replicated (section 2:
// "anything computed only from replicated values") and counts once in the
// global objective: x_b = 2T(r+2), T = sum_r (r+2)  (P=2: 20, 30), not P times
// that.  (worked_examples.c covers the return-value and replicated(y) forms.)
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
#include <mpi.h>
#include <stdio.h>

#include "harness.h"

#pragma mpiad differentiate wrt(x) output(y) varying(x)
void e1(const double *x, double *y, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double a = (r + 2) * x[0];
  double s = 0.0;
  MPI_Allreduce(&a, &s, 1, MPI_DOUBLE, MPI_SUM, comm);
  y[0] = s * s;
}
void e1_b(const double *x, double *x_b, double *y, double *y_b, MPI_Comm comm);

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  int r = hx_rank_g, P = hx_size_g;
  double T = P * (P - 1) / 2.0 + 2.0 * P;
  double x = 1.0, x_b = 0.0, y = 0.0, y_b = 1.0;
  e1_b(&x, &x_b, &y, &y_b, MPI_COMM_WORLD);
  hx_tape("e1_b");
  hx_check_each("E1 pointer output x=1 x_b", x_b, 2 * T * (r + 2), 1e-14, 1e-14);
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
