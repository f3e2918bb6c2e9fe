// A replicated input reassigned in a loop that a rank-varying value may leave
// early (issue 21, 2nd case).  `b` is equal on all ranks on entry; its later
// versions vary (the break depends on the per-rank `a`).  J is the sum over
// ranks of b^2 a_r, so dJ/db = 2 b sum_r a_r on every rank.  Each rank's
// adjoint is only its own share 2 b a_r: the tool must sum the shares over
// ranks (the gradient came out 0.4 and 0.6 at 2 ranks instead of 1.0).
// Also a rank-dependent branch on the replicated value itself, and the same
// with the reassignment in a branch on the rank.  Checked against the closed
// form and central differences of the global objective.
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

/* v = b^2 a; b is then reassigned under the varying exit. */
#pragma mpiad differentiate wrt(b) replicated(b) varying(a)
double loop_exit(double b, double a) {
  double v = b * b * a;
  for (int i = 0; i < 2; i++) {
    b = b - 1.0;
    if (a < 0.5)
      break;
  }
  return v;
}

/* v = b^2 a, then b reassigned only on some ranks, and read afterwards:
 * v + b a = b^2 a + (b - 1 if a < 0.5 else b) a. */
#pragma mpiad differentiate wrt(b) replicated(b) varying(a)
double rank_branch(double b, double a) {
  double v = b * b * a;
  if (a < 0.5)
    b = b - 1.0;
  return v + b * a;
}

double loop_exit_b(double b, double *b_b, double a, double f_bar);
double rank_branch_b(double b, double *b_b, double a, double f_bar);

typedef double (*prim_t)(double, double);
typedef double (*adj_t)(double, double *, double, double);
#define NF 2
static prim_t prims[NF] = {loop_exit, rank_branch};
static adj_t adjs[NF] = {loop_exit_b, rank_branch_b};
static const char *names[NF] = {"loop with a rank-varying exit",
                                "branch on a rank-varying value"};

typedef struct {
  double *b;
  double a;
  int which;
} ctx_t;

static double J(void *p) {
  ctx_t *c = p;
  double f = prims[c->which](c->b[0], c->a), g;
  MPI_Allreduce(&f, &g, 1, MPI_DOUBLE, MPI_SUM, hx_comm_g);
  return g;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  char label[256];
  double a = 0.4 + 0.2 * hx_rank_g, sum_a = 0.0;
  for (int r = 0; r < hx_size_g; r++)
    sum_a += 0.4 + 0.2 * r;
  for (int k = 0; k < NF; k++) {
    double b = 0.5, b_b = 0.0, db = 1.0;
    double f = adjs[k](b, &b_b, a, 1.0);
    hx_tape(names[k]);
    snprintf(label, sizeof label, "%s: primal value", names[k]);
    hx_check_each(label, f, prims[k](b, a), 1e-15, 1e-300);
    /* d/db sum_r (b^2 a_r [+ b a_r or (b - 1) a_r]) */
    double want = 2.0 * b * sum_a + (k == 1 ? sum_a : 0.0);
    snprintf(label, sizeof label, "%s: gradient vs closed form", names[k]);
    hx_check_each(label, b_b, want, 1e-14, 1e-14);
    ctx_t c = {&b, a, k};
    mpiad_input in = {&b, &db, 1, 1};
    double *xb[1] = {&b_b};
    hx_grad(names[k], J, &c, &in, 1, xb, 1e-6, 1e-7, 1e-10);
  }
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
