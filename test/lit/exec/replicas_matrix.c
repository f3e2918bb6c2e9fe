// replicas(...) with local arrays of two and three dimensions that hold
// per-replica values (a weight matrix built from the replica's parameters,
// a small 3-D table with an initialiser list): each is stored for all
// replicas, row by row, `a[i][j]` at `[(i * B + j) * R + r]`.  The reduced
// program of the random tester's most frequent refusal ("per-replica array
// 'm2' has more than one dimension"), which then gave wrong gradients
// until the element's type was taken from the flattened array.  For each
// of three replicas, in reverse (L_bv) and forward mode (L_dv): the value
// equals the primal on replica r's inputs, the gradient that of L_b, the
// derivative along a direction matches central differences, and the
// adjoint and the tangent agree.  1-4 ranks; the data differ per rank.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
// RUN: %mpiad-emit %s -I%S/../Inputs -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck --check-prefix=GEN %s
// GEN-LABEL: void L_dv(
// GEN: W = malloc(R * ((2 * 3)) * sizeof(double));
// GEN: T[mpiad_k * R + r] = ((double *)(double[2][2][2]){{.*}}1.0, 0.5{{.*}}1.0, 1.0{{.*}})[mpiad_k];
// GEN: W[(k * 3 + j) * R + r] = w_rep[(k * D + j) * R + r] * 0.5;
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define D 3
#define H 2
#define NW (H * D + H)
#define NS 5

#pragma mpiad differentiate wrt(w) replicated(w[NW]) varying(X, y) replicas(w[NW])
#pragma mpiad differentiate forward wrt(w) replicas(w[NW])
double L(const double *w, const double *X, const double *y, MPI_Comm comm) {
  double W[H][D];
  double T[2][2][2] = {{{1.0, 0.5}, {0.25, 2.0}}, {{0.0, 1.5}, {1.0, 1.0}}};
  for (int k = 0; k < H; k++)
    for (int j = 0; j < D; j++)
      W[k][j] = w[k * D + j] * 0.5;
  for (int a = 0; a < 2; a++)
    for (int b = 0; b < 2; b++)
      T[a][b][(a + b) % 2] *= w[H * D + a] + 0.1 * b;
  double l = 0.0;
  for (int i = 0; i < NS; i++) {
    double out = T[1][0][1] + T[0][1][1] * w[H * D + 1];
    for (int k = 0; k < H; k++) {
      double z = 0.0;
      for (int j = 0; j < D; j++)
        z += W[k][j] * X[i * D + j];
      out += T[k][k][0] * tanh(z);
    }
    double e = out - y[i];
    l += e * e;
  }
  double g = 0.0;
  MPI_Allreduce(&l, &g, 1, MPI_DOUBLE, MPI_SUM, comm);
  return 0.5 * g;
}

#define NR 3

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  MPI_Comm comm = MPI_COMM_WORLD;
  int rank = hx_rank_g;
  double X[NS * D], y[NS];
  hx_rand(X, NS * D, 61, rank, -1.0, 1.0);
  hx_rand(y, NS, 62, rank, -0.5, 0.5);
  /* the same parameters on every rank (replicated), different per replica */
  double w[NR * NW], dw[NR * NW], bar[NR] = {1.0, -0.5, 2.0};
  hx_rand(w, NR * NW, 63, 0, -1.0, 1.0);
  hx_rand(dw, NR * NW, 64, 0, -1.0, 1.0);
  double val[NR], w_b[NR * NW], vf[NR], vd[NR];
  memset(w_b, 0, sizeof w_b);
  L_bv(NR, w, w_b, X, y, comm, bar, val);
  hx_tape("L_bv");
  L_dv(NR, w, dw, X, y, comm, vf, vd);
  for (int r = 0; r < NR; r++) {
    char label[96];
    const double *wr = w + NW * r, *dr = dw + NW * r;
    double h = 1e-6, wp[NW], wm[NW];
    for (int k = 0; k < NW; k++) {
      wp[k] = wr[k] + h * dr[k];
      wm[k] = wr[k] - h * dr[k];
    }
    double want = L(wr, X, y, comm);
    snprintf(label, sizeof label, "replica %d: value of L_bv", r);
    hx_check_each(label, val[r], want, 1e-13, 1e-300);
    snprintf(label, sizeof label, "replica %d: value of L_dv", r);
    hx_check_each(label, vf[r], want, 1e-13, 1e-300);
    double gb[NW];
    memset(gb, 0, sizeof gb);
    L_b(wr, gb, X, y, comm, bar[r]);
    snprintf(label, sizeof label, "replica %d: L_bv = L_b", r);
    hx_check_vec(label, w_b + NW * r, gb, NW, 1e-13, 1e-12);
    double fd = (L(wp, X, y, comm) - L(wm, X, y, comm)) / (2 * h);
    double ad = 0.0;
    for (int k = 0; k < NW; k++)
      ad += dr[k] * w_b[NW * r + k];
    snprintf(label, sizeof label, "replica %d: L_bv vs central differences", r);
    hx_check_each(label, ad, bar[r] * fd, 1e-6, 1e-9);
    snprintf(label, sizeof label, "replica %d: L_dv vs central differences", r);
    hx_check_each(label, vd[r], fd, 1e-6, 1e-9);
    snprintf(label, sizeof label, "replica %d: dot-product test", r);
    hx_check_each(label, ad, bar[r] * vd[r], 1e-12, 1e-300);
  }
  /* Replica 1 changes: the others do not change a bit. */
  double v2[NR * NW], v2_b[NR * NW], v2val[NR];
  memcpy(v2, w, sizeof v2);
  for (int k = 0; k < NW; k++)
    v2[NW + k] += 0.3;
  memset(v2_b, 0, sizeof v2_b);
  L_bv(NR, v2, v2_b, X, y, comm, bar, v2val);
  for (int r = 0; r < NR; r += 2) {
    int same = v2val[r] == val[r];
    for (int k = 0; k < NW; k++)
      same &= v2_b[NW * r + k] == w_b[NW * r + k];
    char label[96];
    snprintf(label, sizeof label, "replica %d unchanged when replica 1 moves",
             r);
    hx_check_each(label, same, 1.0, 0.0, 0.0);
  }
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
