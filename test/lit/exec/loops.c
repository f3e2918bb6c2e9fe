// Loops: for with constant and variable (per-rank) bounds, nested loops, while
// (counted and data-dependent), do-while, break, continue, early return inside
// a loop and at top level.  Central differences for each (J = sum_r seed_r f_r),
// the tape empty after each adjoint, and the exact dot-product test for a
// linear function with loops and a vector output.
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

#define NMAX 16

#pragma mpiad differentiate wrt(x)
double for_const(const double *x, int n) {
  double s = 0.5;
  for (int i = 0; i < 5; i++)
    s = s * x[i] + sin(s);
  return s;
}

#pragma mpiad differentiate wrt(x) varying(x)
double for_var(const double *x, int n) {
  double s = 1.0;
  for (int i = 0; i < n; i++)
    s = s * (1.0 + 0.1 * x[i]) + 0.1 * x[i] * x[i];
  return s;
}

#pragma mpiad differentiate wrt(x) varying(x)
double nested(const double *x, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    double t = 1.0;
    for (int j = 0; j <= i; j++)
      t = t * cos(x[j]) + x[i] * x[j];
    s += t * t;
  }
  return s;
}

#pragma mpiad differentiate wrt(x) varying(x)
double while_count(const double *x, int n) {
  double s = 0.0;
  int i = 0;
  while (i < n) {
    s = s + exp(-x[i] * s);
    i += 2;
  }
  return s;
}

/* iteration count depends on the data */
#pragma mpiad differentiate wrt(x)
double while_data(const double *x, int n) {
  double t = 1.0 + x[0] * x[0];
  int k = 0;
  while (t < 50.0) {
    t = t * (1.5 + 0.1 * x[1]) + 0.5 * x[2] * x[2];
    k++;
  }
  return t * x[3] + k;
}

#pragma mpiad differentiate wrt(x) varying(x)
double do_while(const double *x, int n) {
  double s = x[0];
  int i = 1;
  do {
    s = sqrt(s * s + x[i] * x[i]) * 0.9;
    i++;
  } while (i < n);
  return s;
}

#pragma mpiad differentiate wrt(x) varying(x)
double brk(const double *x, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    if (x[i] > 0.8)
      break;
    s = s * x[i] + x[i] * x[i];
  }
  return s;
}

#pragma mpiad differentiate wrt(x) varying(x)
double cont(const double *x, int n) {
  double s = 1.0;
  for (int i = 0; i < n; i++) {
    if (x[i] < 0.0)
      continue;
    s = s * (1.0 + x[i]);
  }
  return s;
}

#pragma mpiad differentiate wrt(x) varying(x)
double ret_in_loop(const double *x, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    s += x[i] * x[i] + 0.5 * x[i];
    if (s > 1.2)
      return s * x[0];
  }
  return s * x[1];
}

#pragma mpiad differentiate wrt(x) varying(x)
double ret_top(const double *x, int n) {
  if (x[0] < 0.0)
    return -x[0] * x[1] * x[2];
  double s = x[1];
  for (int i = 2; i < n; i++)
    s = s * x[i];
  if (s > 0.0)
    return sqrt(s + x[0]);
  return s * s + x[0];
}

typedef double (*prim_t)(const double *, int);
typedef double (*adj_t)(const double *, double *, int, double);

/* The adjoints are generated after each function; the table below takes their
 * addresses, so declare them first. */
#define ADJ(f) double f##_b(const double *x, double *x_b, int n, double f##_bar);
ADJ(for_const) ADJ(for_var) ADJ(nested) ADJ(while_count) ADJ(while_data)
ADJ(do_while) ADJ(brk) ADJ(cont) ADJ(ret_in_loop) ADJ(ret_top)
#undef ADJ

#define NF 10
static prim_t prims[NF] = {for_const, for_var, nested, while_count, while_data,
                           do_while, brk, cont, ret_in_loop, ret_top};
static adj_t adjs[NF] = {for_const_b, for_var_b, nested_b, while_count_b, while_data_b,
                         do_while_b, brk_b, cont_b, ret_in_loop_b, ret_top_b};
static const char *names[NF] = {"for (constant bound)", "for (variable bound)", "nested",
                                "while (counted)", "while (data-dependent)", "do-while",
                                "break", "continue", "return inside loop",
                                "return at top level"};

/* linear, vector output: prefix sums with a stride, a skipped index and a stop */
#pragma mpiad differentiate wrt(x) output(y) varying(x)
void lin(const double *x, double *y, int n) {
  double acc = 0.0;
  for (int i = 0; i < n; i++) {
    if (i == 3)
      continue;
    acc = 0.5 * acc + (i + 1) * x[i];
    y[i] = acc;
    if (i == n - 2)
      break;
  }
  y[n - 1] = 0.0;
  y[3] = -x[3];
  int j = 0;
  while (j < n) {
    y[j] += 2.0 * x[n - 1 - j];
    j += 3;
  }
}

typedef struct {
  double *x;
  int n, which;
  double seed;
} ctx_t;

static double J(void *p) {
  ctx_t *c = p;
  double v = c->seed * prims[c->which](c->x, c->n), s;
  MPI_Allreduce(&v, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return s;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  int r = hx_rank_g;
  char label[256];
  int n = 6 + r; /* differs per rank */
  double seed = 1.0 - 0.3 * r;
  for (int k = 0; k < NF; k++) {
    double x[NMAX], x_b[NMAX], dx[NMAX];
    hx_rand(x, NMAX, 200 + k, r, -1.0, 1.0);
    if (k == 8 && r % 2 == 0) /* leave the loop early on even ranks */
      x[1] = 1.0;
    if (k == 9 && r == 1) /* the first early return on rank 1 */
      x[0] = -0.5;
    if (k == 9 && r == 2) /* s < 0 path on rank 2 */
      x[2] = -fabs(x[2]), x[3] = fabs(x[3]), x[1] = fabs(x[1]), x[4] = fabs(x[4]),
      x[5] = fabs(x[5]), x[6] = fabs(x[6]), x[7] = fabs(x[7]);
    if (k == 9 && r != 2 && r != 1) /* positive product */
      for (int i = 0; i < NMAX; i++)
        x[i] = fabs(x[i]) + 0.1;
    if (k == 5 || k == 4)
      x[0] = fabs(x[0]) + 0.2;
    hx_zero(x_b, NMAX);
    double f = adjs[k](x, x_b, n, seed);
    hx_tape(names[k]);
    snprintf(label, sizeof label, "%s: primal value", names[k]);
    hx_check_each(label, f, prims[k](x, n), 1e-15, 1e-15);
    hx_rand(dx, NMAX, 300 + k, r, -1.0, 1.0);
    ctx_t c = {x, n, k, seed};
    mpiad_input in = {x, dx, NMAX, 0};
    double *xb[1] = {x_b};
    hx_grad(names[k], J, &c, &in, 1, xb, 1e-6, 1e-6, 1e-10);
  }

  /* dot-product test on the linear function */
  {
    double dx[NMAX], x[NMAX], x_b[NMAX], y[NMAX], y_b[NMAX], ydx[NMAX];
    hx_rand(dx, NMAX, 400, r, -1.0, 1.0);
    hx_rand(x, NMAX, 401, r, -1.0, 1.0);
    hx_rand(y_b, NMAX, 402, r, -1.0, 1.0);
    for (int i = 0; i < NMAX; i++)
      ydx[i] = y[i] = 0.0;
    lin(dx, ydx, n);
    double lhs = mpiad_dot(ydx, y_b, n, 0, MPI_COMM_WORLD);
    hx_zero(x_b, NMAX);
    lin_b(x, x_b, y, y_b, n);
    hx_tape("lin_b");
    mpiad_input in = {x, dx, NMAX, 0};
    double *xb[1] = {x_b};
    hx_dot_test("linear loops", lhs, &in, 1, xb, 1e-12);
  }
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
