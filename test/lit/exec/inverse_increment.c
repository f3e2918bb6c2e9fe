// Integer counters incremented by a constant (`buf[k++] = ...`, `k += 3`,
// `j -= 2`, under a branch, in a while loop) whose old values the reverse
// sweep needs are computed back (`k--`, Transform.cpp inverseIncrement)
// instead of recorded; the resets (`k = 0`) of a counter reused by several
// loops are recorded.  Gradients against central differences of the primal
// and forward mode by the dot-product test, at 1-4 ranks, with an empty tape
// after each adjoint.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
// RUN: %mpiad-emit %s -I%S/../Inputs -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck --check-prefix=GEN %s
// GEN-LABEL: double packs_b(
// GEN: {{^}}  k = 0;
// GEN-NEXT: for (int i = 0; i < n; i++) {
// GEN-NEXT: buf[k] = x[i] * x[i];
// GEN-NEXT: k += 3;
// GEN: mpiad_push_i64(k);
// GEN-NEXT: mpiad_push_i64(k);
// GEN-NEXT: k = 1;
// GEN: /* reverse sweep */
// GEN: k--;
// GEN: k = mpiad_pop_i64();
// GEN: k -= 3;
// GEN-LABEL: double branchy_b(
// GEN: out[k] = exp(0.5 * x[i]);
// GEN-NEXT: k++;
// GEN: /* reverse sweep */
// GEN: k--;
// GEN-LABEL: double walk_b(
// GEN: j += 2;
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

#define NX 6

/* One counter for two packing loops: its reset between them is recorded. */
#pragma mpiad differentiate wrt(x) varying(x)
#pragma mpiad differentiate forward wrt(x) varying(x)
double packs(const double *x, int n, MPI_Comm comm) {
  double buf[3 * NX + 3];
  for (int c = 0; c < 3 * NX + 3; c++)
    buf[c] = 0.0;
  int k = 0;
  for (int i = 0; i < n; i++) {
    buf[k] = x[i] * x[i];
    k += 3;
  }
  double s = 0.0;
  for (int c = 0; c < k; c++)
    s += buf[c] * (1.0 + 0.1 * c);
  k = 1;
  for (int i = 0; i < n; i++)
    buf[k++] = sin(x[i]) * s;
  double t = 0.0;
  for (int c = 0; c < 3 * NX + 3; c++)
    t += buf[c] * buf[c];
  double g = 0.0;
  MPI_Allreduce(&t, &g, 1, MPI_DOUBLE, MPI_SUM, comm);
  return g;
}

/* Packed only where x[i] > 0: the reverse takes the branch again. */
#pragma mpiad differentiate wrt(x) varying(x)
#pragma mpiad differentiate forward wrt(x) varying(x)
double branchy(const double *x, int n, MPI_Comm comm) {
  double out[NX];
  int k = 0;
  for (int i = 0; i < n; i++)
    if (x[i] > 0.0)
      out[k++] = exp(0.5 * x[i]);
  double s = 0.0;
  for (int c = 0; c < k; c++)
    s += out[c] * out[c] * (c + 1);
  double g = 0.0;
  MPI_Allreduce(&s, &g, 1, MPI_DOUBLE, MPI_SUM, comm);
  return g;
}

/* A while loop stepping down by 2 over a local array. */
#pragma mpiad differentiate wrt(x) varying(x)
#pragma mpiad differentiate forward wrt(x) varying(x)
double walk(const double *x, int n, MPI_Comm comm) {
  double a[NX];
  for (int c = 0; c < NX; c++)
    a[c] = x[c % n];
  int j = n - 1;
  double s = 0.0;
  while (j >= 0) {
    a[j] = a[j] * a[j] + 0.5;
    s += a[j] * x[j];
    j -= 2;
  }
  double g = 0.0;
  MPI_Allreduce(&s, &g, 1, MPI_DOUBLE, MPI_SUM, comm);
  return g;
}

typedef struct {
  int which;
  double *x;
} ctx_t;

static double J(void *p) {
  ctx_t *c = p;
  MPI_Comm w = MPI_COMM_WORLD;
  return c->which == 0   ? packs(c->x, NX, w)
         : c->which == 1 ? branchy(c->x, NX, w)
                         : walk(c->x, NX, w);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  MPI_Comm w = MPI_COMM_WORLD;
  const char *names[] = {"packs", "branchy", "walk"};
  for (int which = 0; which < 3; which++) {
    double x[NX], dx[NX], xb[NX] = {0}, xd[NX], jd = 0.0;
    hx_rand(x, NX, 60 + which, hx_rank_g, -1.0, 1.0);
    hx_rand(dx, NX, 70 + which, hx_rank_g, -1.0, 1.0);
    ctx_t c = {which, x};
    double v = which == 0   ? packs_b(x, xb, NX, w, 1.0)
               : which == 1 ? branchy_b(x, xb, NX, w, 1.0)
                            : walk_b(x, xb, NX, w, 1.0);
    char label[128];
    snprintf(label, sizeof label, "%s: value", names[which]);
    hx_check(label, v, J(&c), 1e-14, 1e-300);
    hx_tape(names[which]);
    mpiad_input in = {x, dx, NX, 0};
    double *xbp[1] = {xb};
    hx_grad(names[which], J, &c, &in, 1, xbp, 1e-6, 1e-7, 1e-10);
    memcpy(xd, dx, sizeof xd);
    if (which == 0)
      packs_d(x, xd, NX, w, &jd);
    else if (which == 1)
      branchy_d(x, xd, NX, w, &jd);
    else
      walk_d(x, xd, NX, w, &jd);
    hx_dot_test(names[which], jd, &in, 1, xbp, 1e-12);
  }
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
