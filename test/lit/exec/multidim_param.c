// Multi-dimensional array parameters: `double u[][NY]` and `double (*v)[NY]`
// (a pointer to rows, not a pointer to pointers) as wrt and output
// parameters, with a 5-point stencil over the rows and an Allreduce; their
// shadows have the same type (double (*u_b)[NY]). Reverse mode against
// central differences and forward mode against reverse, at 1-4 ranks.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
// RUN: %mpiad-emit %s -I%S/../Inputs -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck --check-prefix=GEN %s
// GEN: double smooth_b(double (*u)[4], double (*u_b)[4], double (*v)[4], double (*v_b)[4], int nx, MPI_Comm comm, double smooth_bar) {
// GEN: double smooth_d(double (*u)[4], double (*u_d)[4], double (*v)[4], double (*v_d)[4], int nx, MPI_Comm comm, double *smooth_dot) {
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

#define NY 4

/* v gets one smoothing step of u (interior points); returns the global sum
   of v^2 + sin(u) */
#pragma mpiad differentiate wrt(u) output(return, v) varying(u) replicated(nx)
#pragma mpiad differentiate forward wrt(u) output(return, v)
double smooth(double u[][NY], double (*v)[NY], int nx, MPI_Comm comm) {
  double l = 0.0, s;
  for (int i = 0; i < nx; i++)
    for (int j = 0; j < NY; j++) {
      double c = u[i][j];
      if (i > 0 && i < nx - 1 && j > 0 && j < NY - 1)
        c += 0.1 * (u[i - 1][j] + u[i + 1][j] + u[i][j - 1] + u[i][j + 1] - 4.0 * u[i][j]);
      v[i][j] = c * c;
      l += v[i][j] + sin(u[i][j]);
    }
  MPI_Allreduce(&l, &s, 1, MPI_DOUBLE, MPI_SUM, comm);
  return s;
}

#define NX 3
static double vbuf[NX][NY];
static double J(void *p) { return smooth((double(*)[NY])p, vbuf, NX, MPI_COMM_WORLD); }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  double u[NX][NY], du[NX][NY], ub[NX][NY], vb[NX][NY], ud[NX][NY], vd[NX][NY];
  hx_rand(&u[0][0], NX * NY, 111, hx_rank_g, -1.0, 1.0);
  hx_rand(&du[0][0], NX * NY, 112, hx_rank_g, -1.0, 1.0);
  memset(ub, 0, sizeof ub);
  memset(vb, 0, sizeof vb); /* v's seed: only the return value counts */
  double v = smooth_b(u, ub, vbuf, vb, NX, MPI_COMM_WORLD, 1.0);
  hx_tape("smooth_b");
  hx_check("value", v, J(u), 1e-14, 1e-300);
  mpiad_input in = {&u[0][0], &du[0][0], NX * NY, 0};
  double *xb[1] = {&ub[0][0]};
  hx_grad("smooth", J, u, &in, 1, xb, 1e-6, 1e-7, 1e-10);
  double dot;
  memcpy(ud, du, sizeof ud);
  smooth_d(u, ud, vbuf, vd, NX, MPI_COMM_WORLD, &dot);
  hx_check("smooth_d vs smooth_b", dot, mpiad_adjoint_directional(&in, xb, 1, MPI_COMM_WORLD),
           1e-12, 1e-300);
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
