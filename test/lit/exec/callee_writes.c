// Same-file helpers that overwrite the caller's arrays in place: the reverse
// sweep of the caller must see the values the arrays held before each call.
//   dbl:   doubles a local fixed array that an earlier product read;
//   fill:  fills a malloc'd buffer whose old element an earlier sin read;
//   scale, copy: copy overwrites the array that scale's reverse reads;
//   dbl2:  a helper that overwrites through a nested helper call.
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
#include <stdlib.h>

#include "harness.h"

static void dbl(double *b, int len) {
  for (int i = 0; i < len; i++)
    b[i] = 2.0 * b[i];
}

/* f = t1 t0 + 2 (t0 + t1 + t2) with t = x:
 * df/dx = (x1 + 2, x0 + 2, 2) */
#pragma mpiad differentiate wrt(x) replicated(x, n)
double f_dbl(const double *x, int n) {
  double t[3] = {x[0], x[1], x[2]};
  double y = t[1] * t[0];
  dbl(t, 3);
  return y + t[0] + t[1] + t[2];
}

static void fill(double *w, int len, double v) {
  for (int i = 0; i < len; i++)
    w[i] = v;
}

/* g = sin(x0) + 5 x1 (w[0] is 5 after fill): dg/dx = (cos x0, 5) */
#pragma mpiad differentiate wrt(x) replicated(x, n)
double f_fill(const double *x, int n) {
  double *w = malloc(n * sizeof(double));
  for (int i = 0; i < n; i++)
    w[i] = x[i];
  double t = sin(w[0]);
  fill(w, 2, 5.0);
  double r = t + w[0] * x[1];
  free(w);
  return r;
}

static void scale(double *t, const double *p, double s, int len) {
  for (int i = 0; i < len; i++)
    t[i] = p[i] * s;
}
static void copy(double *p, const double *q, int len) {
  for (int i = 0; i < len; i++)
    p[i] = q[i];
}

/* h = s (x0 + x1 + x2) + x2^2 (p = x, then p = q = x^2):
 * dh/ds = x0 + x1 + x2, dh/dx = (s, s, s + 2 x2) */
#pragma mpiad differentiate wrt(x, s) replicated(x, s, n)
double f_scale_copy(const double *x, double s, int n) {
  double t[3], p[3], q[3];
  for (int i = 0; i < n; i++) {
    p[i] = x[i];
    q[i] = x[i] * x[i];
  }
  scale(t, p, s, n);
  copy(p, q, n);
  return t[0] + t[1] + t[2] + p[2];
}

static void dbl2(double *b, int len) {
  dbl(b, len);
}

/* k = u0 u1 + u0^2 / 2 with u = x before dbl2 and u0 = 2 x0 after:
 * k = x0 x1 + 2 x0^2, dk/dx = (x1 + 4 x0, x0, 0) */
#pragma mpiad differentiate wrt(x) replicated(x, n)
double f_nested(const double *x, int n) {
  double u[3];
  for (int i = 0; i < n; i++)
    u[i] = x[i];
  double y = u[0] * u[1];
  dbl2(u, n);
  return y + 0.5 * u[0] * u[0];
}

typedef double (*fn_t)(const double *, int);
typedef struct {
  fn_t fn;
  double *x;
  int n;
} ctx_t;

static double J(void *p) {
  ctx_t *c = p;
  return c->fn(c->x, c->n);
}

typedef struct {
  double *x, *s;
} ctx_sc_t;

static double J_sc(void *p) {
  ctx_sc_t *c = p;
  return f_scale_copy(c->x, *c->s, 3);
}

static void check(const char *label, fn_t fn, double *x, int n,
                  const double *x_b, const double *want) {
  double dx[3];
  hx_rand(dx, n, 77, HX_REP, -1.0, 1.0);
  ctx_t c = {fn, x, n};
  mpiad_input in = {x, dx, n, 1};
  double *xb[1] = {(double *)x_b};
  char buf[128];
  hx_tape(label);
  snprintf(buf, sizeof buf, "%s x_b", label);
  hx_check_vec(buf, x_b, want, n, 1e-14, 1e-300);
  hx_grad(label, J, &c, &in, 1, xb, 1e-6, 1e-7, 1e-10);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);

  {
    double x[3] = {0.7, 1.3, 0.4}, x_b[3] = {0, 0, 0};
    double want[3] = {3.3, 2.7, 2.0};
    f_dbl_b(x, x_b, 3, 1.0);
    check("dbl", f_dbl, x, 3, x_b, want);
  }
  {
    double x[2] = {0.5, 0.8}, x_b[2] = {0, 0};
    double want[2] = {cos(0.5), 5.0};
    f_fill_b(x, x_b, 2, 1.0);
    check("fill", f_fill, x, 2, x_b, want);
  }
  {
    double x[3] = {0.5, 1.0, 1.5}, x_b[3] = {0, 0, 0}, s = 2.0, s_b = 0.0;
    double want[3] = {2.0, 2.0, 5.0};
    f_scale_copy_b(x, x_b, s, &s_b, 3, 1.0);
    hx_tape("scale, copy");
    hx_check_vec("scale, copy x_b", x_b, want, 3, 1e-14, 1e-300);
    hx_check_each("scale, copy s_b", s_b, 3.0, 1e-14, 1e-300);
    double dx[4];
    hx_rand(dx, 4, 78, HX_REP, -1.0, 1.0);
    ctx_sc_t c = {x, &s};
    mpiad_input in[2] = {{x, dx, 3, 1}, {&s, dx + 3, 1, 1}};
    double *xb[2] = {x_b, &s_b};
    hx_grad("scale, copy", J_sc, &c, in, 2, xb, 1e-6, 1e-7, 1e-10);
  }
  {
    double x[3] = {0.25, -1.5, 0.75}, x_b[3] = {0, 0, 0};
    double want[3] = {-0.5, 0.25, 0.0};
    f_nested_b(x, x_b, 3, 1.0);
    check("nested", f_nested, x, 3, x_b, want);
  }

  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
