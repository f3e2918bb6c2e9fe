// Every math.h function of the contract, one per input element, at safe
// arguments: per-element adjoints against hand-derived derivatives, plus
// central differences along a random direction.  The output is varying with a
// per-rank seed (J = sum_r seed_r f_r).
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

#define NU 25
#define NB 6

#pragma mpiad differentiate wrt(x)
double unary(const double *x, MPI_Comm comm) {
  double s = 0.0;
  s += 1.5 * sqrt(x[0]);
  s += 0.5 * exp(x[1]);
  s += 2.0 * log(x[2]);
  s += log10(x[3]);
  s += log1p(x[4]);
  s += expm1(x[5]);
  s += sin(x[6]);
  s += cos(x[7]);
  s += tan(x[8]);
  s += asin(x[9]);
  s += acos(x[10]);
  s += atan(x[11]);
  s += sinh(x[12]);
  s += cosh(x[13]);
  s += tanh(x[14]);
  s += fabs(x[15]);
  s += fabs(x[16]);
  s += cbrt(x[17]);
  s += erf(x[18]);
  s += x[19] * floor(3.0 * x[19]);
  s += x[20] * ceil(3.0 * x[20]);
  s += pow(x[21], 3.0);
  s += pow(2.0, x[22]);
  s += sin(exp(x[23]));
  s += -x[24] * sqrt(1.0 + x[24] * x[24]);
  return s;
}

#pragma mpiad differentiate wrt(a, b) varying(a, b)
double binary(const double *a, const double *b, MPI_Comm comm) {
  double s = 0.0;
  s += pow(a[0], b[0]);
  s += atan2(a[1], b[1]);
  s += hypot(a[2], b[2]);
  s += fmin(a[3], b[3]);
  s += fmax(a[4], b[4]);
  s += fmin(a[5], b[5]) * fmax(a[5], b[5]);
  return s;
}

static const double lo[NU] = {0.5, -1.0, 0.5, 0.5, -0.5, -1.0, -1.0, -1.0, -0.7, -0.7,
                              -0.7, -2.0, -1.0, -1.0, -1.0, 0.3, -2.0, 0.5, -1.0,
                              0.05, 0.05, 0.5, -1.0, -1.0, -1.0};
static const double hi[NU] = {2.0, 1.0, 2.0, 2.0, 1.0, 1.0, 1.0, 1.0, 0.7, 0.7,
                              0.7, 2.0, 1.0, 1.0, 1.0, 2.0, -0.3, 2.0, 1.0,
                              0.28, 0.28, 2.0, 1.0, 1.0, 1.0};

static void dunary(const double *x, double *g) {
  g[0] = 1.5 * 0.5 / sqrt(x[0]);
  g[1] = 0.5 * exp(x[1]);
  g[2] = 2.0 / x[2];
  g[3] = 1.0 / (x[3] * log(10.0));
  g[4] = 1.0 / (1.0 + x[4]);
  g[5] = exp(x[5]);
  g[6] = cos(x[6]);
  g[7] = -sin(x[7]);
  g[8] = 1.0 / (cos(x[8]) * cos(x[8]));
  g[9] = 1.0 / sqrt(1.0 - x[9] * x[9]);
  g[10] = -1.0 / sqrt(1.0 - x[10] * x[10]);
  g[11] = 1.0 / (1.0 + x[11] * x[11]);
  g[12] = cosh(x[12]);
  g[13] = sinh(x[13]);
  g[14] = 1.0 - tanh(x[14]) * tanh(x[14]);
  g[15] = 1.0;
  g[16] = -1.0;
  g[17] = 1.0 / (3.0 * cbrt(x[17]) * cbrt(x[17]));
  g[18] = 2.0 / sqrt(M_PI) * exp(-x[18] * x[18]);
  g[19] = floor(3.0 * x[19]);
  g[20] = ceil(3.0 * x[20]);
  g[21] = 3.0 * x[21] * x[21];
  g[22] = pow(2.0, x[22]) * log(2.0);
  g[23] = cos(exp(x[23])) * exp(x[23]);
  g[24] = -sqrt(1.0 + x[24] * x[24]) - x[24] * x[24] / sqrt(1.0 + x[24] * x[24]);
}

static void dbinary(const double *a, const double *b, double *ga, double *gb) {
  ga[0] = b[0] * pow(a[0], b[0] - 1.0);
  gb[0] = pow(a[0], b[0]) * log(a[0]);
  double r2 = a[1] * a[1] + b[1] * b[1];
  ga[1] = b[1] / r2;
  gb[1] = -a[1] / r2;
  double h = hypot(a[2], b[2]);
  ga[2] = a[2] / h;
  gb[2] = b[2] / h;
  ga[3] = a[3] < b[3] ? 1.0 : 0.0;
  gb[3] = a[3] < b[3] ? 0.0 : 1.0;
  ga[4] = a[4] > b[4] ? 1.0 : 0.0;
  gb[4] = a[4] > b[4] ? 0.0 : 1.0;
  ga[5] = b[5]; /* min*max = a*b */
  gb[5] = a[5];
}

typedef struct {
  double *x, *a, *b, seed;
} ctx_t;

static double Ju(void *p) {
  ctx_t *c = p;
  double v = c->seed * unary(c->x, MPI_COMM_WORLD), s;
  MPI_Allreduce(&v, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return s;
}
static double Jb(void *p) {
  ctx_t *c = p;
  double v = c->seed * binary(c->a, c->b, MPI_COMM_WORLD), s;
  MPI_Allreduce(&v, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return s;
}

static const char *uname[NU] = {"sqrt", "exp", "log", "log10", "log1p", "expm1", "sin",
                                "cos", "tan", "asin", "acos", "atan", "sinh", "cosh",
                                "tanh", "fabs(+)", "fabs(-)", "cbrt", "erf",
                                "x*floor(3x)", "x*ceil(3x)", "pow(x,3)", "pow(2,x)",
                                "sin(exp(x))", "-x*sqrt(1+x^2)"};
static const char *bname[NB] = {"pow(a,b)", "atan2", "hypot", "fmin", "fmax",
                                "fmin*fmax"};

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  int r = hx_rank_g;
  double seed = 0.5 + 0.25 * r;
  char label[256];

  double x[NU], x_b[NU], g[NU], dx[NU];
  for (int k = 0; k < NU; k++) {
    double t;
    hx_rand(&t, 1, 1000 + k, r, 0.0, 1.0);
    x[k] = lo[k] + (hi[k] - lo[k]) * t;
  }
  hx_zero(x_b, NU);
  double f = unary_b(x, x_b, MPI_COMM_WORLD, seed);
  hx_tape("unary_b");
  hx_check_each("unary primal value", f, unary(x, MPI_COMM_WORLD), 1e-15, 1e-15);
  dunary(x, g);
  for (int k = 0; k < NU; k++) {
    snprintf(label, sizeof label, "d %s", uname[k]);
    hx_check_each(label, x_b[k], seed * g[k], 1e-13, 1e-15);
  }
  hx_rand(dx, NU, 77, r, -1.0, 1.0);
  dx[19] = dx[20] = 0.0; /* keep 3x away from the jumps of floor/ceil */
  ctx_t c = {x, 0, 0, seed};
  mpiad_input in = {x, dx, NU, 0};
  double *xb[1] = {x_b};
  hx_grad("unary", Ju, &c, &in, 1, xb, 1e-6, 1e-6, 1e-10);

  double a[NB] = {1.3, 0.7, 1.2, 0.4, 0.4, 0.6}, b[NB] = {1.7, -0.5, -0.8, 0.9, 0.9, 1.1};
  if (r % 2) { /* other branches of fmin/fmax on odd ranks */
    a[3] = 1.4; a[4] = 1.4; a[5] = 1.6;
  }
  for (int k = 0; k < NB; k++) {
    a[k] += 0.01 * r;
    b[k] -= 0.01 * r;
  }
  double a_b[NB], b_b[NB], ga[NB], gb[NB], da[NB], db[NB];
  hx_zero(a_b, NB);
  hx_zero(b_b, NB);
  f = binary_b(a, a_b, b, b_b, MPI_COMM_WORLD, seed);
  hx_tape("binary_b");
  hx_check_each("binary primal value", f, binary(a, b, MPI_COMM_WORLD), 1e-15, 1e-15);
  dbinary(a, b, ga, gb);
  for (int k = 0; k < NB; k++) {
    snprintf(label, sizeof label, "d %s / da", bname[k]);
    hx_check_each(label, a_b[k], seed * ga[k], 1e-13, 1e-15);
    snprintf(label, sizeof label, "d %s / db", bname[k]);
    hx_check_each(label, b_b[k], seed * gb[k], 1e-13, 1e-15);
  }
  hx_rand(da, NB, 78, r, -1.0, 1.0);
  hx_rand(db, NB, 79, r, -1.0, 1.0);
  ctx_t c2 = {0, a, b, seed};
  mpiad_input in2[2] = {{a, da, NB, 0}, {b, db, NB, 0}};
  double *xb2[2] = {a_b, b_b};
  hx_grad("binary", Jb, &c2, in2, 2, xb2, 1e-6, 1e-6, 1e-10);

  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
