// A same-file helper that sets a local pointer into its array parameter
// (`double *q = b + 1;`) and writes through it.  The forward helper of the
// reverse mode sets q's shadow from b's (`q_b = b_b + 1`), so it takes b's
// shadow too (Reverse.cpp, CalleeNames::fwdShadows); it did not, and the
// generated C did not compile.  Also a helper that overwrites one element and
// returns a value computed from its old value.  Checked at 1-4 ranks: F_b's
// <dx, x_b> against central differences of <y_b, y(x)> summed over ranks, and
// F_d against F_b (the dot-product test).
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
// RUN: %mpiad-emit %s -I%S/../Inputs -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck --check-prefix=GEN %s
// GEN: static void mpiad_fwd_shift{{[0-9]*}}(double *b, double *b_b, int n, double v) {
// GEN: q_b = b_b + 1;
// GEN: mpiad_fwd_shift{{[0-9]*}}(y, y_b, n, mpiad_c1);
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

static void shift(double *b, int n, double v) {
  double *q = b + 1;
  for (int i = 0; i < n - 1; i++)
    q[i] = v * q[i] + b[0];
}

static double poke(double *b, int k, double v) {
  double old = b[k];
  b[k] = v;
  return old * v;
}

#pragma mpiad differentiate wrt(x) output(y) varying(x, y)
#pragma mpiad differentiate forward wrt(x) output(y) varying(x, y)
void F(const double *x, double *y, int n, MPI_Comm comm) {
  for (int i = 0; i < n; i++)
    y[i] = x[i] * x[i];
  double t = y[1] * y[2] + sin(y[3]);
  shift(y, n, x[0]);
  double a = poke(y, 2, x[1] * 3.0);
  double u = a * y[1] + t * y[3], g = 0.0;
  MPI_Allreduce(&u, &g, 1, MPI_DOUBLE, MPI_SUM, comm);
  y[0] = g + y[2] * y[2];
}

#define N 5

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  MPI_Comm comm = MPI_COMM_WORLD;
  double x[N], dx[N], yb[N], y[N], x_b[N], y_b[N];
  hx_rand(x, N, 1, hx_rank_g, 0.2, 1.4);
  hx_rand(dx, N, 2, hx_rank_g, -1.0, 1.0);
  hx_rand(yb, N, 3, hx_rank_g, -1.0, 1.0);
  memset(x_b, 0, sizeof x_b);
  memcpy(y_b, yb, sizeof y_b);
  F_b(x, x_b, y, y_b, N, comm);
  hx_tape("F_b");
  double h = 1e-6, xp[N], xm[N], yp[N], ym[N];
  for (int k = 0; k < N; k++) {
    xp[k] = x[k] + h * dx[k];
    xm[k] = x[k] - h * dx[k];
  }
  F(xp, yp, N, comm);
  F(xm, ym, N, comm);
  double fd = 0.0, ad = 0.0;
  for (int k = 0; k < N; k++) {
    fd += yb[k] * (yp[k] - ym[k]) / (2 * h);
    ad += dx[k] * x_b[k];
  }
  hx_check("F_b vs central differences", hx_sum(ad), hx_sum(fd), 1e-6, 1e-9);
  double yf[N], y_d[N];
  F_d(x, dx, yf, y_d, N, comm);
  double tan = 0.0;
  for (int k = 0; k < N; k++)
    tan += yb[k] * y_d[k];
  hx_check("dot-product test", hx_sum(tan), hx_sum(ad), 1e-12, 1e-300);
  double yv[N];
  F(x, yv, N, comm);
  hx_check_vec("F_d value", yf, yv, N, 0.0, 1e-300);
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
