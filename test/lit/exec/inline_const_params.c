// Helpers whose parameters are const at the top level (`const double v`,
// `const int k`, `double *const q`), inlined into the differentiated
// function because they communicate: each parameter becomes a local of the
// generated function, declared at its top and assigned at the call, so its
// const must go (the reduced program of csmith seed 10479, whose generated
// code did not compile: "cannot assign to variable 'p_3' with
// const-qualified type").  Reverse against central differences, forward
// against reverse, 1-4 ranks.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
// RUN: %mpiad-emit %s -I%S/../Inputs -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck --check-prefix=GEN %s
// GEN-LABEL: double f_b(
// GEN: double *q_2 = NULL;
// GEN-NEXT: int n = 0;
// GEN: double v = 0;
// GEN-NEXT: int k = 0;
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

#define N 4

static double gsum(const double v, const int k, MPI_Comm comm) {
  double t = 0.0, w = v * (1.0 + 0.5 * k);
  MPI_Allreduce(&w, &t, 1, MPI_DOUBLE, MPI_SUM, comm);
  return t;
}

static void scale_sum(double *const q, const int n, MPI_Comm comm) {
  for (int i = 0; i < n; i++)
    q[i] = q[i] * q[i];
  MPI_Allreduce(MPI_IN_PLACE, q, n, MPI_DOUBLE, MPI_SUM, comm);
}

#pragma mpiad differentiate wrt(x) varying(x)
#pragma mpiad differentiate forward wrt(x) varying(x)
double f(const double *x, MPI_Comm comm) {
  double q[N];
  for (int i = 0; i < N; i++)
    q[i] = sin(x[i]);
  scale_sum(q, N, comm);
  double s = 0.0;
  for (int i = 0; i < N; i++)
    s += gsum(q[i] * x[i], i, comm);
  return s;
}

static double J(void *ctx) { return f(ctx, MPI_COMM_WORLD); }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  double x[N], dx[N], xb[N], xd[N];
  hx_rand(x, N, 31, hx_rank_g, -1.0, 1.0);
  hx_rand(dx, N, 32, hx_rank_g, -1.0, 1.0);
  memset(xb, 0, sizeof xb);
  double v = f_b(x, xb, MPI_COMM_WORLD, 1.0);
  hx_tape("f_b");
  hx_check("f_b value", v, J(x), 1e-14, 1e-300);
  mpiad_input in = {x, dx, N, 0};
  double *xbp[1] = {xb};
  hx_grad("f_b", J, x, &in, 1, xbp, 1e-6, 1e-7, 1e-10);
  memcpy(xd, dx, sizeof xd);
  double dot = 0.0;
  f_d(x, xd, MPI_COMM_WORLD, &dot);
  hx_dot_test("f_d vs f_b", dot, &in, 1, xbp, 1e-12);
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
