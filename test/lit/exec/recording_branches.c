// Recording decisions across the branches of an if (issue 21, part 5).  In
// `t = x0; if (x1 > 0) s = x0; else s = t * t; t = 5; return s x1 + t;` the
// else branch reads t, which is then overwritten: the old t must be
// recorded whichever branch the forward sweep took.  A recording analysis
// that forgot the reads of one branch gave x_b[0] = -13.0 at x = (0.7, -1.3)
// (want -1.82) and failed no test.  Also the mirror case (the read in the
// then branch), and a loop whose branches alternate.  x differs between
// ranks; each rank takes its own branches.
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

#pragma mpiad differentiate wrt(x) varying(x)
double else_reads(const double *x) {
  double t = x[0], s;
  if (x[1] > 0)
    s = x[0];
  else
    s = t * t;
  t = 5.0;
  return s * x[1] + t;
}

#pragma mpiad differentiate wrt(x) varying(x)
double then_reads(const double *x) {
  double t = x[0], s;
  if (x[1] < 0)
    s = sin(t) * t;
  else
    s = x[0];
  t = x[1] * 3.0;
  return s * x[1] + t * t;
}

#pragma mpiad differentiate wrt(x) varying(x)
double alternating(const double *x) {
  double t = x[0], s = 0.0;
  for (int k = 0; k < 4; k++) {
    if (k % 2 == 0)
      s += t * t;
    else
      s += x[1] * s;
    t = t * x[1];
  }
  return s;
}

double else_reads_b(const double *x, double *x_b, double f_bar);
double then_reads_b(const double *x, double *x_b, double f_bar);
double alternating_b(const double *x, double *x_b, double f_bar);

typedef double (*prim_t)(const double *);
typedef double (*adj_t)(const double *, double *, double);
#define NF 3
static prim_t prims[NF] = {else_reads, then_reads, alternating};
static adj_t adjs[NF] = {else_reads_b, then_reads_b, alternating_b};
static const char *names[NF] = {"read in else", "read in then",
                                "alternating branches in a loop"};

static void expected(int k, const double *x, double *g) {
  double a = x[0], b = x[1];
  if (k == 0) {
    if (b > 0) { /* a b + 5 */
      g[0] = b;
      g[1] = a;
    } else { /* a^2 b + 5 */
      g[0] = 2.0 * a * b;
      g[1] = a * a;
    }
  } else if (k == 1) {
    if (b < 0) { /* a sin(a) b + 9 b^2 */
      g[0] = (sin(a) + a * cos(a)) * b;
      g[1] = a * sin(a) + 18.0 * b;
    } else { /* a b + 9 b^2 */
      g[0] = b;
      g[1] = a + 18.0 * b;
    }
  } else {
    /* s0 = a^2; s1 = s0 (1 + b); s2 = s1 + a^2 b^4; s3 = s2 (1 + b) */
    double s0 = a * a, s1 = s0 * (1 + b), s2 = s1 + a * a * pow(b, 4);
    (void)s2;
    /* s3 = (a^2 (1 + b) + a^2 b^4)(1 + b) */
    g[0] = 2.0 * a * ((1 + b) + pow(b, 4)) * (1 + b);
    g[1] = a * a * ((1 + 4.0 * pow(b, 3)) * (1 + b) + ((1 + b) + pow(b, 4)));
  }
}

typedef struct {
  double *x;
  int which;
} ctx_t;

static double J(void *q) {
  ctx_t *c = q;
  double f = prims[c->which](c->x), g;
  MPI_Allreduce(&f, &g, 1, MPI_DOUBLE, MPI_SUM, hx_comm_g);
  return g;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  char label[256];
  for (int k = 0; k < NF; k++) {
    /* Rank 0 is the point; odd ranks take the other branch. */
    double x[2] = {0.7 + 0.1 * hx_rank_g, hx_rank_g % 2 ? 0.9 : -1.3};
    double x_b[2] = {0.0, 0.0}, want[2], dx[2];
    double f = adjs[k](x, x_b, 1.0);
    hx_tape(names[k]);
    snprintf(label, sizeof label, "%s: primal value", names[k]);
    hx_check_each(label, f, prims[k](x), 1e-15, 1e-300);
    expected(k, x, want);
    snprintf(label, sizeof label, "%s: gradient vs hand-derived", names[k]);
    hx_check_vec(label, x_b, want, 2, 1e-13, 1e-13);
    hx_rand(dx, 2, 500 + k, hx_rank_g, -1.0, 1.0);
    ctx_t c = {x, k};
    mpiad_input in = {x, dx, 2, 0};
    double *xb[1] = {x_b};
    hx_grad(names[k], J, &c, &in, 1, xb, 1e-6, 1e-7, 1e-10);
  }
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
