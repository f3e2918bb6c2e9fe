// Same-file helpers called with aliased pointer arguments: the helper writes
// one argument and reads the same array through another.
//   add_alias:  vecAdd(x, x, y, n)   x = x + y
//   mul_alias:  vecMul(x, y, x, n); vecAdd(x, x, x, n)   x = 2 x y
//   cube_alias: vecMul(t, t, t, n); vecMul(t, t, x, n)   t = x^3, s = sum t
// Inputs are the same on every rank (replicated, no communication), so every
// rank's adjoint is the full gradient.  Checked against central differences
// and against the gradients worked out by hand in the comments.
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

#define N 4

static void vecAdd(double *sum, const double *v1, const double *v2, int n) {
  for (int i = 0; i < n; i++)
    sum[i] = v1[i] + v2[i];
}

static void vecMul(double *prod, const double *v1, const double *v2, int n) {
  for (int i = 0; i < n; i++)
    prod[i] = v1[i] * v2[i];
}

/* x_out = x + y: with seed w, x_b = w, y_b = w */
#pragma mpiad differentiate wrt(x, y) output(x) replicated(x, y, n)
void add_alias(double *x, const double *y, int n) {
  vecAdd(x, x, y, n);
}

/* x_out = 2 x y: with seed w, x_b = 2 y w, y_b = 2 x w */
#pragma mpiad differentiate wrt(x, y) output(x) replicated(x, y, n)
void mul_alias(double *x, const double *y, int n) {
  vecMul(x, y, x, n);
  vecAdd(x, x, x, n);
}

/* s = sum x^3: s_b = 1 gives x_b = 3 x^2 */
#pragma mpiad differentiate wrt(x) replicated(x, n)
double cube_alias(const double *x, int n) {
  double t[N];
  for (int i = 0; i < n; i++)
    t[i] = x[i];
  vecMul(t, t, t, n);
  vecMul(t, t, x, n);
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += t[i];
  return s;
}

typedef void (*vfn_t)(double *, const double *, int);
typedef struct {
  vfn_t fn;
  double *x, *y;
  const double *w;
} ctx_t;

/* J = <w, F(x, y)>, the same on every rank */
static double J(void *p) {
  ctx_t *c = p;
  double out[N];
  memcpy(out, c->x, sizeof out);
  c->fn(out, c->y, N);
  double s = 0.0;
  for (int i = 0; i < N; i++)
    s += c->w[i] * out[i];
  return s;
}

static double J_cube(void *p) { return cube_alias(p, N); }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  double x[N], y[N], w[N], dx[2 * N];
  hx_rand(x, N, 301, HX_REP, -1.0, 1.0);
  hx_rand(y, N, 302, HX_REP, -1.0, 1.0);
  hx_rand(w, N, 303, HX_REP, 0.5, 1.5);
  hx_rand(dx, 2 * N, 304, HX_REP, -1.0, 1.0);

  vfn_t fns[2] = {add_alias, mul_alias};
  const char *names[2] = {"add_alias", "mul_alias"};
  for (int k = 0; k < 2; k++) {
    double xx[N], x_b[N], y_b[N], want_x[N], want_y[N], xout[N];
    memcpy(xx, x, sizeof xx);
    memcpy(x_b, w, sizeof x_b); /* the seed of the output x */
    hx_zero(y_b, N);
    if (k == 0)
      add_alias_b(xx, x_b, y, y_b, N);
    else
      mul_alias_b(xx, x_b, y, y_b, N);
    hx_tape(names[k]);
    for (int i = 0; i < N; i++) {
      want_x[i] = k == 0 ? w[i] : 2.0 * y[i] * w[i];
      want_y[i] = k == 0 ? w[i] : 2.0 * x[i] * w[i];
      xout[i] = k == 0 ? x[i] + y[i] : 2.0 * x[i] * y[i];
    }
    char buf[64];
    snprintf(buf, sizeof buf, "%s x_b", names[k]);
    hx_check_vec(buf, x_b, want_x, N, 1e-14, 1e-300);
    snprintf(buf, sizeof buf, "%s y_b", names[k]);
    hx_check_vec(buf, y_b, want_y, N, 1e-14, 1e-300);
    snprintf(buf, sizeof buf, "%s final x", names[k]);
    hx_check_vec(buf, xx, xout, N, 1e-15, 1e-300);
    double xc[N];
    memcpy(xc, x, sizeof xc);
    ctx_t c = {fns[k], xc, y, w};
    mpiad_input in[2] = {{xc, dx, N, 1}, {y, dx + N, N, 1}};
    double *xb[2] = {x_b, y_b};
    hx_grad(names[k], J, &c, in, 2, xb, 1e-6, 1e-7, 1e-10);
  }

  {
    double x_b[N], want[N];
    hx_zero(x_b, N);
    cube_alias_b(x, x_b, N, 1.0);
    hx_tape("cube_alias");
    for (int i = 0; i < N; i++)
      want[i] = 3.0 * x[i] * x[i];
    hx_check_vec("cube_alias x_b", x_b, want, N, 1e-14, 1e-300);
    mpiad_input in = {x, dx, N, 1};
    double *xb[1] = {x_b};
    hx_grad("cube_alias", J_cube, x, &in, 1, xb, 1e-6, 1e-7, 1e-10);
  }

  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
