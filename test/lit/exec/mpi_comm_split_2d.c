// A 2-D decomposition: the ranks form a px x py grid (px * py = P: 1x1, 2x1,
// 3x1, 2x2); row and column communicators are made INSIDE the marked function
// with MPI_Comm_split (and the column one duplicated with MPI_Comm_dup) and
// freed at its end with MPI_Comm_free.  A row Allreduce (SUM) then a column
// Allreduce (PROD; SUM in the linear variant) feed the output.  A value
// replicated over a row still varies over the world, so the outputs vary.
// Both semantics, central differences of the global objective, dot-product
// test of the linear variant, float against double.
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
#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(grid_g_b) semantics(global) varying(x)
void grid_g(const double *x, double *yv, int k, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  int px = P == 4 ? 2 : P; /* px * py = P */
  int row = r / px, col = r % px;
  MPI_Comm rowc, colc, cold;
  MPI_Comm_split(comm, row, col, &rowc);
  MPI_Comm_split(comm, col, row, &colc);
  MPI_Comm_dup(colc, &cold);
  double a[3], s[3], t[3], u[3];
  for (int i = 0; i < 3; i++)
    a[i] = x[i] * x[i] + 0.5 * x[i];
  MPI_Allreduce(a, s, 3, MPI_DOUBLE, MPI_SUM, rowc); /* replicated over the row */
  for (int i = 0; i < 3; i++)
    t[i] = s[i] * s[i] + x[i] * s[i];
  MPI_Allreduce(t, u, 3, MPI_DOUBLE, MPI_PROD, cold);   /* over the column */
  for (int i = 0; i < 3; i++)
    yv[i] = u[i] * (r + 1) + u[i] * x[i];
  MPI_Comm_free(&cold);
  MPI_Comm_free(&colc);
  MPI_Comm_free(&rowc);
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(grid_pr_b) semantics(per_rank)
void grid_pr(const double *x, double *yv, int k, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  int px = P == 4 ? 2 : P; /* px * py = P */
  int row = r / px, col = r % px;
  MPI_Comm rowc, colc, cold;
  MPI_Comm_split(comm, row, col, &rowc);
  MPI_Comm_split(comm, col, row, &colc);
  MPI_Comm_dup(colc, &cold);
  double a[3], s[3], t[3], u[3];
  for (int i = 0; i < 3; i++)
    a[i] = x[i] * x[i] + 0.5 * x[i];
  MPI_Allreduce(a, s, 3, MPI_DOUBLE, MPI_SUM, rowc); /* replicated over the row */
  for (int i = 0; i < 3; i++)
    t[i] = s[i] * s[i] + x[i] * s[i];
  MPI_Allreduce(t, u, 3, MPI_DOUBLE, MPI_PROD, cold);   /* over the column */
  for (int i = 0; i < 3; i++)
    yv[i] = u[i] * (r + 1) + u[i] * x[i];
  MPI_Comm_free(&cold);
  MPI_Comm_free(&colc);
  MPI_Comm_free(&rowc);
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(grid_f_b) varying(x)
void grid_f(const float *x, float *yv, int k, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  int px = P == 4 ? 2 : P; /* px * py = P */
  int row = r / px, col = r % px;
  MPI_Comm rowc, colc, cold;
  MPI_Comm_split(comm, row, col, &rowc);
  MPI_Comm_split(comm, col, row, &colc);
  MPI_Comm_dup(colc, &cold);
  float a[3], s[3], t[3], u[3];
  for (int i = 0; i < 3; i++)
    a[i] = x[i] * x[i] + 0.5 * x[i];
  MPI_Allreduce(a, s, 3, MPI_FLOAT, MPI_SUM, rowc); /* replicated over the row */
  for (int i = 0; i < 3; i++)
    t[i] = s[i] * s[i] + x[i] * s[i];
  MPI_Allreduce(t, u, 3, MPI_FLOAT, MPI_PROD, cold);   /* over the column */
  for (int i = 0; i < 3; i++)
    yv[i] = u[i] * (r + 1) + u[i] * x[i];
  MPI_Comm_free(&cold);
  MPI_Comm_free(&colc);
  MPI_Comm_free(&rowc);
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(grid_lin_g_b) semantics(global) varying(x)
void grid_lin_g(const double *x, double *yv, int k, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  int px = P == 4 ? 2 : P; /* px * py = P */
  int row = r / px, col = r % px;
  MPI_Comm rowc, colc, cold;
  MPI_Comm_split(comm, row, col, &rowc);
  MPI_Comm_split(comm, col, row, &colc);
  MPI_Comm_dup(colc, &cold);
  double a[3], s[3], t[3], u[3];
  for (int i = 0; i < 3; i++)
    a[i] = 2.0 * x[i] - x[(i + 1) % 3];
  MPI_Allreduce(a, s, 3, MPI_DOUBLE, MPI_SUM, rowc); /* replicated over the row */
  for (int i = 0; i < 3; i++)
    t[i] = 3.0 * s[i] - x[i];
  MPI_Allreduce(t, u, 3, MPI_DOUBLE, MPI_SUM, cold);   /* over the column */
  for (int i = 0; i < 3; i++)
    yv[i] = u[i] * (r + 1) + x[i];
  MPI_Comm_free(&cold);
  MPI_Comm_free(&colc);
  MPI_Comm_free(&rowc);
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(grid_lin_pr_b) semantics(per_rank)
void grid_lin_pr(const double *x, double *yv, int k, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  int px = P == 4 ? 2 : P; /* px * py = P */
  int row = r / px, col = r % px;
  MPI_Comm rowc, colc, cold;
  MPI_Comm_split(comm, row, col, &rowc);
  MPI_Comm_split(comm, col, row, &colc);
  MPI_Comm_dup(colc, &cold);
  double a[3], s[3], t[3], u[3];
  for (int i = 0; i < 3; i++)
    a[i] = 2.0 * x[i] - x[(i + 1) % 3];
  MPI_Allreduce(a, s, 3, MPI_DOUBLE, MPI_SUM, rowc); /* replicated over the row */
  for (int i = 0; i < 3; i++)
    t[i] = 3.0 * s[i] - x[i];
  MPI_Allreduce(t, u, 3, MPI_DOUBLE, MPI_SUM, cold);   /* over the column */
  for (int i = 0; i < 3; i++)
    yv[i] = u[i] * (r + 1) + x[i];
  MPI_Comm_free(&cold);
  MPI_Comm_free(&colc);
  MPI_Comm_free(&rowc);
}

static int g_k, g_nx, g_ny, g_nyr;

static void P_grid_g(const double *x, const double *th, double *y) {
  (void)th;
  grid_g(x, y, g_k, MPI_COMM_WORLD);
}
static void B_grid_g(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  grid_g_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
}
static void P_grid_pr(const double *x, const double *th, double *y) {
  (void)th;
  grid_pr(x, y, g_k, MPI_COMM_WORLD);
}
static void B_grid_pr(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  grid_pr_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
}
static void P_grid_f(const double *x, const double *th, double *y) {
  float xf[64], yf[64];
  (void)th;
  hx_tof(xf, x, g_nx);
  grid_f(xf, yf, g_k, MPI_COMM_WORLD);
  hx_tod(y, yf, g_ny + g_nyr);
}
static void B_grid_f(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  float xf[64], xbf[64] = {0}, yf[64], ybf[64];
  (void)th;
  (void)thb;
  hx_tof(xf, x, g_nx);
  hx_tof(ybf, yb, g_ny + g_nyr);
  grid_f_b(xf, xbf, yf, ybf, g_k, MPI_COMM_WORLD);
  hx_addd(xb, xbf, g_nx);
  hx_tod(y, yf, g_ny + g_nyr);
  hx_tod(yb, ybf, g_ny + g_nyr);
}
static void P_grid_lin_g(const double *x, const double *th, double *y) {
  (void)th;
  grid_lin_g(x, y, g_k, MPI_COMM_WORLD);
}
static void B_grid_lin_g(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  grid_lin_g_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
}
static void P_grid_lin_pr(const double *x, const double *th, double *y) {
  (void)th;
  grid_lin_pr(x, y, g_k, MPI_COMM_WORLD);
}
static void B_grid_lin_pr(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  grid_lin_pr_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
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
    snprintf(name, sizeof name, "grid global k=%d", g_k);
    hx_case c = {name, P_grid_g, B_grid_g, g_nx, 0, g_ny, g_nyr, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "grid per_rank k=%d", g_k);
    hx_case c = {name, P_grid_pr, B_grid_pr, g_nx, 0, g_ny + g_nyr, 0, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "grid float global k=%d", g_k);
    hx_case cf = {name, P_grid_f, B_grid_f, g_nx, 0, g_ny, g_nyr, 0};
    hx_case cd = {name, P_grid_g, B_grid_g, g_nx, 0, g_ny, g_nyr, 0};
    hx_case_twin(&cf, &cd, seed += 10, 1e-4);
  }
  g_k = 0;
  g_nx = 3;
  g_ny = 3;
  g_nyr = 0;
  {
    snprintf(name, sizeof name, "grid_lin global k=%d", g_k);
    hx_case c = {name, P_grid_lin_g, B_grid_lin_g, g_nx, 0, g_ny, g_nyr, 1};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "grid_lin per_rank k=%d", g_k);
    hx_case c = {name, P_grid_lin_pr, B_grid_lin_pr, g_nx, 0, g_ny + g_nyr, 0, 1};
    hx_case_run(&c, seed += 10);
  }
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
