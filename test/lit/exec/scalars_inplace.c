// wrt scalar parameters (double s -> double *s_b), varying and replicated, with
// the adjoint checked against the hand-derived gradient; a parameter both in
// wrt and output (updated in place: holds the seed on entry and the input's
// adjoint on return) with a replicated scalar step; central differences; the
// exact dot-product test for a linear in-place update.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

#define N 7

/* f = a^2 b + sin(a) * sum x_i + b * x_0 x_1 */
#pragma mpiad differentiate wrt(a, b, x) varying(a, b, x)
double scal(double a, double b, const double *x, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += x[i];
  return a * a * b + sin(a) * s + b * x[0] * x[1];
}

/* in place: u <- u + dt * (c u_{i-1} - u_i^3) for several steps; dt replicated */
#pragma mpiad differentiate wrt(u, dt) output(u) replicated(dt) varying(u, n)
void step(double *u, double dt, int n) {
  for (int t = 0; t < 3; t++) {
    for (int i = n - 1; i > 0; i--)
      u[i] = u[i] + dt * (0.5 * u[i - 1] - u[i] * u[i] * u[i]);
    u[0] = u[0] * exp(-dt);
  }
}

/* linear in place */
#pragma mpiad differentiate wrt(u) output(u) varying(u)
void lin_inplace(double *u, int n) {
  for (int i = 1; i < n; i++)
    u[i] = u[i] + 0.5 * u[i - 1];
  u[0] = u[0] - 2.0 * u[n - 1];
  for (int i = n - 2; i >= 0; i--)
    u[i] = 0.25 * u[i + 1] - u[i];
}

typedef struct {
  double *u, *dt, *seed, *a, *b;
} ctx_t;

static double Js(void *p) {
  ctx_t *c = p;
  double v = *c->seed * scal(*c->a, *c->b, c->u, N), s;
  MPI_Allreduce(&v, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return s;
}

static double Ju(void *p) {
  ctx_t *c = p;
  double u[N];
  memcpy(u, c->u, sizeof u);
  step(u, *c->dt, N);
  return mpiad_dot(u, c->seed, N, 0, MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  int r = hx_rank_g;

  /* scalar parameters */
  {
    double a = 0.4 + 0.1 * r, b = -0.7 + 0.05 * r, a_b = 0.0, b_b = 0.0;
    double x[N], x_b[N], dx[N], seed = 1.5 - 0.25 * r;
    hx_rand(x, N, 1400, r, -1.0, 1.0);
    hx_zero(x_b, N);
    double f = scal_b(a, &a_b, b, &b_b, x, x_b, N, seed);
    hx_tape("scal_b");
    double s = 0.0;
    for (int i = 0; i < N; i++)
      s += x[i];
    hx_check_each("scal primal value", f, scal(a, b, x, N), 1e-15, 1e-300);
    hx_check_each("a_b", a_b, seed * (2.0 * a * b + cos(a) * s), 1e-14, 1e-300);
    hx_check_each("b_b", b_b, seed * (a * a + x[0] * x[1]), 1e-14, 1e-300);
    double want[N];
    for (int i = 0; i < N; i++)
      want[i] = seed * sin(a);
    want[0] += seed * b * x[1];
    want[1] += seed * b * x[0];
    hx_check_vec("x_b", x_b, want, N, 1e-14, 1e-300);
    /* accumulation: a second call adds the same again */
    scal_b(a, &a_b, b, &b_b, x, x_b, N, seed);
    hx_tape("scal_b (second call)");
    hx_check_each("a_b accumulates (+=)", a_b, 2.0 * seed * (2.0 * a * b + cos(a) * s),
                  1e-14, 1e-300);
    a_b = b_b = 0.0;
    hx_zero(x_b, N);
    scal_b(a, &a_b, b, &b_b, x, x_b, N, seed);
    double da = 0.3, db = -0.8;
    hx_rand(dx, N, 1401, r, -1.0, 1.0);
    ctx_t c = {x, 0, &seed, &a, &b};
    mpiad_input in[3] = {{&a, &da, 1, 0}, {&b, &db, 1, 0}, {x, dx, N, 0}};
    double *xb[3] = {&a_b, &b_b, x_b};
    hx_grad("scalar parameters", Js, &c, in, 3, xb, 1e-6, 1e-6, 1e-10);
  }

  /* in-place update with a replicated scalar */
  {
    double u[N], u0[N], u_b[N], seed[N], du[N], dt = 0.15, dt_b = 0.0, ddt = 0.5;
    hx_rand(u0, N, 1410, r, -1.0, 1.0);
    hx_rand(seed, N, 1411, r, -1.0, 1.0);
    memcpy(u, u0, sizeof u);
    memcpy(u_b, seed, sizeof u_b);
    step_b(u, u_b, dt, &dt_b, N);
    hx_tape("step_b");
    double mx, mn;
    MPI_Allreduce(&dt_b, &mx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&dt_b, &mn, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    hx_check("in place: dt_b spread over ranks", mx - mn, 0.0, 0.0, 1.0);
    hx_rand(du, N, 1412, r, -1.0, 1.0);
    ctx_t c = {u0, &dt, seed, 0, 0};
    mpiad_input in[2] = {{u0, du, N, 0}, {&dt, &ddt, 1, 1}};
    double *xb[2] = {u_b, &dt_b};
    hx_grad("in place (u and replicated dt)", Ju, &c, in, 2, xb, 1e-6, 1e-6, 1e-10);
  }

  /* dot-product test, linear in place */
  {
    double u[N], u_b[N], yb[N], du[N], Ldu[N];
    hx_rand(u, N, 1420, r, -1.0, 1.0);
    hx_rand(yb, N, 1421, r, -1.0, 1.0);
    hx_rand(du, N, 1422, r, -1.0, 1.0);
    memcpy(Ldu, du, sizeof Ldu);
    lin_inplace(Ldu, N);
    double lhs = mpiad_dot(Ldu, yb, N, 0, MPI_COMM_WORLD);
    memcpy(u_b, yb, sizeof u_b);
    lin_inplace_b(u, u_b, N);
    hx_tape("lin_inplace_b");
    mpiad_input in = {u, du, N, 0};
    double *xb[1] = {u_b};
    hx_dot_test("linear in place", lhs, &in, 1, xb, 1e-12);
  }
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
