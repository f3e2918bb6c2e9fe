// MPI_Reduce with MPI_SUM, MPI_PROD, MPI_MAX and MPI_MIN to root k = 0 and
// k = P-1 (root a replicated int parameter), on active double buffers (float
// for SUM and PROD); the result is used at the root only (a rank-varying
// branch).  Both semantics; central differences of the global objective, the
// dot-product test for the linear SUM case, the float adjoint against the
// double one.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
#include <math.h>
#include <mpi.h>
#include <stdio.h>

#include "hx_case.h"

#define MAXP 4
#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(reduce_sum_g_b) semantics(global) varying(x)
void reduce_sum_g(const double *x, double *yv, int k, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double a[3], s[3];
  for (int i = 0; i < 3; i++) {
    a[i] = x[i] * x[i] + 0.5 * x[i];
    s[i] = 0.0;
  }
  MPI_Reduce(a, s, 3, MPI_DOUBLE, MPI_SUM, k, comm);
  for (int i = 0; i < 3; i++)
    yv[i] = 0.5 * x[i];
  if (r == k)
    for (int i = 0; i < 3; i++)
      yv[i] += s[i] * s[i] + sin(s[i]);
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(reduce_sum_pr_b) semantics(per_rank)
void reduce_sum_pr(const double *x, double *yv, int k, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double a[3], s[3];
  for (int i = 0; i < 3; i++) {
    a[i] = x[i] * x[i] + 0.5 * x[i];
    s[i] = 0.0;
  }
  MPI_Reduce(a, s, 3, MPI_DOUBLE, MPI_SUM, k, comm);
  for (int i = 0; i < 3; i++)
    yv[i] = 0.5 * x[i];
  if (r == k)
    for (int i = 0; i < 3; i++)
      yv[i] += s[i] * s[i] + sin(s[i]);
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(reduce_sum_f_b) varying(x)
void reduce_sum_f(const float *x, float *yv, int k, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  float a[3], s[3];
  for (int i = 0; i < 3; i++) {
    a[i] = x[i] * x[i] + 0.5 * x[i];
    s[i] = 0.0;
  }
  MPI_Reduce(a, s, 3, MPI_FLOAT, MPI_SUM, k, comm);
  for (int i = 0; i < 3; i++)
    yv[i] = 0.5 * x[i];
  if (r == k)
    for (int i = 0; i < 3; i++)
      yv[i] += s[i] * s[i] + sin(s[i]);
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(reduce_prod_g_b) semantics(global) varying(x)
void reduce_prod_g(const double *x, double *yv, int k, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double a[3], s[3];
  for (int i = 0; i < 3; i++) {
    a[i] = x[i] * (1.0 + 0.25 * x[i]);
    s[i] = 0.0;
  }
  MPI_Reduce(a, s, 3, MPI_DOUBLE, MPI_PROD, k, comm);
  for (int i = 0; i < 3; i++)
    yv[i] = 0.5 * x[i];
  if (r == k)
    for (int i = 0; i < 3; i++)
      yv[i] += s[i] * s[i] + sin(s[i]);
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(reduce_prod_pr_b) semantics(per_rank)
void reduce_prod_pr(const double *x, double *yv, int k, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double a[3], s[3];
  for (int i = 0; i < 3; i++) {
    a[i] = x[i] * (1.0 + 0.25 * x[i]);
    s[i] = 0.0;
  }
  MPI_Reduce(a, s, 3, MPI_DOUBLE, MPI_PROD, k, comm);
  for (int i = 0; i < 3; i++)
    yv[i] = 0.5 * x[i];
  if (r == k)
    for (int i = 0; i < 3; i++)
      yv[i] += s[i] * s[i] + sin(s[i]);
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(reduce_prod_f_b) varying(x)
void reduce_prod_f(const float *x, float *yv, int k, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  float a[3], s[3];
  for (int i = 0; i < 3; i++) {
    a[i] = x[i] * (1.0 + 0.25 * x[i]);
    s[i] = 0.0;
  }
  MPI_Reduce(a, s, 3, MPI_FLOAT, MPI_PROD, k, comm);
  for (int i = 0; i < 3; i++)
    yv[i] = 0.5 * x[i];
  if (r == k)
    for (int i = 0; i < 3; i++)
      yv[i] += s[i] * s[i] + sin(s[i]);
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(reduce_max_g_b) semantics(global) varying(x)
void reduce_max_g(const double *x, double *yv, int k, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double a[3], s[3];
  for (int i = 0; i < 3; i++) {
    a[i] = x[i] * x[i] + 0.5 * x[i];
    s[i] = 0.0;
  }
  MPI_Reduce(a, s, 3, MPI_DOUBLE, MPI_MAX, k, comm);
  for (int i = 0; i < 3; i++)
    yv[i] = 0.5 * x[i];
  if (r == k)
    for (int i = 0; i < 3; i++)
      yv[i] += s[i] * s[i] + sin(s[i]);
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(reduce_max_pr_b) semantics(per_rank)
void reduce_max_pr(const double *x, double *yv, int k, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double a[3], s[3];
  for (int i = 0; i < 3; i++) {
    a[i] = x[i] * x[i] + 0.5 * x[i];
    s[i] = 0.0;
  }
  MPI_Reduce(a, s, 3, MPI_DOUBLE, MPI_MAX, k, comm);
  for (int i = 0; i < 3; i++)
    yv[i] = 0.5 * x[i];
  if (r == k)
    for (int i = 0; i < 3; i++)
      yv[i] += s[i] * s[i] + sin(s[i]);
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(reduce_min_g_b) semantics(global) varying(x)
void reduce_min_g(const double *x, double *yv, int k, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double a[3], s[3];
  for (int i = 0; i < 3; i++) {
    a[i] = x[i] * x[i] + 0.5 * x[i];
    s[i] = 0.0;
  }
  MPI_Reduce(a, s, 3, MPI_DOUBLE, MPI_MIN, k, comm);
  for (int i = 0; i < 3; i++)
    yv[i] = 0.5 * x[i];
  if (r == k)
    for (int i = 0; i < 3; i++)
      yv[i] += s[i] * s[i] + sin(s[i]);
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(reduce_min_pr_b) semantics(per_rank)
void reduce_min_pr(const double *x, double *yv, int k, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double a[3], s[3];
  for (int i = 0; i < 3; i++) {
    a[i] = x[i] * x[i] + 0.5 * x[i];
    s[i] = 0.0;
  }
  MPI_Reduce(a, s, 3, MPI_DOUBLE, MPI_MIN, k, comm);
  for (int i = 0; i < 3; i++)
    yv[i] = 0.5 * x[i];
  if (r == k)
    for (int i = 0; i < 3; i++)
      yv[i] += s[i] * s[i] + sin(s[i]);
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(reduce_sum_lin_g_b) semantics(global) varying(x)
void reduce_sum_lin_g(const double *x, double *yv, int k, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double a[3], s[3];
  for (int i = 0; i < 3; i++) {
    a[i] = 2.0 * x[i] - x[(i + 1) % 3];
    s[i] = 0.0;
  }
  MPI_Reduce(a, s, 3, MPI_DOUBLE, MPI_SUM, k, comm);
  for (int i = 0; i < 3; i++)
    yv[i] = 0.5 * x[i];
  if (r == k)
    for (int i = 0; i < 3; i++)
      yv[i] += s[i];
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(reduce_sum_lin_pr_b) semantics(per_rank)
void reduce_sum_lin_pr(const double *x, double *yv, int k, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double a[3], s[3];
  for (int i = 0; i < 3; i++) {
    a[i] = 2.0 * x[i] - x[(i + 1) % 3];
    s[i] = 0.0;
  }
  MPI_Reduce(a, s, 3, MPI_DOUBLE, MPI_SUM, k, comm);
  for (int i = 0; i < 3; i++)
    yv[i] = 0.5 * x[i];
  if (r == k)
    for (int i = 0; i < 3; i++)
      yv[i] += s[i];
}

static int g_k, g_nx, g_ny, g_nyr;

static void P_reduce_sum_g(const double *x, const double *th, double *y) {
  (void)th;
  reduce_sum_g(x, y, g_k, MPI_COMM_WORLD);
}
static void B_reduce_sum_g(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  reduce_sum_g_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
}
static void P_reduce_sum_pr(const double *x, const double *th, double *y) {
  (void)th;
  reduce_sum_pr(x, y, g_k, MPI_COMM_WORLD);
}
static void B_reduce_sum_pr(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  reduce_sum_pr_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
}
static void P_reduce_sum_f(const double *x, const double *th, double *y) {
  float xf[64], yf[64];
  (void)th;
  hx_tof(xf, x, g_nx);
  reduce_sum_f(xf, yf, g_k, MPI_COMM_WORLD);
  hx_tod(y, yf, g_ny + g_nyr);
}
static void B_reduce_sum_f(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  float xf[64], xbf[64] = {0}, yf[64], ybf[64];
  (void)th;
  (void)thb;
  hx_tof(xf, x, g_nx);
  hx_tof(ybf, yb, g_ny + g_nyr);
  reduce_sum_f_b(xf, xbf, yf, ybf, g_k, MPI_COMM_WORLD);
  hx_addd(xb, xbf, g_nx);
  hx_tod(y, yf, g_ny + g_nyr);
  hx_tod(yb, ybf, g_ny + g_nyr);
}
static void P_reduce_prod_g(const double *x, const double *th, double *y) {
  (void)th;
  reduce_prod_g(x, y, g_k, MPI_COMM_WORLD);
}
static void B_reduce_prod_g(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  reduce_prod_g_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
}
static void P_reduce_prod_pr(const double *x, const double *th, double *y) {
  (void)th;
  reduce_prod_pr(x, y, g_k, MPI_COMM_WORLD);
}
static void B_reduce_prod_pr(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  reduce_prod_pr_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
}
static void P_reduce_prod_f(const double *x, const double *th, double *y) {
  float xf[64], yf[64];
  (void)th;
  hx_tof(xf, x, g_nx);
  reduce_prod_f(xf, yf, g_k, MPI_COMM_WORLD);
  hx_tod(y, yf, g_ny + g_nyr);
}
static void B_reduce_prod_f(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  float xf[64], xbf[64] = {0}, yf[64], ybf[64];
  (void)th;
  (void)thb;
  hx_tof(xf, x, g_nx);
  hx_tof(ybf, yb, g_ny + g_nyr);
  reduce_prod_f_b(xf, xbf, yf, ybf, g_k, MPI_COMM_WORLD);
  hx_addd(xb, xbf, g_nx);
  hx_tod(y, yf, g_ny + g_nyr);
  hx_tod(yb, ybf, g_ny + g_nyr);
}
static void P_reduce_max_g(const double *x, const double *th, double *y) {
  (void)th;
  reduce_max_g(x, y, g_k, MPI_COMM_WORLD);
}
static void B_reduce_max_g(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  reduce_max_g_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
}
static void P_reduce_max_pr(const double *x, const double *th, double *y) {
  (void)th;
  reduce_max_pr(x, y, g_k, MPI_COMM_WORLD);
}
static void B_reduce_max_pr(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  reduce_max_pr_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
}
static void P_reduce_min_g(const double *x, const double *th, double *y) {
  (void)th;
  reduce_min_g(x, y, g_k, MPI_COMM_WORLD);
}
static void B_reduce_min_g(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  reduce_min_g_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
}
static void P_reduce_min_pr(const double *x, const double *th, double *y) {
  (void)th;
  reduce_min_pr(x, y, g_k, MPI_COMM_WORLD);
}
static void B_reduce_min_pr(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  reduce_min_pr_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
}
static void P_reduce_sum_lin_g(const double *x, const double *th, double *y) {
  (void)th;
  reduce_sum_lin_g(x, y, g_k, MPI_COMM_WORLD);
}
static void B_reduce_sum_lin_g(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  reduce_sum_lin_g_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
}
static void P_reduce_sum_lin_pr(const double *x, const double *th, double *y) {
  (void)th;
  reduce_sum_lin_pr(x, y, g_k, MPI_COMM_WORLD);
}
static void B_reduce_sum_lin_pr(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  reduce_sum_lin_pr_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
}
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  int r = hx_rank_g, P = hx_size_g;
  unsigned long long seed = 1000;
  char name[256];
  (void)r;
  g_k = 0;
  g_nx = 3;
  g_ny = 3;
  g_nyr = 0;
  {
    snprintf(name, sizeof name, "reduce_sum global k=%d", g_k);
    hx_case c = {name, P_reduce_sum_g, B_reduce_sum_g, g_nx, 0, g_ny, g_nyr, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "reduce_sum per_rank k=%d", g_k);
    hx_case c = {name, P_reduce_sum_pr, B_reduce_sum_pr, g_nx, 0, g_ny + g_nyr, 0, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "reduce_sum float global k=%d", g_k);
    hx_case cf = {name, P_reduce_sum_f, B_reduce_sum_f, g_nx, 0, g_ny, g_nyr, 0};
    hx_case cd = {name, P_reduce_sum_g, B_reduce_sum_g, g_nx, 0, g_ny, g_nyr, 0};
    hx_case_twin(&cf, &cd, seed += 10, 1e-4);
  }
  g_k = P - 1;
  g_nx = 3;
  g_ny = 3;
  g_nyr = 0;
  {
    snprintf(name, sizeof name, "reduce_sum global k=%d", g_k);
    hx_case c = {name, P_reduce_sum_g, B_reduce_sum_g, g_nx, 0, g_ny, g_nyr, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "reduce_sum per_rank k=%d", g_k);
    hx_case c = {name, P_reduce_sum_pr, B_reduce_sum_pr, g_nx, 0, g_ny + g_nyr, 0, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "reduce_sum float global k=%d", g_k);
    hx_case cf = {name, P_reduce_sum_f, B_reduce_sum_f, g_nx, 0, g_ny, g_nyr, 0};
    hx_case cd = {name, P_reduce_sum_g, B_reduce_sum_g, g_nx, 0, g_ny, g_nyr, 0};
    hx_case_twin(&cf, &cd, seed += 10, 1e-4);
  }
  g_k = 0;
  g_nx = 3;
  g_ny = 3;
  g_nyr = 0;
  {
    snprintf(name, sizeof name, "reduce_prod global k=%d", g_k);
    hx_case c = {name, P_reduce_prod_g, B_reduce_prod_g, g_nx, 0, g_ny, g_nyr, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "reduce_prod per_rank k=%d", g_k);
    hx_case c = {name, P_reduce_prod_pr, B_reduce_prod_pr, g_nx, 0, g_ny + g_nyr, 0, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "reduce_prod float global k=%d", g_k);
    hx_case cf = {name, P_reduce_prod_f, B_reduce_prod_f, g_nx, 0, g_ny, g_nyr, 0};
    hx_case cd = {name, P_reduce_prod_g, B_reduce_prod_g, g_nx, 0, g_ny, g_nyr, 0};
    hx_case_twin(&cf, &cd, seed += 10, 1e-4);
  }
  g_k = P - 1;
  g_nx = 3;
  g_ny = 3;
  g_nyr = 0;
  {
    snprintf(name, sizeof name, "reduce_prod global k=%d", g_k);
    hx_case c = {name, P_reduce_prod_g, B_reduce_prod_g, g_nx, 0, g_ny, g_nyr, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "reduce_prod per_rank k=%d", g_k);
    hx_case c = {name, P_reduce_prod_pr, B_reduce_prod_pr, g_nx, 0, g_ny + g_nyr, 0, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "reduce_prod float global k=%d", g_k);
    hx_case cf = {name, P_reduce_prod_f, B_reduce_prod_f, g_nx, 0, g_ny, g_nyr, 0};
    hx_case cd = {name, P_reduce_prod_g, B_reduce_prod_g, g_nx, 0, g_ny, g_nyr, 0};
    hx_case_twin(&cf, &cd, seed += 10, 1e-4);
  }
  g_k = 0;
  g_nx = 3;
  g_ny = 3;
  g_nyr = 0;
  {
    snprintf(name, sizeof name, "reduce_max global k=%d", g_k);
    hx_case c = {name, P_reduce_max_g, B_reduce_max_g, g_nx, 0, g_ny, g_nyr, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "reduce_max per_rank k=%d", g_k);
    hx_case c = {name, P_reduce_max_pr, B_reduce_max_pr, g_nx, 0, g_ny + g_nyr, 0, 0};
    hx_case_run(&c, seed += 10);
  }
  g_k = P - 1;
  g_nx = 3;
  g_ny = 3;
  g_nyr = 0;
  {
    snprintf(name, sizeof name, "reduce_max global k=%d", g_k);
    hx_case c = {name, P_reduce_max_g, B_reduce_max_g, g_nx, 0, g_ny, g_nyr, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "reduce_max per_rank k=%d", g_k);
    hx_case c = {name, P_reduce_max_pr, B_reduce_max_pr, g_nx, 0, g_ny + g_nyr, 0, 0};
    hx_case_run(&c, seed += 10);
  }
  g_k = 0;
  g_nx = 3;
  g_ny = 3;
  g_nyr = 0;
  {
    snprintf(name, sizeof name, "reduce_min global k=%d", g_k);
    hx_case c = {name, P_reduce_min_g, B_reduce_min_g, g_nx, 0, g_ny, g_nyr, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "reduce_min per_rank k=%d", g_k);
    hx_case c = {name, P_reduce_min_pr, B_reduce_min_pr, g_nx, 0, g_ny + g_nyr, 0, 0};
    hx_case_run(&c, seed += 10);
  }
  g_k = P - 1;
  g_nx = 3;
  g_ny = 3;
  g_nyr = 0;
  {
    snprintf(name, sizeof name, "reduce_min global k=%d", g_k);
    hx_case c = {name, P_reduce_min_g, B_reduce_min_g, g_nx, 0, g_ny, g_nyr, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "reduce_min per_rank k=%d", g_k);
    hx_case c = {name, P_reduce_min_pr, B_reduce_min_pr, g_nx, 0, g_ny + g_nyr, 0, 0};
    hx_case_run(&c, seed += 10);
  }
  g_k = 0;
  g_nx = 3;
  g_ny = 3;
  g_nyr = 0;
  {
    snprintf(name, sizeof name, "reduce_sum_lin global k=%d", g_k);
    hx_case c = {name, P_reduce_sum_lin_g, B_reduce_sum_lin_g, g_nx, 0, g_ny, g_nyr, 1};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "reduce_sum_lin per_rank k=%d", g_k);
    hx_case c = {name, P_reduce_sum_lin_pr, B_reduce_sum_lin_pr, g_nx, 0, g_ny + g_nyr, 0, 1};
    hx_case_run(&c, seed += 10);
  }
  g_k = P - 1;
  g_nx = 3;
  g_ny = 3;
  g_nyr = 0;
  {
    snprintf(name, sizeof name, "reduce_sum_lin global k=%d", g_k);
    hx_case c = {name, P_reduce_sum_lin_g, B_reduce_sum_lin_g, g_nx, 0, g_ny, g_nyr, 1};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "reduce_sum_lin per_rank k=%d", g_k);
    hx_case c = {name, P_reduce_sum_lin_pr, B_reduce_sum_lin_pr, g_nx, 0, g_ny + g_nyr, 0, 1};
    hx_case_run(&c, seed += 10);
  }
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
