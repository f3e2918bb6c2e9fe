// The receive buffer of a collective, overwritten in a loop while the reverse
// sweep still needs its old values: the forward sweep must record everything
// the call writes.  That is recvcount * size elements for MPI_Allgather and
// MPI_Alltoall (issue 13: it saved recvcount, and the gradient was 21% off at
// 2 ranks, with no message), the extent of counts and displacements for
// Allgatherv, Alltoallv and Gatherv (refused before), the root's whole buffer
// for MPI_Gather (nothing elsewhere), this rank's count for
// MPI_Reduce_scatter (refused before), and the same with MPI_IN_PLACE
// (Allgather, Alltoall, Gather).  Each
// buffer is malloc'd with exactly the size the call writes, so that a longer
// record reads past it (caught by the sanitizer run).  Central differences of
// J = sum over ranks of y_b * y, both semantics for the in-place Allgather of
// the issue.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "hx_case.h"

#define N 3
#define MAXP 8

/* The program of the issue: each rank adds to its block, an in-place
 * Allgather shares the blocks, and the sum reads every element squared. */
#pragma mpiad differentiate wrt(x) output(y) varying(x) semantics(global)
void ag_inplace_g(const double *x, double *y, MPI_Comm comm) {
  int r, p;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &p);
  double *v = malloc(N * p * sizeof(double));
  double *a = malloc(N * p * sizeof(double));
  for (int k = 0; k < N * p; k++) {
    v[k] = 0.0;
    a[k] = 1.0 + 0.25 * k;
  }
  for (int i = 0; i < N; i++)
    v[r * N + i] = x[i];
  double s = 0.0;
  for (int it = 0; it < 2; it++) {
    for (int i = 0; i < N; i++)
      v[r * N + i] += x[i] * x[i];
    MPI_Allgather(MPI_IN_PLACE, N, MPI_DOUBLE, v, N, MPI_DOUBLE, comm);
    for (int k = 0; k < N * p; k++)
      s += a[k] * v[k] * v[k];
  }
  y[0] = s * (r + 1);
  free(a);
  free(v);
}

#pragma mpiad differentiate wrt(x) output(y) semantics(per_rank)
void ag_inplace_pr(const double *x, double *y, MPI_Comm comm) {
  int r, p;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &p);
  double *v = malloc(N * p * sizeof(double));
  double *a = malloc(N * p * sizeof(double));
  for (int k = 0; k < N * p; k++) {
    v[k] = 0.0;
    a[k] = 1.0 + 0.25 * k;
  }
  for (int i = 0; i < N; i++)
    v[r * N + i] = x[i];
  double s = 0.0;
  for (int it = 0; it < 2; it++) {
    for (int i = 0; i < N; i++)
      v[r * N + i] += x[i] * x[i];
    MPI_Allgather(MPI_IN_PLACE, N, MPI_DOUBLE, v, N, MPI_DOUBLE, comm);
    for (int k = 0; k < N * p; k++)
      s += a[k] * v[k] * v[k];
  }
  y[0] = s * (r + 1);
  free(a);
  free(v);
}

/* MPI_Allgather with a send buffer computed from the previous result. */
#pragma mpiad differentiate wrt(x) output(y) semantics(per_rank)
void ag_sep(const double *x, double *y, MPI_Comm comm) {
  int r, p;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &p);
  double *v = malloc(N * p * sizeof(double));
  double b[N];
  for (int k = 0; k < N * p; k++)
    v[k] = 1.0;
  double s = 0.0;
  for (int it = 0; it < 2; it++) {
    for (int i = 0; i < N; i++)
      b[i] = x[i] * v[r * N + i] + 0.5;
    MPI_Allgather(b, N, MPI_DOUBLE, v, N, MPI_DOUBLE, comm);
    for (int k = 0; k < N * p; k++)
      s += v[k] * v[k] * (k + 1);
  }
  y[0] = s + x[0] * r;
  free(v);
}

/* MPI_Alltoall: block q of the send buffer goes to rank q. */
#pragma mpiad differentiate wrt(x) output(y) semantics(per_rank)
void a2a(const double *x, double *y, MPI_Comm comm) {
  int r, p;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &p);
  double *v = malloc(N * p * sizeof(double));
  double *w = malloc(N * p * sizeof(double));
  for (int k = 0; k < N * p; k++)
    v[k] = 1.0;
  double s = 0.0;
  for (int it = 0; it < 2; it++) {
    for (int k = 0; k < N * p; k++)
      w[k] = x[k % N] * v[k] + 0.1 * k;
    MPI_Alltoall(w, N, MPI_DOUBLE, v, N, MPI_DOUBLE, comm);
    for (int k = 0; k < N * p; k++)
      s += v[k] * v[k] * (k + 1 + r);
  }
  y[0] = s;
  free(w);
  free(v);
}

/* MPI_Alltoall in place: the buffer is sent and received. */
#pragma mpiad differentiate wrt(x) output(y) semantics(per_rank)
void a2a_inplace(const double *x, double *y, MPI_Comm comm) {
  int r, p;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &p);
  double *v = malloc(N * p * sizeof(double));
  for (int k = 0; k < N * p; k++)
    v[k] = x[k % N] * (k + 1);
  double s = 0.0;
  for (int it = 0; it < 2; it++) {
    MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DOUBLE, v, N, MPI_DOUBLE, comm);
    for (int k = 0; k < N * p; k++)
      s += v[k] * v[k] * (k + 1 + r);
  }
  y[0] = s;
  free(v);
}

/* MPI_Alltoallv: one value to each rank, received at rdispls[q] = 2 q (gaps
 * between them): the buffer holds 2 p - 1 values. */
#pragma mpiad differentiate wrt(x) output(y) semantics(per_rank)
void a2av(const double *x, double *y, int *ones, int *sdispls, int *rdispls,
          MPI_Comm comm) {
  int r, p;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &p);
  int len = 2 * p - 1;
  double *v = malloc(len * sizeof(double));
  double w[MAXP];
  for (int k = 0; k < len; k++)
    v[k] = 1.0;
  double s = 0.0;
  for (int it = 0; it < 2; it++) {
    for (int q = 0; q < p; q++)
      w[q] = x[q % N] * v[2 * q] + 0.1 * q;
    MPI_Alltoallv(w, ones, sdispls, MPI_DOUBLE, v, ones, rdispls, MPI_DOUBLE,
                  comm);
    for (int k = 0; k < len; k++)
      s += v[k] * v[k] * (k + 1 + r);
  }
  y[0] = s;
  free(v);
}

/* MPI_Allgatherv: rank q contributes q + 1 values, one unused slot between
 * blocks (displs[q] = q (q + 3) / 2): the buffer holds p (p + 3) / 2 - 1. */
#pragma mpiad differentiate wrt(x) output(y) semantics(per_rank)
void agv(const double *x, double *y, int *counts, int *displs, MPI_Comm comm) {
  int r, p;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &p);
  int len = p * (p + 3) / 2 - 1;
  double *v = malloc(len * sizeof(double));
  double b[MAXP];
  for (int k = 0; k < len; k++)
    v[k] = 1.0;
  double s = 0.0;
  for (int it = 0; it < 2; it++) {
    for (int i = 0; i <= r; i++)
      b[i] = x[i % N] * v[len - 1 - i] + 0.5;
    MPI_Allgatherv(b, r + 1, MPI_DOUBLE, v, counts, displs, MPI_DOUBLE, comm);
    for (int k = 0; k < len; k++)
      s += v[k] * v[k] * (k + 1);
  }
  y[0] = s + x[1] * r;
  free(v);
}

/* MPI_Gather to rank 0: the root's buffer holds N * p values, the others'
 * one (never written by the call, never recorded). */
#pragma mpiad differentiate wrt(x) output(y) semantics(per_rank)
void gat(const double *x, double *y, MPI_Comm comm) {
  int r, p;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &p);
  int len = r == 0 ? N * p : 1;
  double *v = malloc(len * sizeof(double));
  double b[N];
  for (int k = 0; k < len; k++)
    v[k] = 1.0;
  double s = 0.0;
  for (int it = 0; it < 2; it++) {
    for (int i = 0; i < N; i++)
      b[i] = x[i] * (it + 1) + x[i] * x[i];
    MPI_Gather(b, N, MPI_DOUBLE, v, N, MPI_DOUBLE, 0, comm);
    for (int k = 0; k < len; k++)
      s += v[k] * v[k] * (k + 1);
  }
  y[0] = s + x[2] * r;
  free(v);
}

/* MPI_Gather to rank 0 with MPI_IN_PLACE at the root, whose own block is
 * already in place. */
#pragma mpiad differentiate wrt(x) output(y) semantics(per_rank)
void gat_inplace(const double *x, double *y, MPI_Comm comm) {
  int r, p;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &p);
  int len = r == 0 ? N * p : 1;
  double *v = malloc(len * sizeof(double));
  double b[N];
  for (int k = 0; k < len; k++)
    v[k] = 1.0;
  double s = 0.0;
  for (int it = 0; it < 2; it++) {
    for (int i = 0; i < N; i++)
      b[i] = x[i] * (it + 1) + x[i] * x[i];
    if (r == 0) {
      for (int i = 0; i < N; i++)
        v[i] = b[i] * v[i];
      MPI_Gather(MPI_IN_PLACE, N, MPI_DOUBLE, v, N, MPI_DOUBLE, 0, comm);
    } else {
      MPI_Gather(b, N, MPI_DOUBLE, v, N, MPI_DOUBLE, 0, comm);
    }
    for (int k = 0; k < len; k++)
      s += v[k] * v[k] * (k + 1);
  }
  y[0] = s + x[2] * r;
  free(v);
}

/* MPI_Gatherv to rank 0 with the Allgatherv layout. */
#pragma mpiad differentiate wrt(x) output(y) semantics(per_rank)
void gatv(const double *x, double *y, int *counts, int *displs, MPI_Comm comm) {
  int r, p;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &p);
  int len = r == 0 ? p * (p + 3) / 2 - 1 : 1;
  double *v = malloc(len * sizeof(double));
  double b[MAXP];
  for (int k = 0; k < len; k++)
    v[k] = 1.0;
  double s = 0.0;
  for (int it = 0; it < 2; it++) {
    for (int i = 0; i <= r; i++)
      b[i] = x[i % N] * (it + 2) + x[i % N] * x[i % N];
    MPI_Gatherv(b, r + 1, MPI_DOUBLE, v, counts, displs, MPI_DOUBLE, 0, comm);
    for (int k = 0; k < len; k++)
      s += v[k] * v[k] * (k + 1);
  }
  y[0] = s + x[2] * r;
  free(v);
}

/* MPI_Reduce_scatter: rank q receives counts[q] = q + 1 sums. */
#pragma mpiad differentiate wrt(x) output(y) semantics(per_rank)
void rsc(const double *x, double *y, int *counts, MPI_Comm comm) {
  int r, p;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &p);
  int tot = p * (p + 1) / 2;
  double *w = malloc(tot * sizeof(double));
  double *v = malloc((r + 1) * sizeof(double));
  for (int i = 0; i <= r; i++)
    v[i] = 1.0;
  double s = 0.0;
  for (int it = 0; it < 2; it++) {
    for (int k = 0; k < tot; k++)
      w[k] = x[k % N] * v[k % (r + 1)] + 0.1 * k;
    MPI_Reduce_scatter(w, v, counts, MPI_DOUBLE, MPI_SUM, comm);
    for (int i = 0; i <= r; i++)
      s += v[i] * v[i] * (i + 2);
  }
  y[0] = s;
  free(w);
  free(v);
}

/* The generated adjoints. */
void ag_inplace_g_b(const double *x, double *x_b, double *y, double *y_b,
                    MPI_Comm comm);
void ag_inplace_pr_b(const double *x, double *x_b, double *y, double *y_b,
                     MPI_Comm comm);
void ag_sep_b(const double *x, double *x_b, double *y, double *y_b,
              MPI_Comm comm);
void a2a_b(const double *x, double *x_b, double *y, double *y_b,
           MPI_Comm comm);
void a2av_b(const double *x, double *x_b, double *y, double *y_b, int *ones,
            int *sdispls, int *rdispls, MPI_Comm comm);
void agv_b(const double *x, double *x_b, double *y, double *y_b, int *counts,
           int *displs, MPI_Comm comm);
void a2a_inplace_b(const double *x, double *x_b, double *y, double *y_b,
                   MPI_Comm comm);
void gat_inplace_b(const double *x, double *x_b, double *y, double *y_b,
                   MPI_Comm comm);
void gat_b(const double *x, double *x_b, double *y, double *y_b,
           MPI_Comm comm);
void gatv_b(const double *x, double *x_b, double *y, double *y_b,
            int *counts, int *displs, MPI_Comm comm);
void rsc_b(const double *x, double *x_b, double *y, double *y_b, int *counts,
           MPI_Comm comm);

static int counts_g[MAXP], displs_g[MAXP], rcounts_g[MAXP];
static int ones_g[MAXP], sdispls_g[MAXP], rdispls_g[MAXP];

#define ADAPT(f)                                                               \
  static void P_##f(const double *x, const double *th, double *y) {           \
    (void)th;                                                                  \
    f(x, y, MPI_COMM_WORLD);                                                   \
  }                                                                            \
  static void B_##f(const double *x, double *xb, const double *th,            \
                    double *thb, double *y, double *yb) {                      \
    (void)th;                                                                  \
    (void)thb;                                                                 \
    f##_b(x, xb, y, yb, MPI_COMM_WORLD);                                       \
  }
ADAPT(ag_inplace_g)
ADAPT(ag_inplace_pr)
ADAPT(ag_sep)
ADAPT(a2a)
ADAPT(gat)
ADAPT(a2a_inplace)
ADAPT(gat_inplace)

static void P_a2av(const double *x, const double *th, double *y) {
  (void)th;
  a2av(x, y, ones_g, sdispls_g, rdispls_g, MPI_COMM_WORLD);
}
static void B_a2av(const double *x, double *xb, const double *th, double *thb,
                   double *y, double *yb) {
  (void)th;
  (void)thb;
  a2av_b(x, xb, y, yb, ones_g, sdispls_g, rdispls_g, MPI_COMM_WORLD);
}
static void P_agv(const double *x, const double *th, double *y) {
  (void)th;
  agv(x, y, counts_g, displs_g, MPI_COMM_WORLD);
}
static void B_agv(const double *x, double *xb, const double *th, double *thb,
                  double *y, double *yb) {
  (void)th;
  (void)thb;
  agv_b(x, xb, y, yb, counts_g, displs_g, MPI_COMM_WORLD);
}
static void P_gatv(const double *x, const double *th, double *y) {
  (void)th;
  gatv(x, y, counts_g, displs_g, MPI_COMM_WORLD);
}
static void B_gatv(const double *x, double *xb, const double *th, double *thb,
                   double *y, double *yb) {
  (void)th;
  (void)thb;
  gatv_b(x, xb, y, yb, counts_g, displs_g, MPI_COMM_WORLD);
}
static void P_rsc(const double *x, const double *th, double *y) {
  (void)th;
  rsc(x, y, rcounts_g, MPI_COMM_WORLD);
}
static void B_rsc(const double *x, double *xb, const double *th, double *thb,
                  double *y, double *yb) {
  (void)th;
  (void)thb;
  rsc_b(x, xb, y, yb, rcounts_g, MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  int P = hx_size_g;
  if (P > MAXP) {
    printf("at most %d ranks\n", MAXP);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  for (int q = 0; q < P; q++) {
    counts_g[q] = q + 1;
    displs_g[q] = q * (q + 3) / 2;
    rcounts_g[q] = q + 1;
    ones_g[q] = 1;
    sdispls_g[q] = q;
    rdispls_g[q] = 2 * q;
  }
  unsigned long long seed = 1300;
  hx_case cases[] = {
      {"Allgather in place, global", P_ag_inplace_g, B_ag_inplace_g, N, 0, 1, 0, 0},
      {"Allgather in place, per_rank", P_ag_inplace_pr, B_ag_inplace_pr, N, 0, 1, 0, 0},
      {"Allgather", P_ag_sep, B_ag_sep, N, 0, 1, 0, 0},
      {"Alltoall", P_a2a, B_a2a, N, 0, 1, 0, 0},
      {"Alltoallv", P_a2av, B_a2av, N, 0, 1, 0, 0},
      {"Allgatherv", P_agv, B_agv, N, 0, 1, 0, 0},
      {"Gather", P_gat, B_gat, N, 0, 1, 0, 0},
      {"Alltoall in place", P_a2a_inplace, B_a2a_inplace, N, 0, 1, 0, 0},
      {"Gather in place", P_gat_inplace, B_gat_inplace, N, 0, 1, 0, 0},
      {"Gatherv", P_gatv, B_gatv, N, 0, 1, 0, 0},
      {"Reduce_scatter", P_rsc, B_rsc, N, 0, 1, 0, 0},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
    hx_case_run(&cases[c], seed += 10);
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
