// MPI_Bcast from root k = 0 and k = P-1: the buffer is computed at the root
// (under a rank-varying branch) from its active input, broadcast, then used by
// replicated code (output yr, counted once under global semantics) and by
// rank-varying code (output yv): mix = both, rep = replicated use only, var =
// varying use only, lin = a linear mix (dot-product test).  Both semantics,
// central differences of the global objective, float against double.
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
#pragma mpiad differentiate wrt(x) output(yv, yr) replicated(k) name(bcast_mix_g_b) semantics(global) varying(x)
void bcast_mix_g(const double *x, double *yv, double *yr, int k, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double b[3];
  for (int i = 0; i < 3; i++)
    b[i] = 0.0;
  if (r == k)
    for (int i = 0; i < 3; i++)
      b[i] = x[i] * x[i] + 0.5 * x[i];
  MPI_Bcast(b, 3, MPI_DOUBLE, k, comm);
  for (int i = 0; i < 3; i++) {
    yr[i] = b[i] * b[i] + sin(b[i]); /* replicated code */
    yv[i] = b[i] * x[i]; /* rank-varying code */
  }
}

#pragma mpiad differentiate wrt(x) output(yv, yr) replicated(k) name(bcast_mix_pr_b) semantics(per_rank)
void bcast_mix_pr(const double *x, double *yv, double *yr, int k, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double b[3];
  for (int i = 0; i < 3; i++)
    b[i] = 0.0;
  if (r == k)
    for (int i = 0; i < 3; i++)
      b[i] = x[i] * x[i] + 0.5 * x[i];
  MPI_Bcast(b, 3, MPI_DOUBLE, k, comm);
  for (int i = 0; i < 3; i++) {
    yr[i] = b[i] * b[i] + sin(b[i]); /* replicated code */
    yv[i] = b[i] * x[i]; /* rank-varying code */
  }
}

#pragma mpiad differentiate wrt(x) output(yv, yr) replicated(k) name(bcast_mix_f_b) varying(x)
void bcast_mix_f(const float *x, float *yv, float *yr, int k, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  float b[3];
  for (int i = 0; i < 3; i++)
    b[i] = 0.0;
  if (r == k)
    for (int i = 0; i < 3; i++)
      b[i] = x[i] * x[i] + 0.5 * x[i];
  MPI_Bcast(b, 3, MPI_FLOAT, k, comm);
  for (int i = 0; i < 3; i++) {
    yr[i] = b[i] * b[i] + sin(b[i]); /* replicated code */
    yv[i] = b[i] * x[i]; /* rank-varying code */
  }
}

#pragma mpiad differentiate wrt(x) output(yv, yr) replicated(k) name(bcast_rep_g_b) semantics(global) varying(x)
void bcast_rep_g(const double *x, double *yv, double *yr, int k, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double b[3];
  for (int i = 0; i < 3; i++)
    b[i] = 0.0;
  if (r == k)
    for (int i = 0; i < 3; i++)
      b[i] = x[i] * x[i] + 0.5 * x[i];
  MPI_Bcast(b, 3, MPI_DOUBLE, k, comm);
  for (int i = 0; i < 3; i++) {
    yr[i] = b[i] * b[i] + sin(b[i]); /* replicated code */
    yv[i] = x[i] * x[i]; /* rank-varying code */
  }
}

#pragma mpiad differentiate wrt(x) output(yv, yr) replicated(k) name(bcast_rep_pr_b) semantics(per_rank)
void bcast_rep_pr(const double *x, double *yv, double *yr, int k, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double b[3];
  for (int i = 0; i < 3; i++)
    b[i] = 0.0;
  if (r == k)
    for (int i = 0; i < 3; i++)
      b[i] = x[i] * x[i] + 0.5 * x[i];
  MPI_Bcast(b, 3, MPI_DOUBLE, k, comm);
  for (int i = 0; i < 3; i++) {
    yr[i] = b[i] * b[i] + sin(b[i]); /* replicated code */
    yv[i] = x[i] * x[i]; /* rank-varying code */
  }
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(bcast_var_g_b) semantics(global) varying(x)
void bcast_var_g(const double *x, double *yv, int k, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double b[3];
  for (int i = 0; i < 3; i++)
    b[i] = 0.0;
  if (r == k)
    for (int i = 0; i < 3; i++)
      b[i] = x[i] * x[i] + 0.5 * x[i];
  MPI_Bcast(b, 3, MPI_DOUBLE, k, comm);
  for (int i = 0; i < 3; i++) {
    yv[i] = b[i] * x[i]; /* rank-varying code */
  }
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(bcast_var_pr_b) semantics(per_rank)
void bcast_var_pr(const double *x, double *yv, int k, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double b[3];
  for (int i = 0; i < 3; i++)
    b[i] = 0.0;
  if (r == k)
    for (int i = 0; i < 3; i++)
      b[i] = x[i] * x[i] + 0.5 * x[i];
  MPI_Bcast(b, 3, MPI_DOUBLE, k, comm);
  for (int i = 0; i < 3; i++) {
    yv[i] = b[i] * x[i]; /* rank-varying code */
  }
}

#pragma mpiad differentiate wrt(x) output(yv, yr) replicated(k) name(bcast_lin_g_b) semantics(global) varying(x)
void bcast_lin_g(const double *x, double *yv, double *yr, int k, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double b[3];
  for (int i = 0; i < 3; i++)
    b[i] = 0.0;
  if (r == k)
    for (int i = 0; i < 3; i++)
      b[i] = 2.0 * x[i] - x[(i + 1) % 3];
  MPI_Bcast(b, 3, MPI_DOUBLE, k, comm);
  for (int i = 0; i < 3; i++) {
    yr[i] = 3.0 * b[i]; /* replicated code */
    yv[i] = b[i] * (r + 1) - x[i]; /* rank-varying code */
  }
}

#pragma mpiad differentiate wrt(x) output(yv, yr) replicated(k) name(bcast_lin_pr_b) semantics(per_rank)
void bcast_lin_pr(const double *x, double *yv, double *yr, int k, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double b[3];
  for (int i = 0; i < 3; i++)
    b[i] = 0.0;
  if (r == k)
    for (int i = 0; i < 3; i++)
      b[i] = 2.0 * x[i] - x[(i + 1) % 3];
  MPI_Bcast(b, 3, MPI_DOUBLE, k, comm);
  for (int i = 0; i < 3; i++) {
    yr[i] = 3.0 * b[i]; /* replicated code */
    yv[i] = b[i] * (r + 1) - x[i]; /* rank-varying code */
  }
}

static int g_k, g_nx, g_ny, g_nyr;

static void P_bcast_mix_g(const double *x, const double *th, double *y) {
  (void)th;
  bcast_mix_g(x, y, y + g_ny, g_k, MPI_COMM_WORLD);
}
static void B_bcast_mix_g(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  bcast_mix_g_b(x, xb, y, yb, y + g_ny, yb + g_ny, g_k, MPI_COMM_WORLD);
}
static void P_bcast_mix_pr(const double *x, const double *th, double *y) {
  (void)th;
  bcast_mix_pr(x, y, y + g_ny, g_k, MPI_COMM_WORLD);
}
static void B_bcast_mix_pr(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  bcast_mix_pr_b(x, xb, y, yb, y + g_ny, yb + g_ny, g_k, MPI_COMM_WORLD);
}
static void P_bcast_mix_f(const double *x, const double *th, double *y) {
  float xf[64], yf[64];
  (void)th;
  hx_tof(xf, x, g_nx);
  bcast_mix_f(xf, yf, yf + g_ny, g_k, MPI_COMM_WORLD);
  hx_tod(y, yf, g_ny + g_nyr);
}
static void B_bcast_mix_f(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  float xf[64], xbf[64] = {0}, yf[64], ybf[64];
  (void)th;
  (void)thb;
  hx_tof(xf, x, g_nx);
  hx_tof(ybf, yb, g_ny + g_nyr);
  bcast_mix_f_b(xf, xbf, yf, ybf, yf + g_ny, ybf + g_ny, g_k, MPI_COMM_WORLD);
  hx_addd(xb, xbf, g_nx);
  hx_tod(y, yf, g_ny + g_nyr);
  hx_tod(yb, ybf, g_ny + g_nyr);
}
static void P_bcast_rep_g(const double *x, const double *th, double *y) {
  (void)th;
  bcast_rep_g(x, y, y + g_ny, g_k, MPI_COMM_WORLD);
}
static void B_bcast_rep_g(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  bcast_rep_g_b(x, xb, y, yb, y + g_ny, yb + g_ny, g_k, MPI_COMM_WORLD);
}
static void P_bcast_rep_pr(const double *x, const double *th, double *y) {
  (void)th;
  bcast_rep_pr(x, y, y + g_ny, g_k, MPI_COMM_WORLD);
}
static void B_bcast_rep_pr(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  bcast_rep_pr_b(x, xb, y, yb, y + g_ny, yb + g_ny, g_k, MPI_COMM_WORLD);
}
static void P_bcast_var_g(const double *x, const double *th, double *y) {
  (void)th;
  bcast_var_g(x, y, g_k, MPI_COMM_WORLD);
}
static void B_bcast_var_g(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  bcast_var_g_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
}
static void P_bcast_var_pr(const double *x, const double *th, double *y) {
  (void)th;
  bcast_var_pr(x, y, g_k, MPI_COMM_WORLD);
}
static void B_bcast_var_pr(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  bcast_var_pr_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
}
static void P_bcast_lin_g(const double *x, const double *th, double *y) {
  (void)th;
  bcast_lin_g(x, y, y + g_ny, g_k, MPI_COMM_WORLD);
}
static void B_bcast_lin_g(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  bcast_lin_g_b(x, xb, y, yb, y + g_ny, yb + g_ny, g_k, MPI_COMM_WORLD);
}
static void P_bcast_lin_pr(const double *x, const double *th, double *y) {
  (void)th;
  bcast_lin_pr(x, y, y + g_ny, g_k, MPI_COMM_WORLD);
}
static void B_bcast_lin_pr(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  bcast_lin_pr_b(x, xb, y, yb, y + g_ny, yb + g_ny, g_k, MPI_COMM_WORLD);
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
  g_nyr = 3;
  {
    snprintf(name, sizeof name, "bcast_mix global k=%d", g_k);
    hx_case c = {name, P_bcast_mix_g, B_bcast_mix_g, g_nx, 0, g_ny, g_nyr, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "bcast_mix per_rank k=%d", g_k);
    hx_case c = {name, P_bcast_mix_pr, B_bcast_mix_pr, g_nx, 0, g_ny + g_nyr, 0, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "bcast_mix float global k=%d", g_k);
    hx_case cf = {name, P_bcast_mix_f, B_bcast_mix_f, g_nx, 0, g_ny, g_nyr, 0};
    hx_case cd = {name, P_bcast_mix_g, B_bcast_mix_g, g_nx, 0, g_ny, g_nyr, 0};
    hx_case_twin(&cf, &cd, seed += 10, 1e-4);
  }
  g_k = P - 1;
  g_nx = 3;
  g_ny = 3;
  g_nyr = 3;
  {
    snprintf(name, sizeof name, "bcast_mix global k=%d", g_k);
    hx_case c = {name, P_bcast_mix_g, B_bcast_mix_g, g_nx, 0, g_ny, g_nyr, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "bcast_mix per_rank k=%d", g_k);
    hx_case c = {name, P_bcast_mix_pr, B_bcast_mix_pr, g_nx, 0, g_ny + g_nyr, 0, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "bcast_mix float global k=%d", g_k);
    hx_case cf = {name, P_bcast_mix_f, B_bcast_mix_f, g_nx, 0, g_ny, g_nyr, 0};
    hx_case cd = {name, P_bcast_mix_g, B_bcast_mix_g, g_nx, 0, g_ny, g_nyr, 0};
    hx_case_twin(&cf, &cd, seed += 10, 1e-4);
  }
  g_k = 0;
  g_nx = 3;
  g_ny = 3;
  g_nyr = 3;
  {
    snprintf(name, sizeof name, "bcast_rep global k=%d", g_k);
    hx_case c = {name, P_bcast_rep_g, B_bcast_rep_g, g_nx, 0, g_ny, g_nyr, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "bcast_rep per_rank k=%d", g_k);
    hx_case c = {name, P_bcast_rep_pr, B_bcast_rep_pr, g_nx, 0, g_ny + g_nyr, 0, 0};
    hx_case_run(&c, seed += 10);
  }
  g_k = P - 1;
  g_nx = 3;
  g_ny = 3;
  g_nyr = 3;
  {
    snprintf(name, sizeof name, "bcast_rep global k=%d", g_k);
    hx_case c = {name, P_bcast_rep_g, B_bcast_rep_g, g_nx, 0, g_ny, g_nyr, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "bcast_rep per_rank k=%d", g_k);
    hx_case c = {name, P_bcast_rep_pr, B_bcast_rep_pr, g_nx, 0, g_ny + g_nyr, 0, 0};
    hx_case_run(&c, seed += 10);
  }
  g_k = 0;
  g_nx = 3;
  g_ny = 3;
  g_nyr = 0;
  {
    snprintf(name, sizeof name, "bcast_var global k=%d", g_k);
    hx_case c = {name, P_bcast_var_g, B_bcast_var_g, g_nx, 0, g_ny, g_nyr, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "bcast_var per_rank k=%d", g_k);
    hx_case c = {name, P_bcast_var_pr, B_bcast_var_pr, g_nx, 0, g_ny + g_nyr, 0, 0};
    hx_case_run(&c, seed += 10);
  }
  g_k = P - 1;
  g_nx = 3;
  g_ny = 3;
  g_nyr = 0;
  {
    snprintf(name, sizeof name, "bcast_var global k=%d", g_k);
    hx_case c = {name, P_bcast_var_g, B_bcast_var_g, g_nx, 0, g_ny, g_nyr, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "bcast_var per_rank k=%d", g_k);
    hx_case c = {name, P_bcast_var_pr, B_bcast_var_pr, g_nx, 0, g_ny + g_nyr, 0, 0};
    hx_case_run(&c, seed += 10);
  }
  g_k = 0;
  g_nx = 3;
  g_ny = 3;
  g_nyr = 3;
  {
    snprintf(name, sizeof name, "bcast_lin global k=%d", g_k);
    hx_case c = {name, P_bcast_lin_g, B_bcast_lin_g, g_nx, 0, g_ny, g_nyr, 1};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "bcast_lin per_rank k=%d", g_k);
    hx_case c = {name, P_bcast_lin_pr, B_bcast_lin_pr, g_nx, 0, g_ny + g_nyr, 0, 1};
    hx_case_run(&c, seed += 10);
  }
  g_k = P - 1;
  g_nx = 3;
  g_ny = 3;
  g_nyr = 3;
  {
    snprintf(name, sizeof name, "bcast_lin global k=%d", g_k);
    hx_case c = {name, P_bcast_lin_g, B_bcast_lin_g, g_nx, 0, g_ny, g_nyr, 1};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "bcast_lin per_rank k=%d", g_k);
    hx_case c = {name, P_bcast_lin_pr, B_bcast_lin_pr, g_nx, 0, g_ny + g_nyr, 0, 1};
    hx_case_run(&c, seed += 10);
  }
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
