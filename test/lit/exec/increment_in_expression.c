// ++ and -- inside expressions, and the comma operator between statements,
// as real C writes them (issue 14: `a[k++] = ...` packing, `t = b[--m]`
// unpacking, `s += e, k--;`).  An increment of an integer variable in a
// statement that runs its expression once becomes a statement before (pre)
// or after (post) it.  Checked against central differences and the
// hand-derived gradient; x differs between ranks.
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

/* Packs x_i^2 with a[k++], unpacks with a[--m] into sum t sin t, counts k
 * down with a comma statement, then reads x[j++] and x[j]. */
#pragma mpiad differentiate wrt(x) varying(x, n)
double pack(const double *x, int n) {
  double a[8];
  int k = 0;
  for (int i = 0; i < n; i++)
    a[k++] = x[i] * x[i];
  double s = 0, t;
  int m = k;
  while (m > 0) {
    t = a[--m];
    s += t * sin(t), k--;
  }
  s = s + k, s = s * 2.0;
  int j = 0;
  double u = x[j++] * 2.0;
  u += x[j];
  return s + u * a[j];
}
double pack_b(const double *x, double *x_b, int n, double f_bar);

/* The gradient by hand: s = 2 sum q_i sin q_i with q_i = x_i^2, and
 * u a[1] = (2 x0 + x1) x1^2. */
static void expected(const double *x, double *g) {
  for (int i = 0; i < N; i++) {
    double q = x[i] * x[i];
    g[i] = 2.0 * (sin(q) + q * cos(q)) * 2.0 * x[i];
  }
  g[0] += 2.0 * x[1] * x[1];
  g[1] += x[1] * x[1] + (2.0 * x[0] + x[1]) * 2.0 * x[1];
}

static double J(void *p) {
  double v = pack((double *)p, N), g;
  MPI_Allreduce(&v, &g, 1, MPI_DOUBLE, MPI_SUM, hx_comm_g);
  return g;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  double x[N] = {0.3 + 0.1 * hx_rank_g, 0.7, -0.4, 1.1}, x_b[N] = {0}, want[N];
  double dx[N];
  double v = pack_b(x, x_b, N, 1.0);
  hx_tape("increments");
  hx_check_each("increments: primal value", v, pack(x, N), 1e-15, 1e-300);
  expected(x, want);
  hx_check_vec("increments: gradient vs hand-derived", x_b, want, N, 1e-13,
               1e-13);
  hx_rand(dx, N, 91, hx_rank_g, -1.0, 1.0);
  mpiad_input in = {x, dx, N, 0};
  double *xb[1] = {x_b};
  hx_grad("increments", J, x, &in, 1, xb, 1e-6, 1e-7, 1e-10);
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
