// if/else (nested, without else, assigning different variables) and ternaries
// whose branches depend on the data, with a vector output seeded by a random
// y_b: central differences; and a function linear in x whose branches depend on
// an inactive mask: the exact dot-product test.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
#include <math.h>
#include <mpi.h>
#include <stdio.h>

#include "harness.h"

#define N 24

#pragma mpiad differentiate wrt(x) output(y) varying(x)
void branchy(const double *x, double *y, int n) {
  double a = 0.0, b = 1.0;
  for (int i = 0; i < n; i++) {
    double v = x[i];
    if (v > 0.3) {
      a = a + v * v;
      if (v > 0.7)
        b = b * v;
      else
        b = b + sin(v);
    } else if (v < -0.4) {
      b = b * (1.0 - v);
    } else {
      a = a - exp(v) * b;
    }
    if (a > 1.0)
      a = sqrt(a);
    double t = (v * a > 0.0) ? v * b : a * a;
    y[i] = t + (b > 2.0 ? log(b) : b * v);
  }
}

/* linear in x: the branches depend on the inactive mask only */
#pragma mpiad differentiate wrt(x) output(y) varying(x)
void masked(const double *x, const int *mask, double *y, int n) {
  double carry = 0.0;
  for (int i = 0; i < n; i++) {
    if (mask[i] == 0) {
      y[i] = 2.0 * x[i] - carry;
    } else if (mask[i] == 1) {
      carry = carry + x[i];
      y[i] = mask[i] > 0 ? carry : -carry;
    } else {
      y[i] = (i % 2 ? 3.0 : -1.5) * x[i];
    }
  }
}

typedef struct {
  double *x, *yb;
} ctx_t;

static double J(void *p) {
  ctx_t *c = p;
  double y[N];
  branchy(c->x, y, N);
  return mpiad_dot(y, c->yb, N, 0, MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  int r = hx_rank_g;
  double x[N], x_b[N], y[N], y_b[N], yb0[N], dx[N];
  hx_rand(x, N, 10, r, -1.0, 1.0);
  hx_rand(y_b, N, 11, r, -1.0, 1.0);
  for (int i = 0; i < N; i++)
    yb0[i] = y_b[i];
  hx_zero(x_b, N);
  branchy_b(x, x_b, y, y_b, N);
  hx_tape("branchy_b");
  hx_rand(dx, N, 12, r, -1.0, 1.0);
  ctx_t c = {x, yb0};
  mpiad_input in = {x, dx, N, 0};
  double *xb[1] = {x_b};
  hx_grad("branchy", J, &c, &in, 1, xb, 1e-6, 1e-6, 1e-10);

  int mask[N];
  for (int i = 0; i < N; i++)
    mask[i] = (i * 7 + r) % 3;
  double ydx[N];
  masked(dx, mask, ydx, N);
  double lhs = mpiad_dot(ydx, yb0, N, 0, MPI_COMM_WORLD);
  hx_zero(x_b, N);
  for (int i = 0; i < N; i++)
    y_b[i] = yb0[i];
  masked_b(x, x_b, mask, y, y_b, N);
  hx_tape("masked_b");
  hx_dot_test("masked", lhs, &in, 1, xb, 1e-12);

  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
