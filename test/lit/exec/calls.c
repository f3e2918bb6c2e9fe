// Calls to helper functions defined in the same file (differentiated without
// pragmas): scalar return, pointer output, called in a loop, nested two levels,
// the same helper called with active and inactive arguments in each position, a
// static helper, and a helper holding an MPI_Allreduce.  Per-rank seeds,
// central differences, tape empty after each adjoint; exact dot-product test for
// a linear function built from helpers.
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

#define N 8

static double sq(double a) { return a * a; }

double mix(double a, double b) { return a * sin(b) + b; }

/* level 2 */
double inner(double a, double b) { return exp(0.5 * a) * sq(b); }

/* level 1: calls inner (which calls sq) */
double outer(double a, double b) {
  double t = inner(a, b) + mix(b, a);
  return t * a;
}

/* pointer output: y[i] += a * x[i] + x[i]^2 */
void axpy2(double a, const double *x, double *y, int n) {
  for (int i = 0; i < n; i++)
    y[i] += a * x[i] + x[i] * x[i];
}

#pragma mpiad differentiate wrt(x) varying(x)
double calls(const double *x, int n, MPI_Comm comm) {
  double s = 0.0;
  for (int i = 0; i < n; i++)      /* called in a loop */
    s += sq(x[i]) + mix(x[i], 0.3) + mix(0.7, x[i]) + mix(0.1, 0.2);
  s += outer(x[0], x[1]);          /* nested two levels */
  double y[N];
  for (int i = 0; i < n; i++)
    y[i] = 0.0;
  axpy2(x[2], x, y, n);           /* pointer output, active scalar */
  axpy2(1.5, x, y, n);            /* inactive scalar */
  for (int i = 0; i < n; i++)
    s += y[i] * x[(i + 1) % n];
  double g = 0.0;
  MPI_Allreduce(&s, &g, 1, MPI_DOUBLE, MPI_SUM, comm);
  return s * g * 0.01 + sq(g) * 0.001;
}

/* linear, vector output */
void lscale(double a, const double *x, double *y, int n) {
  for (int i = 0; i < n; i++)
    y[i] = a * x[i];
}
double ldot(const double *a, const double *b, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += a[i] * b[i];
  return s;
}

#pragma mpiad differentiate wrt(x) output(y) varying(x)
void lin(const double *x, const double *c, double *y, int n) {
  lscale(2.0, x, y, n);
  double d = ldot(c, x, n);
  for (int i = 0; i < n; i++)
    y[i] += d * c[i] + 0.5 * x[(i + 1) % n];
}

typedef struct {
  double *x, seed;
} ctx_t;

static double J(void *p) {
  ctx_t *c = p;
  double v = c->seed * calls(c->x, N, MPI_COMM_WORLD), s;
  MPI_Allreduce(&v, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return s;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  int r = hx_rank_g;
  double x[N], x_b[N], dx[N];
  double seed = 1.0 + 0.5 * r;
  hx_rand(x, N, 900, r, -1.0, 1.0);
  hx_rand(dx, N, 901, r, -1.0, 1.0);
  hx_zero(x_b, N);
  double f = calls_b(x, x_b, N, MPI_COMM_WORLD, seed);
  hx_tape("calls_b");
  hx_check_each("calls primal value", f, calls(x, N, MPI_COMM_WORLD), 1e-14, 1e-300);
  ctx_t c = {x, seed};
  mpiad_input in = {x, dx, N, 0};
  double *xb[1] = {x_b};
  hx_grad("calls", J, &c, &in, 1, xb, 1e-6, 1e-6, 1e-10);

  double cc[N], y[N], y_b[N], ydx[N];
  hx_rand(cc, N, 902, r, -1.0, 1.0);
  hx_rand(y_b, N, 903, r, -1.0, 1.0);
  lin(dx, cc, ydx, N);
  double lhs = mpiad_dot(ydx, y_b, N, 0, MPI_COMM_WORLD);
  hx_zero(x_b, N);
  lin_b(x, x_b, cc, y, y_b, N);
  hx_tape("lin_b");
  hx_dot_test("linear helpers", lhs, &in, 1, xb, 1e-12);

  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
