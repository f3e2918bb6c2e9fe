// Length inference of a replicated array counts the accesses of callees
// (issue 13): `loss` bounds w by its own loop (j < d), while `predict` also
// reads the bias w[d] stored after the weights.  The per-rank share of w's
// gradient must hold d + 1 values: with d of them the reverse helper of
// predict wrote past the buffer (ASan: heap-buffer-overflow in the sanitizer
// build) and the bias gradient came out wrong on some ranks.  `loss2` reaches
// the bias through two callees and a pointer offset (bias_of(w + d)).
// Checks at 1-4 ranks, with a different sample count on each rank: central
// differences in w (bias included) and x, w's adjoint bitwise equal on all
// ranks, the tape empty.  Under the sanitizer build the same run is checked by
// ASan and UBSan.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// The share is allocated with the length of every access: d + 1.
// RUN: %mpiad-emit %s -I%S/../Inputs -o - | FileCheck --check-prefix=GEN %s
// GEN: double *w_b_part = mpiad_alloc_zeroed(d + 1,
// GEN: double *w_b_part = mpiad_alloc_zeroed(d + 1,
// CHECK: ALL PASSED
#include <mpi.h>

#include "hx_case.h"

static double predict(const double *w, const double *xi, int d) {
  double z = w[d]; /* bias after the weights */
  for (int j = 0; j < d; j++)
    z += w[j] * xi[j];
  return z;
}

#pragma mpiad differentiate wrt(w, x) replicated(w, d) varying(x, nlocal)
double loss(const double *w, const double *x, int nlocal, int d, MPI_Comm comm) {
  double reg = 0, l = 0, g;
  for (int j = 0; j < d; j++)
    reg += w[j] * w[j];
  for (int i = 0; i < nlocal; i++) {
    double z = predict(w, &x[i * d], d);
    l += z * z;
  }
  MPI_Allreduce(&l, &g, 1, MPI_DOUBLE, MPI_SUM, comm);
  return g + reg;
}

static double bias_of(const double *b) { return 2.0 * b[0]; }

static double predict2(const double *w, const double *xi, int d) {
  double z = bias_of(w + d);
  for (int j = 0; j < d; j++)
    z += w[j] * xi[j];
  return z;
}

#pragma mpiad differentiate wrt(w, x) replicated(w, d) varying(x, nlocal)
double loss2(const double *w, const double *x, int nlocal, int d, MPI_Comm comm) {
  double reg = 0, l = 0, g;
  for (int j = 0; j < d; j++)
    reg += w[j] * w[j];
  for (int i = 0; i < nlocal; i++) {
    double z = predict2(w, &x[i * d], d);
    l += z * z;
  }
  MPI_Allreduce(&l, &g, 1, MPI_DOUBLE, MPI_SUM, comm);
  return g + reg;
}

#define D 3
static int g_n;

static void P1(const double *x, const double *th, double *y) {
  y[0] = loss(th, x, g_n, D, MPI_COMM_WORLD);
}
static void B1(const double *x, double *xb, const double *th, double *thb,
               double *y, double *yb) {
  y[0] = loss_b(th, thb, x, xb, g_n, D, MPI_COMM_WORLD, yb[0]);
  yb[0] = 0;
}
static void P2(const double *x, const double *th, double *y) {
  y[0] = loss2(th, x, g_n, D, MPI_COMM_WORLD);
}
static void B2(const double *x, double *xb, const double *th, double *thb,
               double *y, double *yb) {
  y[0] = loss2_b(th, thb, x, xb, g_n, D, MPI_COMM_WORLD, yb[0]);
  yb[0] = 0;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  g_n = 2 + hx_rank_g; /* samples differ per rank */
  hx_case c1 = {"bias read by a callee", P1, B1, g_n * D, D + 1, 0, 1, 0};
  hx_case_run(&c1, 1300);
  hx_case c2 = {"bias read through two callees", P2, B2, g_n * D, D + 1, 0, 1, 0};
  hx_case_run(&c2, 1310);
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
