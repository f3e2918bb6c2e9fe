// Single precision: float pointers, a float wrt scalar (replicated), math
// functions on floats, MPI_Allreduce on MPI_FLOAT, a float vector output.
// Checks: the float adjoint against the adjoint of the same code in double
// (rtol 1e-4), against central differences of the float primal (rtol 2e-3),
// the dot-product test for a linear float function (rtol 1e-5), tape empty.
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

#define N 8

#pragma mpiad differentiate wrt(x, s) replicated(s) varying(x)
float ff(const float *x, float s, int n, MPI_Comm comm) {
  float loc = 0.0f;
  for (int i = 0; i < n; i++) {
    float t = s * sin(x[i]) * x[i] + exp(0.5f * x[i]);
    if (t > 1.0f)
      t = sqrt(t);
    loc += t * t + tanh(x[i] * s);
  }
  float tot = 0.0f;
  MPI_Allreduce(&loc, &tot, 1, MPI_FLOAT, MPI_SUM, comm);
  return tot * tot * 0.1f + s * s;
}

/* the same in double */
#pragma mpiad differentiate wrt(x, s) replicated(s) varying(x)
double dd(const double *x, double s, int n, MPI_Comm comm) {
  double loc = 0.0;
  for (int i = 0; i < n; i++) {
    double t = s * sin(x[i]) * x[i] + exp(0.5 * x[i]);
    if (t > 1.0)
      t = sqrt(t);
    loc += t * t + tanh(x[i] * s);
  }
  double tot = 0.0;
  MPI_Allreduce(&loc, &tot, 1, MPI_DOUBLE, MPI_SUM, comm);
  return tot * tot * 0.1 + s * s;
}

/* linear, float vector output */
#pragma mpiad differentiate wrt(x) output(y) varying(x)
void flin(const float *x, float *y, int n) {
  float acc = 0.0f;
  for (int i = 0; i < n; i++) {
    acc = 0.5f * acc + x[i];
    y[i] = 2.0f * acc - x[(i + 3) % n];
  }
}

typedef struct {
  double *x, *s;
} ctx_t;

/* the float primal on the double inputs; replicated output counts once */
static double J(void *p) {
  ctx_t *c = p;
  float xf[N];
  for (int i = 0; i < N; i++)
    xf[i] = (float)c->x[i];
  return ff(xf, (float)*c->s, N, MPI_COMM_WORLD);
}

static double Jd(void *p) {
  ctx_t *c = p;
  return dd(c->x, *c->s, N, MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  int r = hx_rank_g;
  float xf[N], xf_b[N], sf = 0.8f;
  double sf_b = 0.0; /* scalar adjoints are double, also for float scalars */
  double x[N], x_b[N], s = 0.8, s_b = 0.0, dx[N], ds = 0.6;
  hx_randf(xf, N, 1100, r, -1.0, 1.0);
  for (int i = 0; i < N; i++) {
    x[i] = xf[i];
    xf_b[i] = 0.0f;
  }
  hx_zero(x_b, N);
  float vf = ff_b(xf, xf_b, sf, &sf_b, N, MPI_COMM_WORLD, 1.0f);
  hx_tape("ff_b");
  double vd = dd_b(x, x_b, s, &s_b, N, MPI_COMM_WORLD, 1.0);
  hx_tape("dd_b");
  hx_check_each("float primal vs double", vf, vd, 1e-5, 1e-30);
  double xfb[N];
  for (int i = 0; i < N; i++)
    xfb[i] = xf_b[i];
  hx_check_vec("float x_b vs double x_b", xfb, x_b, N, 1e-4, 1e-6);
  hx_check_each("float s_b vs double s_b", sf_b, s_b, 1e-4, 1e-6);

  /* central differences: the double twin (tight), the float code (loose) */
  {
    hx_rand(dx, N, 1101, r, -1.0, 1.0);
    mpiad_input in[2] = {{x, dx, N, 0}, {&s, &ds, 1, 1}};
    double *xb[2] = {x_b, &s_b};
    ctx_t c = {x, &s};
    hx_grad("double twin", Jd, &c, in, 2, xb, 1e-6, 1e-6, 1e-10);
    double sfb = sf_b;
    double *xbf[2] = {xfb, &sfb};
    hx_grad("float", J, &c, in, 2, xbf, 3e-3, 2e-3, 1e-3);
  }

  /* dot-product test, float linear map */
  {
    float dxf[N], ydx[N], y[N], y_b[N], yb0[N], xb2[N], x0[N];
    hx_randf(dxf, N, 1102, r, -1.0, 1.0);
    hx_randf(y_b, N, 1103, r, -1.0, 1.0);
    hx_randf(x0, N, 1104, r, -1.0, 1.0);
    for (int i = 0; i < N; i++) {
      yb0[i] = y_b[i];
      xb2[i] = 0.0f;
    }
    flin(dxf, ydx, N);
    double lhs = mpiad_dot_f32(ydx, yb0, N, 0, MPI_COMM_WORLD);
    flin_b(x0, xb2, y, y_b, N);
    hx_tape("flin_b");
    double rhs = mpiad_dot_f32(dxf, xb2, N, 0, MPI_COMM_WORLD);
    hx_check("float linear: dot-product test", rhs, lhs, 1e-5, 1e-6);
  }
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
