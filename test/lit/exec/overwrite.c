// Overwritten values, so that the tape is exercised: a scalar reassigned in a
// loop, a local array updated in place over time steps (Gauss-Seidel sweeps that
// read already-updated neighbours), a work buffer reused for a second, different
// quantity.  Central differences, tape empty after each adjoint, a second call
// of each adjoint gives the same result (no state left behind), and the exact
// dot-product test for a linear in-place sweep with a vector output.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"

#define N 12

#pragma mpiad differentiate wrt(x) varying(x)
double reassign(const double *x, int n) {
  double v = x[0];
  for (int k = 0; k < 3 * n; k++) {
    v = sin(v) + x[k % n] * v;
    v = v * v * 0.5 + 0.1;
  }
  return v;
}

/* in-place Gauss-Seidel sweeps with a nonlinear term, in a fixed-size array */
#pragma mpiad differentiate wrt(x) varying(x)
double sweeps(const double *x, int n) {
  double u[N];
  for (int i = 0; i < n; i++)
    u[i] = x[i];
  for (int t = 0; t < 5; t++) {
    for (int i = 1; i < n - 1; i++)
      u[i] = u[i] + 0.2 * (u[i - 1] - 2.0 * u[i] + u[i + 1]) - 0.1 * u[i] * u[i] * u[i];
    u[0] = u[0] * cos(u[1]);
  }
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += u[i] * u[i] * (i + 1);
  return s;
}

/* a malloc'd buffer reused for two different quantities */
#pragma mpiad differentiate wrt(x) varying(x)
double reuse(const double *x, int n) {
  double *w = malloc(n * sizeof(double));
  for (int i = 0; i < n; i++)
    w[i] = exp(0.3 * x[i]);
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += w[i] * x[(i + 1) % n];
  for (int i = 0; i < n; i++)
    w[i] = s * x[i] - w[i] * w[i];
  double q = 0.0;
  for (int i = 0; i < n; i++)
    q += w[i] * w[(i + 3) % n];
  free(w);
  return q;
}

/* linear: in-place sweeps in the output array */
#pragma mpiad differentiate wrt(x) output(y) varying(x)
void lin_sweeps(const double *x, double *y, int n) {
  for (int i = 0; i < n; i++)
    y[i] = x[i];
  for (int t = 0; t < 4; t++) {
    for (int i = 1; i < n; i++)
      y[i] = 0.5 * y[i] + 0.25 * y[i - 1] + 0.1 * x[(i + t) % n];
    y[0] = y[n - 1] - y[0];
  }
}

typedef double (*prim_t)(const double *, int);
typedef double (*adj_t)(const double *, double *, int, double);
#define ADJ(f) double f##_b(const double *x, double *x_b, int n, double f##_bar);
ADJ(reassign) ADJ(sweeps) ADJ(reuse)
#undef ADJ
static prim_t prims[3] = {reassign, sweeps, reuse};
static adj_t adjs[3] = {reassign_b, sweeps_b, reuse_b};
static const char *names[3] = {"scalar reassigned in a loop",
                               "array updated in place over time steps",
                               "buffer reused"};

typedef struct {
  double *x;
  int which;
  double seed;
} ctx_t;

static double J(void *p) {
  ctx_t *c = p;
  double v = c->seed * prims[c->which](c->x, N), s;
  MPI_Allreduce(&v, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return s;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  int r = hx_rank_g;
  char label[256];
  double seed = 0.8 + 0.1 * r;
  for (int k = 0; k < 3; k++) {
    double x[N], x_b[N], x_b2[N], dx[N];
    hx_rand(x, N, 500 + k, r, -0.8, 0.8);
    hx_zero(x_b, N);
    double f = adjs[k](x, x_b, N, seed);
    hx_tape(names[k]);
    snprintf(label, sizeof label, "%s: primal value", names[k]);
    hx_check_each(label, f, prims[k](x, N), 1e-15, 1e-300);
    hx_zero(x_b2, N);
    adjs[k](x, x_b2, N, seed);
    hx_tape(names[k]);
    snprintf(label, sizeof label, "%s: second call identical", names[k]);
    hx_check_vec(label, x_b2, x_b, N, 0.0, 1e-300);
    hx_rand(dx, N, 600 + k, r, -1.0, 1.0);
    ctx_t c = {x, k, seed};
    mpiad_input in = {x, dx, N, 0};
    double *xb[1] = {x_b};
    hx_grad(names[k], J, &c, &in, 1, xb, 1e-6, 1e-6, 1e-10);
  }
  {
    double x[N], x_b[N], dx[N], y[N], y_b[N], ydx[N];
    hx_rand(x, N, 700, r, -1.0, 1.0);
    hx_rand(dx, N, 701, r, -1.0, 1.0);
    hx_rand(y_b, N, 702, r, -1.0, 1.0);
    lin_sweeps(dx, ydx, N);
    double lhs = mpiad_dot(ydx, y_b, N, 0, MPI_COMM_WORLD);
    hx_zero(x_b, N);
    lin_sweeps_b(x, x_b, y, y_b, N);
    hx_tape("lin_sweeps_b");
    mpiad_input in = {x, dx, N, 0};
    double *xb[1] = {x_b};
    hx_dot_test("linear in-place sweeps", lhs, &in, 1, xb, 1e-12);
  }
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
