// A user's own communication wrapper with a rule of their own, loaded with
// --rules (no rebuild of the tool): halo_sum (Inputs/halo.c) adds the left
// neighbour's first value into the last element on a ring (MPI_Sendrecv); its
// hand-written adjoint halo_sum_adjoint is named in Inputs/halo.rules.  Both
// semantics, central differences of the global objective, dot-product test of
// the linear variant.
// RUN: %mpiad-cc %s %S/../Inputs/halo.c --rules %S/../Inputs/halo.rules -I%S/../Inputs -lm -o %t
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
#include "halo.h"

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(halo_g_b) semantics(global) varying(x)
void halo_g(const double *x, double *yv, int k, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double u[3];
  for (int i = 0; i < 3; i++)
    u[i] = x[i] * x[i] + 0.5 * x[i];
  halo_sum(u, 3, comm); /* the user's wrapper: rule in Inputs/halo.rules */
  for (int i = 0; i < 3; i++)
    yv[i] = u[i] * u[i] * x[i] + sin(u[i]);
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(halo_pr_b) semantics(per_rank)
void halo_pr(const double *x, double *yv, int k, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double u[3];
  for (int i = 0; i < 3; i++)
    u[i] = x[i] * x[i] + 0.5 * x[i];
  halo_sum(u, 3, comm); /* the user's wrapper: rule in Inputs/halo.rules */
  for (int i = 0; i < 3; i++)
    yv[i] = u[i] * u[i] * x[i] + sin(u[i]);
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(halo_lin_g_b) semantics(global) varying(x)
void halo_lin_g(const double *x, double *yv, int k, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double u[3];
  for (int i = 0; i < 3; i++)
    u[i] = 2.0 * x[i] - x[(i + 1) % 3];
  halo_sum(u, 3, comm); /* the user's wrapper: rule in Inputs/halo.rules */
  for (int i = 0; i < 3; i++)
    yv[i] = u[i] * (r + 1) - x[i];
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(halo_lin_pr_b) semantics(per_rank)
void halo_lin_pr(const double *x, double *yv, int k, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double u[3];
  for (int i = 0; i < 3; i++)
    u[i] = 2.0 * x[i] - x[(i + 1) % 3];
  halo_sum(u, 3, comm); /* the user's wrapper: rule in Inputs/halo.rules */
  for (int i = 0; i < 3; i++)
    yv[i] = u[i] * (r + 1) - x[i];
}

static int g_k, g_nx, g_ny, g_nyr;

static void P_halo_g(const double *x, const double *th, double *y) {
  (void)th;
  halo_g(x, y, g_k, MPI_COMM_WORLD);
}
static void B_halo_g(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  halo_g_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
}
static void P_halo_pr(const double *x, const double *th, double *y) {
  (void)th;
  halo_pr(x, y, g_k, MPI_COMM_WORLD);
}
static void B_halo_pr(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  halo_pr_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
}
static void P_halo_lin_g(const double *x, const double *th, double *y) {
  (void)th;
  halo_lin_g(x, y, g_k, MPI_COMM_WORLD);
}
static void B_halo_lin_g(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  halo_lin_g_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
}
static void P_halo_lin_pr(const double *x, const double *th, double *y) {
  (void)th;
  halo_lin_pr(x, y, g_k, MPI_COMM_WORLD);
}
static void B_halo_lin_pr(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  halo_lin_pr_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
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
    snprintf(name, sizeof name, "halo global k=%d", g_k);
    hx_case c = {name, P_halo_g, B_halo_g, g_nx, 0, g_ny, g_nyr, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "halo per_rank k=%d", g_k);
    hx_case c = {name, P_halo_pr, B_halo_pr, g_nx, 0, g_ny + g_nyr, 0, 0};
    hx_case_run(&c, seed += 10);
  }
  g_k = 0;
  g_nx = 3;
  g_ny = 3;
  g_nyr = 0;
  {
    snprintf(name, sizeof name, "halo_lin global k=%d", g_k);
    hx_case c = {name, P_halo_lin_g, B_halo_lin_g, g_nx, 0, g_ny, g_nyr, 1};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "halo_lin per_rank k=%d", g_k);
    hx_case c = {name, P_halo_lin_pr, B_halo_lin_pr, g_nx, 0, g_ny + g_nyr, 0, 1};
    hx_case_run(&c, seed += 10);
  }
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
