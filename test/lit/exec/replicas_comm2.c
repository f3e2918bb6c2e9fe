// replicas(...) with the rest of the communication calls: Send/Recv in a
// ring, Sendrecv_replace, Gather then Scatter, Alltoall, Scan, Exscan,
// Reduce_scatter_block, Allreduce MIN, Reduce PROD, Iallreduce and Ibcast
// with Wait; and semantics(per_rank).  For each replica (its own seed), in
// reverse (H_bv, P_bv) and forward mode (H_dv): the value equals the primal
// on that replica's inputs, the derivative along a direction matches central
// differences of the primal, and the adjoint and tangent agree.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
// RUN: %mpiad-emit %s -I%S/../Inputs -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck --check-prefix=GEN %s
// GEN-LABEL: static void mpiad_H_bv(
// GEN: MPI_Alltoall(a, R, MPI_DOUBLE, b, R, MPI_DOUBLE, comm);
// GEN-LABEL: void H_dv(
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#pragma mpiad differentiate wrt(x) varying(x) replicas(x[2])
#pragma mpiad differentiate forward wrt(x) replicas(x[2])
double H(const double *x, MPI_Comm comm) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  double v = x[0] * x[1] + sin(x[0]);
  /* a ring: even ranks send first */
  double got = 0.0;
  if (size > 1) {
    if (rank % 2 == 0) {
      MPI_Send(&v, 1, MPI_DOUBLE, next, 5, comm);
      MPI_Recv(&got, 1, MPI_DOUBLE, prev, 5, comm, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(&got, 1, MPI_DOUBLE, prev, 5, comm, MPI_STATUS_IGNORE);
      MPI_Send(&v, 1, MPI_DOUBLE, next, 5, comm);
    }
  }
  double rep = v * 0.5 + got;
  MPI_Sendrecv_replace(&rep, 1, MPI_DOUBLE, next, 6, prev, 6, comm,
                       MPI_STATUS_IGNORE);
  double *all = malloc(size * sizeof(double));
  double *a = malloc(size * sizeof(double)), *b = malloc(size * sizeof(double));
  MPI_Gather(&rep, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, comm);
  if (rank == 0)
    for (int p = 0; p < size; p++)
      all[p] = all[p] * all[p] + 0.1 * p;
  double back = 0.0;
  MPI_Scatter(all, 1, MPI_DOUBLE, &back, 1, MPI_DOUBLE, 0, comm);
  for (int p = 0; p < size; p++)
    a[p] = back * (p + 1) + x[1];
  MPI_Alltoall(a, 1, MPI_DOUBLE, b, 1, MPI_DOUBLE, comm);
  double s = 0.0;
  for (int p = 0; p < size; p++)
    s += b[p] * b[p];
  double sc = 0.0, ex = 0.0;
  MPI_Scan(&s, &sc, 1, MPI_DOUBLE, MPI_SUM, comm);
  MPI_Exscan(&sc, &ex, 1, MPI_DOUBLE, MPI_SUM, comm);
  if (rank == 0)
    ex = 0.0; /* undefined on rank 0 */
  double blk = 0.0;
  for (int p = 0; p < size; p++)
    a[p] = ex + p * s;
  MPI_Reduce_scatter_block(a, &blk, 1, MPI_DOUBLE, MPI_SUM, comm);
  double mn = 0.0, pr = 0.0, t = x[0] - x[1];
  MPI_Allreduce(&t, &mn, 1, MPI_DOUBLE, MPI_MIN, comm);
  double f = 1.0 + 0.1 * v;
  MPI_Reduce(&f, &pr, 1, MPI_DOUBLE, MPI_PROD, 0, comm);
  MPI_Request rq;
  double tot = 0.0;
  MPI_Iallreduce(&blk, &tot, 1, MPI_DOUBLE, MPI_SUM, comm, &rq);
  MPI_Wait(&rq, MPI_STATUS_IGNORE);
  MPI_Ibcast(&pr, 1, MPI_DOUBLE, 0, comm, &rq);
  MPI_Wait(&rq, MPI_STATUS_IGNORE);
  free(all);
  free(a);
  free(b);
  return 0.01 * tot + mn + pr + 0.3 * sc;
}

/* semantics(per_rank): each rank's value counts for its own seed */
#pragma mpiad differentiate wrt(x) varying(x) semantics(per_rank) replicas(x[2])
double P(const double *x, MPI_Comm comm) {
  double l = x[0] * x[0] + x[1], g = 0.0;
  MPI_Allreduce(&l, &g, 1, MPI_DOUBLE, MPI_SUM, comm);
  return g * x[1];
}

#define NR 3

static double gsum(double v) {
  double t = 0.0;
  MPI_Allreduce(&v, &t, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return t;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  MPI_Comm comm = MPI_COMM_WORLD;
  double x[NR * 2], dx[NR * 2], bar[NR] = {1.0, -0.75, 2.5};
  hx_rand(x, NR * 2, 21, hx_rank_g, 0.2, 1.2);
  hx_rand(dx, NR * 2, 22, hx_rank_g, -1.0, 1.0);
  double val[NR], x_b[NR * 2], vf[NR], vd[NR];
  memset(x_b, 0, sizeof x_b);
  H_bv(NR, x, x_b, comm, bar, val);
  hx_tape("H_bv");
  H_dv(NR, x, dx, comm, vf, vd);
  double pval[NR], p_b[NR * 2];
  memset(p_b, 0, sizeof p_b);
  P_bv(NR, x, p_b, comm, bar, pval);
  for (int r = 0; r < NR; r++) {
    char label[128];
    const double *xr = x + 2 * r, *dr = dx + 2 * r;
    double h = 1e-6, xp[2] = {xr[0] + h * dr[0], xr[1] + h * dr[1]},
           xm[2] = {xr[0] - h * dr[0], xr[1] - h * dr[1]};
    double want = H(xr, comm);
    snprintf(label, sizeof label, "replica %d: value of H_bv", r);
    hx_check_each(label, val[r], want, 1e-13, 1e-300);
    snprintf(label, sizeof label, "replica %d: value of H_dv", r);
    hx_check_each(label, vf[r], want, 1e-13, 1e-300);
    double fd = (H(xp, comm) - H(xm, comm)) / (2 * h);
    /* H's value varies over ranks: the objective sums it */
    double ad = gsum(dr[0] * x_b[2 * r] + dr[1] * x_b[2 * r + 1]);
    snprintf(label, sizeof label, "replica %d: H_bv vs central differences", r);
    hx_check(label, ad, bar[r] * gsum(fd), 1e-6, 1e-9);
    snprintf(label, sizeof label, "replica %d: H_dv vs central differences", r);
    hx_check_each(label, vd[r], fd, 1e-6, 1e-9);
    snprintf(label, sizeof label, "replica %d: dot-product test", r);
    hx_check(label, ad, bar[r] * gsum(vd[r]), 1e-12, 1e-300);
    /* per_rank: the objective is the sum over ranks of each rank's value */
    double pw = P(xr, comm);
    snprintf(label, sizeof label, "replica %d: value of P_bv", r);
    hx_check_each(label, pval[r], pw, 1e-13, 1e-300);
    double pfd = (P(xp, comm) - P(xm, comm)) / (2 * h);
    double pad = gsum(dr[0] * p_b[2 * r] + dr[1] * p_b[2 * r + 1]);
    snprintf(label, sizeof label, "replica %d: P_bv (per_rank) vs central differences", r);
    hx_check(label, pad, bar[r] * gsum(pfd), 1e-6, 1e-9);
  }
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
