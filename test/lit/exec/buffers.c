// malloc/calloc/free'd buffers, a pointer swap between two malloc'd buffers in a
// time loop (u/unew), fixed-size local 1-D and 2-D arrays.  The swap loop also
// has a replicated wrt scalar (diffusion coefficient k) and ends in an
// Allreduce (replicated output, counted once).  Central differences, tape empty
// after each adjoint, exact dot-product test for the linear swap loop.
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

#define N 10

#pragma mpiad differentiate wrt(u0, k) replicated(k, steps) varying(u0)
double heat(const double *u0, double k, int n, int steps, MPI_Comm comm) {
  double *u = malloc(n * sizeof(double));
  double *unew = malloc(n * sizeof(double));
  for (int i = 0; i < n; i++)
    u[i] = u0[i];
  for (int t = 0; t < steps; t++) {
    for (int i = 1; i < n - 1; i++)
      unew[i] = u[i] + k * (u[i - 1] - 2.0 * u[i] + u[i + 1]) - 0.05 * u[i] * u[i];
    unew[0] = 0.9 * u[0];
    unew[n - 1] = 0.9 * u[n - 1] + k * u[n - 2];
    double *tmp = u;
    u = unew;
    unew = tmp;
  }
  double local = 0.0, total = 0.0;
  for (int i = 0; i < n; i++)
    local += u[i] * u[i];
  MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, comm);
  free(u);
  free(unew);
  return total;
}

#pragma mpiad differentiate wrt(x) varying(x)
double histo(const double *x, int n) {
  double *acc = calloc(4, sizeof(double));
  for (int i = 0; i < n; i++)
    acc[i % 4] += x[i] * x[i] + acc[(i + 1) % 4] * 0.5;
  double s = 0.0;
  for (int j = 0; j < 4; j++)
    s += sqrt(1.0 + acc[j] * acc[j]);
  free(acc);
  return s;
}

#pragma mpiad differentiate wrt(x)
double fixed(const double *x, int n) {
  double A[3][3];
  double v[3];
  double w[3];
  for (int i = 0; i < 3; i++) {
    v[i] = x[i];
    for (int j = 0; j < 3; j++)
      A[i][j] = sin(x[3 + i] * (j + 1)) + (i == j ? 2.0 : 0.0);
  }
  for (int t = 0; t < 3; t++) {
    for (int i = 0; i < 3; i++) {
      w[i] = 0.0;
      for (int j = 0; j < 3; j++)
        w[i] += A[i][j] * v[j];
    }
    for (int i = 0; i < 3; i++)
      v[i] = tanh(w[i]) + 0.1 * x[6 + i];
  }
  return v[0] * v[1] + v[2];
}

/* linear: the swap loop writing its result to y */
#pragma mpiad differentiate wrt(u0) output(y) replicated(k, steps) varying(u0)
void lin_heat(const double *u0, double *y, double k, int n, int steps) {
  double *u = malloc(n * sizeof(double));
  double *unew = malloc(n * sizeof(double));
  for (int i = 0; i < n; i++)
    u[i] = u0[i];
  for (int t = 0; t < steps; t++) {
    for (int i = 1; i < n - 1; i++)
      unew[i] = u[i] + k * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
    unew[0] = u[0] + k * (u[1] - u[0]);
    unew[n - 1] = u[n - 1];
    double *tmp = u;
    u = unew;
    unew = tmp;
  }
  for (int i = 0; i < n; i++)
    y[i] = u[i];
  free(u);
  free(unew);
}

typedef struct {
  double *x, *k;
  int which;
  double seed;
} ctx_t;

static double J(void *p) {
  ctx_t *c = p;
  if (c->which == 0) /* replicated output: counts once */
    return c->seed * heat(c->x, *c->k, N, 7, MPI_COMM_WORLD);
  double v = c->seed * (c->which == 1 ? histo(c->x, N) : fixed(c->x, N)), s;
  MPI_Allreduce(&v, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return s;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  int r = hx_rank_g;
  double x[N], x_b[N], dx[N];

  /* u/unew swap with a replicated scalar */
  {
    double k = 0.21, k_b = 0.0, dk = 0.7;
    hx_rand(x, N, 800, r, -1.0, 1.0);
    hx_rand(dx, N, 801, r, -1.0, 1.0);
    hx_zero(x_b, N);
    double seed = 1.3; /* replicated output: the same seed on all ranks */
    double f = heat_b(x, x_b, k, &k_b, N, 7, MPI_COMM_WORLD, seed);
    hx_tape("heat_b");
    hx_check_each("heat primal value", f, heat(x, k, N, 7, MPI_COMM_WORLD), 1e-14, 1e-300);
    double kmax, kmin;
    MPI_Allreduce(&k_b, &kmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&k_b, &kmin, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    hx_check("heat: k_b spread over ranks", kmax - kmin, 0.0, 0.0, 1.0);
    ctx_t c = {x, &k, 0, seed};
    mpiad_input in[2] = {{x, dx, N, 0}, {&k, &dk, 1, 1}};
    double *xb[2] = {x_b, &k_b};
    hx_grad("heat (u0 and k)", J, &c, in, 2, xb, 1e-6, 1e-6, 1e-10);
    /* k alone */
    hx_grad("heat (k alone)", J, &c, in + 1, 1, xb + 1, 1e-6, 1e-6, 1e-10);
  }
  /* calloc, fixed-size arrays */
  for (int which = 1; which <= 2; which++) {
    const char *name = which == 1 ? "calloc buffer" : "fixed-size 1-D and 2-D arrays";
    double seed = 0.6 + 0.2 * r;
    hx_rand(x, N, 810 + which, r, -1.0, 1.0);
    hx_rand(dx, N, 820 + which, r, -1.0, 1.0);
    hx_zero(x_b, N);
    if (which == 1)
      histo_b(x, x_b, N, seed);
    else
      fixed_b(x, x_b, N, seed);
    hx_tape(name);
    ctx_t c = {x, 0, which, seed};
    mpiad_input in = {x, dx, N, 0};
    double *xb[1] = {x_b};
    hx_grad(name, J, &c, &in, 1, xb, 1e-6, 1e-6, 1e-10);
  }
  /* dot-product test, linear swap loop */
  {
    double y[N], y_b[N], ydx[N];
    hx_rand(x, N, 830, r, -1.0, 1.0);
    hx_rand(dx, N, 831, r, -1.0, 1.0);
    hx_rand(y_b, N, 832, r, -1.0, 1.0);
    lin_heat(dx, ydx, 0.3, N, 6);
    double lhs = mpiad_dot(ydx, y_b, N, 0, MPI_COMM_WORLD);
    hx_zero(x_b, N);
    lin_heat_b(x, x_b, y, y_b, 0.3, N, 6);
    hx_tape("lin_heat_b");
    mpiad_input in = {x, dx, N, 0};
    double *xb[1] = {x_b};
    hx_dot_test("linear u/unew swap", lhs, &in, 1, xb, 1e-12);
  }
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
