// Compound assignments whose right side reads their own target: `t += t / c`,
// `s -= s * x[1]`, `t[i] += t[i] * x[i]` on a local array, `u += u`, and
// `*=`, `/=` on array elements.  The reverse sweep must take the old adjoint
// into a temporary before it adds the right side's contribution (d t_new /
// d t_old = 1 + d rhs / d t_old).  Checked against hand-derived gradients and
// central differences; every input is the same on all ranks (replicated).
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

#define N 4

/* t = x2 + x2 / (1.5 + x2) */
#pragma mpiad differentiate wrt(x) replicated(x, n)
double plus_self(const double *x, int n) {
  (void)n;
  double t = x[2];
  t += t / (1.5 + x[2]);
  return t;
}

/* s = x0 - x0 x1 */
#pragma mpiad differentiate wrt(x) replicated(x, n)
double minus_self(const double *x, int n) {
  (void)n;
  double s = x[0];
  s -= s * x[1];
  return s;
}

/* t_i = x_i + x_i^2, then sum of t_i^2 */
#pragma mpiad differentiate wrt(x) replicated(x, n)
double array_self(const double *x, int n) {
  double t[N];
  for (int i = 0; i < n; i++)
    t[i] = x[i];
  for (int i = 0; i < n; i++)
    t[i] += t[i] * x[i];
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += t[i] * t[i];
  return s;
}

/* u = 2 x1, u = 2 x1 - 2 x1 x0 = 2 x1 (1 - x0), then times x3:
 * 2 x1 x3 (1 - x0); w[i] = x[i] * x[i] / (1 + x[i]); return u + sum w */
#pragma mpiad differentiate wrt(x) replicated(x, n)
double mixed_self(const double *x, int n) {
  double u = x[1];
  u += u;
  u -= u * x[0];
  u *= x[3];
  double w[N];
  for (int i = 0; i < n; i++) {
    w[i] = x[i];
    w[i] *= x[i];
    w[i] /= 1.0 + w[i] / x[i];
  }
  for (int i = 0; i < n; i++)
    u += w[i];
  return u;
}

typedef double (*prim_t)(const double *, int);
typedef double (*adj_t)(const double *, double *, int, double);
#define ADJ(f) double f##_b(const double *x, double *x_b, int n, double f##_bar);
ADJ(plus_self) ADJ(minus_self) ADJ(array_self) ADJ(mixed_self)
#undef ADJ
#define NF 4
static prim_t prims[NF] = {plus_self, minus_self, array_self, mixed_self};
static adj_t adjs[NF] = {plus_self_b, minus_self_b, array_self_b, mixed_self_b};
static const char *names[NF] = {"t += t / c", "s -= s * x1",
                                "t[i] += t[i] * x[i]", "u += u, *=, /="};

/* The gradients, derived by hand. */
static void expected(int k, const double *x, double *g) {
  for (int i = 0; i < N; i++)
    g[i] = 0.0;
  switch (k) {
  case 0: /* d/dx2 [x2 + x2 / (1.5 + x2)] = 1 + 1.5 / (1.5 + x2)^2 */
    g[2] = 1.0 + 1.5 / ((1.5 + x[2]) * (1.5 + x[2]));
    break;
  case 1:
    g[0] = 1.0 - x[1];
    g[1] = -x[0];
    break;
  case 2: /* 2 t_i (1 + 2 x_i) */
    for (int i = 0; i < N; i++)
      g[i] = 2.0 * (x[i] + x[i] * x[i]) * (1.0 + 2.0 * x[i]);
    break;
  case 3: /* w_i = x_i^2 / (1 + x_i): w_i' = (2 x_i + x_i^2) / (1 + x_i)^2 */
    for (int i = 0; i < N; i++)
      g[i] = (2.0 * x[i] + x[i] * x[i]) / ((1.0 + x[i]) * (1.0 + x[i]));
    g[0] += -2.0 * x[1] * x[3];
    g[1] += 2.0 * (1.0 - x[0]) * x[3];
    g[3] += 2.0 * x[1] * (1.0 - x[0]);
    break;
  }
}

typedef struct {
  double *x;
  int which;
} ctx_t;

/* The result is replicated (counted once): J is the function itself. */
static double J(void *p) {
  ctx_t *c = p;
  return prims[c->which](c->x, N);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  char label[256];
  for (int k = 0; k < NF; k++) {
    double x[N] = {0.7, 0.3, 0.5, 1.2}, x_b[N], want[N], dx[N];
    hx_zero(x_b, N);
    double f = adjs[k](x, x_b, N, 1.0);
    hx_tape(names[k]);
    snprintf(label, sizeof label, "%s: primal value", names[k]);
    hx_check_each(label, f, prims[k](x, N), 1e-15, 1e-300);
    expected(k, x, want);
    snprintf(label, sizeof label, "%s: gradient vs hand-derived", names[k]);
    hx_check_vec(label, x_b, want, N, 1e-14, 1e-14);
    hx_rand(dx, N, 900 + k, HX_REP, -1.0, 1.0);
    ctx_t c = {x, k};
    mpiad_input in = {x, dx, N, 1};
    double *xb[1] = {x_b};
    hx_grad(names[k], J, &c, &in, 1, xb, 1e-6, 1e-7, 1e-10);
  }
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
