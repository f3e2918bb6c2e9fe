// replicas(...) with the communication calls that replicas_comm.c,
// replicas_comm2.c and replicas_vcoll.c leave out: MPI_Issend completed by
// MPI_Waitany and MPI_Waitsome, MPI_Test and MPI_Testall before MPI_Waitall,
// MPI_Isend released by MPI_Request_free, MPI_Ssend/MPI_Recv in a ring,
// MPI_Iallgather with MPI_Wait, MPI_Neighbor_allgather and
// MPI_Neighbor_alltoall on a periodic Cartesian ring, MPI_Barrier, and an
// MPI_Allreduce over a communicator split in the function (MPI_Comm_split,
// MPI_Comm_free).  For each replica r (its own seed), in reverse (K_bv) and
// forward mode (K_dv): the value equals the primal on replica r's inputs, the
// gradient that of K_b, the derivative along a direction matches central
// differences of the primal, and the adjoint and the tangent agree (the
// dot-product test).
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
// RUN: %mpiad-emit %s -I%S/../Inputs -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck --check-prefix=GEN %s
// GEN-LABEL: static void mpiad_K_bv(
// GEN: mpiad_iallgather_fwd(h, h_b, R, MPI_DOUBLE, all, all_b, R, MPI_DOUBLE, comm, 1, &ra);
// GEN: MPI_Neighbor_alltoall(nb, R * 2, MPI_DOUBLE, nq, R * 2, MPI_DOUBLE, ring);
// GEN-LABEL: void K_dv(
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define NL 3

#pragma mpiad differentiate wrt(x) varying(x) replicas(x[3])
#pragma mpiad differentiate forward wrt(x) replicas(x[3])
double K(const double *x, MPI_Comm comm, MPI_Comm ring) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  double v = x[0] * x[1] + cos(x[2]);
  double w = x[2] * x[2] - x[0];

  /* Issend around the ring, completed by Waitany, then Waitsome */
  double got = 0.0;
  MPI_Request rq[2];
  MPI_Irecv(&got, 1, MPI_DOUBLE, prev, 1, comm, &rq[0]);
  MPI_Issend(&v, 1, MPI_DOUBLE, next, 1, comm, &rq[1]);
  int idx, outc, idxs[2];
  MPI_Waitany(2, rq, &idx, MPI_STATUS_IGNORE);
  MPI_Waitsome(2, rq, &outc, idxs, MPI_STATUSES_IGNORE);

  /* Test and Testall, then Waitall */
  double got2 = 0.0;
  MPI_Request r2[2];
  MPI_Irecv(&got2, 1, MPI_DOUBLE, next, 2, comm, &r2[0]);
  MPI_Isend(&w, 1, MPI_DOUBLE, prev, 2, comm, &r2[1]);
  int flag = 0, flag2 = 0;
  MPI_Test(&r2[0], &flag, MPI_STATUS_IGNORE);
  MPI_Testall(2, r2, &flag2, MPI_STATUSES_IGNORE);
  MPI_Waitall(2, r2, MPI_STATUSES_IGNORE);

  /* an Isend released by Request_free; the receive completes it */
  double u = got * got2 + x[1], got3 = 0.0;
  MPI_Request r3, r4;
  MPI_Irecv(&got3, 1, MPI_DOUBLE, prev, 3, comm, &r4);
  MPI_Isend(&u, 1, MPI_DOUBLE, next, 3, comm, &r3);
  MPI_Request_free(&r3);
  MPI_Wait(&r4, MPI_STATUS_IGNORE);
  MPI_Barrier(comm);

  /* Ssend and Recv in a ring: even ranks send first */
  double got4 = 0.0, s4 = got3 * x[0];
  if (size > 1) {
    if (rank % 2 == 0) {
      MPI_Ssend(&s4, 1, MPI_DOUBLE, next, 4, comm);
      MPI_Recv(&got4, 1, MPI_DOUBLE, prev, 4, comm, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(&got4, 1, MPI_DOUBLE, prev, 4, comm, MPI_STATUS_IGNORE);
      MPI_Ssend(&s4, 1, MPI_DOUBLE, next, 4, comm);
    }
  }

  /* Iallgather and Wait */
  double h = got4 + sin(got3), *all = malloc(size * sizeof(double));
  MPI_Request ra;
  MPI_Iallgather(&h, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, comm, &ra);
  MPI_Wait(&ra, MPI_STATUS_IGNORE);
  double g = 0.0;
  for (int q = 0; q < size; q++)
    g += all[q] * all[q] * (q + 1);

  /* the ring's neighbourhood collectives */
  double ns[2], nr[4], nb[4], nq[4];
  ns[0] = g * x[2];
  ns[1] = h - x[1];
  MPI_Neighbor_allgather(ns, 2, MPI_DOUBLE, nr, 2, MPI_DOUBLE, ring);
  for (int k = 0; k < 4; k++)
    nb[k] = nr[k] * nr[3 - k] + x[k % NL];
  MPI_Neighbor_alltoall(nb, 2, MPI_DOUBLE, nq, 2, MPI_DOUBLE, ring);
  double ngh = 0.0;
  for (int k = 0; k < 4; k++)
    ngh += nq[k] * (k + 1);

  /* a sum over the ranks of the same parity, on a split communicator */
  MPI_Comm half;
  MPI_Comm_split(comm, rank % 2, rank, &half);
  double part = ngh * ngh, hsum = 0.0;
  MPI_Allreduce(&part, &hsum, 1, MPI_DOUBLE, MPI_SUM, half);
  MPI_Comm_free(&half);
  free(all);
  return 0.1 * hsum + g + got3 * got4;
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
  hx_rand(x, NR * NL, 41, hx_rank_g, 0.2, 1.2);
  hx_rand(dx, NR * NL, 42, hx_rank_g, -1.0, 1.0);
  double val[NR], x_b[NR * NL], vf[NR], vd[NR];
  memset(x_b, 0, sizeof x_b);
  K_bv(NR, x, x_b, comm, ring, bar, val);
  hx_tape("K_bv");
  K_dv(NR, x, dx, comm, ring, vf, vd);
  for (int r = 0; r < NR; r++) {
    char label[128];
    const double *xr = x + NL * r, *dr = dx + NL * r;
    double h = 1e-6, xp[NL], xm[NL];
    for (int k = 0; k < NL; k++) {
      xp[k] = xr[k] + h * dr[k];
      xm[k] = xr[k] - h * dr[k];
    }
    double want = K(xr, comm, ring);
    snprintf(label, sizeof label, "replica %d: value of K_bv", r);
    hx_check_each(label, val[r], want, 1e-13, 1e-300);
    snprintf(label, sizeof label, "replica %d: value of K_dv", r);
    hx_check_each(label, vf[r], want, 1e-13, 1e-300);
    double gb[NL];
    memset(gb, 0, sizeof gb);
    K_b(xr, gb, comm, ring, bar[r]);
    snprintf(label, sizeof label, "replica %d: K_bv = K_b", r);
    hx_check_vec(label, x_b + NL * r, gb, NL, 1e-13, 1e-12);
    double fd = (K(xp, comm, ring) - K(xm, comm, ring)) / (2 * h);
    /* K's value varies over ranks: the objective sums it */
    double l = 0.0;
    for (int k = 0; k < NL; k++)
      l += dr[k] * x_b[NL * r + k];
    double ad = gsum(l);
    snprintf(label, sizeof label, "replica %d: K_bv vs central differences", r);
    hx_check(label, ad, bar[r] * gsum(fd), 1e-6, 1e-9);
    snprintf(label, sizeof label, "replica %d: K_dv vs central differences", r);
    hx_check_each(label, vd[r], fd, 1e-6, 1e-9);
    snprintf(label, sizeof label, "replica %d: dot-product test", r);
    hx_check(label, ad, bar[r] * gsum(vd[r]), 1e-12, 1e-300);
  }
  MPI_Comm_free(&ring);
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
