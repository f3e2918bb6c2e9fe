// replicas(...) with communication in loops whose control depends on
// per-replica values: the loop runs for all replicas at once while some
// replica's mask is set, each iteration masked per replica (Replicas.cpp
// maskLoop), so each replica makes its own number of iterations and the
// batched calls carry every replica.  Covered: a while loop with a
// per-replica tolerance, an MPI_Allreduce of a scalar and a break that
// some replicas take (a flag after normalisation); a counted loop
// with a per-replica bound, its counter declared in the header, with an
// MPI_Sendrecv of an array around a ring; a counted loop inside a branch
// that some replicas take (the outer mask gates its initialisation and its
// iterations), with an MPI_Allreduce of an array, whose counter is read
// after the branch (5 for the replicas that do not take it); an early
// return from a loop, taken by two replicas, that frees a buffer first
// (the buffer serves all replicas and is freed once, at the end); an
// inlined helper's malloc'd buffer in a branch and in a loop that some
// replicas take (allocated, and in the loop freed, for all replicas).  Four replicas make 1 to
// 4 iterations.  A do-while loop whose body runs once for every replica
// that reaches it.  For each replica, in reverse (L_bv) and forward mode
// (L_dv): the value equals the primal on replica r's inputs, the gradient
// that of L_b, the derivative along a direction matches central
// differences, the adjoint and the tangent agree (dot-product test).
// Changing replica 1's inputs (more iterations) leaves the other replicas'
// values and gradients bitwise unchanged.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
// RUN: %mpiad-emit %s -I%S/../Inputs -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck --check-prefix=GEN %s
// GEN-LABEL: static void mpiad_L_bv(
// GEN: while (mpiad_replica_any(mpiad_mask, R)) {
// GEN-LABEL: void L_dv(
// GEN: mpiad_mask[r] = !mpiad_break1[r] && (fabs(g[r]) > 0.25 && it[r] < 8) ? 1 : 0;
// GEN: while (mpiad_replica_any(mpiad_mask, R)) {
// GEN: if (mpiad_replica_any(mpiad_mask, R)) {
// GEN-NEXT: MPI_Allreduce(c, d, R, MPI_DOUBLE, MPI_SUM, comm);
// GEN: mpiad_break1[r] = 1;
// GEN: it[r] += 1;
// GEN: mpiad_mask[r] = mpiad_mask[r] ? !mpiad_break1[r] && (fabs(g[r]) > 0.25 && it[r] < 8) ? 1 : 0 : 0;
// GEN: mpiad_mask_3[r] = 1;
// GEN: if (mpiad_mask_4) {
// GEN-NEXT: j[r] = 0;
// GEN: tmp = malloc(R * ((size_t)nl * sizeof(double)));
// GEN: free(tmp);
// GEN: while (mpiad_replica_any(mpiad_mask_{{[0-9]+}}, R)) {
// GEN: tmp_2 = malloc(R * ((size_t)nl * sizeof(double)));
// GEN: free(tmp_2);
// GEN: /* free(buf) after the replicas are done, at the end */
// GEN: free(buf);
// GEN-NEXT: free(buf_d);
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define NL 3

/* a helper with a buffer of its own (inlined: it is passed a per-replica
 * array) */
static double smooth(const double *v, double a, int k) {
  double *tmp = malloc((size_t)k * sizeof(double));
  double s = 0.0;
  for (int i = 0; i < k; i++) {
    tmp[i] = v[i] * a;
    s += tmp[i] * tmp[i];
  }
  free(tmp);
  return s;
}

#pragma mpiad differentiate wrt(x) varying(x) replicas(x[3])
#pragma mpiad differentiate forward wrt(x) replicas(x[3])
double L(const double *x, MPI_Comm comm) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  double a = x[0], g = 0.0;
  MPI_Allreduce(&a, &g, 1, MPI_DOUBLE, MPI_SUM, comm); /* the same on every rank */
  g /= size;
  double g0 = g, acc = x[1] * x[2];
  /* a fixed-point iteration to a per-replica tolerance */
  int it = 0;
  while (fabs(g) > 0.25 && it < 8) { /* a math call: no side effect */
    double c = g * x[1], d = 0.0;
    MPI_Allreduce(&c, &d, 1, MPI_DOUBLE, MPI_SUM, comm);
    if (it == 3)
      break; /* the replicas that need more than 3 iterations */
    g = 0.6 * g + 0.05 * sin(d / size);
    acc += 0.1 * g * x[2];
    it++;
  }
  /* a per-replica count of ring shifts */
  int n = (int)(3.0 * g0) - 1;
  double v[2];
  v[0] = acc;
  v[1] = x[2] * g;
  for (int k = 0; k < n; k++) {
    double w[2];
    MPI_Sendrecv(v, 2, MPI_DOUBLE, (rank + 1) % size, 7, w, 2, MPI_DOUBLE,
                 (rank + size - 1) % size, 7, comm, MPI_STATUS_IGNORE);
    v[0] = 0.5 * v[0] + 0.25 * w[1];
    v[1] = 0.5 * v[1] + 0.25 * sin(w[0]);
  }
  acc += v[0] * v[1];
  /* a do-while loop: once for every replica, then per replica */
  double z = x[0];
  do {
    double zz = 0.0;
    MPI_Allreduce(&z, &zz, 1, MPI_DOUBLE, MPI_SUM, comm);
    z = 0.5 * zz / size;
  } while (z > 0.5); /* replica 0 starts below: one pass */
  acc += z;
  /* a loop under a branch that some replicas take; its counter lives on */
  int j = 5;
  if (g0 > 0.7) {
    for (j = 0; j < 1 + (g0 > 1.3); j++) {
      double p[2], q[2];
      p[0] = acc;
      p[1] = x[0] * acc;
      MPI_Allreduce(p, q, 2, MPI_DOUBLE, MPI_SUM, comm);
      acc = 0.5 * acc + 0.1 * (q[0] + q[1]) / size;
    }
  }
  /* the helper's buffer in a branch and in a loop that some replicas
   * take: allocated (and, in the loop, freed) for all replicas at once */
  int nl = NL;
  if (g0 > 1.0)
    acc += 0.1 * smooth(x, g0, nl);
  for (int q = 0; q < 1 + (g0 > 0.7); q++)
    acc += 0.01 * smooth(x, acc, nl);
  /* an early return from a loop, taken by the replicas with g0 > 1, that
   * frees a buffer on its way out (freed once, at the end, for all) */
  double *buf = malloc(2 * sizeof(double));
  buf[0] = acc;
  buf[1] = x[2];
  for (int q = 0; q < 3; q++) {
    buf[0] = 0.5 * buf[0] + buf[1] * q;
    if (q == 1 && g0 > 1.0) {
      double early = buf[0] * x[1];
      free(buf);
      return early + it + 0.5 * j;
    }
  }
  acc += 0.25 * buf[0];
  free(buf);
  double tot = 0.0;
  MPI_Allreduce(&acc, &tot, 1, MPI_DOUBLE, MPI_SUM, comm);
  return tot * x[1] / size + it + 0.5 * j;
}

#define NR 4

static double gsum(double v) {
  double t = 0.0;
  MPI_Allreduce(&v, &t, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return t;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  MPI_Comm comm = MPI_COMM_WORLD;
  int rank = hx_rank_g;
  /* g / size about 0.3, 0.8, 1.2 and 1.5: 1 to 4 iterations of the while
   * loop, 0 to 4 of the counted one, the inner loop for two of them */
  const double base[NR] = {0.3, 0.8, 1.2, 1.5};
  double x[NR * NL], dx[NR * NL], bar[NR] = {1.0, -0.75, 2.5, 0.5};
  hx_rand(x, NR * NL, 51, rank, 0.2, 1.2);
  hx_rand(dx, NR * NL, 52, rank, -1.0, 1.0);
  for (int r = 0; r < NR; r++)
    x[NL * r] = base[r] + 0.01 * (rank % 3);
  double val[NR], x_b[NR * NL], vf[NR], vd[NR];
  memset(x_b, 0, sizeof x_b);
  L_bv(NR, x, x_b, comm, bar, val);
  hx_tape("L_bv");
  L_dv(NR, x, dx, comm, vf, vd);
  for (int r = 0; r < NR; r++) {
    char label[128];
    const double *xr = x + NL * r, *dr = dx + NL * r;
    double h = 1e-6, xp[NL], xm[NL];
    for (int k = 0; k < NL; k++) {
      xp[k] = xr[k] + h * dr[k];
      xm[k] = xr[k] - h * dr[k];
    }
    double want = L(xr, comm);
    snprintf(label, sizeof label, "replica %d: value of L_bv", r);
    hx_check_each(label, val[r], want, 1e-13, 1e-300);
    snprintf(label, sizeof label, "replica %d: value of L_dv", r);
    hx_check_each(label, vf[r], want, 1e-13, 1e-300);
    double gb[NL];
    memset(gb, 0, sizeof gb);
    L_b(xr, gb, comm, bar[r]);
    snprintf(label, sizeof label, "replica %d: L_bv = M_b", r);
    hx_check_vec(label, x_b + NL * r, gb, NL, 1e-13, 1e-12);
    double fd = (L(xp, comm) - L(xm, comm)) / (2 * h);
    double l = 0.0;
    for (int k = 0; k < NL; k++)
      l += dr[k] * x_b[NL * r + k];
    double ad = gsum(l);
    snprintf(label, sizeof label, "replica %d: L_bv vs central differences", r);
    hx_check(label, ad, bar[r] * gsum(fd), 1e-6, 1e-9);
    snprintf(label, sizeof label, "replica %d: L_dv vs central differences", r);
    hx_check_each(label, vd[r], fd, 1e-6, 1e-9);
    snprintf(label, sizeof label, "replica %d: dot-product test", r);
    hx_check(label, ad, bar[r] * gsum(vd[r]), 1e-12, 1e-300);
  }
  /* Replica 1 moves onto another path: the others do not change a bit. */
  double y[NR * NL], y_b[NR * NL], yval[NR];
  memcpy(y, x, sizeof y);
  y[NL * 1] = 1.9;
  y[NL * 1 + 2] += 0.25;
  memset(y_b, 0, sizeof y_b);
  L_bv(NR, y, y_b, comm, bar, yval);
  for (int r = 0; r < NR; r++) {
    if (r == 1)
      continue;
    int same = yval[r] == val[r];
    for (int k = 0; k < NL; k++)
      same &= y_b[NL * r + k] == x_b[NL * r + k];
    char label[96];
    snprintf(label, sizeof label, "replica %d unchanged when replica 1 moves",
             r);
    hx_check_each(label, same, 1.0, 0.0, 0.0);
  }
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
