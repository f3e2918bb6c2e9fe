// MPI_Scan and MPI_Exscan with MPI_SUM (rank 0's Exscan output is undefined
// in MPI and is not used).  Outputs vary.  Both semantics, central differences
// of the global objective, dot-product tests of the linear variants, float
// against double.
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
#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(scan_g_b) semantics(global) varying(x)
void scan_g(const double *x, double *yv, int k, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double a[3], s[3];
  for (int i = 0; i < 3; i++) {
    a[i] = x[i] * x[i] + 0.5 * x[i];
    s[i] = 0.0;
  }
  MPI_Scan(a, s, 3, MPI_DOUBLE, MPI_SUM, comm);
  for (int i = 0; i < 3; i++)
    yv[i] = s[i] * s[i] * x[i] + s[i];
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(scan_pr_b) semantics(per_rank)
void scan_pr(const double *x, double *yv, int k, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double a[3], s[3];
  for (int i = 0; i < 3; i++) {
    a[i] = x[i] * x[i] + 0.5 * x[i];
    s[i] = 0.0;
  }
  MPI_Scan(a, s, 3, MPI_DOUBLE, MPI_SUM, comm);
  for (int i = 0; i < 3; i++)
    yv[i] = s[i] * s[i] * x[i] + s[i];
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(scan_f_b) varying(x)
void scan_f(const float *x, float *yv, int k, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  float a[3], s[3];
  for (int i = 0; i < 3; i++) {
    a[i] = x[i] * x[i] + 0.5 * x[i];
    s[i] = 0.0;
  }
  MPI_Scan(a, s, 3, MPI_FLOAT, MPI_SUM, comm);
  for (int i = 0; i < 3; i++)
    yv[i] = s[i] * s[i] * x[i] + s[i];
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(scan_lin_g_b) semantics(global) varying(x)
void scan_lin_g(const double *x, double *yv, int k, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double a[3], s[3];
  for (int i = 0; i < 3; i++) {
    a[i] = 2.0 * x[i] - x[(i + 1) % 3];
    s[i] = 0.0;
  }
  MPI_Scan(a, s, 3, MPI_DOUBLE, MPI_SUM, comm);
  for (int i = 0; i < 3; i++)
    yv[i] = s[i] * (r + 1) - x[i];
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(scan_lin_pr_b) semantics(per_rank)
void scan_lin_pr(const double *x, double *yv, int k, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double a[3], s[3];
  for (int i = 0; i < 3; i++) {
    a[i] = 2.0 * x[i] - x[(i + 1) % 3];
    s[i] = 0.0;
  }
  MPI_Scan(a, s, 3, MPI_DOUBLE, MPI_SUM, comm);
  for (int i = 0; i < 3; i++)
    yv[i] = s[i] * (r + 1) - x[i];
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(exscan_g_b) semantics(global) varying(x)
void exscan_g(const double *x, double *yv, int k, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double a[3], s[3];
  for (int i = 0; i < 3; i++) {
    a[i] = x[i] * x[i] + 0.5 * x[i];
    s[i] = 0.0;
  }
  MPI_Exscan(a, s, 3, MPI_DOUBLE, MPI_SUM, comm);
  for (int i = 0; i < 3; i++)
    yv[i] = 0.5 * x[i];
  if (r > 0) /* rank 0's output of MPI_Exscan is undefined */
    for (int i = 0; i < 3; i++)
      yv[i] += s[i] * s[i] * x[i] + s[i];
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(exscan_pr_b) semantics(per_rank)
void exscan_pr(const double *x, double *yv, int k, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double a[3], s[3];
  for (int i = 0; i < 3; i++) {
    a[i] = x[i] * x[i] + 0.5 * x[i];
    s[i] = 0.0;
  }
  MPI_Exscan(a, s, 3, MPI_DOUBLE, MPI_SUM, comm);
  for (int i = 0; i < 3; i++)
    yv[i] = 0.5 * x[i];
  if (r > 0) /* rank 0's output of MPI_Exscan is undefined */
    for (int i = 0; i < 3; i++)
      yv[i] += s[i] * s[i] * x[i] + s[i];
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(exscan_f_b) varying(x)
void exscan_f(const float *x, float *yv, int k, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  float a[3], s[3];
  for (int i = 0; i < 3; i++) {
    a[i] = x[i] * x[i] + 0.5 * x[i];
    s[i] = 0.0;
  }
  MPI_Exscan(a, s, 3, MPI_FLOAT, MPI_SUM, comm);
  for (int i = 0; i < 3; i++)
    yv[i] = 0.5 * x[i];
  if (r > 0) /* rank 0's output of MPI_Exscan is undefined */
    for (int i = 0; i < 3; i++)
      yv[i] += s[i] * s[i] * x[i] + s[i];
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(exscan_lin_g_b) semantics(global) varying(x)
void exscan_lin_g(const double *x, double *yv, int k, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double a[3], s[3];
  for (int i = 0; i < 3; i++) {
    a[i] = 2.0 * x[i] - x[(i + 1) % 3];
    s[i] = 0.0;
  }
  MPI_Exscan(a, s, 3, MPI_DOUBLE, MPI_SUM, comm);
  for (int i = 0; i < 3; i++)
    yv[i] = 0.5 * x[i];
  if (r > 0) /* rank 0's output of MPI_Exscan is undefined */
    for (int i = 0; i < 3; i++)
      yv[i] += s[i] * (r + 1) - x[i];
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(exscan_lin_pr_b) semantics(per_rank)
void exscan_lin_pr(const double *x, double *yv, int k, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double a[3], s[3];
  for (int i = 0; i < 3; i++) {
    a[i] = 2.0 * x[i] - x[(i + 1) % 3];
    s[i] = 0.0;
  }
  MPI_Exscan(a, s, 3, MPI_DOUBLE, MPI_SUM, comm);
  for (int i = 0; i < 3; i++)
    yv[i] = 0.5 * x[i];
  if (r > 0) /* rank 0's output of MPI_Exscan is undefined */
    for (int i = 0; i < 3; i++)
      yv[i] += s[i] * (r + 1) - x[i];
}

static int g_k, g_nx, g_ny, g_nyr;

static void P_scan_g(const double *x, const double *th, double *y) {
  (void)th;
  scan_g(x, y, g_k, MPI_COMM_WORLD);
}
static void B_scan_g(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  scan_g_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
}
static void P_scan_pr(const double *x, const double *th, double *y) {
  (void)th;
  scan_pr(x, y, g_k, MPI_COMM_WORLD);
}
static void B_scan_pr(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  scan_pr_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
}
static void P_scan_f(const double *x, const double *th, double *y) {
  float xf[64], yf[64];
  (void)th;
  hx_tof(xf, x, g_nx);
  scan_f(xf, yf, g_k, MPI_COMM_WORLD);
  hx_tod(y, yf, g_ny + g_nyr);
}
static void B_scan_f(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  float xf[64], xbf[64] = {0}, yf[64], ybf[64];
  (void)th;
  (void)thb;
  hx_tof(xf, x, g_nx);
  hx_tof(ybf, yb, g_ny + g_nyr);
  scan_f_b(xf, xbf, yf, ybf, g_k, MPI_COMM_WORLD);
  hx_addd(xb, xbf, g_nx);
  hx_tod(y, yf, g_ny + g_nyr);
  hx_tod(yb, ybf, g_ny + g_nyr);
}
static void P_scan_lin_g(const double *x, const double *th, double *y) {
  (void)th;
  scan_lin_g(x, y, g_k, MPI_COMM_WORLD);
}
static void B_scan_lin_g(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  scan_lin_g_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
}
static void P_scan_lin_pr(const double *x, const double *th, double *y) {
  (void)th;
  scan_lin_pr(x, y, g_k, MPI_COMM_WORLD);
}
static void B_scan_lin_pr(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  scan_lin_pr_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
}
static void P_exscan_g(const double *x, const double *th, double *y) {
  (void)th;
  exscan_g(x, y, g_k, MPI_COMM_WORLD);
}
static void B_exscan_g(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  exscan_g_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
}
static void P_exscan_pr(const double *x, const double *th, double *y) {
  (void)th;
  exscan_pr(x, y, g_k, MPI_COMM_WORLD);
}
static void B_exscan_pr(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  exscan_pr_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
}
static void P_exscan_f(const double *x, const double *th, double *y) {
  float xf[64], yf[64];
  (void)th;
  hx_tof(xf, x, g_nx);
  exscan_f(xf, yf, g_k, MPI_COMM_WORLD);
  hx_tod(y, yf, g_ny + g_nyr);
}
static void B_exscan_f(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  float xf[64], xbf[64] = {0}, yf[64], ybf[64];
  (void)th;
  (void)thb;
  hx_tof(xf, x, g_nx);
  hx_tof(ybf, yb, g_ny + g_nyr);
  exscan_f_b(xf, xbf, yf, ybf, g_k, MPI_COMM_WORLD);
  hx_addd(xb, xbf, g_nx);
  hx_tod(y, yf, g_ny + g_nyr);
  hx_tod(yb, ybf, g_ny + g_nyr);
}
static void P_exscan_lin_g(const double *x, const double *th, double *y) {
  (void)th;
  exscan_lin_g(x, y, g_k, MPI_COMM_WORLD);
}
static void B_exscan_lin_g(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  exscan_lin_g_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
}
static void P_exscan_lin_pr(const double *x, const double *th, double *y) {
  (void)th;
  exscan_lin_pr(x, y, g_k, MPI_COMM_WORLD);
}
static void B_exscan_lin_pr(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  exscan_lin_pr_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
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
    snprintf(name, sizeof name, "scan global k=%d", g_k);
    hx_case c = {name, P_scan_g, B_scan_g, g_nx, 0, g_ny, g_nyr, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "scan per_rank k=%d", g_k);
    hx_case c = {name, P_scan_pr, B_scan_pr, g_nx, 0, g_ny + g_nyr, 0, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "scan float global k=%d", g_k);
    hx_case cf = {name, P_scan_f, B_scan_f, g_nx, 0, g_ny, g_nyr, 0};
    hx_case cd = {name, P_scan_g, B_scan_g, g_nx, 0, g_ny, g_nyr, 0};
    hx_case_twin(&cf, &cd, seed += 10, 1e-4);
  }
  g_k = 0;
  g_nx = 3;
  g_ny = 3;
  g_nyr = 0;
  {
    snprintf(name, sizeof name, "scan_lin global k=%d", g_k);
    hx_case c = {name, P_scan_lin_g, B_scan_lin_g, g_nx, 0, g_ny, g_nyr, 1};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "scan_lin per_rank k=%d", g_k);
    hx_case c = {name, P_scan_lin_pr, B_scan_lin_pr, g_nx, 0, g_ny + g_nyr, 0, 1};
    hx_case_run(&c, seed += 10);
  }
  g_k = 0;
  g_nx = 3;
  g_ny = 3;
  g_nyr = 0;
  {
    snprintf(name, sizeof name, "exscan global k=%d", g_k);
    hx_case c = {name, P_exscan_g, B_exscan_g, g_nx, 0, g_ny, g_nyr, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "exscan per_rank k=%d", g_k);
    hx_case c = {name, P_exscan_pr, B_exscan_pr, g_nx, 0, g_ny + g_nyr, 0, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "exscan float global k=%d", g_k);
    hx_case cf = {name, P_exscan_f, B_exscan_f, g_nx, 0, g_ny, g_nyr, 0};
    hx_case cd = {name, P_exscan_g, B_exscan_g, g_nx, 0, g_ny, g_nyr, 0};
    hx_case_twin(&cf, &cd, seed += 10, 1e-4);
  }
  g_k = 0;
  g_nx = 3;
  g_ny = 3;
  g_nyr = 0;
  {
    snprintf(name, sizeof name, "exscan_lin global k=%d", g_k);
    hx_case c = {name, P_exscan_lin_g, B_exscan_lin_g, g_nx, 0, g_ny, g_nyr, 1};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "exscan_lin per_rank k=%d", g_k);
    hx_case c = {name, P_exscan_lin_pr, B_exscan_lin_pr, g_nx, 0, g_ny + g_nyr, 0, 1};
    hx_case_run(&c, seed += 10);
  }
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
