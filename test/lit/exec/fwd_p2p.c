// Forward mode (F_d) through point-to-point communication: a Send/Recv ring
// (and the same with Ssend), Sendrecv in both directions (a halo exchange),
// Sendrecv_replace, and Recv with MPI_ANY_SOURCE (the source read from the
// status).  Every function carries a forward and a reverse pragma; each case
// checks (Inputs/fwd_check.h) F_d's primal outputs (exact), its tangent
// against central differences along per-rank random directions, and the
// dot-product test of F_d against F_b in global semantics (all outputs here
// are varying: sum over ranks on both sides).  Functions with a wildcard
// receive start with MPI_Barrier(comm) so that successive calls (primal,
// tangent, adjoint, the two difference evaluations) cannot overlap.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
#include <math.h>
#include <mpi.h>
#include <stdio.h>

#include "fwd_check.h"

#define N 3
#define PMAX 8

/* ring: a = f(x) to the right neighbour, b from the left one; even ranks send
 * first, odd ranks receive first (no reliance on eager sends) */
#pragma mpiad differentiate forward wrt(x) output(y)
#pragma mpiad differentiate reverse wrt(x) output(y) varying(x)
void ring(const double *x, double *y, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  int right = (r + 1) % P, left = (r + P - 1) % P;
  double a[N], b[N];
  for (int i = 0; i < N; i++) {
    a[i] = x[i] * x[i] + sin(x[i]);
    b[i] = a[i];
  }
  if (P > 1) {
    if (r % 2 == 0) {
      MPI_Send(a, N, MPI_DOUBLE, right, 7, comm);
      MPI_Recv(b, N, MPI_DOUBLE, left, 7, comm, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(b, N, MPI_DOUBLE, left, 7, comm, MPI_STATUS_IGNORE);
      MPI_Send(a, N, MPI_DOUBLE, right, 7, comm);
    }
  }
  for (int i = 0; i < N; i++)
    y[i] = b[i] * x[i] + b[(i + 1) % N] * b[i];
}

#pragma mpiad differentiate forward wrt(x) output(y)
#pragma mpiad differentiate reverse wrt(x) output(y) varying(x)
void ring_ssend(const double *x, double *y, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  int right = (r + 1) % P, left = (r + P - 1) % P;
  double a[N], b[N];
  for (int i = 0; i < N; i++) {
    a[i] = exp(0.5 * x[i]) * x[(i + 1) % N];
    b[i] = a[i];
  }
  if (P > 1) {
    if (r % 2 == 0) {
      MPI_Ssend(a, N, MPI_DOUBLE, right, 3, comm);
      MPI_Recv(b, N, MPI_DOUBLE, left, 3, comm, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(b, N, MPI_DOUBLE, left, 3, comm, MPI_STATUS_IGNORE);
      MPI_Ssend(a, N, MPI_DOUBLE, right, 3, comm);
    }
  }
  for (int i = 0; i < N; i++)
    y[i] = b[i] * b[i] + x[i] * a[i];
}

/* halo exchange with Sendrecv in both directions (also on 1 rank: to self) */
#pragma mpiad differentiate forward wrt(x) output(y)
#pragma mpiad differentiate reverse wrt(x) output(y) varying(x)
void halo(const double *x, double *y, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  int right = (r + 1) % P, left = (r + P - 1) % P;
  double u[N + 2];
  for (int i = 0; i < N; i++)
    u[i + 1] = x[i] * (1.0 + 0.1 * x[i]);
  for (int t = 0; t < 3; t++) {
    MPI_Sendrecv(&u[N], 1, MPI_DOUBLE, right, 0, &u[0], 1, MPI_DOUBLE, left,
                 0, comm, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, left, 1, &u[N + 1], 1, MPI_DOUBLE,
                 right, 1, comm, MPI_STATUS_IGNORE);
    double un[N + 2];
    for (int i = 1; i <= N; i++)
      un[i] = u[i] + 0.2 * (u[i - 1] - 2.0 * u[i] + u[i + 1]) +
              0.05 * u[i] * u[i + 1];
    for (int i = 1; i <= N; i++)
      u[i] = un[i];
  }
  for (int i = 0; i < N; i++)
    y[i] = u[i + 1];
}

/* Sendrecv_replace: shift by two ranks */
#pragma mpiad differentiate forward wrt(x) output(y)
#pragma mpiad differentiate reverse wrt(x) output(y) varying(x)
void shift_replace(const double *x, double *y, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  int dest = (r + 2) % P, src = ((r - 2) % P + P) % P;
  double buf[N];
  for (int i = 0; i < N; i++)
    buf[i] = x[i] * x[(i + 1) % N] + cos(x[i]);
  MPI_Sendrecv_replace(buf, N, MPI_DOUBLE, dest, 5, src, 5, comm,
                       MPI_STATUS_IGNORE);
  for (int i = 0; i < N; i++)
    y[i] = buf[i] * x[i] + buf[i] * buf[i];
}

/* wildcard receive: every rank but 0 sends to rank 0, which receives with
 * MPI_ANY_SOURCE and files each message by status.MPI_SOURCE */
#pragma mpiad differentiate forward wrt(x) output(y)
#pragma mpiad differentiate reverse wrt(x) output(y) varying(x)
void any_source(const double *x, double *y, MPI_Comm comm) {
  int r, P;
  MPI_Barrier(comm);
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  double a[N], g[PMAX * N];
  for (int i = 0; i < N; i++)
    a[i] = x[i] * x[i] * (r + 1);
  for (int k = 0; k < PMAX * N; k++)
    g[k] = 0.0;
  if (r == 0) {
    for (int i = 0; i < N; i++)
      g[i] = a[i];
    for (int m = 1; m < P; m++) {
      double buf[N];
      MPI_Status st;
      MPI_Recv(buf, N, MPI_DOUBLE, MPI_ANY_SOURCE, 11, comm, &st);
      int src = st.MPI_SOURCE;
      for (int i = 0; i < N; i++)
        g[src * N + i] = buf[i];
    }
  } else {
    MPI_Send(a, N, MPI_DOUBLE, 0, 11, comm);
  }
  for (int i = 0; i < N; i++) {
    double t = 0.0;
    for (int q = 0; q < P; q++)
      t += g[q * N + i] * g[q * N + i] * (q + 2);
    y[i] = t + x[i] * x[i];
  }
}

/* wildcard source AND tag: rank 0 sends back to each sender a reply
 * computed from its message (a round trip); replies are filed by source so
 * that the result does not depend on the arrival order */
#pragma mpiad differentiate forward wrt(x) output(y)
#pragma mpiad differentiate reverse wrt(x) output(y) varying(x)
void any_roundtrip(const double *x, double *y, MPI_Comm comm) {
  int r, P;
  MPI_Barrier(comm);
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  double a[N];
  for (int i = 0; i < N; i++)
    a[i] = sin(x[i]) + 2.0 * x[i];
  if (r == 0) {
    double g[PMAX * N];
    for (int k = 0; k < PMAX * N; k++)
      g[k] = 0.0;
    for (int m = 1; m < P; m++) {
      double buf[N];
      MPI_Status st;
      MPI_Recv(buf, N, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &st);
      int src = st.MPI_SOURCE;
      for (int i = 0; i < N; i++) {
        buf[i] = buf[i] * x[i] + a[i] * buf[i] * buf[i];
        g[src * N + i] = buf[i];
      }
      MPI_Send(buf, N, MPI_DOUBLE, src, 20, comm);
    }
    for (int i = 0; i < N; i++) {
      double t = a[i] * a[i];
      for (int q = 1; q < P; q++)
        t += 0.1 * g[q * N + i] * (q + 1);
      y[i] = t;
    }
  } else {
    double b[N];
    MPI_Send(a, N, MPI_DOUBLE, 0, 100 + r, comm);
    MPI_Recv(b, N, MPI_DOUBLE, 0, 20, comm, MPI_STATUS_IGNORE);
    for (int i = 0; i < N; i++)
      y[i] = b[i] * a[i];
  }
}

/* ---------------- adapters ---------------- */
#define W MPI_COMM_WORLD
#define ADAPT_V(f, NX)                                                         \
  static void P_##f(const double *x, const double *th, double *y) {           \
    (void)th;                                                                  \
    f(x, y, W);                                                                \
  }                                                                            \
  static void D_##f(const double *x, const double *dx, const double *th,      \
                    const double *dth, double *y, double *yd) {               \
    double xd[NX];                                                             \
    (void)th; (void)dth;                                                       \
    memcpy(xd, dx, sizeof xd);                                                 \
    f##_d(x, xd, y, yd, W);                                                    \
  }                                                                            \
  static void B_##f(const double *x, double *xb, const double *th,            \
                    double *thb, double *y, double *yb) {                     \
    (void)th; (void)thb;                                                       \
    f##_b(x, xb, y, yb, W);                                                    \
  }
ADAPT_V(ring, N)
ADAPT_V(ring_ssend, N)
ADAPT_V(halo, N)
ADAPT_V(shift_replace, N)
ADAPT_V(any_source, N)
ADAPT_V(any_roundtrip, N)

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  if (hx_size_g > PMAX) {
    if (hx_rank_g == 0)
      printf("FAIL: at most %d ranks\n", PMAX);
    MPI_Finalize();
    return 1;
  }
  unsigned long long seed = 2000;
#define CASE_V(f)                                                              \
  {                                                                            \
    fc_case c = {#f, P_##f, D_##f, B_##f, N, 0, N, 0};                         \
    fc_run(&c, seed += 10);                                                    \
  }
  for (int rep = 0; rep < 2; rep++) {
    CASE_V(ring)
    CASE_V(ring_ssend)
    CASE_V(halo)
    CASE_V(shift_replace)
    CASE_V(any_source)
    CASE_V(any_roundtrip)
  }
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
