// memcpy, memmove and memset on float or double data become element loops
// (Frontend.cpp, lowerMemCall), so derivatives flow through them: a copy of
// the input into a malloc'd work array (N * sizeof(double)), memset of a
// fixed array (sizeof w), a copy into its middle (&w[1], sizeof(double) * 2),
// a memmove from a pointer offset (u + 1), and a copy of a halo received
// from the left neighbour; float data (checked in the generated code only:
// central differences in float are too coarse for this test's tolerance). Reverse mode against central differences
// and forward mode against reverse, at 1-4 ranks.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
// RUN: %mpiad-emit %s -I%S/../Inputs -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck --check-prefix=GEN %s
// GEN: double F_b(
// GEN: for (int mpiad_m1 = 0; mpiad_m1 < n; mpiad_m1++) {
// GEN-NEXT: u[mpiad_m1] = x[mpiad_m1];
// GEN: for (int mpiad_m2 = 0; mpiad_m2 < 6; mpiad_m2++) {
// GEN-NEXT: w[mpiad_m2] = 0.0;
// GEN: float Hf_b(const float *a, float *a_b, double Hf_bar) {
// GEN: g[mpiad_m{{[0-9]+}}] = a[mpiad_m{{[0-9]+}}];
// GEN: a_b[mpiad_m{{[0-9]+}}] += g_b[mpiad_m{{[0-9]+}}];
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#pragma mpiad differentiate wrt(x) varying(x) replicated(n)
#pragma mpiad differentiate forward wrt(x)
double F(const double *x, int n, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  double *u = malloc(n * sizeof(double));
  double w[6], halo[2], v[4];
  memcpy(u, x, n * sizeof(double));
  memset(w, 0, sizeof w);
  for (int i = 0; i < n; i++)
    u[i] = u[i] * u[i] + sin(u[i]);
  memcpy(&w[1], u, sizeof(double) * 2);
  memmove(v, u + 1, 3 * sizeof(double));
  MPI_Sendrecv(&u[n - 2], 2, MPI_DOUBLE, (r + 1) % P, 0, halo, 2, MPI_DOUBLE, (r + P - 1) % P, 0,
               comm, MPI_STATUS_IGNORE);
  memcpy(&w[4], halo, 2 * sizeof(double));
  double l = 0.0, s;
  for (int i = 0; i < 6; i++)
    l += w[i] * w[i] * (1.0 + 0.5 * i);
  for (int i = 0; i < 3; i++)
    l += v[i] * v[(i + 1) % 3];
  MPI_Allreduce(&l, &s, 1, MPI_DOUBLE, MPI_SUM, comm);
  free(u);
  return s;
}

#pragma mpiad differentiate wrt(a) varying(a)
float Hf(const float *a) {
  float g[3];
  memcpy(g, a, sizeof g);
  return g[0] * g[1] + g[2];
}

#define N 5
static double J(void *p) { return F(p, N, MPI_COMM_WORLD); }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  double x[N], dx[N], xb[N] = {0}, xd[N];
  hx_rand(x, N, 151, hx_rank_g, -1.0, 1.0);
  hx_rand(dx, N, 152, hx_rank_g, -1.0, 1.0);
  double v = F_b(x, xb, N, MPI_COMM_WORLD, 1.0);
  hx_tape("F_b");
  hx_check("value", v, J(x), 1e-14, 1e-300);
  mpiad_input in = {x, dx, N, 0};
  double *xbp[1] = {xb};
  hx_grad("F", J, x, &in, 1, xbp, 1e-6, 1e-6, 1e-10);
  double dot;
  memcpy(xd, dx, sizeof xd);
  F_d(x, xd, N, MPI_COMM_WORLD, &dot);
  hx_check("F_d vs F_b", dot, mpiad_adjoint_directional(&in, xbp, 1, MPI_COMM_WORLD), 1e-10,
           1e-300);
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
