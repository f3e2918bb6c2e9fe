// F_b leaves an output it restores with its final values when the output's
// length can be inferred; found by the random computation tester
// (test/random/gen_compute.py): indices `n - 1 - i`, a decreasing loop and
// `c ? a : b` made the tool warn that y keeps its old values.  The gradient is
// checked against central differences, y after y_b against the primal's y.
// RUN: %mpiad-emit %s -I%S/../Inputs -o %t.c 2>&1 | FileCheck %s --check-prefix=EMIT --allow-empty
// EMIT-NOT: warning
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

#define N 5

#pragma mpiad differentiate wrt(x) output(y) varying(x)
void f(const double *x, double *y, int n) {
  for (int k = 0; k < n; k++)
    y[k] = x[k] * 2.0;
  double t = y[(n > 2 ? 2 : n - 1)];  /* c ? a : b */
  for (int i = n - 1; i >= 0; i--)    /* counting down */
    y[i] = y[i] * y[i] * 0.5 + t;
  for (int i = 0; i < n; i++)         /* n - 1 - i */
    y[n - 1 - i] = sin(y[n - 1 - i]) * y[i];
}

static double seed[N];
typedef struct { double *x; } ctx_t;
static double J(void *p) {
  double y[N], loc = 0.0, tot = 0.0;
  f(((ctx_t *)p)->x, y, N);
  for (int i = 0; i < N; i++)
    loc += seed[i] * y[i];
  MPI_Allreduce(&loc, &tot, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return tot;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  double x[N], dx[N], xb[N] = {0}, y0[N], y[N], yb[N];
  hx_rand(x, N, 1, hx_rank_g, 0.2, 0.8);
  hx_rand(dx, N, 2, hx_rank_g, -1.0, 1.0);
  hx_rand(seed, N, 3, hx_rank_g, -1.0, 1.0);
  f(x, y0, N);
  memcpy(yb, seed, sizeof seed);
  f_b(x, xb, y, yb, N);
  hx_tape("f_b");
  hx_check_vec("y after f_b is the primal's y", y, y0, N, 0.0, 1e-300);
  ctx_t c = {x};
  mpiad_input in = {x, dx, N, 0};
  double *xbs[1] = {xb};
  hx_grad("gradient", J, &c, &in, 1, xbs, 1e-6, 1e-6, 1e-8);
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
