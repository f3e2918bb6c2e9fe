// MPI_Allgather (2 values per rank), MPI_Allgatherv (rank q sends q+1 values,
// displacements with gaps) and MPI_Allgather with MPI_IN_PLACE (sendtype
// MPI_DOUBLE; MPI_DATATYPE_NULL is in mpi_allgather_inplace_null.c).  The gathered
// buffer is used by replicated code (output yr, counted once under global
// semantics) and by rank-varying code (output yv).  Both semantics, central
// differences of the global objective, dot-product tests of the linear
// variants, float against double.
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
#pragma mpiad differentiate wrt(x) output(yv, yr) replicated(k) name(allgather_g_b) semantics(global) varying(x)
void allgather_g(const double *x, double *yv, double *yr, int k, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  double a[2], g[2 * MAXP];
  for (int j = 0; j < 2 * MAXP; j++)
    g[j] = 0.0;
  for (int i = 0; i < 2; i++)
    a[i] = x[i] * x[i] + 0.5 * x[i];
  MPI_Allgather(a, 2, MPI_DOUBLE, g, 2, MPI_DOUBLE, comm);
  double t = 0.0;
  for (int j = 0; j < 2 * P; j++)
    t += g[j] * g[j] * (j + 1);
  yr[0] = t; /* replicated code */
  for (int i = 0; i < 2; i++)
    yv[i] = g[((r + 1) % P) * 2 + i] * x[i]; /* rank-varying code */
}

#pragma mpiad differentiate wrt(x) output(yv, yr) replicated(k) name(allgather_pr_b) semantics(per_rank)
void allgather_pr(const double *x, double *yv, double *yr, int k, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  double a[2], g[2 * MAXP];
  for (int j = 0; j < 2 * MAXP; j++)
    g[j] = 0.0;
  for (int i = 0; i < 2; i++)
    a[i] = x[i] * x[i] + 0.5 * x[i];
  MPI_Allgather(a, 2, MPI_DOUBLE, g, 2, MPI_DOUBLE, comm);
  double t = 0.0;
  for (int j = 0; j < 2 * P; j++)
    t += g[j] * g[j] * (j + 1);
  yr[0] = t; /* replicated code */
  for (int i = 0; i < 2; i++)
    yv[i] = g[((r + 1) % P) * 2 + i] * x[i]; /* rank-varying code */
}

#pragma mpiad differentiate wrt(x) output(yv, yr) replicated(k) name(allgather_f_b) varying(x)
void allgather_f(const float *x, float *yv, float *yr, int k, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  float a[2], g[2 * MAXP];
  for (int j = 0; j < 2 * MAXP; j++)
    g[j] = 0.0;
  for (int i = 0; i < 2; i++)
    a[i] = x[i] * x[i] + 0.5 * x[i];
  MPI_Allgather(a, 2, MPI_FLOAT, g, 2, MPI_FLOAT, comm);
  float t = 0.0;
  for (int j = 0; j < 2 * P; j++)
    t += g[j] * g[j] * (j + 1);
  yr[0] = t; /* replicated code */
  for (int i = 0; i < 2; i++)
    yv[i] = g[((r + 1) % P) * 2 + i] * x[i]; /* rank-varying code */
}

#pragma mpiad differentiate wrt(x) output(yv, yr) replicated(k) name(allgather_lin_g_b) semantics(global) varying(x)
void allgather_lin_g(const double *x, double *yv, double *yr, int k, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  double a[2], g[2 * MAXP];
  for (int j = 0; j < 2 * MAXP; j++)
    g[j] = 0.0;
  for (int i = 0; i < 2; i++)
    a[i] = 2.0 * x[i] - x[(i + 1) % 2];
  MPI_Allgather(a, 2, MPI_DOUBLE, g, 2, MPI_DOUBLE, comm);
  double t = 0.0;
  for (int j = 0; j < 2 * P; j++)
    t += g[j] * (j + 1);
  yr[0] = t; /* replicated code */
  for (int i = 0; i < 2; i++)
    yv[i] = g[((r + 1) % P) * 2 + i] * (r + 1) - x[i]; /* rank-varying code */
}

#pragma mpiad differentiate wrt(x) output(yv, yr) replicated(k) name(allgather_lin_pr_b) semantics(per_rank)
void allgather_lin_pr(const double *x, double *yv, double *yr, int k, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  double a[2], g[2 * MAXP];
  for (int j = 0; j < 2 * MAXP; j++)
    g[j] = 0.0;
  for (int i = 0; i < 2; i++)
    a[i] = 2.0 * x[i] - x[(i + 1) % 2];
  MPI_Allgather(a, 2, MPI_DOUBLE, g, 2, MPI_DOUBLE, comm);
  double t = 0.0;
  for (int j = 0; j < 2 * P; j++)
    t += g[j] * (j + 1);
  yr[0] = t; /* replicated code */
  for (int i = 0; i < 2; i++)
    yv[i] = g[((r + 1) % P) * 2 + i] * (r + 1) - x[i]; /* rank-varying code */
}

#pragma mpiad differentiate wrt(x) output(yv, yr) replicated(k) name(allgather_inplace_g_b) semantics(global) varying(x)
void allgather_inplace_g(const double *x, double *yv, double *yr, int k, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  double a[2], g[2 * MAXP];
  for (int j = 0; j < 2 * MAXP; j++)
    g[j] = 0.0;
  for (int i = 0; i < 2; i++)
    g[r * 2 + i] = x[i] * x[i] + 0.5 * x[i];
  MPI_Allgather(MPI_IN_PLACE, 0, MPI_DOUBLE, g, 2, MPI_DOUBLE, comm);
  double t = 0.0;
  for (int j = 0; j < 2 * P; j++)
    t += g[j] * g[j] * (j + 1);
  yr[0] = t; /* replicated code */
  for (int i = 0; i < 2; i++)
    yv[i] = g[((r + 1) % P) * 2 + i] * x[i]; /* rank-varying code */
}

#pragma mpiad differentiate wrt(x) output(yv, yr) replicated(k) name(allgather_inplace_pr_b) semantics(per_rank)
void allgather_inplace_pr(const double *x, double *yv, double *yr, int k, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  double a[2], g[2 * MAXP];
  for (int j = 0; j < 2 * MAXP; j++)
    g[j] = 0.0;
  for (int i = 0; i < 2; i++)
    g[r * 2 + i] = x[i] * x[i] + 0.5 * x[i];
  MPI_Allgather(MPI_IN_PLACE, 0, MPI_DOUBLE, g, 2, MPI_DOUBLE, comm);
  double t = 0.0;
  for (int j = 0; j < 2 * P; j++)
    t += g[j] * g[j] * (j + 1);
  yr[0] = t; /* replicated code */
  for (int i = 0; i < 2; i++)
    yv[i] = g[((r + 1) % P) * 2 + i] * x[i]; /* rank-varying code */
}

#pragma mpiad differentiate wrt(x) output(yv, yr) replicated(k) name(allgather_inplace_lin_g_b) semantics(global) varying(x)
void allgather_inplace_lin_g(const double *x, double *yv, double *yr, int k, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  double a[2], g[2 * MAXP];
  for (int j = 0; j < 2 * MAXP; j++)
    g[j] = 0.0;
  for (int i = 0; i < 2; i++)
    g[r * 2 + i] = 2.0 * x[i] - x[(i + 1) % 2];
  MPI_Allgather(MPI_IN_PLACE, 0, MPI_DOUBLE, g, 2, MPI_DOUBLE, comm);
  double t = 0.0;
  for (int j = 0; j < 2 * P; j++)
    t += g[j] * (j + 1);
  yr[0] = t; /* replicated code */
  for (int i = 0; i < 2; i++)
    yv[i] = g[((r + 1) % P) * 2 + i] * (r + 1) - x[i]; /* rank-varying code */
}

#pragma mpiad differentiate wrt(x) output(yv, yr) replicated(k) name(allgather_inplace_lin_pr_b) semantics(per_rank)
void allgather_inplace_lin_pr(const double *x, double *yv, double *yr, int k, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  double a[2], g[2 * MAXP];
  for (int j = 0; j < 2 * MAXP; j++)
    g[j] = 0.0;
  for (int i = 0; i < 2; i++)
    g[r * 2 + i] = 2.0 * x[i] - x[(i + 1) % 2];
  MPI_Allgather(MPI_IN_PLACE, 0, MPI_DOUBLE, g, 2, MPI_DOUBLE, comm);
  double t = 0.0;
  for (int j = 0; j < 2 * P; j++)
    t += g[j] * (j + 1);
  yr[0] = t; /* replicated code */
  for (int i = 0; i < 2; i++)
    yv[i] = g[((r + 1) % P) * 2 + i] * (r + 1) - x[i]; /* rank-varying code */
}

#pragma mpiad differentiate wrt(x) output(yv, yr) replicated(k) name(allgatherv_g_b) semantics(global) varying(x)
void allgatherv_g(const double *x, double *yv, double *yr, int k, MPI_Comm comm) {
  int r, P, counts[MAXP], displs[MAXP];
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  for (int q = 0; q < P; q++) {
    counts[q] = q + 1;                 /* unequal counts */
    displs[q] = q * (q + 1) / 2 + q;   /* with a gap after each block */
  }
  double a[4], g[16];
  for (int i = 0; i < 4; i++)
    a[i] = x[i] * x[i] + 0.5 * x[i];
  for (int j = 0; j < 16; j++)
    g[j] = 0.0;
  MPI_Allgatherv(a, r + 1, MPI_DOUBLE, g, counts, displs, MPI_DOUBLE, comm);
  double t = 0.0;
  for (int j = 0; j < 16; j++)
    t += g[j] * g[j] * (j + 1);
  yr[0] = t; /* replicated code */
  for (int i = 0; i < 4; i++)
    yv[i] = g[i] * x[i]; /* rank-varying code */
}

#pragma mpiad differentiate wrt(x) output(yv, yr) replicated(k) name(allgatherv_pr_b) semantics(per_rank)
void allgatherv_pr(const double *x, double *yv, double *yr, int k, MPI_Comm comm) {
  int r, P, counts[MAXP], displs[MAXP];
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  for (int q = 0; q < P; q++) {
    counts[q] = q + 1;                 /* unequal counts */
    displs[q] = q * (q + 1) / 2 + q;   /* with a gap after each block */
  }
  double a[4], g[16];
  for (int i = 0; i < 4; i++)
    a[i] = x[i] * x[i] + 0.5 * x[i];
  for (int j = 0; j < 16; j++)
    g[j] = 0.0;
  MPI_Allgatherv(a, r + 1, MPI_DOUBLE, g, counts, displs, MPI_DOUBLE, comm);
  double t = 0.0;
  for (int j = 0; j < 16; j++)
    t += g[j] * g[j] * (j + 1);
  yr[0] = t; /* replicated code */
  for (int i = 0; i < 4; i++)
    yv[i] = g[i] * x[i]; /* rank-varying code */
}

#pragma mpiad differentiate wrt(x) output(yv, yr) replicated(k) name(allgatherv_f_b) varying(x)
void allgatherv_f(const float *x, float *yv, float *yr, int k, MPI_Comm comm) {
  int r, P, counts[MAXP], displs[MAXP];
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  for (int q = 0; q < P; q++) {
    counts[q] = q + 1;                 /* unequal counts */
    displs[q] = q * (q + 1) / 2 + q;   /* with a gap after each block */
  }
  float a[4], g[16];
  for (int i = 0; i < 4; i++)
    a[i] = x[i] * x[i] + 0.5 * x[i];
  for (int j = 0; j < 16; j++)
    g[j] = 0.0;
  MPI_Allgatherv(a, r + 1, MPI_FLOAT, g, counts, displs, MPI_FLOAT, comm);
  float t = 0.0;
  for (int j = 0; j < 16; j++)
    t += g[j] * g[j] * (j + 1);
  yr[0] = t; /* replicated code */
  for (int i = 0; i < 4; i++)
    yv[i] = g[i] * x[i]; /* rank-varying code */
}

#pragma mpiad differentiate wrt(x) output(yv, yr) replicated(k) name(allgatherv_lin_g_b) semantics(global) varying(x)
void allgatherv_lin_g(const double *x, double *yv, double *yr, int k, MPI_Comm comm) {
  int r, P, counts[MAXP], displs[MAXP];
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  for (int q = 0; q < P; q++) {
    counts[q] = q + 1;                 /* unequal counts */
    displs[q] = q * (q + 1) / 2 + q;   /* with a gap after each block */
  }
  double a[4], g[16];
  for (int i = 0; i < 4; i++)
    a[i] = 2.0 * x[i] - x[(i + 1) % 4];
  for (int j = 0; j < 16; j++)
    g[j] = 0.0;
  MPI_Allgatherv(a, r + 1, MPI_DOUBLE, g, counts, displs, MPI_DOUBLE, comm);
  double t = 0.0;
  for (int j = 0; j < 16; j++)
    t += g[j] * (j + 1);
  yr[0] = t; /* replicated code */
  for (int i = 0; i < 4; i++)
    yv[i] = g[i] * (r + 1) - x[i]; /* rank-varying code */
}

#pragma mpiad differentiate wrt(x) output(yv, yr) replicated(k) name(allgatherv_lin_pr_b) semantics(per_rank)
void allgatherv_lin_pr(const double *x, double *yv, double *yr, int k, MPI_Comm comm) {
  int r, P, counts[MAXP], displs[MAXP];
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  for (int q = 0; q < P; q++) {
    counts[q] = q + 1;                 /* unequal counts */
    displs[q] = q * (q + 1) / 2 + q;   /* with a gap after each block */
  }
  double a[4], g[16];
  for (int i = 0; i < 4; i++)
    a[i] = 2.0 * x[i] - x[(i + 1) % 4];
  for (int j = 0; j < 16; j++)
    g[j] = 0.0;
  MPI_Allgatherv(a, r + 1, MPI_DOUBLE, g, counts, displs, MPI_DOUBLE, comm);
  double t = 0.0;
  for (int j = 0; j < 16; j++)
    t += g[j] * (j + 1);
  yr[0] = t; /* replicated code */
  for (int i = 0; i < 4; i++)
    yv[i] = g[i] * (r + 1) - x[i]; /* rank-varying code */
}

static int g_k, g_nx, g_ny, g_nyr;

static void P_allgather_g(const double *x, const double *th, double *y) {
  (void)th;
  allgather_g(x, y, y + g_ny, g_k, MPI_COMM_WORLD);
}
static void B_allgather_g(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  allgather_g_b(x, xb, y, yb, y + g_ny, yb + g_ny, g_k, MPI_COMM_WORLD);
}
static void P_allgather_pr(const double *x, const double *th, double *y) {
  (void)th;
  allgather_pr(x, y, y + g_ny, g_k, MPI_COMM_WORLD);
}
static void B_allgather_pr(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  allgather_pr_b(x, xb, y, yb, y + g_ny, yb + g_ny, g_k, MPI_COMM_WORLD);
}
static void P_allgather_f(const double *x, const double *th, double *y) {
  float xf[64], yf[64];
  (void)th;
  hx_tof(xf, x, g_nx);
  allgather_f(xf, yf, yf + g_ny, g_k, MPI_COMM_WORLD);
  hx_tod(y, yf, g_ny + g_nyr);
}
static void B_allgather_f(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  float xf[64], xbf[64] = {0}, yf[64], ybf[64];
  (void)th;
  (void)thb;
  hx_tof(xf, x, g_nx);
  hx_tof(ybf, yb, g_ny + g_nyr);
  allgather_f_b(xf, xbf, yf, ybf, yf + g_ny, ybf + g_ny, g_k, MPI_COMM_WORLD);
  hx_addd(xb, xbf, g_nx);
  hx_tod(y, yf, g_ny + g_nyr);
  hx_tod(yb, ybf, g_ny + g_nyr);
}
static void P_allgather_lin_g(const double *x, const double *th, double *y) {
  (void)th;
  allgather_lin_g(x, y, y + g_ny, g_k, MPI_COMM_WORLD);
}
static void B_allgather_lin_g(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  allgather_lin_g_b(x, xb, y, yb, y + g_ny, yb + g_ny, g_k, MPI_COMM_WORLD);
}
static void P_allgather_lin_pr(const double *x, const double *th, double *y) {
  (void)th;
  allgather_lin_pr(x, y, y + g_ny, g_k, MPI_COMM_WORLD);
}
static void B_allgather_lin_pr(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  allgather_lin_pr_b(x, xb, y, yb, y + g_ny, yb + g_ny, g_k, MPI_COMM_WORLD);
}
static void P_allgather_inplace_g(const double *x, const double *th, double *y) {
  (void)th;
  allgather_inplace_g(x, y, y + g_ny, g_k, MPI_COMM_WORLD);
}
static void B_allgather_inplace_g(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  allgather_inplace_g_b(x, xb, y, yb, y + g_ny, yb + g_ny, g_k, MPI_COMM_WORLD);
}
static void P_allgather_inplace_pr(const double *x, const double *th, double *y) {
  (void)th;
  allgather_inplace_pr(x, y, y + g_ny, g_k, MPI_COMM_WORLD);
}
static void B_allgather_inplace_pr(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  allgather_inplace_pr_b(x, xb, y, yb, y + g_ny, yb + g_ny, g_k, MPI_COMM_WORLD);
}
static void P_allgather_inplace_lin_g(const double *x, const double *th, double *y) {
  (void)th;
  allgather_inplace_lin_g(x, y, y + g_ny, g_k, MPI_COMM_WORLD);
}
static void B_allgather_inplace_lin_g(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  allgather_inplace_lin_g_b(x, xb, y, yb, y + g_ny, yb + g_ny, g_k, MPI_COMM_WORLD);
}
static void P_allgather_inplace_lin_pr(const double *x, const double *th, double *y) {
  (void)th;
  allgather_inplace_lin_pr(x, y, y + g_ny, g_k, MPI_COMM_WORLD);
}
static void B_allgather_inplace_lin_pr(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  allgather_inplace_lin_pr_b(x, xb, y, yb, y + g_ny, yb + g_ny, g_k, MPI_COMM_WORLD);
}
static void P_allgatherv_g(const double *x, const double *th, double *y) {
  (void)th;
  allgatherv_g(x, y, y + g_ny, g_k, MPI_COMM_WORLD);
}
static void B_allgatherv_g(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  allgatherv_g_b(x, xb, y, yb, y + g_ny, yb + g_ny, g_k, MPI_COMM_WORLD);
}
static void P_allgatherv_pr(const double *x, const double *th, double *y) {
  (void)th;
  allgatherv_pr(x, y, y + g_ny, g_k, MPI_COMM_WORLD);
}
static void B_allgatherv_pr(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  allgatherv_pr_b(x, xb, y, yb, y + g_ny, yb + g_ny, g_k, MPI_COMM_WORLD);
}
static void P_allgatherv_f(const double *x, const double *th, double *y) {
  float xf[64], yf[64];
  (void)th;
  hx_tof(xf, x, g_nx);
  allgatherv_f(xf, yf, yf + g_ny, g_k, MPI_COMM_WORLD);
  hx_tod(y, yf, g_ny + g_nyr);
}
static void B_allgatherv_f(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  float xf[64], xbf[64] = {0}, yf[64], ybf[64];
  (void)th;
  (void)thb;
  hx_tof(xf, x, g_nx);
  hx_tof(ybf, yb, g_ny + g_nyr);
  allgatherv_f_b(xf, xbf, yf, ybf, yf + g_ny, ybf + g_ny, g_k, MPI_COMM_WORLD);
  hx_addd(xb, xbf, g_nx);
  hx_tod(y, yf, g_ny + g_nyr);
  hx_tod(yb, ybf, g_ny + g_nyr);
}
static void P_allgatherv_lin_g(const double *x, const double *th, double *y) {
  (void)th;
  allgatherv_lin_g(x, y, y + g_ny, g_k, MPI_COMM_WORLD);
}
static void B_allgatherv_lin_g(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  allgatherv_lin_g_b(x, xb, y, yb, y + g_ny, yb + g_ny, g_k, MPI_COMM_WORLD);
}
static void P_allgatherv_lin_pr(const double *x, const double *th, double *y) {
  (void)th;
  allgatherv_lin_pr(x, y, y + g_ny, g_k, MPI_COMM_WORLD);
}
static void B_allgatherv_lin_pr(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  allgatherv_lin_pr_b(x, xb, y, yb, y + g_ny, yb + g_ny, g_k, MPI_COMM_WORLD);
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
  g_ny = 2;
  g_nyr = 1;
  {
    snprintf(name, sizeof name, "allgather global k=%d", g_k);
    hx_case c = {name, P_allgather_g, B_allgather_g, g_nx, 0, g_ny, g_nyr, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "allgather per_rank k=%d", g_k);
    hx_case c = {name, P_allgather_pr, B_allgather_pr, g_nx, 0, g_ny + g_nyr, 0, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "allgather float global k=%d", g_k);
    hx_case cf = {name, P_allgather_f, B_allgather_f, g_nx, 0, g_ny, g_nyr, 0};
    hx_case cd = {name, P_allgather_g, B_allgather_g, g_nx, 0, g_ny, g_nyr, 0};
    hx_case_twin(&cf, &cd, seed += 10, 1e-4);
  }
  g_k = 0;
  g_nx = 2;
  g_ny = 2;
  g_nyr = 1;
  {
    snprintf(name, sizeof name, "allgather_lin global k=%d", g_k);
    hx_case c = {name, P_allgather_lin_g, B_allgather_lin_g, g_nx, 0, g_ny, g_nyr, 1};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "allgather_lin per_rank k=%d", g_k);
    hx_case c = {name, P_allgather_lin_pr, B_allgather_lin_pr, g_nx, 0, g_ny + g_nyr, 0, 1};
    hx_case_run(&c, seed += 10);
  }
  g_k = 0;
  g_nx = 2;
  g_ny = 2;
  g_nyr = 1;
  {
    snprintf(name, sizeof name, "allgather_inplace global k=%d", g_k);
    hx_case c = {name, P_allgather_inplace_g, B_allgather_inplace_g, g_nx, 0, g_ny, g_nyr, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "allgather_inplace per_rank k=%d", g_k);
    hx_case c = {name, P_allgather_inplace_pr, B_allgather_inplace_pr, g_nx, 0, g_ny + g_nyr, 0, 0};
    hx_case_run(&c, seed += 10);
  }
  g_k = 0;
  g_nx = 2;
  g_ny = 2;
  g_nyr = 1;
  {
    snprintf(name, sizeof name, "allgather_inplace_lin global k=%d", g_k);
    hx_case c = {name, P_allgather_inplace_lin_g, B_allgather_inplace_lin_g, g_nx, 0, g_ny, g_nyr, 1};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "allgather_inplace_lin per_rank k=%d", g_k);
    hx_case c = {name, P_allgather_inplace_lin_pr, B_allgather_inplace_lin_pr, g_nx, 0, g_ny + g_nyr, 0, 1};
    hx_case_run(&c, seed += 10);
  }
  g_k = 0;
  g_nx = 4;
  g_ny = 4;
  g_nyr = 1;
  {
    snprintf(name, sizeof name, "allgatherv global k=%d", g_k);
    hx_case c = {name, P_allgatherv_g, B_allgatherv_g, g_nx, 0, g_ny, g_nyr, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "allgatherv per_rank k=%d", g_k);
    hx_case c = {name, P_allgatherv_pr, B_allgatherv_pr, g_nx, 0, g_ny + g_nyr, 0, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "allgatherv float global k=%d", g_k);
    hx_case cf = {name, P_allgatherv_f, B_allgatherv_f, g_nx, 0, g_ny, g_nyr, 0};
    hx_case cd = {name, P_allgatherv_g, B_allgatherv_g, g_nx, 0, g_ny, g_nyr, 0};
    hx_case_twin(&cf, &cd, seed += 10, 1e-4);
  }
  g_k = 0;
  g_nx = 4;
  g_ny = 4;
  g_nyr = 1;
  {
    snprintf(name, sizeof name, "allgatherv_lin global k=%d", g_k);
    hx_case c = {name, P_allgatherv_lin_g, B_allgatherv_lin_g, g_nx, 0, g_ny, g_nyr, 1};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "allgatherv_lin per_rank k=%d", g_k);
    hx_case c = {name, P_allgatherv_lin_pr, B_allgatherv_lin_pr, g_nx, 0, g_ny + g_nyr, 0, 1};
    hx_case_run(&c, seed += 10);
  }
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
