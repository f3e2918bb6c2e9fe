// MPI_Barrier inside an active function (before and after an Allreduce whose
// result feeds replicated and varying outputs) is kept and harmless: both
// semantics, central differences, dot-product test of the linear variant.
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
#pragma mpiad differentiate wrt(x) output(yv, yr) replicated(k) name(barrier_g_b) semantics(global) varying(x)
void barrier_g(const double *x, double *yv, double *yr, int k, MPI_Comm comm) {
  double a[2], s[2];
  for (int i = 0; i < 2; i++)
    a[i] = x[i] * x[i] + 0.5 * x[i];
  MPI_Barrier(comm);
  MPI_Allreduce(a, s, 2, MPI_DOUBLE, MPI_SUM, comm);
  MPI_Barrier(comm);
  for (int i = 0; i < 2; i++) {
    yr[i] = s[i] * s[i];
    yv[i] = s[i] * x[i];
  }
  MPI_Barrier(comm);
}

#pragma mpiad differentiate wrt(x) output(yv, yr) replicated(k) name(barrier_pr_b) semantics(per_rank)
void barrier_pr(const double *x, double *yv, double *yr, int k, MPI_Comm comm) {
  double a[2], s[2];
  for (int i = 0; i < 2; i++)
    a[i] = x[i] * x[i] + 0.5 * x[i];
  MPI_Barrier(comm);
  MPI_Allreduce(a, s, 2, MPI_DOUBLE, MPI_SUM, comm);
  MPI_Barrier(comm);
  for (int i = 0; i < 2; i++) {
    yr[i] = s[i] * s[i];
    yv[i] = s[i] * x[i];
  }
  MPI_Barrier(comm);
}

#pragma mpiad differentiate wrt(x) output(yv, yr) replicated(k) name(barrier_f_b) varying(x)
void barrier_f(const float *x, float *yv, float *yr, int k, MPI_Comm comm) {
  float a[2], s[2];
  for (int i = 0; i < 2; i++)
    a[i] = x[i] * x[i] + 0.5 * x[i];
  MPI_Barrier(comm);
  MPI_Allreduce(a, s, 2, MPI_FLOAT, MPI_SUM, comm);
  MPI_Barrier(comm);
  for (int i = 0; i < 2; i++) {
    yr[i] = s[i] * s[i];
    yv[i] = s[i] * x[i];
  }
  MPI_Barrier(comm);
}

#pragma mpiad differentiate wrt(x) output(yv, yr) replicated(k) name(barrier_lin_g_b) semantics(global) varying(x)
void barrier_lin_g(const double *x, double *yv, double *yr, int k, MPI_Comm comm) {
  double a[2], s[2];
  for (int i = 0; i < 2; i++)
    a[i] = 2.0 * x[i] - x[(i + 1) % 2];
  MPI_Barrier(comm);
  MPI_Allreduce(a, s, 2, MPI_DOUBLE, MPI_SUM, comm);
  MPI_Barrier(comm);
  for (int i = 0; i < 2; i++) {
    yr[i] = 3.0 * s[i];
    yv[i] = s[i] - x[i];
  }
  MPI_Barrier(comm);
}

#pragma mpiad differentiate wrt(x) output(yv, yr) replicated(k) name(barrier_lin_pr_b) semantics(per_rank)
void barrier_lin_pr(const double *x, double *yv, double *yr, int k, MPI_Comm comm) {
  double a[2], s[2];
  for (int i = 0; i < 2; i++)
    a[i] = 2.0 * x[i] - x[(i + 1) % 2];
  MPI_Barrier(comm);
  MPI_Allreduce(a, s, 2, MPI_DOUBLE, MPI_SUM, comm);
  MPI_Barrier(comm);
  for (int i = 0; i < 2; i++) {
    yr[i] = 3.0 * s[i];
    yv[i] = s[i] - x[i];
  }
  MPI_Barrier(comm);
}

static int g_k, g_nx, g_ny, g_nyr;

static void P_barrier_g(const double *x, const double *th, double *y) {
  (void)th;
  barrier_g(x, y, y + g_ny, g_k, MPI_COMM_WORLD);
}
static void B_barrier_g(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  barrier_g_b(x, xb, y, yb, y + g_ny, yb + g_ny, g_k, MPI_COMM_WORLD);
}
static void P_barrier_pr(const double *x, const double *th, double *y) {
  (void)th;
  barrier_pr(x, y, y + g_ny, g_k, MPI_COMM_WORLD);
}
static void B_barrier_pr(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  barrier_pr_b(x, xb, y, yb, y + g_ny, yb + g_ny, g_k, MPI_COMM_WORLD);
}
static void P_barrier_f(const double *x, const double *th, double *y) {
  float xf[64], yf[64];
  (void)th;
  hx_tof(xf, x, g_nx);
  barrier_f(xf, yf, yf + g_ny, g_k, MPI_COMM_WORLD);
  hx_tod(y, yf, g_ny + g_nyr);
}
static void B_barrier_f(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  float xf[64], xbf[64] = {0}, yf[64], ybf[64];
  (void)th;
  (void)thb;
  hx_tof(xf, x, g_nx);
  hx_tof(ybf, yb, g_ny + g_nyr);
  barrier_f_b(xf, xbf, yf, ybf, yf + g_ny, ybf + g_ny, g_k, MPI_COMM_WORLD);
  hx_addd(xb, xbf, g_nx);
  hx_tod(y, yf, g_ny + g_nyr);
  hx_tod(yb, ybf, g_ny + g_nyr);
}
static void P_barrier_lin_g(const double *x, const double *th, double *y) {
  (void)th;
  barrier_lin_g(x, y, y + g_ny, g_k, MPI_COMM_WORLD);
}
static void B_barrier_lin_g(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  barrier_lin_g_b(x, xb, y, yb, y + g_ny, yb + g_ny, g_k, MPI_COMM_WORLD);
}
static void P_barrier_lin_pr(const double *x, const double *th, double *y) {
  (void)th;
  barrier_lin_pr(x, y, y + g_ny, g_k, MPI_COMM_WORLD);
}
static void B_barrier_lin_pr(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  barrier_lin_pr_b(x, xb, y, yb, y + g_ny, yb + g_ny, g_k, MPI_COMM_WORLD);
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
  g_nyr = 2;
  {
    snprintf(name, sizeof name, "barrier global k=%d", g_k);
    hx_case c = {name, P_barrier_g, B_barrier_g, g_nx, 0, g_ny, g_nyr, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "barrier per_rank k=%d", g_k);
    hx_case c = {name, P_barrier_pr, B_barrier_pr, g_nx, 0, g_ny + g_nyr, 0, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "barrier float global k=%d", g_k);
    hx_case cf = {name, P_barrier_f, B_barrier_f, g_nx, 0, g_ny, g_nyr, 0};
    hx_case cd = {name, P_barrier_g, B_barrier_g, g_nx, 0, g_ny, g_nyr, 0};
    hx_case_twin(&cf, &cd, seed += 10, 1e-4);
  }
  g_k = 0;
  g_nx = 2;
  g_ny = 2;
  g_nyr = 2;
  {
    snprintf(name, sizeof name, "barrier_lin global k=%d", g_k);
    hx_case c = {name, P_barrier_lin_g, B_barrier_lin_g, g_nx, 0, g_ny, g_nyr, 1};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "barrier_lin per_rank k=%d", g_k);
    hx_case c = {name, P_barrier_lin_pr, B_barrier_lin_pr, g_nx, 0, g_ny + g_nyr, 0, 1};
    hx_case_run(&c, seed += 10);
  }
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
