// MPI_Reduce_scatter_block (2 values per rank) and MPI_Reduce_scatter with
// unequal counts (rank q receives q+1 values), MPI_SUM.  Outputs vary.  Both
// semantics, central differences of the global objective, dot-product tests of
// the linear variants, float against double.
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
#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(rsblock_g_b) semantics(global) varying(x)
void rsblock_g(const double *x, double *yv, int k, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  double s[2 * MAXP], v[2];
  for (int j = 0; j < 2 * MAXP; j++)
    s[j] = x[j] * x[j] + 0.5 * x[j];
  MPI_Reduce_scatter_block(s, v, 2, MPI_DOUBLE, MPI_SUM, comm);
  for (int i = 0; i < 2; i++)
    yv[i] = v[i] * v[i] * x[i];
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(rsblock_pr_b) semantics(per_rank)
void rsblock_pr(const double *x, double *yv, int k, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  double s[2 * MAXP], v[2];
  for (int j = 0; j < 2 * MAXP; j++)
    s[j] = x[j] * x[j] + 0.5 * x[j];
  MPI_Reduce_scatter_block(s, v, 2, MPI_DOUBLE, MPI_SUM, comm);
  for (int i = 0; i < 2; i++)
    yv[i] = v[i] * v[i] * x[i];
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(rsblock_f_b) varying(x)
void rsblock_f(const float *x, float *yv, int k, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  float s[2 * MAXP], v[2];
  for (int j = 0; j < 2 * MAXP; j++)
    s[j] = x[j] * x[j] + 0.5 * x[j];
  MPI_Reduce_scatter_block(s, v, 2, MPI_FLOAT, MPI_SUM, comm);
  for (int i = 0; i < 2; i++)
    yv[i] = v[i] * v[i] * x[i];
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(rsblock_lin_g_b) semantics(global) varying(x)
void rsblock_lin_g(const double *x, double *yv, int k, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  double s[2 * MAXP], v[2];
  for (int j = 0; j < 2 * MAXP; j++)
    s[j] = 2.0 * x[j] - x[(j + 1) % (2 * MAXP)];
  MPI_Reduce_scatter_block(s, v, 2, MPI_DOUBLE, MPI_SUM, comm);
  for (int i = 0; i < 2; i++)
    yv[i] = v[i] * (r + 1) - x[i];
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(rsblock_lin_pr_b) semantics(per_rank)
void rsblock_lin_pr(const double *x, double *yv, int k, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  double s[2 * MAXP], v[2];
  for (int j = 0; j < 2 * MAXP; j++)
    s[j] = 2.0 * x[j] - x[(j + 1) % (2 * MAXP)];
  MPI_Reduce_scatter_block(s, v, 2, MPI_DOUBLE, MPI_SUM, comm);
  for (int i = 0; i < 2; i++)
    yv[i] = v[i] * (r + 1) - x[i];
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(rscatter_g_b) semantics(global) varying(x)
void rscatter_g(const double *x, double *yv, int k, MPI_Comm comm) {
  int r, P, counts[MAXP];
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  for (int q = 0; q < P; q++)
    counts[q] = q + 1; /* unequal counts */
  double s[10], v[4];
  for (int j = 0; j < 10; j++)
    s[j] = x[j] * x[j] + 0.5 * x[j];
  for (int i = 0; i < 4; i++)
    v[i] = 0.0;
  MPI_Reduce_scatter(s, v, counts, MPI_DOUBLE, MPI_SUM, comm);
  for (int i = 0; i < 4; i++)
    yv[i] = v[i] * v[i] * x[i];
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(rscatter_pr_b) semantics(per_rank)
void rscatter_pr(const double *x, double *yv, int k, MPI_Comm comm) {
  int r, P, counts[MAXP];
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  for (int q = 0; q < P; q++)
    counts[q] = q + 1; /* unequal counts */
  double s[10], v[4];
  for (int j = 0; j < 10; j++)
    s[j] = x[j] * x[j] + 0.5 * x[j];
  for (int i = 0; i < 4; i++)
    v[i] = 0.0;
  MPI_Reduce_scatter(s, v, counts, MPI_DOUBLE, MPI_SUM, comm);
  for (int i = 0; i < 4; i++)
    yv[i] = v[i] * v[i] * x[i];
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(rscatter_f_b) varying(x)
void rscatter_f(const float *x, float *yv, int k, MPI_Comm comm) {
  int r, P, counts[MAXP];
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  for (int q = 0; q < P; q++)
    counts[q] = q + 1; /* unequal counts */
  float s[10], v[4];
  for (int j = 0; j < 10; j++)
    s[j] = x[j] * x[j] + 0.5 * x[j];
  for (int i = 0; i < 4; i++)
    v[i] = 0.0;
  MPI_Reduce_scatter(s, v, counts, MPI_FLOAT, MPI_SUM, comm);
  for (int i = 0; i < 4; i++)
    yv[i] = v[i] * v[i] * x[i];
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(rscatter_lin_g_b) semantics(global) varying(x)
void rscatter_lin_g(const double *x, double *yv, int k, MPI_Comm comm) {
  int r, P, counts[MAXP];
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  for (int q = 0; q < P; q++)
    counts[q] = q + 1; /* unequal counts */
  double s[10], v[4];
  for (int j = 0; j < 10; j++)
    s[j] = 2.0 * x[j] - x[(j + 1) % 10];
  for (int i = 0; i < 4; i++)
    v[i] = 0.0;
  MPI_Reduce_scatter(s, v, counts, MPI_DOUBLE, MPI_SUM, comm);
  for (int i = 0; i < 4; i++)
    yv[i] = v[i] * (r + 1) - x[i];
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(rscatter_lin_pr_b) semantics(per_rank)
void rscatter_lin_pr(const double *x, double *yv, int k, MPI_Comm comm) {
  int r, P, counts[MAXP];
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  for (int q = 0; q < P; q++)
    counts[q] = q + 1; /* unequal counts */
  double s[10], v[4];
  for (int j = 0; j < 10; j++)
    s[j] = 2.0 * x[j] - x[(j + 1) % 10];
  for (int i = 0; i < 4; i++)
    v[i] = 0.0;
  MPI_Reduce_scatter(s, v, counts, MPI_DOUBLE, MPI_SUM, comm);
  for (int i = 0; i < 4; i++)
    yv[i] = v[i] * (r + 1) - x[i];
}

static int g_k, g_nx, g_ny, g_nyr;

static void P_rsblock_g(const double *x, const double *th, double *y) {
  (void)th;
  rsblock_g(x, y, g_k, MPI_COMM_WORLD);
}
static void B_rsblock_g(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  rsblock_g_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
}
static void P_rsblock_pr(const double *x, const double *th, double *y) {
  (void)th;
  rsblock_pr(x, y, g_k, MPI_COMM_WORLD);
}
static void B_rsblock_pr(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  rsblock_pr_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
}
static void P_rsblock_f(const double *x, const double *th, double *y) {
  float xf[64], yf[64];
  (void)th;
  hx_tof(xf, x, g_nx);
  rsblock_f(xf, yf, g_k, MPI_COMM_WORLD);
  hx_tod(y, yf, g_ny + g_nyr);
}
static void B_rsblock_f(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  float xf[64], xbf[64] = {0}, yf[64], ybf[64];
  (void)th;
  (void)thb;
  hx_tof(xf, x, g_nx);
  hx_tof(ybf, yb, g_ny + g_nyr);
  rsblock_f_b(xf, xbf, yf, ybf, g_k, MPI_COMM_WORLD);
  hx_addd(xb, xbf, g_nx);
  hx_tod(y, yf, g_ny + g_nyr);
  hx_tod(yb, ybf, g_ny + g_nyr);
}
static void P_rsblock_lin_g(const double *x, const double *th, double *y) {
  (void)th;
  rsblock_lin_g(x, y, g_k, MPI_COMM_WORLD);
}
static void B_rsblock_lin_g(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  rsblock_lin_g_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
}
static void P_rsblock_lin_pr(const double *x, const double *th, double *y) {
  (void)th;
  rsblock_lin_pr(x, y, g_k, MPI_COMM_WORLD);
}
static void B_rsblock_lin_pr(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  rsblock_lin_pr_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
}
static void P_rscatter_g(const double *x, const double *th, double *y) {
  (void)th;
  rscatter_g(x, y, g_k, MPI_COMM_WORLD);
}
static void B_rscatter_g(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  rscatter_g_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
}
static void P_rscatter_pr(const double *x, const double *th, double *y) {
  (void)th;
  rscatter_pr(x, y, g_k, MPI_COMM_WORLD);
}
static void B_rscatter_pr(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  rscatter_pr_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
}
static void P_rscatter_f(const double *x, const double *th, double *y) {
  float xf[64], yf[64];
  (void)th;
  hx_tof(xf, x, g_nx);
  rscatter_f(xf, yf, g_k, MPI_COMM_WORLD);
  hx_tod(y, yf, g_ny + g_nyr);
}
static void B_rscatter_f(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  float xf[64], xbf[64] = {0}, yf[64], ybf[64];
  (void)th;
  (void)thb;
  hx_tof(xf, x, g_nx);
  hx_tof(ybf, yb, g_ny + g_nyr);
  rscatter_f_b(xf, xbf, yf, ybf, g_k, MPI_COMM_WORLD);
  hx_addd(xb, xbf, g_nx);
  hx_tod(y, yf, g_ny + g_nyr);
  hx_tod(yb, ybf, g_ny + g_nyr);
}
static void P_rscatter_lin_g(const double *x, const double *th, double *y) {
  (void)th;
  rscatter_lin_g(x, y, g_k, MPI_COMM_WORLD);
}
static void B_rscatter_lin_g(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  rscatter_lin_g_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
}
static void P_rscatter_lin_pr(const double *x, const double *th, double *y) {
  (void)th;
  rscatter_lin_pr(x, y, g_k, MPI_COMM_WORLD);
}
static void B_rscatter_lin_pr(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  rscatter_lin_pr_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
}
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  int r = hx_rank_g, P = hx_size_g;
  unsigned long long seed = 1000;
  char name[256];
  (void)r;
  g_k = 0;
  g_nx = 2 * MAXP;
  g_ny = 2;
  g_nyr = 0;
  {
    snprintf(name, sizeof name, "rsblock global k=%d", g_k);
    hx_case c = {name, P_rsblock_g, B_rsblock_g, g_nx, 0, g_ny, g_nyr, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "rsblock per_rank k=%d", g_k);
    hx_case c = {name, P_rsblock_pr, B_rsblock_pr, g_nx, 0, g_ny + g_nyr, 0, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "rsblock float global k=%d", g_k);
    hx_case cf = {name, P_rsblock_f, B_rsblock_f, g_nx, 0, g_ny, g_nyr, 0};
    hx_case cd = {name, P_rsblock_g, B_rsblock_g, g_nx, 0, g_ny, g_nyr, 0};
    hx_case_twin(&cf, &cd, seed += 10, 1e-4);
  }
  g_k = 0;
  g_nx = 2 * MAXP;
  g_ny = 2;
  g_nyr = 0;
  {
    snprintf(name, sizeof name, "rsblock_lin global k=%d", g_k);
    hx_case c = {name, P_rsblock_lin_g, B_rsblock_lin_g, g_nx, 0, g_ny, g_nyr, 1};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "rsblock_lin per_rank k=%d", g_k);
    hx_case c = {name, P_rsblock_lin_pr, B_rsblock_lin_pr, g_nx, 0, g_ny + g_nyr, 0, 1};
    hx_case_run(&c, seed += 10);
  }
  g_k = 0;
  g_nx = 10;
  g_ny = 4;
  g_nyr = 0;
  {
    snprintf(name, sizeof name, "rscatter global k=%d", g_k);
    hx_case c = {name, P_rscatter_g, B_rscatter_g, g_nx, 0, g_ny, g_nyr, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "rscatter per_rank k=%d", g_k);
    hx_case c = {name, P_rscatter_pr, B_rscatter_pr, g_nx, 0, g_ny + g_nyr, 0, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "rscatter float global k=%d", g_k);
    hx_case cf = {name, P_rscatter_f, B_rscatter_f, g_nx, 0, g_ny, g_nyr, 0};
    hx_case cd = {name, P_rscatter_g, B_rscatter_g, g_nx, 0, g_ny, g_nyr, 0};
    hx_case_twin(&cf, &cd, seed += 10, 1e-4);
  }
  g_k = 0;
  g_nx = 10;
  g_ny = 4;
  g_nyr = 0;
  {
    snprintf(name, sizeof name, "rscatter_lin global k=%d", g_k);
    hx_case c = {name, P_rscatter_lin_g, B_rscatter_lin_g, g_nx, 0, g_ny, g_nyr, 1};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "rscatter_lin per_rank k=%d", g_k);
    hx_case c = {name, P_rscatter_lin_pr, B_rscatter_lin_pr, g_nx, 0, g_ny + g_nyr, 0, 1};
    hx_case_run(&c, seed += 10);
  }
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
