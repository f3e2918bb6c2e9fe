// DESIGN.md section 2 worked examples (the PyTorch thread), with exact expected
// numbers generalised to P ranks (r = rank, x = 1 on every rank, T = sum_r (r+2)):
//   E1: s = Allreduce_SUM((r+2)x); y = s*s     global x_b = 2T(r+2), per_rank P*2T(r+2)
//       (P=2: 20,30 and 40,60)
//   E2: y = (r+2) * Allreduce_SUM((r+2)x)      x_b = T(r+2) in both (P=2: 10,15)
// plus central differences at random x and the dot-product test for linear E2.
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

/* E1, return value (replicated: computed from an Allreduce result). */
#pragma mpiad differentiate wrt(x) varying(x)
double e1(const double *x, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double a = (r + 2) * x[0];
  double s = 0.0;
  MPI_Allreduce(&a, &s, 1, MPI_DOUBLE, MPI_SUM, comm);
  return s * s;
}

/* E1, output through a pointer declared replicated. */
#pragma mpiad differentiate wrt(x) output(y) replicated(y) name(e1p_b) varying(x)
void e1p(const double *x, double *y, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double a = (r + 2) * x[0];
  double s = 0.0;
  MPI_Allreduce(&a, &s, 1, MPI_DOUBLE, MPI_SUM, comm);
  y[0] = s * s;
}

/* E1 under per_rank semantics. */
#pragma mpiad differentiate wrt(x) semantics(per_rank) name(e1_pr)
double e1r(const double *x, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double a = (r + 2) * x[0];
  double s = 0.0;
  MPI_Allreduce(&a, &s, 1, MPI_DOUBLE, MPI_SUM, comm);
  return s * s;
}

/* E2 (varying output), global. */
#pragma mpiad differentiate wrt(x) varying(x)
double e2(const double *x, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double a = (r + 2) * x[0];
  double s = 0.0;
  MPI_Allreduce(&a, &s, 1, MPI_DOUBLE, MPI_SUM, comm);
  return (r + 2) * s;
}

/* E2 under per_rank semantics. */
#pragma mpiad differentiate wrt(x) semantics(per_rank) name(e2_pr)
double e2r(const double *x, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double a = (r + 2) * x[0];
  double s = 0.0;
  MPI_Allreduce(&a, &s, 1, MPI_DOUBLE, MPI_SUM, comm);
  return (r + 2) * s;
}

typedef struct {
  double *x;
  int which;
} ctx_t;

static double sum_ranks(double v) {
  double s = 0.0;
  MPI_Allreduce(&v, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return s;
}

/* Global objective of each variant, seed 1. */
static double J(void *p) {
  ctx_t *c = p;
  MPI_Comm w = MPI_COMM_WORLD;
  double y;
  switch (c->which) {
  case 0: return e1(c->x, w);                  /* replicated: counts once */
  case 1: e1p(c->x, &y, w); return y;          /* replicated pointer output */
  case 2: return sum_ranks(e1r(c->x, w));      /* per_rank: sum over ranks */
  case 3: return sum_ranks(e2(c->x, w));       /* varying: sum over ranks */
  default: return sum_ranks(e2r(c->x, w));
  }
}

static double run_b(int which, double *x, double *xb) {
  MPI_Comm w = MPI_COMM_WORLD;
  double y = 0.0, yb = 1.0;
  *xb = 0.0;
  switch (which) {
  case 0: return e1_b(x, xb, w, 1.0);
  case 1: e1p_b(x, xb, &y, &yb, w); return y;
  case 2: return e1_pr(x, xb, w, 1.0);
  case 3: return e2_b(x, xb, w, 1.0);
  default: return e2_pr(x, xb, w, 1.0);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  int r = hx_rank_g, P = hx_size_g;
  double T = P * (P - 1) / 2.0 + 2.0 * P;
  const char *names[5] = {"E1 global (return)", "E1 global (replicated pointer)",
                          "E1 per_rank", "E2 global", "E2 per_rank"};
  double want[5] = {2 * T * (r + 2), 2 * T * (r + 2), P * 2 * T * (r + 2),
                    T * (r + 2), T * (r + 2)};
  char label[256];

  for (int k = 0; k < 5; k++) {
    /* exact numbers at x = 1 */
    double x = 1.0, xb = 0.0;
    run_b(k, &x, &xb);
    snprintf(label, sizeof label, "%s x=1 x_b", names[k]);
    hx_check_each(label, xb, want[k], 1e-14, 1e-14);
    hx_tape(names[k]);
    /* exact primal value returned where the output is the return value */
    if (k != 1) {
      double got = run_b(k, &x, &xb);
      double pv = (k <= 2) ? T * T : (r + 2) * T;
      snprintf(label, sizeof label, "%s primal value", names[k]);
      hx_check_each(label, got, pv, 1e-14, 1e-14);
      hx_tape(names[k]);
    }

    /* central differences at a random x, random direction */
    double dx;
    hx_rand(&x, 1, 11 + k, r, 0.5, 1.5);
    hx_rand(&dx, 1, 21 + k, r, -1.0, 1.0);
    run_b(k, &x, &xb);
    hx_tape(names[k]);
    ctx_t c = {&x, k};
    mpiad_input in = {&x, &dx, 1, 0};
    double *xbs[1] = {&xb};
    hx_grad(names[k], J, &c, &in, 1, xbs, 1e-6, 1e-6, 1e-10);
  }

  /* dot-product test for linear E2 (global and per_rank): <E2(dx), 1> summed over
   * ranks (varying output) against <dx, x_b>. */
  for (int k = 3; k < 5; k++) {
    double dx, xb;
    hx_rand(&dx, 1, 31 + k, r, -1.0, 1.0);
    ctx_t c = {&dx, k};
    double lhs = J(&c); /* the primal applied to dx, seed 1 */
    double x = 0.3;
    run_b(k, &x, &xb);
    mpiad_input in = {&x, &dx, 1, 0};
    double *xbs[1] = {&xb};
    hx_dot_test(names[k], lhs, &in, 1, xbs, 1e-12);
  }

  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
