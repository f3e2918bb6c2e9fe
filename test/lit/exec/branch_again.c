// Branches taken again instead of recorded (Reverse.cpp ifStmt,
// stableOrAgain, restoredLocals): the reverse sweep decides a branch again
// from its condition when every variable of it holds, there, what the forward
// sweep saw: a local of the loop body that the tape records anyway (the
// logistic loss's m: 8 bytes per sample instead of 16; since the loop's
// adjoint runs inside the loop, DeferredSeed.cpp, m is the iteration's own
// there and recorded no more), or one the reverse computes again (t).  Where that is not so, the branch is still recorded: a
// variable declared outside the loop (c), assigned after the branch (q) or
// inside it (p), or one that nothing records (q in `unrecorded`).  Each
// function is checked against central differences at 1-4 ranks, forward
// against reverse by the dot-product test, with an empty tape after each
// adjoint.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
// RUN: %mpiad-emit %s -I%S/../Inputs -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck --check-prefix=GEN %s
// GEN-LABEL: double loss_b(
// GEN-NOT: mpiad_push
// GEN: /* adjoint of this iteration, for local_b = 1 (the reverse sweep scales it by local_b) */
// GEN-NEXT: if (m > 0.0) {
// GEN: /* reverse sweep */
// GEN-NOT: mpiad_pop
// GEN: /* adjoint of the loop, run inside it for local_b = 1: times local_b */
// GEN-LABEL: double later_b(
// GEN-NOT: mpiad_push_i64
// GEN: if (t > 0.0) {
// GEN: if (g < c) {
// GEN-NEXT: s += g * x[i];
// GEN-NEXT: mpiad_push_i64(1);
// GEN: /* reverse sweep */
// GEN: if (mpiad_pop_i64()) {
// GEN: if (t > 0.0) {
// GEN-LABEL: double after_b(
// GEN: mpiad_push_i64(1);
// GEN: mpiad_push_i64(1);
// GEN-LABEL: double unrecorded_b(
// GEN: mpiad_push_i64(1);
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/* samples/fitting's loss, without the regularisation */
#pragma mpiad differentiate wrt(w, b) replicated(w, b, d) varying(X, y, n)
#pragma mpiad differentiate forward wrt(w, b) replicated(w, b, d) varying(X, y, n)
double loss(const double *w, double b, const double *X, const double *y, int n,
            int d, MPI_Comm comm) {
  double local = 0.0;
  for (int i = 0; i < n; i++) {
    double z = b;
    for (int j = 0; j < d; j++)
      z += w[j] * X[i * d + j];
    double m = -y[i] * z;
    if (m > 0.0)
      local += m + log(1.0 + exp(-m));
    else
      local += log(1.0 + exp(m));
  }
  double total = 0.0;
  MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, comm);
  return total;
}

/* a branch on t, computed again by the reverse; then one on g and c, where
   c is declared outside the loop: recorded */
#pragma mpiad differentiate wrt(x) varying(x)
#pragma mpiad differentiate forward wrt(x) varying(x)
double later(const double *x, int n) {
  double s = 0.0, c = 0.0;
  for (int i = 0; i < n; i++) {
    double t = x[i] - 0.5;
    if (t > 0.0)
      s += t * t * x[(i + 1) % n];
    else
      s += sin(t) * x[i];
    double g = 0.25;
    for (int j = 0; j < n; j++)
      g -= x[j] * x[j] * 0.1;
    if (g < c)
      s += g * x[i];
    c = g * x[i] + t;
    s += c * c;
  }
  return s;
}


/* a branch on q, assigned again after it, and one on p, assigned inside
   it: both recorded */
#pragma mpiad differentiate wrt(x) varying(x)
#pragma mpiad differentiate forward wrt(x) varying(x)
double after(const double *x, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    double q = x[i] * x[(i + 2) % n];
    if (q > 0.1)
      s += q * q;
    q = q * x[i] + 1.0;
    s += sin(q);
    double p = x[(i + 1) % n] - 0.3;
    if (p > 0.0)
      p = p * p * x[i];
    s += p * x[(i + 3) % n];
  }
  return s;
}

/* a branch on q, which nothing records (its uses are linear) and the
   reverse cannot compute again (a changes): recorded */
#pragma mpiad differentiate wrt(x) varying(x)
#pragma mpiad differentiate forward wrt(x) varying(x)
double unrecorded(const double *x, int n) {
  double *a = malloc(n * sizeof(double));
  for (int k = 0; k < n; k++)
    a[k] = x[k];
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    double q = a[i] + x[i];
    if (q > 1.0)
      s += x[i] * x[i];
    else
      s -= x[i];
    a[(i + 1) % n] = a[(i + 1) % n] * 0.5 + x[i];
  }
  free(a);
  return s;
}

#define N 7
#define D 3

typedef struct {
  double *w, *b, *X, *y, *x;
  int which;
} ctx_t;

static double J(void *p) {
  ctx_t *c = p;
  MPI_Comm comm = MPI_COMM_WORLD;
  if (c->which == 0)
    return loss(c->w, *c->b, c->X, c->y, N, D, comm);
  double v = c->which == 1   ? later(c->x, N)
             : c->which == 2 ? after(c->x, N)
                             : unrecorded(c->x, N);
  double t = 0.0;
  MPI_Allreduce(&v, &t, 1, MPI_DOUBLE, MPI_SUM, comm);
  return t;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  MPI_Comm comm = MPI_COMM_WORLD;
  double w[D], b = 0.3, X[N * D], y[N], x[N];
  hx_rand(w, D, 1, 0, -1.0, 1.0);
  hx_rand(X, N * D, 2, hx_rank_g, -1.5, 1.5);
  hx_rand(x, N, 3, hx_rank_g, -0.5, 1.5);
  for (int i = 0; i < N; i++)
    y[i] = (i + hx_rank_g) % 2 ? 1.0 : -1.0;
  ctx_t c = {w, &b, X, y, x, 0};

  /* loss: replicated w and b */
  double w_b[D] = {0}, b_b = 0.0, dw[D], db = 0.7;
  hx_rand(dw, D, 4, 0, -1.0, 1.0);
  loss_b(w, w_b, b, &b_b, X, y, N, D, comm, 1.0);
  hx_tape("loss_b");
  mpiad_input in0[] = {{w, dw, D, 1}, {&b, &db, 1, 1}};
  hx_grad("loss_b", J, &c, in0, 2, (double *const[]){w_b, &b_b}, 1e-6, 1e-6, 1e-9);
  double ld = 0.0, lv = loss_d(w, dw, b, db, X, y, N, D, comm, &ld);
  hx_check("loss_d value", lv, J(&c), 1e-13, 1e-300);
  hx_check("loss: dot-product test", ld, dw[0] * w_b[0] + dw[1] * w_b[1] + dw[2] * w_b[2] + db * b_b, 1e-12, 1e-300);

  /* later and after: varying x, the objective sums over ranks */
  double dx[N];
  hx_rand(dx, N, 5, hx_rank_g, -1.0, 1.0);
  for (int which = 1; which <= 3; which++) {
    c.which = which;
    const char *name = which == 1 ? "later_b" : which == 2 ? "after_b" : "unrecorded_b";
    double x_b[N] = {0}, fd = 0.0;
    if (which == 1) {
      later_b(x, x_b, N, 1.0);
      later_d(x, dx, N, &fd);
    } else if (which == 2) {
      after_b(x, x_b, N, 1.0);
      after_d(x, dx, N, &fd);
    } else {
      unrecorded_b(x, x_b, N, 1.0);
      unrecorded_d(x, dx, N, &fd);
    }
    hx_tape(name);
    mpiad_input in2[] = {{x, dx, N, 0}};
    hx_grad(name, J, &c, in2, 1, (double *const[]){x_b}, 1e-6, 1e-6, 1e-9);
    double l = 0.0;
    for (int k = 0; k < N; k++)
      l += dx[k] * x_b[k];
    char label[64];
    snprintf(label, sizeof label, "%.*s: dot-product test", (int)strlen(name) - 2, name);
    hx_check(label, hx_sum(fd), hx_sum(l), 1e-12, 1e-300);
  }
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
