// A loop whose bound is a floating value (`j < 2.5`: three trips) is not a
// counted loop: reversed from `(int)(2.5 - 1)` it would run two trips.  It
// is reversed by its recorded trip count instead.  Found with the mutation
// tester's fix for pointer bounds (diag/loop-bound-not-integer.c).  Checked
// against the closed form and central differences; x differs between ranks.
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

/* s = x0 x1 x2 (three trips), then sin */
#pragma mpiad differentiate wrt(x) varying(x)
double f(const double *x) {
  double s = 1.0;
  for (int j = 0; j < 2.5; j++)
    s = s * x[j];
  return sin(s);
}
double f_b(const double *x, double *x_b, double f_bar);

static double J(void *p) {
  double v = f((double *)p), g;
  MPI_Allreduce(&v, &g, 1, MPI_DOUBLE, MPI_SUM, hx_comm_g);
  return g;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  double x[3] = {0.7 + 0.1 * hx_rank_g, 1.1, -0.4}, x_b[3] = {0, 0, 0};
  double dx[3], want[3];
  double v = f_b(x, x_b, 1.0);
  hx_tape("floating bound");
  hx_check_each("floating bound: primal value", v, f(x), 1e-15, 1e-300);
  double p = x[0] * x[1] * x[2], c = cos(p);
  want[0] = c * x[1] * x[2];
  want[1] = c * x[0] * x[2];
  want[2] = c * x[0] * x[1];
  hx_check_vec("floating bound: gradient vs closed form", x_b, want, 3, 1e-14,
               1e-14);
  hx_rand(dx, 3, 77, hx_rank_g, -1.0, 1.0);
  mpiad_input in = {x, dx, 3, 0};
  double *xb[1] = {x_b};
  hx_grad("floating bound", J, x, &in, 1, xb, 1e-6, 1e-7, 1e-10);
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
