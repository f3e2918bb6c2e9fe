// replicas(...) with the v collectives (tool/lib/Replicas.cpp,
// scalePerRankArrays; runtime mpiad_replica_counts): MPI_Allgatherv and
// MPI_Alltoallv with blocks in any order and gaps between them, MPI_Gatherv
// and MPI_Scatterv whose count arrays only the root passes (the others pass
// NULL), MPI_Reduce_scatter, and MPI_Neighbor_allgatherv and
// MPI_Neighbor_alltoallv on a periodic Cartesian ring; then semantics(per_rank).
// Every count and displacement of the batched calls is R times the primal's.
// For each replica r (its own seed), in reverse (V_bv, P_bv) and forward mode
// (V_dv): the value equals the primal on replica r's inputs, the gradient
// equals that of V_b on them, the derivative along a direction matches
// central differences of the primal (independent of the tool), and the
// adjoint and the tangent agree (the dot-product test).  Perturbing replica 1
// leaves every other replica's value and gradient bitwise unchanged.  V_bv
// makes as many (counted) collective calls as one V_b.
// RUN: %mpiad-cc %s %S/../Inputs/pmpi_count.c -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
// RUN: %mpiad-emit %s -I%S/../Inputs -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck --check-prefix=GEN %s
// GEN-LABEL: static void mpiad_V_bv(
// GEN: MPI_Allgatherv(mine, R * (rank % 2 + 1), MPI_DOUBLE, all, mpiad_replica_counts(0, cnt, R, comm, MPIAD_PER_RANK, -1), mpiad_replica_counts(1, dsp, R, comm, MPIAD_PER_RANK, -1), MPI_DOUBLE, comm);
// GEN: MPI_Gatherv(two, R * n0, MPI_DOUBLE, gat, mpiad_replica_counts(0, gc, R, comm, MPIAD_PER_RANK, 0), mpiad_replica_counts(1, gd, R, comm, MPIAD_PER_RANK, 0), MPI_DOUBLE, 0, comm);
// GEN: MPI_Neighbor_alltoallv(nb, mpiad_replica_counts(0, nsc, R, ring, MPIAD_PER_DESTINATION, -1), mpiad_replica_counts(1, nsd, R, ring, MPIAD_PER_DESTINATION, -1), MPI_DOUBLE, nq, mpiad_replica_counts(2, nrc2, R, ring, MPIAD_PER_SOURCE, -1), mpiad_replica_counts(3, nrd2, R, ring, MPIAD_PER_SOURCE, -1), MPI_DOUBLE, ring);
// GEN: mpiad_alltoallv_rev(a_b, mpiad_replica_counts(0, cnt, R, comm, MPIAD_PER_RANK, -1), mpiad_replica_counts(1, dsp, R, comm, MPIAD_PER_RANK, -1), b_b, mpiad_replica_counts(2, rc, R, comm, MPIAD_PER_RANK, -1), mpiad_replica_counts(3, rd, R, comm, MPIAD_PER_RANK, -1), MPI_DOUBLE, comm);
// GEN-LABEL: void V_dv(
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "pmpi_count.h"

#define NL 4

#pragma mpiad differentiate wrt(x) varying(x) replicas(x[4])
#pragma mpiad differentiate forward wrt(x) replicas(x[4])
double V(const double *x, MPI_Comm comm, MPI_Comm ring) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int *cnt = malloc(size * sizeof(int)), *dsp = malloc(size * sizeof(int));
  int *rc = malloc(size * sizeof(int)), *rd = malloc(size * sizeof(int));

  /* Allgatherv: rank q gives q % 2 + 1 values; the blocks are stored in
     reverse rank order with a gap of one element after each */
  int tot = 0;
  for (int q = size - 1; q >= 0; q--) {
    cnt[q] = q % 2 + 1;
    dsp[q] = tot;
    tot += cnt[q] + 1;
  }
  double mine[2];
  mine[0] = x[0] * x[1];
  mine[1] = sin(x[2]) + x[3];
  double *all = malloc(tot * sizeof(double));
  for (int k = 0; k < tot; k++)
    all[k] = 0.0;
  MPI_Allgatherv(mine, rank % 2 + 1, MPI_DOUBLE, all, cnt, dsp, MPI_DOUBLE,
                 comm);
  double g = 0.0;
  for (int k = 0; k < tot; k++)
    g += all[k] * all[k] * (k + 1);

  /* Alltoallv: (rank + q) % 2 + 1 values each way, a gap before each
     received block */
  int st = 0, rt = 0;
  for (int q = 0; q < size; q++) {
    cnt[q] = (rank + q) % 2 + 1;
    dsp[q] = st;
    st += cnt[q];
    rc[q] = (rank + q) % 2 + 1;
    rd[q] = rt + 1;
    rt += rc[q] + 1;
  }
  double *a = malloc(st * sizeof(double)), *b = malloc(rt * sizeof(double));
  for (int k = 0; k < st; k++)
    a[k] = x[k % NL] * (k + 1) + 0.01 * g;
  for (int k = 0; k < rt; k++)
    b[k] = 0.0;
  MPI_Alltoallv(a, cnt, dsp, MPI_DOUBLE, b, rc, rd, MPI_DOUBLE, comm);
  double h = 0.0;
  for (int k = 0; k < rt; k++)
    h += b[k] * b[k] * b[k] / (k + 2);

  /* Gatherv to rank 0 and Scatterv back: only the root passes the counts */
  int n0 = rank % 2 + 1, gt = 0;
  for (int q = 0; q < size; q++) {
    cnt[q] = q % 2 + 1;
    dsp[q] = gt;
    gt += cnt[q];
  }
  const int *gc = rank == 0 ? cnt : NULL;
  const int *gd = rank == 0 ? dsp : NULL;
  double two[2];
  two[0] = h * x[3];
  two[1] = x[1] + h;
  double *gat = malloc(gt * sizeof(double));
  MPI_Gatherv(two, n0, MPI_DOUBLE, gat, gc, gd, MPI_DOUBLE, 0, comm);
  if (rank == 0)
    for (int k = 0; k < gt; k++)
      gat[k] = gat[k] * gat[k] + 0.1 * k;
  double back[2];
  back[0] = 0.0;
  back[1] = 0.0;
  MPI_Scatterv(gat, gc, gd, MPI_DOUBLE, back, n0, MPI_DOUBLE, 0, comm);

  /* Reduce_scatter: rank q gets q % 2 + 1 sums */
  double *rsin = malloc(gt * sizeof(double));
  for (int k = 0; k < gt; k++)
    rsin[k] = back[k % n0] * (k + 1 + rank);
  double rs[2];
  rs[0] = 0.0;
  rs[1] = 0.0;
  MPI_Reduce_scatter(rsin, rs, cnt, MPI_DOUBLE, MPI_SUM, comm);

  /* the ring's neighbourhood collectives: two sources, two destinations */
  int nrc[2] = {2, 2}, nrd[2] = {3, 0};
  double ns[2], nr[5];
  ns[0] = rs[0] * x[0];
  ns[1] = rs[n0 - 1] + x[2];
  for (int k = 0; k < 5; k++)
    nr[k] = 0.0;
  MPI_Neighbor_allgatherv(ns, 2, MPI_DOUBLE, nr, nrc, nrd, MPI_DOUBLE, ring);
  int nsc[2] = {1, 2}, nsd[2] = {0, 1}, nrc2[2] = {2, 1}, nrd2[2] = {0, 3};
  double nb[3], nq[4];
  for (int k = 0; k < 3; k++)
    nb[k] = nr[k] * nr[k + 2];
  for (int k = 0; k < 4; k++)
    nq[k] = 0.0;
  MPI_Neighbor_alltoallv(nb, nsc, nsd, MPI_DOUBLE, nq, nrc2, nrd2, MPI_DOUBLE,
                         ring);
  double ngh = 0.0;
  for (int k = 0; k < 5; k++)
    ngh += nr[k] * (k + 1);
  for (int k = 0; k < 4; k++)
    ngh += nq[k] * nq[k] * (k + 2);

  free(cnt);
  free(dsp);
  free(rc);
  free(rd);
  free(all);
  free(a);
  free(b);
  free(gat);
  free(rsin);
  return 0.01 * g + h + back[0] * back[n0 - 1] + rs[0] * rs[n0 - 1] + 0.1 * ngh;
}

/* semantics(per_rank): each rank's value counts for its own seed */
#pragma mpiad differentiate wrt(x) varying(x) semantics(per_rank) replicas(x[4])
double P(const double *x, MPI_Comm comm) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int *cnt = malloc(size * sizeof(int)), *dsp = malloc(size * sizeof(int));
  int tot = 0;
  for (int q = 0; q < size; q++) {
    cnt[q] = q % 2 + 1;
    dsp[q] = tot;
    tot += cnt[q];
  }
  double mine[2];
  mine[0] = x[0] * x[rank % NL];
  mine[1] = x[1] * x[2] * x[3];
  double *all = malloc(tot * sizeof(double));
  MPI_Allgatherv(mine, rank % 2 + 1, MPI_DOUBLE, all, cnt, dsp, MPI_DOUBLE,
                 comm);
  double *s = malloc(tot * sizeof(double));
  for (int k = 0; k < tot; k++)
    s[k] = all[k] * all[tot - 1 - k];
  double got[2];
  got[0] = 0.0;
  got[1] = 0.0;
  MPI_Reduce_scatter(s, got, cnt, MPI_DOUBLE, MPI_SUM, comm);
  double v = got[0] * x[1] + got[rank % 2] * (rank + 1);
  free(cnt);
  free(dsp);
  free(all);
  free(s);
  return v;
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
  MPI_Comm comm = MPI_COMM_WORLD, ring;
  int size, dims[1], periods[1] = {1};
  MPI_Comm_size(comm, &size);
  dims[0] = size;
  MPI_Cart_create(comm, 1, dims, periods, 0, &ring);

  double x[NR * NL], dx[NR * NL], bar[NR] = {1.0, -0.75, 2.5};
  hx_rand(x, NR * NL, 31, hx_rank_g, 0.2, 1.2);
  hx_rand(dx, NR * NL, 32, hx_rank_g, -1.0, 1.0);
  double val[NR], x_b[NR * NL], vf[NR], vd[NR];
  memset(x_b, 0, sizeof x_b);
  long long c0, b0, c1, b1, c2, b2;
  pmpi_count_get(&c0, &b0);
  V_bv(NR, x, x_b, comm, ring, bar, val);
  pmpi_count_get(&c1, &b1);
  double g1[NL];
  memset(g1, 0, sizeof g1);
  V_b(x, g1, comm, ring, 1.0);
  pmpi_count_get(&c2, &b2);
  hx_tape("V_bv");
  hx_check("counted collectives of V_bv = those of one V_b",
           (double)(c1 - c0), (double)(c2 - c1), 0.0, 1.0);
  V_dv(NR, x, dx, comm, ring, vf, vd);
  double pval[NR], p_b[NR * NL];
  memset(p_b, 0, sizeof p_b);
  P_bv(NR, x, p_b, comm, bar, pval);
  hx_tape("P_bv");

  for (int r = 0; r < NR; r++) {
    char label[128];
    const double *xr = x + NL * r, *dr = dx + NL * r;
    double h = 1e-6, xp[NL], xm[NL];
    for (int k = 0; k < NL; k++) {
      xp[k] = xr[k] + h * dr[k];
      xm[k] = xr[k] - h * dr[k];
    }
    double want = V(xr, comm, ring);
    snprintf(label, sizeof label, "replica %d: value of V_bv", r);
    hx_check_each(label, val[r], want, 1e-13, 1e-300);
    snprintf(label, sizeof label, "replica %d: value of V_dv", r);
    hx_check_each(label, vf[r], want, 1e-13, 1e-300);
    double gb[NL];
    memset(gb, 0, sizeof gb);
    V_b(xr, gb, comm, ring, bar[r]);
    snprintf(label, sizeof label, "replica %d: V_bv = V_b", r);
    hx_check_vec(label, x_b + NL * r, gb, NL, 1e-13, 1e-12);
    double fd = (V(xp, comm, ring) - V(xm, comm, ring)) / (2 * h);
    /* V's value varies over ranks: the objective sums it */
    double l = 0.0;
    for (int k = 0; k < NL; k++)
      l += dr[k] * x_b[NL * r + k];
    double ad = gsum(l);
    snprintf(label, sizeof label, "replica %d: V_bv vs central differences", r);
    hx_check(label, ad, bar[r] * gsum(fd), 1e-6, 1e-9);
    snprintf(label, sizeof label, "replica %d: V_dv vs central differences", r);
    hx_check_each(label, vd[r], fd, 1e-6, 1e-9);
    snprintf(label, sizeof label, "replica %d: dot-product test", r);
    hx_check(label, ad, bar[r] * gsum(vd[r]), 1e-12, 1e-300);
    /* per_rank: the objective is the sum over ranks of each rank's value */
    snprintf(label, sizeof label, "replica %d: value of P_bv", r);
    hx_check_each(label, pval[r], P(xr, comm), 1e-13, 1e-300);
    double pfd = (P(xp, comm) - P(xm, comm)) / (2 * h);
    l = 0.0;
    for (int k = 0; k < NL; k++)
      l += dr[k] * p_b[NL * r + k];
    snprintf(label, sizeof label, "replica %d: P_bv (per_rank) vs central differences", r);
    hx_check(label, gsum(l), bar[r] * gsum(pfd), 1e-6, 1e-9);
  }

  /* independence: move replica 1 only; the others do not change a bit */
  double x2[NR * NL], x2_b[NR * NL], val2[NR];
  memcpy(x2, x, sizeof x);
  for (int k = 0; k < NL; k++)
    x2[NL + k] += 0.25;
  memset(x2_b, 0, sizeof x2_b);
  V_bv(NR, x2, x2_b, comm, ring, bar, val2);
  int same = 1;
  for (int r = 0; r < NR; r++) {
    if (r == 1)
      continue;
    same &= memcmp(&val2[r], &val[r], sizeof(double)) == 0;
    same &= memcmp(x2_b + NL * r, x_b + NL * r, NL * sizeof(double)) == 0;
  }
  hx_check("replicas 0 and 2 bitwise unchanged when replica 1 moves",
           gsum(same ? 0.0 : 1.0), 0.0, 0.0, 1.0);
  hx_check("replica 1 did move", val2[1] != val[1] ? 1.0 : 0.0, 1.0, 0.0, 1.0);

  MPI_Comm_free(&ring);
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
