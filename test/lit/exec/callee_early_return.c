// A helper that communicates and returns early (tool/lib/Inline.cpp): it is
// normalized (its returns become flags), then inlined, so its Allreduce is
// reversed in the caller's context.  The early return depends on a value
// equal on all ranks (n), so every rank takes the same path; a second
// helper returns early on a varying value before any communication.
// Checked against central differences at 1-4 ranks, and the tape.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
// RUN: %mpiad-emit %s -I%S/../Inputs -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck --check-prefix=GEN %s
// GEN: /* inlined: gmean(x, n, comm) */
// GEN: if (n_2 == 0) {
// GEN: mpiad_returned{{[0-9]*}} = 1;
// GEN: if (!mpiad_returned{{[0-9]*}}) {
// GEN: MPI_Allreduce(&l, &g, 1, MPI_DOUBLE, MPI_SUM, comm_2);
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"

/* the global mean of squares; 0 for no data */
static double gmean(const double *x, int n, MPI_Comm comm) {
  if (n == 0)
    return 0.0;
  double l = 0.0, g = 0.0;
  for (int i = 0; i < n; i++)
    l += x[i] * x[i];
  MPI_Allreduce(&l, &g, 1, MPI_DOUBLE, MPI_SUM, comm);
  int P;
  MPI_Comm_size(comm, &P);
  return g / (n * P);
}
/* a clipped value: returns early on a rank-varying test, no communication */
static double clip(double v) {
  if (v > 1.5)
    return 1.5 + 0.1 * (v - 1.5);
  return v;
}

#pragma mpiad differentiate wrt(x) varying(x) replicated(n)
double F(const double *x, int n, MPI_Comm comm) {
  double m = gmean(x, n, comm);
  double c = clip(x[0] * 3.0);
  return m * m + c * m;
}

#define N 5
typedef struct {
  double *x;
} ctx_t;
static double J(void *p) {
  ctx_t *c = p;
  /* the objective: the return value is varying (c), summed over ranks */
  double v = F(c->x, N, MPI_COMM_WORLD), t = 0.0;
  MPI_Allreduce(&v, &t, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return t;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  double x[N], dx[N], x_b[N] = {0};
  hx_rand(x, N, 41, hx_rank_g, 0.1, 0.9);
  hx_rand(dx, N, 42, hx_rank_g, -1.0, 1.0);
  double want = F(x, N, MPI_COMM_WORLD);
  double got = F_b(x, x_b, N, MPI_COMM_WORLD, 1.0);
  hx_tape("F_b");
  hx_check_each("value", got, want, 1e-14, 1e-300);
  ctx_t c = {x};
  mpiad_input in[1] = {{x, dx, N, 0}};
  double *xb[1] = {x_b};
  hx_grad("dF/dx", J, &c, in, 1, xb, 1e-6, 1e-7, 1e-10);
  /* n == 0: every rank returns early from gmean */
  double x0_b[N] = {0};
  double z = F_b(x, x0_b, 0, MPI_COMM_WORLD, 1.0);
  hx_check_each("n = 0: value", z, F(x, 0, MPI_COMM_WORLD), 1e-14, 1e-300);
  hx_tape("F_b with n = 0");
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
