// MPI_Allgather with MPI_IN_PLACE written the way real codes write it: send
// count 0 and send type MPI_DATATYPE_NULL (both ignored by MPI for MPI_IN_PLACE).
// The gathered buffer is used by replicated and by rank-varying code.  Both
// semantics, central differences, the dot-product test of the linear variant.
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
#pragma mpiad differentiate wrt(x) output(yv, yr) replicated(k) name(allgather_inplace_dtnull_g_b) semantics(global) varying(x)
void allgather_inplace_dtnull_g(const double *x, double *yv, double *yr, int k, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  double a[2], g[2 * MAXP];
  for (int j = 0; j < 2 * MAXP; j++)
    g[j] = 0.0;
  for (int i = 0; i < 2; i++)
    g[r * 2 + i] = x[i] * x[i] + 0.5 * x[i];
  MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, g, 2, MPI_DOUBLE, comm);
  double t = 0.0;
  for (int j = 0; j < 2 * P; j++)
    t += g[j] * g[j] * (j + 1);
  yr[0] = t; /* replicated code */
  for (int i = 0; i < 2; i++)
    yv[i] = g[((r + 1) % P) * 2 + i] * x[i]; /* rank-varying code */
}

#pragma mpiad differentiate wrt(x) output(yv, yr) replicated(k) name(allgather_inplace_dtnull_pr_b) semantics(per_rank)
void allgather_inplace_dtnull_pr(const double *x, double *yv, double *yr, int k, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  double a[2], g[2 * MAXP];
  for (int j = 0; j < 2 * MAXP; j++)
    g[j] = 0.0;
  for (int i = 0; i < 2; i++)
    g[r * 2 + i] = x[i] * x[i] + 0.5 * x[i];
  MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, g, 2, MPI_DOUBLE, comm);
  double t = 0.0;
  for (int j = 0; j < 2 * P; j++)
    t += g[j] * g[j] * (j + 1);
  yr[0] = t; /* replicated code */
  for (int i = 0; i < 2; i++)
    yv[i] = g[((r + 1) % P) * 2 + i] * x[i]; /* rank-varying code */
}

#pragma mpiad differentiate wrt(x) output(yv, yr) replicated(k) name(allgather_inplace_dtnull_lin_g_b) semantics(global) varying(x)
void allgather_inplace_dtnull_lin_g(const double *x, double *yv, double *yr, int k, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  double a[2], g[2 * MAXP];
  for (int j = 0; j < 2 * MAXP; j++)
    g[j] = 0.0;
  for (int i = 0; i < 2; i++)
    g[r * 2 + i] = 2.0 * x[i] - x[(i + 1) % 2];
  MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, g, 2, MPI_DOUBLE, comm);
  double t = 0.0;
  for (int j = 0; j < 2 * P; j++)
    t += g[j] * (j + 1);
  yr[0] = t; /* replicated code */
  for (int i = 0; i < 2; i++)
    yv[i] = g[((r + 1) % P) * 2 + i] * (r + 1) - x[i]; /* rank-varying code */
}

#pragma mpiad differentiate wrt(x) output(yv, yr) replicated(k) name(allgather_inplace_dtnull_lin_pr_b) semantics(per_rank)
void allgather_inplace_dtnull_lin_pr(const double *x, double *yv, double *yr, int k, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  double a[2], g[2 * MAXP];
  for (int j = 0; j < 2 * MAXP; j++)
    g[j] = 0.0;
  for (int i = 0; i < 2; i++)
    g[r * 2 + i] = 2.0 * x[i] - x[(i + 1) % 2];
  MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, g, 2, MPI_DOUBLE, comm);
  double t = 0.0;
  for (int j = 0; j < 2 * P; j++)
    t += g[j] * (j + 1);
  yr[0] = t; /* replicated code */
  for (int i = 0; i < 2; i++)
    yv[i] = g[((r + 1) % P) * 2 + i] * (r + 1) - x[i]; /* rank-varying code */
}

static int g_k, g_nx, g_ny, g_nyr;

static void P_allgather_inplace_dtnull_g(const double *x, const double *th, double *y) {
  (void)th;
  allgather_inplace_dtnull_g(x, y, y + g_ny, g_k, MPI_COMM_WORLD);
}
static void B_allgather_inplace_dtnull_g(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  allgather_inplace_dtnull_g_b(x, xb, y, yb, y + g_ny, yb + g_ny, g_k, MPI_COMM_WORLD);
}
static void P_allgather_inplace_dtnull_pr(const double *x, const double *th, double *y) {
  (void)th;
  allgather_inplace_dtnull_pr(x, y, y + g_ny, g_k, MPI_COMM_WORLD);
}
static void B_allgather_inplace_dtnull_pr(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  allgather_inplace_dtnull_pr_b(x, xb, y, yb, y + g_ny, yb + g_ny, g_k, MPI_COMM_WORLD);
}
static void P_allgather_inplace_dtnull_lin_g(const double *x, const double *th, double *y) {
  (void)th;
  allgather_inplace_dtnull_lin_g(x, y, y + g_ny, g_k, MPI_COMM_WORLD);
}
static void B_allgather_inplace_dtnull_lin_g(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  allgather_inplace_dtnull_lin_g_b(x, xb, y, yb, y + g_ny, yb + g_ny, g_k, MPI_COMM_WORLD);
}
static void P_allgather_inplace_dtnull_lin_pr(const double *x, const double *th, double *y) {
  (void)th;
  allgather_inplace_dtnull_lin_pr(x, y, y + g_ny, g_k, MPI_COMM_WORLD);
}
static void B_allgather_inplace_dtnull_lin_pr(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  allgather_inplace_dtnull_lin_pr_b(x, xb, y, yb, y + g_ny, yb + g_ny, g_k, MPI_COMM_WORLD);
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
    snprintf(name, sizeof name, "allgather_inplace_dtnull global k=%d", g_k);
    hx_case c = {name, P_allgather_inplace_dtnull_g, B_allgather_inplace_dtnull_g, g_nx, 0, g_ny, g_nyr, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "allgather_inplace_dtnull per_rank k=%d", g_k);
    hx_case c = {name, P_allgather_inplace_dtnull_pr, B_allgather_inplace_dtnull_pr, g_nx, 0, g_ny + g_nyr, 0, 0};
    hx_case_run(&c, seed += 10);
  }
  g_k = 0;
  g_nx = 2;
  g_ny = 2;
  g_nyr = 1;
  {
    snprintf(name, sizeof name, "allgather_inplace_dtnull_lin global k=%d", g_k);
    hx_case c = {name, P_allgather_inplace_dtnull_lin_g, B_allgather_inplace_dtnull_lin_g, g_nx, 0, g_ny, g_nyr, 1};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "allgather_inplace_dtnull_lin per_rank k=%d", g_k);
    hx_case c = {name, P_allgather_inplace_dtnull_lin_pr, B_allgather_inplace_dtnull_lin_pr, g_nx, 0, g_ny + g_nyr, 0, 1};
    hx_case_run(&c, seed += 10);
  }
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
