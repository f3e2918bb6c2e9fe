// MPI_Alltoall (2 values per pair) and MPI_Alltoallv with unequal, asymmetric
// counts (rank r sends (r + 2q) % 3 + 1 values to q) and gaps in the receive
// layout.  Outputs vary.  Both semantics, central differences of the global
// objective, dot-product tests of the linear variants, float against double.
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
#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(a2a_g_b) semantics(global) varying(x)
void a2a_g(const double *x, double *yv, int k, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  double s[2 * MAXP], v[2 * MAXP];
  for (int j = 0; j < 2 * MAXP; j++) {
    s[j] = x[j] * x[j] + 0.5 * x[j];
    v[j] = 0.0;
  }
  MPI_Alltoall(s, 2, MPI_DOUBLE, v, 2, MPI_DOUBLE, comm);
  for (int j = 0; j < 2 * MAXP; j++)
    yv[j] = v[j] * v[j] * x[j] + (j + 1) * v[j];
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(a2a_pr_b) semantics(per_rank)
void a2a_pr(const double *x, double *yv, int k, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  double s[2 * MAXP], v[2 * MAXP];
  for (int j = 0; j < 2 * MAXP; j++) {
    s[j] = x[j] * x[j] + 0.5 * x[j];
    v[j] = 0.0;
  }
  MPI_Alltoall(s, 2, MPI_DOUBLE, v, 2, MPI_DOUBLE, comm);
  for (int j = 0; j < 2 * MAXP; j++)
    yv[j] = v[j] * v[j] * x[j] + (j + 1) * v[j];
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(a2a_f_b) varying(x)
void a2a_f(const float *x, float *yv, int k, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  float s[2 * MAXP], v[2 * MAXP];
  for (int j = 0; j < 2 * MAXP; j++) {
    s[j] = x[j] * x[j] + 0.5 * x[j];
    v[j] = 0.0;
  }
  MPI_Alltoall(s, 2, MPI_FLOAT, v, 2, MPI_FLOAT, comm);
  for (int j = 0; j < 2 * MAXP; j++)
    yv[j] = v[j] * v[j] * x[j] + (j + 1) * v[j];
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(a2a_lin_g_b) semantics(global) varying(x)
void a2a_lin_g(const double *x, double *yv, int k, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  double s[2 * MAXP], v[2 * MAXP];
  for (int j = 0; j < 2 * MAXP; j++) {
    s[j] = 2.0 * x[j] - x[(j + 1) % (2 * MAXP)];
    v[j] = 0.0;
  }
  MPI_Alltoall(s, 2, MPI_DOUBLE, v, 2, MPI_DOUBLE, comm);
  for (int j = 0; j < 2 * MAXP; j++)
    yv[j] = v[j] * (r + 1) - x[j];
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(a2a_lin_pr_b) semantics(per_rank)
void a2a_lin_pr(const double *x, double *yv, int k, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  double s[2 * MAXP], v[2 * MAXP];
  for (int j = 0; j < 2 * MAXP; j++) {
    s[j] = 2.0 * x[j] - x[(j + 1) % (2 * MAXP)];
    v[j] = 0.0;
  }
  MPI_Alltoall(s, 2, MPI_DOUBLE, v, 2, MPI_DOUBLE, comm);
  for (int j = 0; j < 2 * MAXP; j++)
    yv[j] = v[j] * (r + 1) - x[j];
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(a2av_g_b) semantics(global) varying(x)
void a2av_g(const double *x, double *yv, int k, MPI_Comm comm) {
  int r, P, sc[MAXP], sd[MAXP], rc[MAXP], rd[MAXP];
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  int so = 0, ro = 0;
  for (int q = 0; q < P; q++) {
    sc[q] = (r + 2 * q) % 3 + 1; /* what r sends to q */
    rc[q] = (q + 2 * r) % 3 + 1; /* what q sends to r */
    sd[q] = so;
    rd[q] = ro + 1;             /* a gap before each received block */
    so += sc[q];
    ro += rc[q] + 1;
  }
  double s[16], v[16];
  for (int j = 0; j < 16; j++) {
    s[j] = x[j] * x[j] + 0.5 * x[j];
    v[j] = 0.0;
  }
  MPI_Alltoallv(s, sc, sd, MPI_DOUBLE, v, rc, rd, MPI_DOUBLE, comm);
  for (int j = 0; j < 16; j++)
    yv[j] = v[j] * v[j] * x[j] + (j + 1) * v[j];
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(a2av_pr_b) semantics(per_rank)
void a2av_pr(const double *x, double *yv, int k, MPI_Comm comm) {
  int r, P, sc[MAXP], sd[MAXP], rc[MAXP], rd[MAXP];
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  int so = 0, ro = 0;
  for (int q = 0; q < P; q++) {
    sc[q] = (r + 2 * q) % 3 + 1; /* what r sends to q */
    rc[q] = (q + 2 * r) % 3 + 1; /* what q sends to r */
    sd[q] = so;
    rd[q] = ro + 1;             /* a gap before each received block */
    so += sc[q];
    ro += rc[q] + 1;
  }
  double s[16], v[16];
  for (int j = 0; j < 16; j++) {
    s[j] = x[j] * x[j] + 0.5 * x[j];
    v[j] = 0.0;
  }
  MPI_Alltoallv(s, sc, sd, MPI_DOUBLE, v, rc, rd, MPI_DOUBLE, comm);
  for (int j = 0; j < 16; j++)
    yv[j] = v[j] * v[j] * x[j] + (j + 1) * v[j];
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(a2av_f_b) varying(x)
void a2av_f(const float *x, float *yv, int k, MPI_Comm comm) {
  int r, P, sc[MAXP], sd[MAXP], rc[MAXP], rd[MAXP];
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  int so = 0, ro = 0;
  for (int q = 0; q < P; q++) {
    sc[q] = (r + 2 * q) % 3 + 1; /* what r sends to q */
    rc[q] = (q + 2 * r) % 3 + 1; /* what q sends to r */
    sd[q] = so;
    rd[q] = ro + 1;             /* a gap before each received block */
    so += sc[q];
    ro += rc[q] + 1;
  }
  float s[16], v[16];
  for (int j = 0; j < 16; j++) {
    s[j] = x[j] * x[j] + 0.5 * x[j];
    v[j] = 0.0;
  }
  MPI_Alltoallv(s, sc, sd, MPI_FLOAT, v, rc, rd, MPI_FLOAT, comm);
  for (int j = 0; j < 16; j++)
    yv[j] = v[j] * v[j] * x[j] + (j + 1) * v[j];
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(a2av_lin_g_b) semantics(global) varying(x)
void a2av_lin_g(const double *x, double *yv, int k, MPI_Comm comm) {
  int r, P, sc[MAXP], sd[MAXP], rc[MAXP], rd[MAXP];
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  int so = 0, ro = 0;
  for (int q = 0; q < P; q++) {
    sc[q] = (r + 2 * q) % 3 + 1; /* what r sends to q */
    rc[q] = (q + 2 * r) % 3 + 1; /* what q sends to r */
    sd[q] = so;
    rd[q] = ro + 1;             /* a gap before each received block */
    so += sc[q];
    ro += rc[q] + 1;
  }
  double s[16], v[16];
  for (int j = 0; j < 16; j++) {
    s[j] = 2.0 * x[j] - x[(j + 1) % 16];
    v[j] = 0.0;
  }
  MPI_Alltoallv(s, sc, sd, MPI_DOUBLE, v, rc, rd, MPI_DOUBLE, comm);
  for (int j = 0; j < 16; j++)
    yv[j] = v[j] * (r + 1) - x[j];
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(a2av_lin_pr_b) semantics(per_rank)
void a2av_lin_pr(const double *x, double *yv, int k, MPI_Comm comm) {
  int r, P, sc[MAXP], sd[MAXP], rc[MAXP], rd[MAXP];
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  int so = 0, ro = 0;
  for (int q = 0; q < P; q++) {
    sc[q] = (r + 2 * q) % 3 + 1; /* what r sends to q */
    rc[q] = (q + 2 * r) % 3 + 1; /* what q sends to r */
    sd[q] = so;
    rd[q] = ro + 1;             /* a gap before each received block */
    so += sc[q];
    ro += rc[q] + 1;
  }
  double s[16], v[16];
  for (int j = 0; j < 16; j++) {
    s[j] = 2.0 * x[j] - x[(j + 1) % 16];
    v[j] = 0.0;
  }
  MPI_Alltoallv(s, sc, sd, MPI_DOUBLE, v, rc, rd, MPI_DOUBLE, comm);
  for (int j = 0; j < 16; j++)
    yv[j] = v[j] * (r + 1) - x[j];
}

static int g_k, g_nx, g_ny, g_nyr;

static void P_a2a_g(const double *x, const double *th, double *y) {
  (void)th;
  a2a_g(x, y, g_k, MPI_COMM_WORLD);
}
static void B_a2a_g(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  a2a_g_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
}
static void P_a2a_pr(const double *x, const double *th, double *y) {
  (void)th;
  a2a_pr(x, y, g_k, MPI_COMM_WORLD);
}
static void B_a2a_pr(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  a2a_pr_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
}
static void P_a2a_f(const double *x, const double *th, double *y) {
  float xf[64], yf[64];
  (void)th;
  hx_tof(xf, x, g_nx);
  a2a_f(xf, yf, g_k, MPI_COMM_WORLD);
  hx_tod(y, yf, g_ny + g_nyr);
}
static void B_a2a_f(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  float xf[64], xbf[64] = {0}, yf[64], ybf[64];
  (void)th;
  (void)thb;
  hx_tof(xf, x, g_nx);
  hx_tof(ybf, yb, g_ny + g_nyr);
  a2a_f_b(xf, xbf, yf, ybf, g_k, MPI_COMM_WORLD);
  hx_addd(xb, xbf, g_nx);
  hx_tod(y, yf, g_ny + g_nyr);
  hx_tod(yb, ybf, g_ny + g_nyr);
}
static void P_a2a_lin_g(const double *x, const double *th, double *y) {
  (void)th;
  a2a_lin_g(x, y, g_k, MPI_COMM_WORLD);
}
static void B_a2a_lin_g(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  a2a_lin_g_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
}
static void P_a2a_lin_pr(const double *x, const double *th, double *y) {
  (void)th;
  a2a_lin_pr(x, y, g_k, MPI_COMM_WORLD);
}
static void B_a2a_lin_pr(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  a2a_lin_pr_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
}
static void P_a2av_g(const double *x, const double *th, double *y) {
  (void)th;
  a2av_g(x, y, g_k, MPI_COMM_WORLD);
}
static void B_a2av_g(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  a2av_g_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
}
static void P_a2av_pr(const double *x, const double *th, double *y) {
  (void)th;
  a2av_pr(x, y, g_k, MPI_COMM_WORLD);
}
static void B_a2av_pr(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  a2av_pr_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
}
static void P_a2av_f(const double *x, const double *th, double *y) {
  float xf[64], yf[64];
  (void)th;
  hx_tof(xf, x, g_nx);
  a2av_f(xf, yf, g_k, MPI_COMM_WORLD);
  hx_tod(y, yf, g_ny + g_nyr);
}
static void B_a2av_f(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  float xf[64], xbf[64] = {0}, yf[64], ybf[64];
  (void)th;
  (void)thb;
  hx_tof(xf, x, g_nx);
  hx_tof(ybf, yb, g_ny + g_nyr);
  a2av_f_b(xf, xbf, yf, ybf, g_k, MPI_COMM_WORLD);
  hx_addd(xb, xbf, g_nx);
  hx_tod(y, yf, g_ny + g_nyr);
  hx_tod(yb, ybf, g_ny + g_nyr);
}
static void P_a2av_lin_g(const double *x, const double *th, double *y) {
  (void)th;
  a2av_lin_g(x, y, g_k, MPI_COMM_WORLD);
}
static void B_a2av_lin_g(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  a2av_lin_g_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
}
static void P_a2av_lin_pr(const double *x, const double *th, double *y) {
  (void)th;
  a2av_lin_pr(x, y, g_k, MPI_COMM_WORLD);
}
static void B_a2av_lin_pr(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  a2av_lin_pr_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
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
  g_ny = 2 * MAXP;
  g_nyr = 0;
  {
    snprintf(name, sizeof name, "a2a global k=%d", g_k);
    hx_case c = {name, P_a2a_g, B_a2a_g, g_nx, 0, g_ny, g_nyr, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "a2a per_rank k=%d", g_k);
    hx_case c = {name, P_a2a_pr, B_a2a_pr, g_nx, 0, g_ny + g_nyr, 0, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "a2a float global k=%d", g_k);
    hx_case cf = {name, P_a2a_f, B_a2a_f, g_nx, 0, g_ny, g_nyr, 0};
    hx_case cd = {name, P_a2a_g, B_a2a_g, g_nx, 0, g_ny, g_nyr, 0};
    hx_case_twin(&cf, &cd, seed += 10, 1e-4);
  }
  g_k = 0;
  g_nx = 2 * MAXP;
  g_ny = 2 * MAXP;
  g_nyr = 0;
  {
    snprintf(name, sizeof name, "a2a_lin global k=%d", g_k);
    hx_case c = {name, P_a2a_lin_g, B_a2a_lin_g, g_nx, 0, g_ny, g_nyr, 1};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "a2a_lin per_rank k=%d", g_k);
    hx_case c = {name, P_a2a_lin_pr, B_a2a_lin_pr, g_nx, 0, g_ny + g_nyr, 0, 1};
    hx_case_run(&c, seed += 10);
  }
  g_k = 0;
  g_nx = 16;
  g_ny = 16;
  g_nyr = 0;
  {
    snprintf(name, sizeof name, "a2av global k=%d", g_k);
    hx_case c = {name, P_a2av_g, B_a2av_g, g_nx, 0, g_ny, g_nyr, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "a2av per_rank k=%d", g_k);
    hx_case c = {name, P_a2av_pr, B_a2av_pr, g_nx, 0, g_ny + g_nyr, 0, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "a2av float global k=%d", g_k);
    hx_case cf = {name, P_a2av_f, B_a2av_f, g_nx, 0, g_ny, g_nyr, 0};
    hx_case cd = {name, P_a2av_g, B_a2av_g, g_nx, 0, g_ny, g_nyr, 0};
    hx_case_twin(&cf, &cd, seed += 10, 1e-4);
  }
  g_k = 0;
  g_nx = 16;
  g_ny = 16;
  g_nyr = 0;
  {
    snprintf(name, sizeof name, "a2av_lin global k=%d", g_k);
    hx_case c = {name, P_a2av_lin_g, B_a2av_lin_g, g_nx, 0, g_ny, g_nyr, 1};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "a2av_lin per_rank k=%d", g_k);
    hx_case c = {name, P_a2av_lin_pr, B_a2av_lin_pr, g_nx, 0, g_ny + g_nyr, 0, 1};
    hx_case_run(&c, seed += 10);
  }
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
