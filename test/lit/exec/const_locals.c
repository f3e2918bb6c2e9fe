// const locals and const-qualified return types compile: the generated code
// declares locals at the top and assigns their initial values where they were
// declared (and may restore them from the tape), so the top-level const is
// dropped: `const double t = x[i] * x[i]` in a loop, `int *const p = &k`, a
// marked `const double f(double x)`, a callee `static const double g(double)`.
// A struct of a file-scope type with a brace initialiser (not active) is
// assigned a compound literal.  Hand-derived gradients and central
// differences; every input is the same on all ranks (replicated).
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

#define N 5

struct P {
  double a;
  int k;
};

/* 2 y^2 */
static const double g(double y) {
  const double c = 2.0 * y;
  return c * y;
}

/* 3 sum x_i^2 + 2 x0^2 */
#pragma mpiad differentiate wrt(x) replicated(x, n)
double const_loop(const double *x, int n) {
  double s = 0.0;
  int k = 3;
  int *const p = &k;
  for (int i = 0; i < n; i++) {
    const double t = x[i] * x[i];
    s += t * *p;
  }
  return s + g(x[0]);
}

/* 6 x1 sum x_i */
#pragma mpiad differentiate wrt(x) replicated(x, n)
double struct_init(const double *x, int n) {
  struct P p = {2.0, 3};
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += p.a * x[i] * p.k;
  const struct P q = {.a = 0.5, .k = 2};
  return s * x[1] * q.a * q.k;
}

/* 2 x^2 + sin(2 x) */
#pragma mpiad differentiate wrt(x) replicated(x)
const double const_ret(double x) {
  const double c = 2.0 * x;
  return c * x + sin(c);
}

typedef double (*prim_t)(const double *, int);
typedef double (*adj_t)(const double *, double *, int, double);
double const_loop_b(const double *x, double *x_b, int n, double seed);
double struct_init_b(const double *x, double *x_b, int n, double seed);
double const_ret_b(double x, double *x_b, double seed);
#define NF 2
static prim_t prims[NF] = {const_loop, struct_init};
static adj_t adjs[NF] = {const_loop_b, struct_init_b};
static const char *names[NF] = {"const locals in a loop",
                                "struct with a brace initialiser"};

/* The gradients, derived by hand. */
static void expected(int k, const double *x, double *g) {
  double s = 0.0;
  for (int i = 0; i < N; i++)
    s += x[i];
  for (int i = 0; i < N; i++)
    g[i] = k == 0 ? 6.0 * x[i] : 6.0 * x[1];
  if (k == 0)
    g[0] += 4.0 * x[0];
  else
    g[1] += 6.0 * s;
}

typedef struct {
  double *x;
  int which;
} ctx_t;

/* Every result is replicated (counted once): J is the function itself. */
static double J(void *p) {
  ctx_t *c = p;
  return prims[c->which](c->x, N);
}

static double Jr(void *p) { return const_ret(*(double *)p); }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  char label[256];
  for (int k = 0; k < NF; k++) {
    double x[N] = {0.8, -0.6, 1.3, 0.9, -0.2}, x_b[N], want[N], dx[N];
    hx_zero(x_b, N);
    double f = adjs[k](x, x_b, N, 1.0);
    hx_tape(names[k]);
    snprintf(label, sizeof label, "%s: primal value", names[k]);
    hx_check_each(label, f, prims[k](x, N), 1e-15, 1e-300);
    expected(k, x, want);
    snprintf(label, sizeof label, "%s: gradient vs hand-derived", names[k]);
    hx_check_vec(label, x_b, want, N, 1e-14, 1e-14);
    hx_rand(dx, N, 970 + k, HX_REP, -1.0, 1.0);
    ctx_t c = {x, k};
    mpiad_input in = {x, dx, N, 1};
    double *xb[1] = {x_b};
    hx_grad(names[k], J, &c, &in, 1, xb, 1e-6, 1e-7, 1e-10);
  }
  {
    double x = 0.7, x_b = 0.0, dx = 1.0;
    double f = const_ret_b(x, &x_b, 1.0);
    hx_tape("const return type");
    hx_check_each("const return type: primal value", f, const_ret(x), 1e-15,
                  1e-300);
    hx_check_each("const return type: gradient vs hand-derived", x_b,
                  4.0 * x + 2.0 * cos(2.0 * x), 1e-14, 1e-300);
    mpiad_input in = {&x, &dx, 1, 1};
    double *xb[1] = {&x_b};
    hx_grad("const return type", Jr, &x, &in, 1, xb, 1e-6, 1e-7, 1e-10);
  }
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
