// replicas(...) with communication under conditions that depend on
// per-replica values: each replica takes its own branches, the batched
// calls carry every replica, and the replicas that do not take a branch keep
// what its calls write (Replicas.cpp masks the branch).  Covered: an
// if/else with an MPI_Allreduce of a scalar in one branch and an MPI_Bcast
// of an array in the other; a branch in a shared loop with an MPI_Allreduce
// of an array, and inside it a nested branch with an MPI_Sendrecv around a
// ring; a send on rank 0 and a receive on rank 1 under conditions that also
// read the rank (each rank calls where some replica's primal calls, so the
// other ranks call nothing); buffers malloc'd and freed in branches that
// some replicas take, with and without a call (one block for all replicas);
// an early return that skips the final MPI_Allreduce.  What the calls
// of the first if/else write is read after it by every replica.  Four replicas
// take four different paths.  For each replica, in reverse (M_bv) and
// forward mode (M_dv): the value equals the primal on replica r's inputs,
// the gradient that of M_b, the derivative along a direction matches central
// differences and the adjoint and the tangent agree (dot-product test).
// Changing replica 1's inputs leaves the other replicas' values and
// gradients bitwise unchanged.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
// RUN: %mpiad-emit %s -I%S/../Inputs -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck --check-prefix=GEN %s
// GEN-LABEL: void M_dv(
// GEN: mpiad_mask[r] = g[r] > 0.7 * size ? 1 : 0;
// GEN: if (mpiad_mask[r] == 0) {
// GEN-NEXT: mpiad_keep_d[r] = t_d[r];
// GEN-NEXT: mpiad_keep[r] = t[r];
// GEN: if (mpiad_replica_any(mpiad_mask, R)) {
// GEN-NEXT: MPI_Allreduce(s, t, R, MPI_DOUBLE, MPI_SUM, comm);
// GEN-NEXT: MPI_Allreduce(s_d, t_d, R, MPI_DOUBLE, MPI_SUM, comm);
// GEN-NEXT: }
// GEN-NEXT: for (int r = 0; r < R; r++) {
// GEN-NEXT: if (mpiad_mask[r] == 0) {
// GEN-NEXT: t_d[r] = mpiad_keep_d[r];
// GEN-NEXT: t[r] = mpiad_keep[r];
// GEN: buf = malloc(R * (2 * sizeof(double)));
// GEN: MPI_Allreduce(buf, tb, R * 2, MPI_DOUBLE, MPI_SUM, comm);
// GEN: free(buf);
// GEN: sq = malloc(R * (NL * sizeof(double)));
// GEN: free(sq);
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define NL 3

#pragma mpiad differentiate wrt(x) varying(x) replicas(x[3])
#pragma mpiad differentiate forward wrt(x) replicas(x[3])
double M(const double *x, MPI_Comm comm) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  double a = x[0], g = 0.0;
  MPI_Allreduce(&a, &g, 1, MPI_DOUBLE, MPI_SUM, comm); /* the same on every rank */
  double acc = x[1] * x[2];
  double t = 0.5 * x[2], v[2];
  v[0] = x[2] * x[2];
  v[1] = x[1] + g;
  if (g > 0.7 * size) {
    double s = x[1] * g;
    MPI_Allreduce(&s, &t, 1, MPI_DOUBLE, MPI_SUM, comm);
    acc += sin(t);
  } else {
    MPI_Bcast(v, 2, MPI_DOUBLE, 0, comm);
    acc += v[0] * v[1];
  }
  /* what a branch's call writes is read after it, by every replica */
  acc += 0.1 * t * t + 0.05 * v[0] * v[1];
  for (int k = 0; k < 2; k++) {
    if (g * (k + 1) > 1.1 * size) {
      double p[2], q[2];
      p[0] = acc;
      p[1] = x[0] * acc;
      MPI_Allreduce(p, q, 2, MPI_DOUBLE, MPI_SUM, comm);
      acc = 0.5 * acc + 0.1 * (q[0] + q[1]) / size;
      if (g > 1.3 * size) {
        double w = acc * x[2], z = 0.0;
        MPI_Sendrecv(&w, 1, MPI_DOUBLE, (rank + 1) % size, 5, &z, 1,
                     MPI_DOUBLE, (rank + size - 1) % size, 5, comm,
                     MPI_STATUS_IGNORE);
        acc += z * z;
      }
    }
  }
  /* Buffers allocated in branches that some replicas take (with and
   * without a call): one block for all replicas, freed once at the end. */
  if (g > 0.9 * size) {
    double *buf = malloc(2 * sizeof(double));
    double tb[2];
    buf[0] = acc * x[0];
    buf[1] = x[2];
    MPI_Allreduce(buf, tb, 2, MPI_DOUBLE, MPI_SUM, comm);
    acc += 0.1 * tb[0] * tb[1] / size;
    free(buf);
  }
  if (x[1] > 0.6) {
    double *sq = malloc(NL * sizeof(double));
    for (int k = 0; k < NL; k++)
      sq[k] = x[k] * x[k];
    acc += 0.05 * (sq[0] + sq[1] * sq[2]);
    free(sq);
  }
  /* A point-to-point pair whose conditions also read the rank: a rank
   * calls where some replica's primal does (rank 0 sends, rank 1 receives,
   * the others call nothing). */
  if (size > 1 && rank == 0 && g > 1.0 * size) {
    double snd = acc * x[2];
    MPI_Send(&snd, 1, MPI_DOUBLE, 1, 9, comm);
  }
  if (size > 1 && rank == 1 && g > 1.0 * size) {
    double got = 0.5;
    MPI_Recv(&got, 1, MPI_DOUBLE, 0, 9, comm, MPI_STATUS_IGNORE);
    acc += got * got;
  }
  if (g < 0.4 * size)
    return acc;
  double tot = 0.0;
  MPI_Allreduce(&acc, &tot, 1, MPI_DOUBLE, MPI_SUM, comm);
  return tot * x[1] / size;
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
  /* g / size about 0.3, 0.8, 1.2 and 1.5: four paths */
  const double base[NR] = {0.3, 0.8, 1.2, 1.5};
  double x[NR * NL], dx[NR * NL], bar[NR] = {1.0, -0.75, 2.5, 0.5};
  hx_rand(x, NR * NL, 51, rank, 0.2, 1.2);
  hx_rand(dx, NR * NL, 52, rank, -1.0, 1.0);
  for (int r = 0; r < NR; r++)
    x[NL * r] = base[r] + 0.01 * (rank % 3);
  double val[NR], x_b[NR * NL], vf[NR], vd[NR];
  memset(x_b, 0, sizeof x_b);
  M_bv(NR, x, x_b, comm, bar, val);
  hx_tape("M_bv");
  M_dv(NR, x, dx, comm, vf, vd);
  for (int r = 0; r < NR; r++) {
    char label[128];
    const double *xr = x + NL * r, *dr = dx + NL * r;
    double h = 1e-6, xp[NL], xm[NL];
    for (int k = 0; k < NL; k++) {
      xp[k] = xr[k] + h * dr[k];
      xm[k] = xr[k] - h * dr[k];
    }
    double want = M(xr, comm);
    snprintf(label, sizeof label, "replica %d: value of M_bv", r);
    hx_check_each(label, val[r], want, 1e-13, 1e-300);
    snprintf(label, sizeof label, "replica %d: value of M_dv", r);
    hx_check_each(label, vf[r], want, 1e-13, 1e-300);
    double gb[NL];
    memset(gb, 0, sizeof gb);
    M_b(xr, gb, comm, bar[r]);
    snprintf(label, sizeof label, "replica %d: M_bv = M_b", r);
    hx_check_vec(label, x_b + NL * r, gb, NL, 1e-13, 1e-12);
    double fd = (M(xp, comm) - M(xm, comm)) / (2 * h);
    double l = 0.0;
    for (int k = 0; k < NL; k++)
      l += dr[k] * x_b[NL * r + k];
    double ad = gsum(l);
    snprintf(label, sizeof label, "replica %d: M_bv vs central differences", r);
    hx_check(label, ad, bar[r] * gsum(fd), 1e-6, 1e-9);
    snprintf(label, sizeof label, "replica %d: M_dv vs central differences", r);
    hx_check_each(label, vd[r], fd, 1e-6, 1e-9);
    snprintf(label, sizeof label, "replica %d: dot-product test", r);
    hx_check(label, ad, bar[r] * gsum(vd[r]), 1e-12, 1e-300);
  }
  /* Replica 1 moves onto another path: the others do not change a bit. */
  double y[NR * NL], y_b[NR * NL], yval[NR];
  memcpy(y, x, sizeof y);
  y[NL * 1] = 1.6;
  y[NL * 1 + 2] += 0.25;
  memset(y_b, 0, sizeof y_b);
  M_bv(NR, y, y_b, comm, bar, yval);
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
