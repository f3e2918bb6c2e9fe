// Forward mode (F_d) on rank-local code: loops (counted, while with break,
// nested), branches on active values, ?:, early return, math.h functions, a
// callee defined in the file, a scalar wrt input, an in-place parameter, a
// return value plus a pointer output (the float variant is fwd_float.c).
// Each function has a forward and a reverse pragma; every case checks
//   - F_d returns (and writes) exactly the primal values,
//   - its tangent against central differences of the primal, per rank,
//   - the dot-product test of F_d against F_b in global semantics (outputs
//     here are varying: seeds and tangents summed over ranks; the scalar k is
//     replicated: the same direction on every rank, dk * k_b counted once).
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
#include <math.h>
#include <mpi.h>
#include <stdio.h>

#include "fwd_check.h"

#define N 5

/* a callee defined in the file (differentiated without a pragma) */
static double sq(double a) { return a * a; }
static double blend(double a, double b, double t) {
  double u = t * t * (3.0 - 2.0 * t);
  return a + (b - a) * u + sq(a - b) * 0.25;
}

/* loops, branches, ?:, math functions, a callee; scalar k replicated */
#pragma mpiad differentiate forward wrt(x, k)
#pragma mpiad differentiate reverse wrt(x, k) replicated(k) varying(x)
double mix(const double *x, double k, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    double a = x[i] * k;
    double t;
    if (a > 1.0)
      t = log(a) + sqrt(a) * exp(-a);
    else
      t = sin(a) * cos(x[i]) + tanh(a);
    double u = x[i] > 0.9 ? pow(x[i], 2.5) : atan2(x[i], k) + hypot(x[i], k);
    s += t * u + blend(x[i], k, 0.3) + fabs(x[i] - 2.0) * erf(a);
  }
  double p = 1.0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j <= i; j++)
      p *= 1.0 + 0.1 * x[j] * cbrt(x[i] + k);
  return s + log1p(p) + expm1(0.1 * k * x[0]) + fmax(x[0], 3.0 * x[1]);
}

/* a while loop with an active break (a series), early return, callee */
#pragma mpiad differentiate forward wrt(x)
#pragma mpiad differentiate reverse wrt(x) varying(x)
double series(const double *x, int n) {
  double acc = 0.0;
  for (int i = 0; i < n; i++) {
    double term = x[i];
    double z = x[i] * 0.5;
    int it = 0;
    while (it < 50) {
      acc += term;
      term = term * z / (it + 1.0);
      it++;
      if (fabs(term) < 1e-4 * (1.0 + 0.01 * i))
        break;
    }
    if (acc > 1e6)
      return sq(acc);
  }
  double m = acc;
  int it2 = 0;
  do {
    m = 0.5 * (m + acc / m);
    it2++;
  } while (it2 < 6);
  return m * acc;
}

/* in-place parameter (wrt and output), scalar k replicated */
#pragma mpiad differentiate forward wrt(u, k) output(u)
#pragma mpiad differentiate reverse wrt(u, k) output(u) replicated(k) varying(u, n)
void smooth(double *u, double k, int n) {
  double prev = u[0];
  for (int i = 1; i < n - 1; i++) {
    double cur = u[i];
    u[i] = cur + k * (prev - 2.0 * cur + u[i + 1]) + 0.1 * sin(cur * prev);
    prev = cur;
  }
  u[0] = u[0] * u[n - 1];
}

/* a return value and a pointer output; output z overwritten twice */
#pragma mpiad differentiate forward wrt(x) output(return, z)
#pragma mpiad differentiate reverse wrt(x) output(return, z) varying(x)
double two(const double *x, double *z, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    z[i] = x[i] * x[i];
    s += z[i] / (1.0 + x[(i + 1) % n]);
  }
  for (int i = 0; i < n; i++)
    z[i] = z[i] * s - exp(-x[i]);
  return sqrt(s);
}

/* ---- adapters ---- */
static void P_mix(const double *x, const double *th, double *y) {
  y[0] = mix(x, th[0], N);
}
static void D_mix(const double *x, const double *dx, const double *th,
                  const double *dth, double *y, double *yd) {
  double xd[N];
  memcpy(xd, dx, sizeof xd);
  y[0] = mix_d(x, xd, th[0], dth[0], N, &yd[0]);
}
static void B_mix(const double *x, double *xb, const double *th, double *thb,
                  double *y, double *yb) {
  y[0] = mix_b(x, xb, th[0], &thb[0], N, yb[0]);
  yb[0] = 0.0;
}

static void P_series(const double *x, const double *th, double *y) {
  (void)th;
  y[0] = series(x, N);
}
static void D_series(const double *x, const double *dx, const double *th,
                     const double *dth, double *y, double *yd) {
  double xd[N];
  (void)th; (void)dth;
  memcpy(xd, dx, sizeof xd);
  y[0] = series_d(x, xd, N, &yd[0]);
}
static void B_series(const double *x, double *xb, const double *th,
                     double *thb, double *y, double *yb) {
  (void)th; (void)thb;
  y[0] = series_b(x, xb, N, yb[0]);
  yb[0] = 0.0;
}

static void P_smooth(const double *x, const double *th, double *y) {
  memcpy(y, x, N * sizeof(double));
  smooth(y, th[0], N);
}
static void D_smooth(const double *x, const double *dx, const double *th,
                     const double *dth, double *y, double *yd) {
  memcpy(y, x, N * sizeof(double));
  memcpy(yd, dx, N * sizeof(double));
  smooth_d(y, yd, th[0], dth[0], N);
}
static void B_smooth(const double *x, double *xb, const double *th,
                     double *thb, double *y, double *yb) {
  double u[N], ub[N];
  memcpy(u, x, sizeof u);
  memcpy(ub, yb, sizeof ub);
  smooth_b(u, ub, th[0], &thb[0], N);
  for (int i = 0; i < N; i++) {
    xb[i] += ub[i];
    yb[i] = 0.0;
    y[i] = u[i];
  }
}

static void P_two(const double *x, const double *th, double *y) {
  (void)th;
  y[0] = two(x, y + 1, N);
}
static void D_two(const double *x, const double *dx, const double *th,
                  const double *dth, double *y, double *yd) {
  double xd[N];
  (void)th; (void)dth;
  memcpy(xd, dx, sizeof xd);
  y[0] = two_d(x, xd, y + 1, yd + 1, N, &yd[0]);
}
static void B_two(const double *x, double *xb, const double *th, double *thb,
                  double *y, double *yb) {
  (void)th; (void)thb;
  y[0] = two_b(x, xb, y + 1, yb + 1, N, yb[0]);
  yb[0] = 0.0;
}

/* points on both sides of the branches of mix */
static void init_mix(double *x, double *th) {
  int r = hx_rank_g;
  th[0] = 1.1;
  for (int i = 0; i < N; i++)
    x[i] = 0.3 + 0.35 * i + 0.07 * r + 0.013 * i * i; /* a = x*k in (0.3, 2) */
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  {
    fc_case c = {"mix", P_mix, D_mix, B_mix, N, 1, 1, 0};
    fc_run(&c, 10);
    c.init = init_mix;
    c.name = "mix (both branches)";
    fc_run(&c, 20);
  }
  {
    fc_case c = {"series", P_series, D_series, B_series, N, 0, 1, 0};
    fc_run(&c, 30);
  }
  {
    fc_case c = {"smooth in place", P_smooth, D_smooth, B_smooth, N, 1, N, 0};
    fc_run(&c, 40);
  }
  {
    fc_case c = {"two outputs", P_two, D_two, B_two, N, 0, 1 + N, 0};
    fc_run(&c, 50);
  }
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
