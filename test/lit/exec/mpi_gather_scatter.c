// MPI_Gather, MPI_Gatherv (rank q sends q+1 values, displacements with gaps),
// MPI_Scatter and MPI_Scatterv (the same layout) with root k = 0 and k = P-1.
// Gathered data is used at the root only (rank-varying branch); the scattered
// buffer is computed on every rank (only the root's is sent).  Outputs vary.
// Both semantics, central differences of the global objective, dot-product
// tests of the linear variants, float against double for Scatter.
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
#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(gather_g_b) semantics(global) varying(x)
void gather_g(const double *x, double *yv, int k, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  double a[2], g[2 * MAXP];
  for (int i = 0; i < 2; i++)
    a[i] = x[i] * x[i] + 0.5 * x[i];
  MPI_Gather(a, 2, MPI_DOUBLE, g, 2, MPI_DOUBLE, k, comm);
  for (int i = 0; i < 2; i++)
    yv[i] = 0.5 * x[i];
  if (r == k)
    for (int j = 0; j < 2 * P; j++)
      yv[2 + j] = g[j] * g[j] + sin(g[j]);
  else
    for (int j = 0; j < 2 * P; j++)
      yv[2 + j] = 0.0;
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(gather_pr_b) semantics(per_rank)
void gather_pr(const double *x, double *yv, int k, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  double a[2], g[2 * MAXP];
  for (int i = 0; i < 2; i++)
    a[i] = x[i] * x[i] + 0.5 * x[i];
  MPI_Gather(a, 2, MPI_DOUBLE, g, 2, MPI_DOUBLE, k, comm);
  for (int i = 0; i < 2; i++)
    yv[i] = 0.5 * x[i];
  if (r == k)
    for (int j = 0; j < 2 * P; j++)
      yv[2 + j] = g[j] * g[j] + sin(g[j]);
  else
    for (int j = 0; j < 2 * P; j++)
      yv[2 + j] = 0.0;
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(gather_lin_g_b) semantics(global) varying(x)
void gather_lin_g(const double *x, double *yv, int k, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  double a[2], g[2 * MAXP];
  for (int i = 0; i < 2; i++)
    a[i] = 2.0 * x[i] - x[(i + 1) % 2];
  MPI_Gather(a, 2, MPI_DOUBLE, g, 2, MPI_DOUBLE, k, comm);
  for (int i = 0; i < 2; i++)
    yv[i] = 0.5 * x[i];
  if (r == k)
    for (int j = 0; j < 2 * P; j++)
      yv[2 + j] = g[j];
  else
    for (int j = 0; j < 2 * P; j++)
      yv[2 + j] = 0.0;
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(gather_lin_pr_b) semantics(per_rank)
void gather_lin_pr(const double *x, double *yv, int k, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  double a[2], g[2 * MAXP];
  for (int i = 0; i < 2; i++)
    a[i] = 2.0 * x[i] - x[(i + 1) % 2];
  MPI_Gather(a, 2, MPI_DOUBLE, g, 2, MPI_DOUBLE, k, comm);
  for (int i = 0; i < 2; i++)
    yv[i] = 0.5 * x[i];
  if (r == k)
    for (int j = 0; j < 2 * P; j++)
      yv[2 + j] = g[j];
  else
    for (int j = 0; j < 2 * P; j++)
      yv[2 + j] = 0.0;
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(gatherv_g_b) semantics(global) varying(x)
void gatherv_g(const double *x, double *yv, int k, MPI_Comm comm) {
  int r, P, counts[MAXP], displs[MAXP];
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  for (int q = 0; q < P; q++) {
    counts[q] = q + 1;
    displs[q] = q * (q + 1) / 2 + q; /* a gap after each block */
  }
  double a[4], g[16];
  for (int i = 0; i < 4; i++)
    a[i] = x[i] * x[i] + 0.5 * x[i];
  for (int j = 0; j < 16; j++)
    g[j] = 0.0;
  MPI_Gatherv(a, r + 1, MPI_DOUBLE, g, counts, displs, MPI_DOUBLE, k, comm);
  for (int i = 0; i < 4; i++)
    yv[i] = 0.5 * x[i];
  for (int j = 0; j < 16; j++)
    yv[4 + j] = 0.0;
  if (r == k)
    for (int j = 0; j < 16; j++)
      yv[4 + j] = g[j] * g[j] + sin(g[j]);
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(gatherv_pr_b) semantics(per_rank)
void gatherv_pr(const double *x, double *yv, int k, MPI_Comm comm) {
  int r, P, counts[MAXP], displs[MAXP];
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  for (int q = 0; q < P; q++) {
    counts[q] = q + 1;
    displs[q] = q * (q + 1) / 2 + q; /* a gap after each block */
  }
  double a[4], g[16];
  for (int i = 0; i < 4; i++)
    a[i] = x[i] * x[i] + 0.5 * x[i];
  for (int j = 0; j < 16; j++)
    g[j] = 0.0;
  MPI_Gatherv(a, r + 1, MPI_DOUBLE, g, counts, displs, MPI_DOUBLE, k, comm);
  for (int i = 0; i < 4; i++)
    yv[i] = 0.5 * x[i];
  for (int j = 0; j < 16; j++)
    yv[4 + j] = 0.0;
  if (r == k)
    for (int j = 0; j < 16; j++)
      yv[4 + j] = g[j] * g[j] + sin(g[j]);
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(gatherv_lin_g_b) semantics(global) varying(x)
void gatherv_lin_g(const double *x, double *yv, int k, MPI_Comm comm) {
  int r, P, counts[MAXP], displs[MAXP];
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  for (int q = 0; q < P; q++) {
    counts[q] = q + 1;
    displs[q] = q * (q + 1) / 2 + q; /* a gap after each block */
  }
  double a[4], g[16];
  for (int i = 0; i < 4; i++)
    a[i] = 2.0 * x[i] - x[(i + 1) % 4];
  for (int j = 0; j < 16; j++)
    g[j] = 0.0;
  MPI_Gatherv(a, r + 1, MPI_DOUBLE, g, counts, displs, MPI_DOUBLE, k, comm);
  for (int i = 0; i < 4; i++)
    yv[i] = 0.5 * x[i];
  for (int j = 0; j < 16; j++)
    yv[4 + j] = 0.0;
  if (r == k)
    for (int j = 0; j < 16; j++)
      yv[4 + j] = g[j];
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(gatherv_lin_pr_b) semantics(per_rank)
void gatherv_lin_pr(const double *x, double *yv, int k, MPI_Comm comm) {
  int r, P, counts[MAXP], displs[MAXP];
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  for (int q = 0; q < P; q++) {
    counts[q] = q + 1;
    displs[q] = q * (q + 1) / 2 + q; /* a gap after each block */
  }
  double a[4], g[16];
  for (int i = 0; i < 4; i++)
    a[i] = 2.0 * x[i] - x[(i + 1) % 4];
  for (int j = 0; j < 16; j++)
    g[j] = 0.0;
  MPI_Gatherv(a, r + 1, MPI_DOUBLE, g, counts, displs, MPI_DOUBLE, k, comm);
  for (int i = 0; i < 4; i++)
    yv[i] = 0.5 * x[i];
  for (int j = 0; j < 16; j++)
    yv[4 + j] = 0.0;
  if (r == k)
    for (int j = 0; j < 16; j++)
      yv[4 + j] = g[j];
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(scatter_g_b) semantics(global) varying(x)
void scatter_g(const double *x, double *yv, int k, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  double s[2 * MAXP], v[2];
  for (int j = 0; j < 2 * MAXP; j++)
    s[j] = x[j] * x[j] + 0.5 * x[j];
  MPI_Scatter(s, 2, MPI_DOUBLE, v, 2, MPI_DOUBLE, k, comm);
  for (int i = 0; i < 2; i++)
    yv[i] = v[i] * x[i];
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(scatter_pr_b) semantics(per_rank)
void scatter_pr(const double *x, double *yv, int k, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  double s[2 * MAXP], v[2];
  for (int j = 0; j < 2 * MAXP; j++)
    s[j] = x[j] * x[j] + 0.5 * x[j];
  MPI_Scatter(s, 2, MPI_DOUBLE, v, 2, MPI_DOUBLE, k, comm);
  for (int i = 0; i < 2; i++)
    yv[i] = v[i] * x[i];
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(scatter_f_b) varying(x)
void scatter_f(const float *x, float *yv, int k, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  float s[2 * MAXP], v[2];
  for (int j = 0; j < 2 * MAXP; j++)
    s[j] = x[j] * x[j] + 0.5 * x[j];
  MPI_Scatter(s, 2, MPI_FLOAT, v, 2, MPI_FLOAT, k, comm);
  for (int i = 0; i < 2; i++)
    yv[i] = v[i] * x[i];
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(scatter_lin_g_b) semantics(global) varying(x)
void scatter_lin_g(const double *x, double *yv, int k, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  double s[2 * MAXP], v[2];
  for (int j = 0; j < 2 * MAXP; j++)
    s[j] = 2.0 * x[j] - x[(j + 1) % (2 * MAXP)];
  MPI_Scatter(s, 2, MPI_DOUBLE, v, 2, MPI_DOUBLE, k, comm);
  for (int i = 0; i < 2; i++)
    yv[i] = v[i] * (r + 1) - x[i];
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(scatter_lin_pr_b) semantics(per_rank)
void scatter_lin_pr(const double *x, double *yv, int k, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  double s[2 * MAXP], v[2];
  for (int j = 0; j < 2 * MAXP; j++)
    s[j] = 2.0 * x[j] - x[(j + 1) % (2 * MAXP)];
  MPI_Scatter(s, 2, MPI_DOUBLE, v, 2, MPI_DOUBLE, k, comm);
  for (int i = 0; i < 2; i++)
    yv[i] = v[i] * (r + 1) - x[i];
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(scatterv_g_b) semantics(global) varying(x)
void scatterv_g(const double *x, double *yv, int k, MPI_Comm comm) {
  int r, P, counts[MAXP], displs[MAXP];
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  for (int q = 0; q < P; q++) {
    counts[q] = q + 1;
    displs[q] = q * (q + 1) / 2 + q; /* a gap after each block */
  }
  double s[16], v[4];
  for (int j = 0; j < 16; j++)
    s[j] = x[j] * x[j] + 0.5 * x[j];
  for (int i = 0; i < 4; i++)
    v[i] = 0.0;
  MPI_Scatterv(s, counts, displs, MPI_DOUBLE, v, r + 1, MPI_DOUBLE, k, comm);
  for (int i = 0; i < 4; i++)
    yv[i] = v[i] * x[i];
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(scatterv_pr_b) semantics(per_rank)
void scatterv_pr(const double *x, double *yv, int k, MPI_Comm comm) {
  int r, P, counts[MAXP], displs[MAXP];
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  for (int q = 0; q < P; q++) {
    counts[q] = q + 1;
    displs[q] = q * (q + 1) / 2 + q; /* a gap after each block */
  }
  double s[16], v[4];
  for (int j = 0; j < 16; j++)
    s[j] = x[j] * x[j] + 0.5 * x[j];
  for (int i = 0; i < 4; i++)
    v[i] = 0.0;
  MPI_Scatterv(s, counts, displs, MPI_DOUBLE, v, r + 1, MPI_DOUBLE, k, comm);
  for (int i = 0; i < 4; i++)
    yv[i] = v[i] * x[i];
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(scatterv_lin_g_b) semantics(global) varying(x)
void scatterv_lin_g(const double *x, double *yv, int k, MPI_Comm comm) {
  int r, P, counts[MAXP], displs[MAXP];
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  for (int q = 0; q < P; q++) {
    counts[q] = q + 1;
    displs[q] = q * (q + 1) / 2 + q; /* a gap after each block */
  }
  double s[16], v[4];
  for (int j = 0; j < 16; j++)
    s[j] = 2.0 * x[j] - x[(j + 1) % 16];
  for (int i = 0; i < 4; i++)
    v[i] = 0.0;
  MPI_Scatterv(s, counts, displs, MPI_DOUBLE, v, r + 1, MPI_DOUBLE, k, comm);
  for (int i = 0; i < 4; i++)
    yv[i] = v[i] * (r + 1) - x[i];
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(scatterv_lin_pr_b) semantics(per_rank)
void scatterv_lin_pr(const double *x, double *yv, int k, MPI_Comm comm) {
  int r, P, counts[MAXP], displs[MAXP];
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  for (int q = 0; q < P; q++) {
    counts[q] = q + 1;
    displs[q] = q * (q + 1) / 2 + q; /* a gap after each block */
  }
  double s[16], v[4];
  for (int j = 0; j < 16; j++)
    s[j] = 2.0 * x[j] - x[(j + 1) % 16];
  for (int i = 0; i < 4; i++)
    v[i] = 0.0;
  MPI_Scatterv(s, counts, displs, MPI_DOUBLE, v, r + 1, MPI_DOUBLE, k, comm);
  for (int i = 0; i < 4; i++)
    yv[i] = v[i] * (r + 1) - x[i];
}

static int g_k, g_nx, g_ny, g_nyr;

static void P_gather_g(const double *x, const double *th, double *y) {
  (void)th;
  gather_g(x, y, g_k, MPI_COMM_WORLD);
}
static void B_gather_g(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  gather_g_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
}
static void P_gather_pr(const double *x, const double *th, double *y) {
  (void)th;
  gather_pr(x, y, g_k, MPI_COMM_WORLD);
}
static void B_gather_pr(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  gather_pr_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
}
static void P_gather_lin_g(const double *x, const double *th, double *y) {
  (void)th;
  gather_lin_g(x, y, g_k, MPI_COMM_WORLD);
}
static void B_gather_lin_g(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  gather_lin_g_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
}
static void P_gather_lin_pr(const double *x, const double *th, double *y) {
  (void)th;
  gather_lin_pr(x, y, g_k, MPI_COMM_WORLD);
}
static void B_gather_lin_pr(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  gather_lin_pr_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
}
static void P_gatherv_g(const double *x, const double *th, double *y) {
  (void)th;
  gatherv_g(x, y, g_k, MPI_COMM_WORLD);
}
static void B_gatherv_g(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  gatherv_g_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
}
static void P_gatherv_pr(const double *x, const double *th, double *y) {
  (void)th;
  gatherv_pr(x, y, g_k, MPI_COMM_WORLD);
}
static void B_gatherv_pr(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  gatherv_pr_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
}
static void P_gatherv_lin_g(const double *x, const double *th, double *y) {
  (void)th;
  gatherv_lin_g(x, y, g_k, MPI_COMM_WORLD);
}
static void B_gatherv_lin_g(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  gatherv_lin_g_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
}
static void P_gatherv_lin_pr(const double *x, const double *th, double *y) {
  (void)th;
  gatherv_lin_pr(x, y, g_k, MPI_COMM_WORLD);
}
static void B_gatherv_lin_pr(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  gatherv_lin_pr_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
}
static void P_scatter_g(const double *x, const double *th, double *y) {
  (void)th;
  scatter_g(x, y, g_k, MPI_COMM_WORLD);
}
static void B_scatter_g(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  scatter_g_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
}
static void P_scatter_pr(const double *x, const double *th, double *y) {
  (void)th;
  scatter_pr(x, y, g_k, MPI_COMM_WORLD);
}
static void B_scatter_pr(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  scatter_pr_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
}
static void P_scatter_f(const double *x, const double *th, double *y) {
  float xf[64], yf[64];
  (void)th;
  hx_tof(xf, x, g_nx);
  scatter_f(xf, yf, g_k, MPI_COMM_WORLD);
  hx_tod(y, yf, g_ny + g_nyr);
}
static void B_scatter_f(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  float xf[64], xbf[64] = {0}, yf[64], ybf[64];
  (void)th;
  (void)thb;
  hx_tof(xf, x, g_nx);
  hx_tof(ybf, yb, g_ny + g_nyr);
  scatter_f_b(xf, xbf, yf, ybf, g_k, MPI_COMM_WORLD);
  hx_addd(xb, xbf, g_nx);
  hx_tod(y, yf, g_ny + g_nyr);
  hx_tod(yb, ybf, g_ny + g_nyr);
}
static void P_scatter_lin_g(const double *x, const double *th, double *y) {
  (void)th;
  scatter_lin_g(x, y, g_k, MPI_COMM_WORLD);
}
static void B_scatter_lin_g(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  scatter_lin_g_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
}
static void P_scatter_lin_pr(const double *x, const double *th, double *y) {
  (void)th;
  scatter_lin_pr(x, y, g_k, MPI_COMM_WORLD);
}
static void B_scatter_lin_pr(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  scatter_lin_pr_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
}
static void P_scatterv_g(const double *x, const double *th, double *y) {
  (void)th;
  scatterv_g(x, y, g_k, MPI_COMM_WORLD);
}
static void B_scatterv_g(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  scatterv_g_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
}
static void P_scatterv_pr(const double *x, const double *th, double *y) {
  (void)th;
  scatterv_pr(x, y, g_k, MPI_COMM_WORLD);
}
static void B_scatterv_pr(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  scatterv_pr_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
}
static void P_scatterv_lin_g(const double *x, const double *th, double *y) {
  (void)th;
  scatterv_lin_g(x, y, g_k, MPI_COMM_WORLD);
}
static void B_scatterv_lin_g(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  scatterv_lin_g_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
}
static void P_scatterv_lin_pr(const double *x, const double *th, double *y) {
  (void)th;
  scatterv_lin_pr(x, y, g_k, MPI_COMM_WORLD);
}
static void B_scatterv_lin_pr(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  scatterv_lin_pr_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
}
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  int r = hx_rank_g, P = hx_size_g;
  unsigned long long seed = 1000;
  char name[256];
  (void)r;
  g_k = 0;
  g_nx = 2;
  g_ny = 2 + 2 * P;
  g_nyr = 0;
  {
    snprintf(name, sizeof name, "gather global k=%d", g_k);
    hx_case c = {name, P_gather_g, B_gather_g, g_nx, 0, g_ny, g_nyr, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "gather per_rank k=%d", g_k);
    hx_case c = {name, P_gather_pr, B_gather_pr, g_nx, 0, g_ny + g_nyr, 0, 0};
    hx_case_run(&c, seed += 10);
  }
  g_k = P - 1;
  g_nx = 2;
  g_ny = 2 + 2 * P;
  g_nyr = 0;
  {
    snprintf(name, sizeof name, "gather global k=%d", g_k);
    hx_case c = {name, P_gather_g, B_gather_g, g_nx, 0, g_ny, g_nyr, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "gather per_rank k=%d", g_k);
    hx_case c = {name, P_gather_pr, B_gather_pr, g_nx, 0, g_ny + g_nyr, 0, 0};
    hx_case_run(&c, seed += 10);
  }
  g_k = 0;
  g_nx = 2;
  g_ny = 2 + 2 * P;
  g_nyr = 0;
  {
    snprintf(name, sizeof name, "gather_lin global k=%d", g_k);
    hx_case c = {name, P_gather_lin_g, B_gather_lin_g, g_nx, 0, g_ny, g_nyr, 1};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "gather_lin per_rank k=%d", g_k);
    hx_case c = {name, P_gather_lin_pr, B_gather_lin_pr, g_nx, 0, g_ny + g_nyr, 0, 1};
    hx_case_run(&c, seed += 10);
  }
  g_k = P - 1;
  g_nx = 2;
  g_ny = 2 + 2 * P;
  g_nyr = 0;
  {
    snprintf(name, sizeof name, "gather_lin global k=%d", g_k);
    hx_case c = {name, P_gather_lin_g, B_gather_lin_g, g_nx, 0, g_ny, g_nyr, 1};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "gather_lin per_rank k=%d", g_k);
    hx_case c = {name, P_gather_lin_pr, B_gather_lin_pr, g_nx, 0, g_ny + g_nyr, 0, 1};
    hx_case_run(&c, seed += 10);
  }
  g_k = 0;
  g_nx = 4;
  g_ny = 20;
  g_nyr = 0;
  {
    snprintf(name, sizeof name, "gatherv global k=%d", g_k);
    hx_case c = {name, P_gatherv_g, B_gatherv_g, g_nx, 0, g_ny, g_nyr, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "gatherv per_rank k=%d", g_k);
    hx_case c = {name, P_gatherv_pr, B_gatherv_pr, g_nx, 0, g_ny + g_nyr, 0, 0};
    hx_case_run(&c, seed += 10);
  }
  g_k = P - 1;
  g_nx = 4;
  g_ny = 20;
  g_nyr = 0;
  {
    snprintf(name, sizeof name, "gatherv global k=%d", g_k);
    hx_case c = {name, P_gatherv_g, B_gatherv_g, g_nx, 0, g_ny, g_nyr, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "gatherv per_rank k=%d", g_k);
    hx_case c = {name, P_gatherv_pr, B_gatherv_pr, g_nx, 0, g_ny + g_nyr, 0, 0};
    hx_case_run(&c, seed += 10);
  }
  g_k = 0;
  g_nx = 4;
  g_ny = 20;
  g_nyr = 0;
  {
    snprintf(name, sizeof name, "gatherv_lin global k=%d", g_k);
    hx_case c = {name, P_gatherv_lin_g, B_gatherv_lin_g, g_nx, 0, g_ny, g_nyr, 1};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "gatherv_lin per_rank k=%d", g_k);
    hx_case c = {name, P_gatherv_lin_pr, B_gatherv_lin_pr, g_nx, 0, g_ny + g_nyr, 0, 1};
    hx_case_run(&c, seed += 10);
  }
  g_k = P - 1;
  g_nx = 4;
  g_ny = 20;
  g_nyr = 0;
  {
    snprintf(name, sizeof name, "gatherv_lin global k=%d", g_k);
    hx_case c = {name, P_gatherv_lin_g, B_gatherv_lin_g, g_nx, 0, g_ny, g_nyr, 1};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "gatherv_lin per_rank k=%d", g_k);
    hx_case c = {name, P_gatherv_lin_pr, B_gatherv_lin_pr, g_nx, 0, g_ny + g_nyr, 0, 1};
    hx_case_run(&c, seed += 10);
  }
  g_k = 0;
  g_nx = 2 * MAXP;
  g_ny = 2;
  g_nyr = 0;
  {
    snprintf(name, sizeof name, "scatter global k=%d", g_k);
    hx_case c = {name, P_scatter_g, B_scatter_g, g_nx, 0, g_ny, g_nyr, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "scatter per_rank k=%d", g_k);
    hx_case c = {name, P_scatter_pr, B_scatter_pr, g_nx, 0, g_ny + g_nyr, 0, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "scatter float global k=%d", g_k);
    hx_case cf = {name, P_scatter_f, B_scatter_f, g_nx, 0, g_ny, g_nyr, 0};
    hx_case cd = {name, P_scatter_g, B_scatter_g, g_nx, 0, g_ny, g_nyr, 0};
    hx_case_twin(&cf, &cd, seed += 10, 1e-4);
  }
  g_k = P - 1;
  g_nx = 2 * MAXP;
  g_ny = 2;
  g_nyr = 0;
  {
    snprintf(name, sizeof name, "scatter global k=%d", g_k);
    hx_case c = {name, P_scatter_g, B_scatter_g, g_nx, 0, g_ny, g_nyr, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "scatter per_rank k=%d", g_k);
    hx_case c = {name, P_scatter_pr, B_scatter_pr, g_nx, 0, g_ny + g_nyr, 0, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "scatter float global k=%d", g_k);
    hx_case cf = {name, P_scatter_f, B_scatter_f, g_nx, 0, g_ny, g_nyr, 0};
    hx_case cd = {name, P_scatter_g, B_scatter_g, g_nx, 0, g_ny, g_nyr, 0};
    hx_case_twin(&cf, &cd, seed += 10, 1e-4);
  }
  g_k = 0;
  g_nx = 2 * MAXP;
  g_ny = 2;
  g_nyr = 0;
  {
    snprintf(name, sizeof name, "scatter_lin global k=%d", g_k);
    hx_case c = {name, P_scatter_lin_g, B_scatter_lin_g, g_nx, 0, g_ny, g_nyr, 1};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "scatter_lin per_rank k=%d", g_k);
    hx_case c = {name, P_scatter_lin_pr, B_scatter_lin_pr, g_nx, 0, g_ny + g_nyr, 0, 1};
    hx_case_run(&c, seed += 10);
  }
  g_k = P - 1;
  g_nx = 2 * MAXP;
  g_ny = 2;
  g_nyr = 0;
  {
    snprintf(name, sizeof name, "scatter_lin global k=%d", g_k);
    hx_case c = {name, P_scatter_lin_g, B_scatter_lin_g, g_nx, 0, g_ny, g_nyr, 1};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "scatter_lin per_rank k=%d", g_k);
    hx_case c = {name, P_scatter_lin_pr, B_scatter_lin_pr, g_nx, 0, g_ny + g_nyr, 0, 1};
    hx_case_run(&c, seed += 10);
  }
  g_k = 0;
  g_nx = 16;
  g_ny = 4;
  g_nyr = 0;
  {
    snprintf(name, sizeof name, "scatterv global k=%d", g_k);
    hx_case c = {name, P_scatterv_g, B_scatterv_g, g_nx, 0, g_ny, g_nyr, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "scatterv per_rank k=%d", g_k);
    hx_case c = {name, P_scatterv_pr, B_scatterv_pr, g_nx, 0, g_ny + g_nyr, 0, 0};
    hx_case_run(&c, seed += 10);
  }
  g_k = P - 1;
  g_nx = 16;
  g_ny = 4;
  g_nyr = 0;
  {
    snprintf(name, sizeof name, "scatterv global k=%d", g_k);
    hx_case c = {name, P_scatterv_g, B_scatterv_g, g_nx, 0, g_ny, g_nyr, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "scatterv per_rank k=%d", g_k);
    hx_case c = {name, P_scatterv_pr, B_scatterv_pr, g_nx, 0, g_ny + g_nyr, 0, 0};
    hx_case_run(&c, seed += 10);
  }
  g_k = 0;
  g_nx = 16;
  g_ny = 4;
  g_nyr = 0;
  {
    snprintf(name, sizeof name, "scatterv_lin global k=%d", g_k);
    hx_case c = {name, P_scatterv_lin_g, B_scatterv_lin_g, g_nx, 0, g_ny, g_nyr, 1};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "scatterv_lin per_rank k=%d", g_k);
    hx_case c = {name, P_scatterv_lin_pr, B_scatterv_lin_pr, g_nx, 0, g_ny + g_nyr, 0, 1};
    hx_case_run(&c, seed += 10);
  }
  g_k = P - 1;
  g_nx = 16;
  g_ny = 4;
  g_nyr = 0;
  {
    snprintf(name, sizeof name, "scatterv_lin global k=%d", g_k);
    hx_case c = {name, P_scatterv_lin_g, B_scatterv_lin_g, g_nx, 0, g_ny, g_nyr, 1};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "scatterv_lin per_rank k=%d", g_k);
    hx_case c = {name, P_scatterv_lin_pr, B_scatterv_lin_pr, g_nx, 0, g_ny + g_nyr, 0, 1};
    hx_case_run(&c, seed += 10);
  }
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
