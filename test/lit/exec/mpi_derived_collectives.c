// Derived datatypes in MPI_Gather, MPI_Scatter, MPI_Allgather and
// MPI_Alltoall on values that carry derivatives, the two sides described
// differently, as MPI allows (the same elements per rank's block):
//   Fgat: every rank's matrix column (MPI_Type_vector) gathered as contiguous
//         rows at rank 0;
//   Fsca: the columns of a K x P matrix at rank 0 scattered, one per rank,
//         through a column type resized to one double (the transpose
//         scatter);
//   Fall: contiguous rows allgathered into the columns of a K x P matrix;
//   Falt: blocks of a strided array exchanged all-to-all, received reversed
//         (MPI_Type_indexed);
//   Fv:   MPI_Allgatherv, MPI_Alltoallv, MPI_Scatterv and MPI_Gatherv of the
//         columns of a 2 x W matrix (a resized column type), a different
//         number of columns per rank, contiguous on the other side;
//   Fdup: a send layout that names an element twice (MPI_Allgather, and
//         MPI_Bcast from the root), whose adjoints must add up;
//   Fw:   MPI_Alltoallw, a column type per block on the send side and
//         contiguous doubles at byte offsets on the receive side.
// Reverse mode against central differences, forward mode against reverse
// (the dot-product test), at 1-4 ranks; FileCheck of the helpers called.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
// RUN: %mpiad-emit %s -I%S/../Inputs -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck --check-prefix=GEN %s
// GEN: double Fgat_b(
// GEN: mpiad_gather_rev_typed(&m_b[0][1], 1, col, g_b, K, MPI_DOUBLE, 0, comm);
// GEN: double Fsca_b(
// GEN: mpiad_scatter_rev_typed(G_b, 1, col1, v_b, K, MPI_DOUBLE, 0, comm);
// GEN: double Fall_b(
// GEN: mpiad_allgather_rev_typed(v_b, K, MPI_DOUBLE, A_b, 1, col1, comm, 1);
// GEN: double Falt_b(
// GEN: mpiad_alltoall_rev_typed(s_b, 1, ev, t_b, 1, rv, comm);
// GEN: double Fv_b(
// GEN: mpiad_gatherv_rev_typed(u_b, 2 * cnt[r], MPI_DOUBLE, g_b, cnt, dis, col, P - 1, comm);
// GEN: mpiad_scatterv_rev_typed(M_b, cnt, dis, col, u_b, 2 * cnt[r], MPI_DOUBLE, 0, comm);
// GEN: mpiad_alltoallv_rev_typed(M_b, ones, at, col, C_b, ones, at, col, comm);
// GEN: mpiad_allgatherv_rev_typed(v_b, 2 * cnt[r], MPI_DOUBLE, A_b, cnt, dis, col, comm, 1);
// GEN: double Fw_b(
// GEN: mpiad_alltoallw_rev(M_b, sc, sd, st, T_b, rc, rd, rt, comm);
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define K 3
#define N 12
#define PMAX 4

#pragma mpiad differentiate wrt(x) varying(x)
#pragma mpiad differentiate forward wrt(x)
double Fgat(const double *x, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  double m[K][4];
  for (int i = 0; i < K; i++)
    for (int j = 0; j < 4; j++)
      m[i][j] = x[i * 4 + j] * x[(i * 4 + j + 1) % N];
  MPI_Datatype col;
  MPI_Type_vector(K, 1, 4, MPI_DOUBLE, &col);
  MPI_Type_commit(&col);
  double g[PMAX * K];
  for (int k = 0; k < PMAX * K; k++)
    g[k] = 0.0;
  MPI_Gather(&m[0][1], 1, col, g, K, MPI_DOUBLE, 0, comm);
  MPI_Type_free(&col);
  double l = 0.0;
  for (int i = 0; i < K; i++)
    for (int j = 0; j < 4; j++)
      l += m[i][j] * (0.5 + 0.1 * j);
  if (r == 0)
    for (int k = 0; k < P * K; k++)
      l += g[k] * g[k] * (1.0 + 0.1 * k);
  return l;
}

#pragma mpiad differentiate wrt(x) varying(x)
#pragma mpiad differentiate forward wrt(x)
double Fsca(const double *x, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  double G[K * PMAX], v[K];
  for (int k = 0; k < K * P; k++)
    G[k] = sin(x[k % N]) + x[(k + 3) % N];
  for (int k = 0; k < K; k++)
    v[k] = 0.0;
  MPI_Datatype colt, col1;
  MPI_Type_vector(K, 1, P, MPI_DOUBLE, &colt);
  MPI_Type_create_resized(colt, 0, (MPI_Aint)sizeof(double), &col1);
  MPI_Type_commit(&col1);
  /* rank i gets column i of the K x P matrix G */
  MPI_Scatter(G, 1, col1, v, K, MPI_DOUBLE, 0, comm);
  MPI_Type_free(&col1);
  MPI_Type_free(&colt);
  double l = 0.0;
  for (int k = 0; k < K; k++)
    l += v[k] * v[k] * v[k] * (1.0 + 0.2 * k + 0.3 * r);
  return l;
}

#pragma mpiad differentiate wrt(x) varying(x)
#pragma mpiad differentiate forward wrt(x)
double Fall(const double *x, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  double v[K], A[K * PMAX];
  for (int k = 0; k < K; k++)
    v[k] = x[k] * x[k + 1] + x[k + 2];
  MPI_Datatype colt, col1;
  MPI_Type_vector(K, 1, P, MPI_DOUBLE, &colt);
  MPI_Type_create_resized(colt, 0, (MPI_Aint)sizeof(double), &col1);
  MPI_Type_commit(&col1);
  /* A[k * P + i] = v[k] of rank i */
  MPI_Allgather(v, K, MPI_DOUBLE, A, 1, col1, comm);
  MPI_Type_free(&col1);
  MPI_Type_free(&colt);
  double l = 0.0;
  for (int k = 0; k < K * P; k++)
    l += A[k] * A[k] * (1.0 + 0.1 * k + 0.3 * r);
  return l;
}

#pragma mpiad differentiate wrt(x) varying(x)
#pragma mpiad differentiate forward wrt(x)
double Falt(const double *x, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  /* block q (2 doubles) for rank q at even positions of s; received into t
   * in reverse order */
  double s[4 * PMAX], t[2 * PMAX];
  for (int k = 0; k < 4 * P; k++)
    s[k] = x[k % N] * (1.0 + 0.1 * k) + x[(k + 5) % N] * x[(k + 5) % N];
  for (int k = 0; k < 2 * P; k++)
    t[k] = 0.0;
  MPI_Datatype ev0, ev, rv0, rv;
  MPI_Type_vector(2, 1, 2, MPI_DOUBLE, &ev0);
  MPI_Type_create_resized(ev0, 0, 4 * (MPI_Aint)sizeof(double), &ev);
  MPI_Type_commit(&ev);
  int bl[2] = {1, 1}, dis[2] = {1, 0};
  MPI_Type_indexed(2, bl, dis, MPI_DOUBLE, &rv0);
  MPI_Type_create_resized(rv0, 0, 2 * (MPI_Aint)sizeof(double), &rv);
  MPI_Type_commit(&rv);
  MPI_Alltoall(s, 1, ev, t, 1, rv, comm);
  MPI_Type_free(&rv);
  MPI_Type_free(&rv0);
  MPI_Type_free(&ev);
  MPI_Type_free(&ev0);
  double l = 0.0;
  for (int k = 0; k < 4 * P; k++)
    l += 0.25 * s[k] * s[k];
  for (int k = 0; k < 2 * P; k++)
    l += t[k] * t[k] * t[k] * (1.0 + 0.1 * k + 0.3 * r);
  return l;
}

/* The v collectives with a column type of a 2 x W matrix (resized to one
 * double, so that displacements count columns); rank i owns i % 2 + 1
 * columns. */
#define W 8
#pragma mpiad differentiate wrt(x) varying(x)
#pragma mpiad differentiate forward wrt(x)
double Fv(const double *x, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  int cnt[PMAX], dis[PMAX], ones[PMAX], at[PMAX];
  for (int i = 0; i < P; i++) {
    cnt[i] = i % 2 + 1;
    dis[i] = i == 0 ? 0 : dis[i - 1] + cnt[i - 1];
    ones[i] = 1;
    at[i] = i;
  }
  MPI_Datatype c0, col;
  MPI_Type_vector(2, 1, W, MPI_DOUBLE, &c0);
  MPI_Type_create_resized(c0, 0, (MPI_Aint)sizeof(double), &col);
  MPI_Type_commit(&col);
  /* my columns, as (row 0, row 1) pairs */
  double v[4], A[2 * W], M[2 * W], C[2 * W], g[2 * W], u[4];
  for (int k = 0; k < 4; k++)
    v[k] = x[k] * x[k + 4] + 0.5 * x[k + 1];
  for (int k = 0; k < 2 * W; k++) {
    A[k] = 0.0;
    M[k] = x[k % N] * (1.0 + 0.1 * k);
    C[k] = 0.0;
    g[k] = x[(k + 2) % N];
  }
  for (int k = 0; k < 4; k++)
    u[k] = 0.0;
  MPI_Allgatherv(v, 2 * cnt[r], MPI_DOUBLE, A, cnt, dis, col, comm);
  MPI_Alltoallv(M, ones, at, col, C, ones, at, col, comm);
  MPI_Scatterv(M, cnt, dis, col, u, 2 * cnt[r], MPI_DOUBLE, 0, comm);
  MPI_Gatherv(u, 2 * cnt[r], MPI_DOUBLE, g, cnt, dis, col, P - 1, comm);
  MPI_Type_free(&col);
  MPI_Type_free(&c0);
  double l = 0.0;
  for (int k = 0; k < 2 * W; k++)
    l += (A[k] * A[k] + C[k] * C[k] * C[k] + g[k] * g[k]) *
         (1.0 + 0.05 * k + 0.3 * r);
  for (int k = 0; k < 4; k++)
    l += u[k] * u[k] * (2.0 + k);
  return l;
}

/* A send layout may name an element twice (MPI allows it for sends): both
 * copies' adjoints add up.  MPI_Allgather and MPI_Bcast of v[1], v[1], v[0]. */
#pragma mpiad differentiate wrt(x) varying(x)
#pragma mpiad differentiate forward wrt(x)
double Fdup(const double *x, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  double v[2], A[3 * PMAX], b[3];
  v[0] = x[0] * x[1];
  v[1] = sin(x[2]) + x[3];
  int bl[3] = {1, 1, 1}, dis[3] = {1, 1, 0};
  MPI_Datatype dup;
  MPI_Type_indexed(3, bl, dis, MPI_DOUBLE, &dup);
  MPI_Type_commit(&dup);
  MPI_Allgather(v, 1, dup, A, 3, MPI_DOUBLE, comm);
  if (r == 0) {
    MPI_Bcast(v, 1, dup, 0, comm);
    b[0] = v[0];
    b[1] = v[1];
    b[2] = 0.0;
  } else {
    MPI_Bcast(b, 3, MPI_DOUBLE, 0, comm);
  }
  MPI_Type_free(&dup);
  double l = 0.0;
  for (int k = 0; k < 3 * P; k++)
    l += A[k] * A[k] * (1.0 + 0.1 * k + 0.3 * r);
  for (int k = 0; k < 3; k++)
    l += b[k] * b[k] * b[k] * (1.0 + 0.2 * k + 0.3 * r);
  return l;
}

/* MPI_Alltoallw: every rank sends column q of its 2 x PMAX matrix (a column
 * type) to rank q, and receives rank q's as 2 contiguous doubles at byte
 * offset 16 q. */
#pragma mpiad differentiate wrt(x) varying(x)
#pragma mpiad differentiate forward wrt(x)
double Fw(const double *x, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  double M[2 * PMAX], T[2 * PMAX];
  for (int k = 0; k < 2 * PMAX; k++) {
    M[k] = x[k % N] * x[(k + 1) % N] + 0.5 * x[(k + 3) % N];
    T[k] = 0.0;
  }
  MPI_Datatype c;
  MPI_Type_vector(2, 1, PMAX, MPI_DOUBLE, &c);
  MPI_Type_commit(&c);
  int sc[PMAX], sd[PMAX], rc[PMAX], rd[PMAX];
  MPI_Datatype st[PMAX], rt[PMAX];
  for (int q = 0; q < P; q++) {
    sc[q] = 1;
    sd[q] = q * (int)sizeof(double);
    st[q] = c;
    rc[q] = 2;
    rd[q] = 2 * q * (int)sizeof(double);
    rt[q] = MPI_DOUBLE;
  }
  MPI_Alltoallw(M, sc, sd, st, T, rc, rd, rt, comm);
  MPI_Type_free(&c);
  double l = 0.0;
  for (int k = 0; k < 2 * PMAX; k++)
    l += T[k] * T[k] * T[k] * (1.0 + 0.1 * k + 0.3 * r) + 0.2 * M[k] * M[k];
  return l;
}

static int which; /* 0 Fgat, 1 Fsca, 2 Fall, 3 Falt, 4 Fv, 5 Fdup, 6 Fw */

static double F(const double *x) {
  MPI_Comm c = MPI_COMM_WORLD;
  return which == 0 ? Fgat(x, c) : which == 1 ? Fsca(x, c)
       : which == 2 ? Fall(x, c) : which == 3 ? Falt(x, c)
       : which == 4 ? Fv(x, c) : which == 5 ? Fdup(x, c) : Fw(x, c);
}
static double B(const double *x, double *xb) {
  MPI_Comm c = MPI_COMM_WORLD;
  return which == 0 ? Fgat_b(x, xb, c, 1.0) : which == 1 ? Fsca_b(x, xb, c, 1.0)
       : which == 2 ? Fall_b(x, xb, c, 1.0)
       : which == 3 ? Falt_b(x, xb, c, 1.0)
       : which == 4 ? Fv_b(x, xb, c, 1.0)
       : which == 5 ? Fdup_b(x, xb, c, 1.0) : Fw_b(x, xb, c, 1.0);
}
static void D(const double *x, double *xd, double *dot) {
  MPI_Comm c = MPI_COMM_WORLD;
  if (which == 0)
    Fgat_d(x, xd, c, dot);
  else if (which == 1)
    Fsca_d(x, xd, c, dot);
  else if (which == 2)
    Fall_d(x, xd, c, dot);
  else if (which == 3)
    Falt_d(x, xd, c, dot);
  else if (which == 4)
    Fv_d(x, xd, c, dot);
  else if (which == 5)
    Fdup_d(x, xd, c, dot);
  else
    Fw_d(x, xd, c, dot);
}
/* Each rank returns its share; the objective is their sum. */
static double J(void *p) { return hx_sum(F(p)); }

static void check(const char *name, int w, unsigned long long seed) {
  which = w;
  hx_check_shares(name, J, B, D, N, seed);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  check("Fgat", 0, 401);
  check("Fsca", 1, 411);
  check("Fall", 2, 421);
  check("Falt", 3, 431);
  check("Fv", 4, 441);
  check("Fdup", 5, 451);
  check("Fw", 6, 461);
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
