// Allocation wrappers: same-file helpers that return the result of malloc or
// calloc.  The buffer they return gets a shadow allocated like for malloc.
//   mem_allocate(n)         return malloc(n * sizeof(float));
//   mem_allocate2(vect, n)  vect = malloc(...); return vect;   (t = f(t, n))
//   zalloc(n)               return (double *)calloc(n, sizeof(double));
// s = sum_i 3 x_i^3 through the buffers: ds/dx = 9 x^2.  Inputs are the same
// on every rank (replicated, no communication), so every rank's adjoint is the
// full gradient.  Checked against the gradients worked out by hand and, for
// the double version, against central differences and in forward mode.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpiad-cc -O1 %s -I%S/../Inputs -lm -o %t.O1
// RUN: %mpirun 2 %t.O1 | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"

#define N 5

static float *mem_allocate(int n) { return malloc(n * sizeof(float)); }

static float *mem_allocate2(float *vect, int n) {
  vect = malloc(n * sizeof(float));
  return vect;
}

static double *zalloc(int n) { return (double *)calloc(n, sizeof(double)); }

#pragma mpiad differentiate wrt(x) replicated(x, n)
float fa(const float *x, int n) {
  float *t = mem_allocate(n);
  float *u = NULL;
  u = mem_allocate2(u, n);
  for (int i = 0; i < n; i++) {
    t[i] = x[i] * x[i];
    u[i] = 3.0f * t[i];
  }
  float s = 0.0f;
  for (int i = 0; i < n; i++)
    s += u[i] * x[i];
  free(t);
  free(u);
  return s;
}

#pragma mpiad differentiate forward wrt(x) replicated(x, n) name(da_d)
#pragma mpiad differentiate reverse wrt(x) replicated(x, n)
double da(const double *x, int n) {
  double *t = zalloc(n);
  for (int i = 0; i < n; i++)
    t[i] += 3.0 * x[i] * x[i];
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += t[i] * x[i];
  free(t);
  return s;
}

static double J(void *p) { return da(p, N); }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  double x[N], dx[N], x_b[N], want[N];
  hx_rand(x, N, 401, HX_REP, -1.0, 1.0);
  hx_rand(dx, N, 402, HX_REP, -1.0, 1.0);
  for (int i = 0; i < N; i++)
    want[i] = 9.0 * x[i] * x[i];

  float xf[N], xf_b[N];
  double got[N];
  for (int i = 0; i < N; i++) {
    xf[i] = (float)x[i];
    xf_b[i] = 0.0f;
  }
  fa_b(xf, xf_b, N, 1.0f);
  hx_tape("fa_b");
  for (int i = 0; i < N; i++)
    got[i] = xf_b[i];
  hx_check_vec("fa x_b (float)", got, want, N, 1e-5, 1e-300);

  hx_zero(x_b, N);
  da_b(x, x_b, N, 1.0);
  hx_tape("da_b");
  hx_check_vec("da x_b", x_b, want, N, 1e-14, 1e-300);
  mpiad_input in = {x, dx, N, 1};
  double *xb[1] = {x_b};
  hx_grad("da", J, x, &in, 1, xb, 1e-6, 1e-7, 1e-10);
  double tan = 0.0, want_tan = 0.0;
  for (int i = 0; i < N; i++)
    want_tan += want[i] * dx[i];
  da_d(x, dx, N, &tan);
  hx_check_each("da tangent", tan, want_tan, 1e-14, 1e-300);

  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
