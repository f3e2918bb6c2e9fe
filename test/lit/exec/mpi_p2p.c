// Point-to-point: a Send/Recv ring (rank 0 sends first, the others receive
// first; at one rank a message to itself), an Ssend ring (MPI_PROC_NULL ends
// at one rank), gathering at rank 0 with MPI_Recv(MPI_ANY_SOURCE, MPI_ANY_TAG)
// and a status read by the program (source picks the slot, tag scales it; the
// arrival order is not deterministic), a Sendrecv ring exchange and a
// Sendrecv_replace ring shift.  Outputs vary.  Both semantics, central
// differences of the global objective, dot-product tests of the linear
// variants, float against double.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
#include <math.h>
#include <mpi.h>
#include <stdio.h>

#include "hx_case.h"

#define MAXP 4
#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(ring_g_b) semantics(global) varying(x)
void ring_g(const double *x, double *yv, int k, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  int right = (r + 1) % P, left = (r + P - 1) % P;
  double a[2], b[2];
  for (int i = 0; i < 2; i++) {
    a[i] = x[i] * x[i] + 0.5 * x[i];
    b[i] = 0.0;
  }
  if (r == 0) {
    MPI_Send(a, 2, MPI_DOUBLE, right, 7, comm);
    MPI_Recv(b, 2, MPI_DOUBLE, left, 7, comm, MPI_STATUS_IGNORE);
  } else {
    MPI_Recv(b, 2, MPI_DOUBLE, left, 7, comm, MPI_STATUS_IGNORE);
    MPI_Send(a, 2, MPI_DOUBLE, right, 7, comm);
  }
  for (int i = 0; i < 2; i++)
    yv[i] = b[i] * b[i] * x[i] + b[i];
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(ring_pr_b) semantics(per_rank)
void ring_pr(const double *x, double *yv, int k, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  int right = (r + 1) % P, left = (r + P - 1) % P;
  double a[2], b[2];
  for (int i = 0; i < 2; i++) {
    a[i] = x[i] * x[i] + 0.5 * x[i];
    b[i] = 0.0;
  }
  if (r == 0) {
    MPI_Send(a, 2, MPI_DOUBLE, right, 7, comm);
    MPI_Recv(b, 2, MPI_DOUBLE, left, 7, comm, MPI_STATUS_IGNORE);
  } else {
    MPI_Recv(b, 2, MPI_DOUBLE, left, 7, comm, MPI_STATUS_IGNORE);
    MPI_Send(a, 2, MPI_DOUBLE, right, 7, comm);
  }
  for (int i = 0; i < 2; i++)
    yv[i] = b[i] * b[i] * x[i] + b[i];
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(ring_f_b) varying(x)
void ring_f(const float *x, float *yv, int k, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  int right = (r + 1) % P, left = (r + P - 1) % P;
  float a[2], b[2];
  for (int i = 0; i < 2; i++) {
    a[i] = x[i] * x[i] + 0.5 * x[i];
    b[i] = 0.0;
  }
  if (r == 0) {
    MPI_Send(a, 2, MPI_FLOAT, right, 7, comm);
    MPI_Recv(b, 2, MPI_FLOAT, left, 7, comm, MPI_STATUS_IGNORE);
  } else {
    MPI_Recv(b, 2, MPI_FLOAT, left, 7, comm, MPI_STATUS_IGNORE);
    MPI_Send(a, 2, MPI_FLOAT, right, 7, comm);
  }
  for (int i = 0; i < 2; i++)
    yv[i] = b[i] * b[i] * x[i] + b[i];
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(ring_lin_g_b) semantics(global) varying(x)
void ring_lin_g(const double *x, double *yv, int k, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  int right = (r + 1) % P, left = (r + P - 1) % P;
  double a[2], b[2];
  for (int i = 0; i < 2; i++) {
    a[i] = 2.0 * x[i] - x[(i + 1) % 2];
    b[i] = 0.0;
  }
  if (r == 0) {
    MPI_Send(a, 2, MPI_DOUBLE, right, 7, comm);
    MPI_Recv(b, 2, MPI_DOUBLE, left, 7, comm, MPI_STATUS_IGNORE);
  } else {
    MPI_Recv(b, 2, MPI_DOUBLE, left, 7, comm, MPI_STATUS_IGNORE);
    MPI_Send(a, 2, MPI_DOUBLE, right, 7, comm);
  }
  for (int i = 0; i < 2; i++)
    yv[i] = b[i] * (r + 1) - x[i];
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(ring_lin_pr_b) semantics(per_rank)
void ring_lin_pr(const double *x, double *yv, int k, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  int right = (r + 1) % P, left = (r + P - 1) % P;
  double a[2], b[2];
  for (int i = 0; i < 2; i++) {
    a[i] = 2.0 * x[i] - x[(i + 1) % 2];
    b[i] = 0.0;
  }
  if (r == 0) {
    MPI_Send(a, 2, MPI_DOUBLE, right, 7, comm);
    MPI_Recv(b, 2, MPI_DOUBLE, left, 7, comm, MPI_STATUS_IGNORE);
  } else {
    MPI_Recv(b, 2, MPI_DOUBLE, left, 7, comm, MPI_STATUS_IGNORE);
    MPI_Send(a, 2, MPI_DOUBLE, right, 7, comm);
  }
  for (int i = 0; i < 2; i++)
    yv[i] = b[i] * (r + 1) - x[i];
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(ssend_g_b) semantics(global) varying(x)
void ssend_g(const double *x, double *yv, int k, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  int right = P > 1 ? (r + 1) % P : MPI_PROC_NULL;
  int left = P > 1 ? (r + P - 1) % P : MPI_PROC_NULL;
  double a[2], b[2];
  for (int i = 0; i < 2; i++) {
    a[i] = x[i] * x[i] + 0.5 * x[i];
    b[i] = 0.0;
  }
  if (r == 0) {
    MPI_Ssend(a, 2, MPI_DOUBLE, right, 7, comm);
    MPI_Recv(b, 2, MPI_DOUBLE, left, 7, comm, MPI_STATUS_IGNORE);
  } else {
    MPI_Recv(b, 2, MPI_DOUBLE, left, 7, comm, MPI_STATUS_IGNORE);
    MPI_Ssend(a, 2, MPI_DOUBLE, right, 7, comm);
  }
  for (int i = 0; i < 2; i++)
    yv[i] = b[i] * b[i] * x[i] + b[i];
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(ssend_pr_b) semantics(per_rank)
void ssend_pr(const double *x, double *yv, int k, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  int right = P > 1 ? (r + 1) % P : MPI_PROC_NULL;
  int left = P > 1 ? (r + P - 1) % P : MPI_PROC_NULL;
  double a[2], b[2];
  for (int i = 0; i < 2; i++) {
    a[i] = x[i] * x[i] + 0.5 * x[i];
    b[i] = 0.0;
  }
  if (r == 0) {
    MPI_Ssend(a, 2, MPI_DOUBLE, right, 7, comm);
    MPI_Recv(b, 2, MPI_DOUBLE, left, 7, comm, MPI_STATUS_IGNORE);
  } else {
    MPI_Recv(b, 2, MPI_DOUBLE, left, 7, comm, MPI_STATUS_IGNORE);
    MPI_Ssend(a, 2, MPI_DOUBLE, right, 7, comm);
  }
  for (int i = 0; i < 2; i++)
    yv[i] = b[i] * b[i] * x[i] + b[i];
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(ssend_lin_g_b) semantics(global) varying(x)
void ssend_lin_g(const double *x, double *yv, int k, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  int right = P > 1 ? (r + 1) % P : MPI_PROC_NULL;
  int left = P > 1 ? (r + P - 1) % P : MPI_PROC_NULL;
  double a[2], b[2];
  for (int i = 0; i < 2; i++) {
    a[i] = 2.0 * x[i] - x[(i + 1) % 2];
    b[i] = 0.0;
  }
  if (r == 0) {
    MPI_Ssend(a, 2, MPI_DOUBLE, right, 7, comm);
    MPI_Recv(b, 2, MPI_DOUBLE, left, 7, comm, MPI_STATUS_IGNORE);
  } else {
    MPI_Recv(b, 2, MPI_DOUBLE, left, 7, comm, MPI_STATUS_IGNORE);
    MPI_Ssend(a, 2, MPI_DOUBLE, right, 7, comm);
  }
  for (int i = 0; i < 2; i++)
    yv[i] = b[i] * (r + 1) - x[i];
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(ssend_lin_pr_b) semantics(per_rank)
void ssend_lin_pr(const double *x, double *yv, int k, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  int right = P > 1 ? (r + 1) % P : MPI_PROC_NULL;
  int left = P > 1 ? (r + P - 1) % P : MPI_PROC_NULL;
  double a[2], b[2];
  for (int i = 0; i < 2; i++) {
    a[i] = 2.0 * x[i] - x[(i + 1) % 2];
    b[i] = 0.0;
  }
  if (r == 0) {
    MPI_Ssend(a, 2, MPI_DOUBLE, right, 7, comm);
    MPI_Recv(b, 2, MPI_DOUBLE, left, 7, comm, MPI_STATUS_IGNORE);
  } else {
    MPI_Recv(b, 2, MPI_DOUBLE, left, 7, comm, MPI_STATUS_IGNORE);
    MPI_Ssend(a, 2, MPI_DOUBLE, right, 7, comm);
  }
  for (int i = 0; i < 2; i++)
    yv[i] = b[i] * (r + 1) - x[i];
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(anysrc_g_b) semantics(global) varying(x)
void anysrc_g(const double *x, double *yv, int k, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  /* wildcard receives below: calls must not overlap (the primal itself
     would be racy without this) */
  MPI_Barrier(comm);
  double a[2], g[2 * MAXP];
  for (int i = 0; i < 2; i++)
    a[i] = x[i] * x[i] + 0.5 * x[i];
  for (int j = 0; j < 2 * MAXP; j++)
    g[j] = 0.0;
  if (r > 0) {
    MPI_Send(a, 2, MPI_DOUBLE, 0, 10 + r, comm);
  } else {
    for (int i = 0; i < 2; i++)
      g[i] = a[i];
    for (int m = 1; m < P; m++) {
      double t[2];
      MPI_Status st;
      MPI_Recv(t, 2, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &st);
      int src = st.MPI_SOURCE, tag = st.MPI_TAG;
      for (int i = 0; i < 2; i++)
        g[src * 2 + i] = (tag - 9) * t[i]; /* tag - 9 = src + 1 */
    }
  }
  for (int j = 0; j < 2 * MAXP; j++)
    yv[j] = g[j] * g[j] + sin(g[j]);
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(anysrc_pr_b) semantics(per_rank)
void anysrc_pr(const double *x, double *yv, int k, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  /* wildcard receives below: calls must not overlap (the primal itself
     would be racy without this) */
  MPI_Barrier(comm);
  double a[2], g[2 * MAXP];
  for (int i = 0; i < 2; i++)
    a[i] = x[i] * x[i] + 0.5 * x[i];
  for (int j = 0; j < 2 * MAXP; j++)
    g[j] = 0.0;
  if (r > 0) {
    MPI_Send(a, 2, MPI_DOUBLE, 0, 10 + r, comm);
  } else {
    for (int i = 0; i < 2; i++)
      g[i] = a[i];
    for (int m = 1; m < P; m++) {
      double t[2];
      MPI_Status st;
      MPI_Recv(t, 2, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &st);
      int src = st.MPI_SOURCE, tag = st.MPI_TAG;
      for (int i = 0; i < 2; i++)
        g[src * 2 + i] = (tag - 9) * t[i]; /* tag - 9 = src + 1 */
    }
  }
  for (int j = 0; j < 2 * MAXP; j++)
    yv[j] = g[j] * g[j] + sin(g[j]);
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(anysrc_lin_g_b) semantics(global) varying(x)
void anysrc_lin_g(const double *x, double *yv, int k, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  /* wildcard receives below: calls must not overlap (the primal itself
     would be racy without this) */
  MPI_Barrier(comm);
  double a[2], g[2 * MAXP];
  for (int i = 0; i < 2; i++)
    a[i] = 2.0 * x[i] - x[(i + 1) % 2];
  for (int j = 0; j < 2 * MAXP; j++)
    g[j] = 0.0;
  if (r > 0) {
    MPI_Send(a, 2, MPI_DOUBLE, 0, 10 + r, comm);
  } else {
    for (int i = 0; i < 2; i++)
      g[i] = a[i];
    for (int m = 1; m < P; m++) {
      double t[2];
      MPI_Status st;
      MPI_Recv(t, 2, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &st);
      int src = st.MPI_SOURCE, tag = st.MPI_TAG;
      for (int i = 0; i < 2; i++)
        g[src * 2 + i] = (tag - 9) * t[i]; /* tag - 9 = src + 1 */
    }
  }
  for (int j = 0; j < 2 * MAXP; j++)
    yv[j] = g[j] * (j + 1);
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(anysrc_lin_pr_b) semantics(per_rank)
void anysrc_lin_pr(const double *x, double *yv, int k, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  /* wildcard receives below: calls must not overlap (the primal itself
     would be racy without this) */
  MPI_Barrier(comm);
  double a[2], g[2 * MAXP];
  for (int i = 0; i < 2; i++)
    a[i] = 2.0 * x[i] - x[(i + 1) % 2];
  for (int j = 0; j < 2 * MAXP; j++)
    g[j] = 0.0;
  if (r > 0) {
    MPI_Send(a, 2, MPI_DOUBLE, 0, 10 + r, comm);
  } else {
    for (int i = 0; i < 2; i++)
      g[i] = a[i];
    for (int m = 1; m < P; m++) {
      double t[2];
      MPI_Status st;
      MPI_Recv(t, 2, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &st);
      int src = st.MPI_SOURCE, tag = st.MPI_TAG;
      for (int i = 0; i < 2; i++)
        g[src * 2 + i] = (tag - 9) * t[i]; /* tag - 9 = src + 1 */
    }
  }
  for (int j = 0; j < 2 * MAXP; j++)
    yv[j] = g[j] * (j + 1);
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(sendrecv_g_b) semantics(global) varying(x)
void sendrecv_g(const double *x, double *yv, int k, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  int right = (r + 1) % P, left = (r + P - 1) % P;
  double a[2], b[2];
  for (int i = 0; i < 2; i++) {
    a[i] = x[i] * x[i] + 0.5 * x[i];
    b[i] = 0.0;
  }
  MPI_Sendrecv(a, 2, MPI_DOUBLE, right, 3, b, 2, MPI_DOUBLE, left, 3, comm,
               MPI_STATUS_IGNORE);
  for (int i = 0; i < 2; i++)
    yv[i] = b[i] * b[i] * x[i] + b[i];
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(sendrecv_pr_b) semantics(per_rank)
void sendrecv_pr(const double *x, double *yv, int k, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  int right = (r + 1) % P, left = (r + P - 1) % P;
  double a[2], b[2];
  for (int i = 0; i < 2; i++) {
    a[i] = x[i] * x[i] + 0.5 * x[i];
    b[i] = 0.0;
  }
  MPI_Sendrecv(a, 2, MPI_DOUBLE, right, 3, b, 2, MPI_DOUBLE, left, 3, comm,
               MPI_STATUS_IGNORE);
  for (int i = 0; i < 2; i++)
    yv[i] = b[i] * b[i] * x[i] + b[i];
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(sendrecv_f_b) varying(x)
void sendrecv_f(const float *x, float *yv, int k, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  int right = (r + 1) % P, left = (r + P - 1) % P;
  float a[2], b[2];
  for (int i = 0; i < 2; i++) {
    a[i] = x[i] * x[i] + 0.5 * x[i];
    b[i] = 0.0;
  }
  MPI_Sendrecv(a, 2, MPI_FLOAT, right, 3, b, 2, MPI_FLOAT, left, 3, comm,
               MPI_STATUS_IGNORE);
  for (int i = 0; i < 2; i++)
    yv[i] = b[i] * b[i] * x[i] + b[i];
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(sendrecv_lin_g_b) semantics(global) varying(x)
void sendrecv_lin_g(const double *x, double *yv, int k, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  int right = (r + 1) % P, left = (r + P - 1) % P;
  double a[2], b[2];
  for (int i = 0; i < 2; i++) {
    a[i] = 2.0 * x[i] - x[(i + 1) % 2];
    b[i] = 0.0;
  }
  MPI_Sendrecv(a, 2, MPI_DOUBLE, right, 3, b, 2, MPI_DOUBLE, left, 3, comm,
               MPI_STATUS_IGNORE);
  for (int i = 0; i < 2; i++)
    yv[i] = b[i] * (r + 1) - x[i];
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(sendrecv_lin_pr_b) semantics(per_rank)
void sendrecv_lin_pr(const double *x, double *yv, int k, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  int right = (r + 1) % P, left = (r + P - 1) % P;
  double a[2], b[2];
  for (int i = 0; i < 2; i++) {
    a[i] = 2.0 * x[i] - x[(i + 1) % 2];
    b[i] = 0.0;
  }
  MPI_Sendrecv(a, 2, MPI_DOUBLE, right, 3, b, 2, MPI_DOUBLE, left, 3, comm,
               MPI_STATUS_IGNORE);
  for (int i = 0; i < 2; i++)
    yv[i] = b[i] * (r + 1) - x[i];
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(replace_g_b) semantics(global) varying(x)
void replace_g(const double *x, double *yv, int k, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  int right = (r + 1) % P, left = (r + P - 1) % P;
  double b[2];
  for (int i = 0; i < 2; i++)
    b[i] = x[i] * x[i] * x[i] + 0.5 * x[i];
  MPI_Sendrecv_replace(b, 2, MPI_DOUBLE, right, 4, left, 4, comm,
                       MPI_STATUS_IGNORE);
  for (int i = 0; i < 2; i++)
    yv[i] = b[i] * b[i] * x[i] + b[i];
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(replace_pr_b) semantics(per_rank)
void replace_pr(const double *x, double *yv, int k, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  int right = (r + 1) % P, left = (r + P - 1) % P;
  double b[2];
  for (int i = 0; i < 2; i++)
    b[i] = x[i] * x[i] * x[i] + 0.5 * x[i];
  MPI_Sendrecv_replace(b, 2, MPI_DOUBLE, right, 4, left, 4, comm,
                       MPI_STATUS_IGNORE);
  for (int i = 0; i < 2; i++)
    yv[i] = b[i] * b[i] * x[i] + b[i];
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(replace_f_b) varying(x)
void replace_f(const float *x, float *yv, int k, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  int right = (r + 1) % P, left = (r + P - 1) % P;
  float b[2];
  for (int i = 0; i < 2; i++)
    b[i] = x[i] * x[i] * x[i] + 0.5 * x[i];
  MPI_Sendrecv_replace(b, 2, MPI_FLOAT, right, 4, left, 4, comm,
                       MPI_STATUS_IGNORE);
  for (int i = 0; i < 2; i++)
    yv[i] = b[i] * b[i] * x[i] + b[i];
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(replace_lin_g_b) semantics(global) varying(x)
void replace_lin_g(const double *x, double *yv, int k, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  int right = (r + 1) % P, left = (r + P - 1) % P;
  double b[2];
  for (int i = 0; i < 2; i++)
    b[i] = 2.0 * x[i] - x[(i + 1) % 2];
  MPI_Sendrecv_replace(b, 2, MPI_DOUBLE, right, 4, left, 4, comm,
                       MPI_STATUS_IGNORE);
  for (int i = 0; i < 2; i++)
    yv[i] = b[i] * (r + 1) - x[i];
}

#pragma mpiad differentiate wrt(x) output(yv) replicated(k) name(replace_lin_pr_b) semantics(per_rank)
void replace_lin_pr(const double *x, double *yv, int k, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  int right = (r + 1) % P, left = (r + P - 1) % P;
  double b[2];
  for (int i = 0; i < 2; i++)
    b[i] = 2.0 * x[i] - x[(i + 1) % 2];
  MPI_Sendrecv_replace(b, 2, MPI_DOUBLE, right, 4, left, 4, comm,
                       MPI_STATUS_IGNORE);
  for (int i = 0; i < 2; i++)
    yv[i] = b[i] * (r + 1) - x[i];
}

static int g_k, g_nx, g_ny, g_nyr;

static void P_ring_g(const double *x, const double *th, double *y) {
  (void)th;
  ring_g(x, y, g_k, MPI_COMM_WORLD);
}
static void B_ring_g(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  ring_g_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
}
static void P_ring_pr(const double *x, const double *th, double *y) {
  (void)th;
  ring_pr(x, y, g_k, MPI_COMM_WORLD);
}
static void B_ring_pr(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  ring_pr_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
}
static void P_ring_f(const double *x, const double *th, double *y) {
  float xf[64], yf[64];
  (void)th;
  hx_tof(xf, x, g_nx);
  ring_f(xf, yf, g_k, MPI_COMM_WORLD);
  hx_tod(y, yf, g_ny + g_nyr);
}
static void B_ring_f(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  float xf[64], xbf[64] = {0}, yf[64], ybf[64];
  (void)th;
  (void)thb;
  hx_tof(xf, x, g_nx);
  hx_tof(ybf, yb, g_ny + g_nyr);
  ring_f_b(xf, xbf, yf, ybf, g_k, MPI_COMM_WORLD);
  hx_addd(xb, xbf, g_nx);
  hx_tod(y, yf, g_ny + g_nyr);
  hx_tod(yb, ybf, g_ny + g_nyr);
}
static void P_ring_lin_g(const double *x, const double *th, double *y) {
  (void)th;
  ring_lin_g(x, y, g_k, MPI_COMM_WORLD);
}
static void B_ring_lin_g(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  ring_lin_g_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
}
static void P_ring_lin_pr(const double *x, const double *th, double *y) {
  (void)th;
  ring_lin_pr(x, y, g_k, MPI_COMM_WORLD);
}
static void B_ring_lin_pr(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  ring_lin_pr_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
}
static void P_ssend_g(const double *x, const double *th, double *y) {
  (void)th;
  ssend_g(x, y, g_k, MPI_COMM_WORLD);
}
static void B_ssend_g(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  ssend_g_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
}
static void P_ssend_pr(const double *x, const double *th, double *y) {
  (void)th;
  ssend_pr(x, y, g_k, MPI_COMM_WORLD);
}
static void B_ssend_pr(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  ssend_pr_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
}
static void P_ssend_lin_g(const double *x, const double *th, double *y) {
  (void)th;
  ssend_lin_g(x, y, g_k, MPI_COMM_WORLD);
}
static void B_ssend_lin_g(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  ssend_lin_g_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
}
static void P_ssend_lin_pr(const double *x, const double *th, double *y) {
  (void)th;
  ssend_lin_pr(x, y, g_k, MPI_COMM_WORLD);
}
static void B_ssend_lin_pr(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  ssend_lin_pr_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
}
static void P_anysrc_g(const double *x, const double *th, double *y) {
  (void)th;
  anysrc_g(x, y, g_k, MPI_COMM_WORLD);
}
static void B_anysrc_g(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  anysrc_g_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
}
static void P_anysrc_pr(const double *x, const double *th, double *y) {
  (void)th;
  anysrc_pr(x, y, g_k, MPI_COMM_WORLD);
}
static void B_anysrc_pr(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  anysrc_pr_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
}
static void P_anysrc_lin_g(const double *x, const double *th, double *y) {
  (void)th;
  anysrc_lin_g(x, y, g_k, MPI_COMM_WORLD);
}
static void B_anysrc_lin_g(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  anysrc_lin_g_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
}
static void P_anysrc_lin_pr(const double *x, const double *th, double *y) {
  (void)th;
  anysrc_lin_pr(x, y, g_k, MPI_COMM_WORLD);
}
static void B_anysrc_lin_pr(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  anysrc_lin_pr_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
}
static void P_sendrecv_g(const double *x, const double *th, double *y) {
  (void)th;
  sendrecv_g(x, y, g_k, MPI_COMM_WORLD);
}
static void B_sendrecv_g(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  sendrecv_g_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
}
static void P_sendrecv_pr(const double *x, const double *th, double *y) {
  (void)th;
  sendrecv_pr(x, y, g_k, MPI_COMM_WORLD);
}
static void B_sendrecv_pr(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  sendrecv_pr_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
}
static void P_sendrecv_f(const double *x, const double *th, double *y) {
  float xf[64], yf[64];
  (void)th;
  hx_tof(xf, x, g_nx);
  sendrecv_f(xf, yf, g_k, MPI_COMM_WORLD);
  hx_tod(y, yf, g_ny + g_nyr);
}
static void B_sendrecv_f(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  float xf[64], xbf[64] = {0}, yf[64], ybf[64];
  (void)th;
  (void)thb;
  hx_tof(xf, x, g_nx);
  hx_tof(ybf, yb, g_ny + g_nyr);
  sendrecv_f_b(xf, xbf, yf, ybf, g_k, MPI_COMM_WORLD);
  hx_addd(xb, xbf, g_nx);
  hx_tod(y, yf, g_ny + g_nyr);
  hx_tod(yb, ybf, g_ny + g_nyr);
}
static void P_sendrecv_lin_g(const double *x, const double *th, double *y) {
  (void)th;
  sendrecv_lin_g(x, y, g_k, MPI_COMM_WORLD);
}
static void B_sendrecv_lin_g(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  sendrecv_lin_g_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
}
static void P_sendrecv_lin_pr(const double *x, const double *th, double *y) {
  (void)th;
  sendrecv_lin_pr(x, y, g_k, MPI_COMM_WORLD);
}
static void B_sendrecv_lin_pr(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  sendrecv_lin_pr_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
}
static void P_replace_g(const double *x, const double *th, double *y) {
  (void)th;
  replace_g(x, y, g_k, MPI_COMM_WORLD);
}
static void B_replace_g(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  replace_g_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
}
static void P_replace_pr(const double *x, const double *th, double *y) {
  (void)th;
  replace_pr(x, y, g_k, MPI_COMM_WORLD);
}
static void B_replace_pr(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  replace_pr_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
}
static void P_replace_f(const double *x, const double *th, double *y) {
  float xf[64], yf[64];
  (void)th;
  hx_tof(xf, x, g_nx);
  replace_f(xf, yf, g_k, MPI_COMM_WORLD);
  hx_tod(y, yf, g_ny + g_nyr);
}
static void B_replace_f(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  float xf[64], xbf[64] = {0}, yf[64], ybf[64];
  (void)th;
  (void)thb;
  hx_tof(xf, x, g_nx);
  hx_tof(ybf, yb, g_ny + g_nyr);
  replace_f_b(xf, xbf, yf, ybf, g_k, MPI_COMM_WORLD);
  hx_addd(xb, xbf, g_nx);
  hx_tod(y, yf, g_ny + g_nyr);
  hx_tod(yb, ybf, g_ny + g_nyr);
}
static void P_replace_lin_g(const double *x, const double *th, double *y) {
  (void)th;
  replace_lin_g(x, y, g_k, MPI_COMM_WORLD);
}
static void B_replace_lin_g(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  replace_lin_g_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
}
static void P_replace_lin_pr(const double *x, const double *th, double *y) {
  (void)th;
  replace_lin_pr(x, y, g_k, MPI_COMM_WORLD);
}
static void B_replace_lin_pr(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th;
  (void)thb;
  replace_lin_pr_b(x, xb, y, yb, g_k, MPI_COMM_WORLD);
}
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  int r = hx_rank_g, P = hx_size_g;
  unsigned long long seed = 1000;
  char name[256];
  (void)r;
  g_k = 0;
  g_nx = 2;
  g_ny = 2;
  g_nyr = 0;
  {
    snprintf(name, sizeof name, "ring global k=%d", g_k);
    hx_case c = {name, P_ring_g, B_ring_g, g_nx, 0, g_ny, g_nyr, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "ring per_rank k=%d", g_k);
    hx_case c = {name, P_ring_pr, B_ring_pr, g_nx, 0, g_ny + g_nyr, 0, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "ring float global k=%d", g_k);
    hx_case cf = {name, P_ring_f, B_ring_f, g_nx, 0, g_ny, g_nyr, 0};
    hx_case cd = {name, P_ring_g, B_ring_g, g_nx, 0, g_ny, g_nyr, 0};
    hx_case_twin(&cf, &cd, seed += 10, 1e-4);
  }
  g_k = 0;
  g_nx = 2;
  g_ny = 2;
  g_nyr = 0;
  {
    snprintf(name, sizeof name, "ring_lin global k=%d", g_k);
    hx_case c = {name, P_ring_lin_g, B_ring_lin_g, g_nx, 0, g_ny, g_nyr, 1};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "ring_lin per_rank k=%d", g_k);
    hx_case c = {name, P_ring_lin_pr, B_ring_lin_pr, g_nx, 0, g_ny + g_nyr, 0, 1};
    hx_case_run(&c, seed += 10);
  }
  g_k = 0;
  g_nx = 2;
  g_ny = 2;
  g_nyr = 0;
  {
    snprintf(name, sizeof name, "ssend global k=%d", g_k);
    hx_case c = {name, P_ssend_g, B_ssend_g, g_nx, 0, g_ny, g_nyr, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "ssend per_rank k=%d", g_k);
    hx_case c = {name, P_ssend_pr, B_ssend_pr, g_nx, 0, g_ny + g_nyr, 0, 0};
    hx_case_run(&c, seed += 10);
  }
  g_k = 0;
  g_nx = 2;
  g_ny = 2;
  g_nyr = 0;
  {
    snprintf(name, sizeof name, "ssend_lin global k=%d", g_k);
    hx_case c = {name, P_ssend_lin_g, B_ssend_lin_g, g_nx, 0, g_ny, g_nyr, 1};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "ssend_lin per_rank k=%d", g_k);
    hx_case c = {name, P_ssend_lin_pr, B_ssend_lin_pr, g_nx, 0, g_ny + g_nyr, 0, 1};
    hx_case_run(&c, seed += 10);
  }
  g_k = 0;
  g_nx = 2;
  g_ny = 2 * MAXP;
  g_nyr = 0;
  {
    snprintf(name, sizeof name, "anysrc global k=%d", g_k);
    hx_case c = {name, P_anysrc_g, B_anysrc_g, g_nx, 0, g_ny, g_nyr, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "anysrc per_rank k=%d", g_k);
    hx_case c = {name, P_anysrc_pr, B_anysrc_pr, g_nx, 0, g_ny + g_nyr, 0, 0};
    hx_case_run(&c, seed += 10);
  }
  g_k = 0;
  g_nx = 2;
  g_ny = 2 * MAXP;
  g_nyr = 0;
  {
    snprintf(name, sizeof name, "anysrc_lin global k=%d", g_k);
    hx_case c = {name, P_anysrc_lin_g, B_anysrc_lin_g, g_nx, 0, g_ny, g_nyr, 1};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "anysrc_lin per_rank k=%d", g_k);
    hx_case c = {name, P_anysrc_lin_pr, B_anysrc_lin_pr, g_nx, 0, g_ny + g_nyr, 0, 1};
    hx_case_run(&c, seed += 10);
  }
  g_k = 0;
  g_nx = 2;
  g_ny = 2;
  g_nyr = 0;
  {
    snprintf(name, sizeof name, "sendrecv global k=%d", g_k);
    hx_case c = {name, P_sendrecv_g, B_sendrecv_g, g_nx, 0, g_ny, g_nyr, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "sendrecv per_rank k=%d", g_k);
    hx_case c = {name, P_sendrecv_pr, B_sendrecv_pr, g_nx, 0, g_ny + g_nyr, 0, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "sendrecv float global k=%d", g_k);
    hx_case cf = {name, P_sendrecv_f, B_sendrecv_f, g_nx, 0, g_ny, g_nyr, 0};
    hx_case cd = {name, P_sendrecv_g, B_sendrecv_g, g_nx, 0, g_ny, g_nyr, 0};
    hx_case_twin(&cf, &cd, seed += 10, 1e-4);
  }
  g_k = 0;
  g_nx = 2;
  g_ny = 2;
  g_nyr = 0;
  {
    snprintf(name, sizeof name, "sendrecv_lin global k=%d", g_k);
    hx_case c = {name, P_sendrecv_lin_g, B_sendrecv_lin_g, g_nx, 0, g_ny, g_nyr, 1};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "sendrecv_lin per_rank k=%d", g_k);
    hx_case c = {name, P_sendrecv_lin_pr, B_sendrecv_lin_pr, g_nx, 0, g_ny + g_nyr, 0, 1};
    hx_case_run(&c, seed += 10);
  }
  g_k = 0;
  g_nx = 2;
  g_ny = 2;
  g_nyr = 0;
  {
    snprintf(name, sizeof name, "replace global k=%d", g_k);
    hx_case c = {name, P_replace_g, B_replace_g, g_nx, 0, g_ny, g_nyr, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "replace per_rank k=%d", g_k);
    hx_case c = {name, P_replace_pr, B_replace_pr, g_nx, 0, g_ny + g_nyr, 0, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "replace float global k=%d", g_k);
    hx_case cf = {name, P_replace_f, B_replace_f, g_nx, 0, g_ny, g_nyr, 0};
    hx_case cd = {name, P_replace_g, B_replace_g, g_nx, 0, g_ny, g_nyr, 0};
    hx_case_twin(&cf, &cd, seed += 10, 1e-4);
  }
  g_k = 0;
  g_nx = 2;
  g_ny = 2;
  g_nyr = 0;
  {
    snprintf(name, sizeof name, "replace_lin global k=%d", g_k);
    hx_case c = {name, P_replace_lin_g, B_replace_lin_g, g_nx, 0, g_ny, g_nyr, 1};
    hx_case_run(&c, seed += 10);
  }
  {
    snprintf(name, sizeof name, "replace_lin per_rank k=%d", g_k);
    hx_case c = {name, P_replace_lin_pr, B_replace_lin_pr, g_nx, 0, g_ny + g_nyr, 0, 1};
    hx_case_run(&c, seed += 10);
  }
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
