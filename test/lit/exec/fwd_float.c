// Forward mode (F_d) on float code (the float variant of fwd_scalar_math.c):
// F_d keeps float values and float pointer tangents (x_d), takes the scalar
// direction as double k_d and writes the return's tangent to double *F_dot.
// Checked, per case: F_d's primal equals the primal exactly; the float tangent
// against the double tangent of the same code (rtol 1e-4); central
// differences in float (h = 1e-2, loose); the dot-product test against the
// float F_b (rtol 1e-5).
//   fplain: loops, a branch, math functions, no callee, no scalar input
//   fmix:   also a float callee (fsq) and a replicated float scalar k
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

#pragma mpiad differentiate forward wrt(x)
#pragma mpiad differentiate reverse wrt(x) varying(x)
float fplain(const float *x, int n) {
  float s = 0.0f;
  for (int i = 0; i < n; i++) {
    float a = x[i] * x[(i + 1) % n];
    if (a > 1.0f)
      s += log(a) * x[i] * x[i] + sqrt(a);
    else
      s += sin(a) * exp(x[i]);
  }
  return s * x[0];
}
static double sq(double a) { return a * a; }
#pragma mpiad differentiate forward wrt(x)
double dplain(const double *x, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    double a = x[i] * x[(i + 1) % n];
    if (a > 1.0)
      s += log(a) * x[i] * x[i] + sqrt(a);
    else
      s += sin(a) * exp(x[i]);
  }
  return s * x[0];
}

static float fsq(float a) { return a * a; }
#pragma mpiad differentiate forward wrt(x, k)
#pragma mpiad differentiate reverse wrt(x, k) replicated(k) varying(x)
float fmix(const float *x, float k, int n) {
  float s = 0.0f;
  for (int i = 0; i < n; i++) {
    float a = x[i] * k;
    if (a > 1.0f)
      s += log(a) * fsq(x[i]) + sqrt(a);
    else
      s += sin(a) * exp(x[i]);
  }
  return s * k;
}
#pragma mpiad differentiate forward wrt(x, k)
double dmix(const double *x, double k, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    double a = x[i] * k;
    if (a > 1.0)
      s += log(a) * sq(x[i]) + sqrt(a);
    else
      s += sin(a) * exp(x[i]);
  }
  return s * k;
}

/* ---- adapters ---- */
static void P_fplain(const double *x, const double *th, double *y) {
  float xf[N];
  (void)th;
  hx_tof(xf, x, N);
  y[0] = fplain(xf, N);
}
static void D_fplain(const double *x, const double *dx, const double *th,
                     const double *dth, double *y, double *yd) {
  float xf[N], xdf[N];
  (void)th; (void)dth;
  hx_tof(xf, x, N);
  hx_tof(xdf, dx, N);
  y[0] = fplain_d(xf, xdf, N, &yd[0]);
}
static void B_fplain(const double *x, double *xb, const double *th,
                     double *thb, double *y, double *yb) {
  float xf[N], xbf[N] = {0};
  (void)th; (void)thb;
  hx_tof(xf, x, N);
  y[0] = fplain_b(xf, xbf, N, yb[0]);
  hx_addd(xb, xbf, N);
  yb[0] = 0.0;
}
static void P_dplain(const double *x, const double *th, double *y) {
  (void)th;
  y[0] = dplain(x, N);
}
static void D_dplain(const double *x, const double *dx, const double *th,
                     const double *dth, double *y, double *yd) {
  double xd[N];
  (void)th; (void)dth;
  memcpy(xd, dx, sizeof xd);
  y[0] = dplain_d(x, xd, N, &yd[0]);
}

static void P_fmix(const double *x, const double *th, double *y) {
  float xf[N];
  hx_tof(xf, x, N);
  y[0] = fmix(xf, (float)th[0], N);
}
static void D_fmix(const double *x, const double *dx, const double *th,
                   const double *dth, double *y, double *yd) {
  float xf[N], xdf[N];
  hx_tof(xf, x, N);
  hx_tof(xdf, dx, N);
  y[0] = fmix_d(xf, xdf, (float)th[0], dth[0], N, &yd[0]);
}
static void B_fmix(const double *x, double *xb, const double *th, double *thb,
                   double *y, double *yb) {
  float xf[N], xbf[N] = {0};
  hx_tof(xf, x, N);
  y[0] = fmix_b(xf, xbf, (float)th[0], &thb[0], N, yb[0]);
  hx_addd(xb, xbf, N);
  yb[0] = 0.0;
}
static void P_dmix(const double *x, const double *th, double *y) {
  y[0] = dmix(x, th[0], N);
}
static void D_dmix(const double *x, const double *dx, const double *th,
                   const double *dth, double *y, double *yd) {
  double xd[N];
  memcpy(xd, dx, sizeof xd);
  y[0] = dmix_d(x, xd, th[0], dth[0], N, &yd[0]);
}

/* points on both sides of the branch a > 1 (away from it by > 1e-2) */
static void init_mix(double *x, double *th) {
  int r = hx_rank_g;
  th[0] = 1.1;
  for (int i = 0; i < N; i++)
    x[i] = (float)(0.3 + 0.35 * i + 0.07 * r + 0.013 * i * i);
}

static void init_plain(double *x, double *th) {
  static const double v[N] = {0.6, 0.8, 1.5, 1.1, 0.5};
  (void)th;
  for (int i = 0; i < N; i++)
    x[i] = (float)(v[i] + 0.02 * hx_rank_g);
}

/* float central differences need h = 1e-2: only at chosen points (the
 * branch a > 1 is discontinuous and must not be crossed) */
static void float_tols(fc_case *c) {
  c->h = 1e-2;
  c->fd_rtol = 5e-3;
  c->fd_atol = 1e-3;
  c->dot_rtol = 1e-5;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  {
    fc_case cf = {"float fplain", P_fplain, D_fplain, B_fplain, N, 0, 1, 0};
    fc_case cd = {"double dplain", P_dplain, D_dplain, NULL, N, 0, 1, 0};
    fc_run(&cd, 10);
    fc_twin(&cf, &cd, 20, 1e-4);
    float_tols(&cf);
    cf.init = init_plain;
    fc_run(&cf, 30);
  }
  {
    fc_case cf = {"float fmix", P_fmix, D_fmix, B_fmix, N, 1, 1, 0};
    fc_case cd = {"double dmix", P_dmix, D_dmix, NULL, N, 1, 1, 0};
    fc_run(&cd, 60);
    fc_twin(&cf, &cd, 70, 1e-4);
    cd.init = init_mix;
    cd.name = "double dmix (both branches)";
    fc_run(&cd, 75);
    fc_twin(&cf, &cd, 77, 1e-4);
    float_tols(&cf);
    cf.init = init_mix;
    cf.name = "float fmix (both branches)";
    fc_run(&cf, 90);
  }
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
