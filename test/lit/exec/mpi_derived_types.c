// Derived datatypes on values that carry derivatives: the adjoint messages
// carry the same elements as plain MPI_DOUBLE and are accumulated through the
// layout (runtime/layout.c).
//   Fcol: a 2-D halo exchange of matrix columns (MPI_Type_vector, created and
//         freed in the function: the free is deferred to the reverse sweep)
//         with MPI_Sendrecv; the halo column is read nonlinearly before the
//         message overwrites it, so the forward sweep records it through the
//         layout (mpiad_push_layout).
//   Fpar: the column type made by the caller and passed in; MPI_Isend,
//         MPI_Irecv and MPI_Waitall.
//   Fmix: MPI_Type_indexed with MPI_Isend + MPI_Recv, a 2-D block made by
//         MPI_Type_create_subarray with MPI_Sendrecv_replace, a struct of
//         doubles resized (MPI_Type_create_struct + _create_resized) and an
//         MPI_Type_create_hvector with MPI_Sendrecv.
//   Fbc:  MPI_Bcast of a matrix column, the matrix named whole: only the
//         column is written, the rest stays varying.
// Reverse mode against central differences and forward mode against reverse
// (the dot-product test), at 1-4 ranks; FileCheck of the calls.  What a
// rank does with what it received depends on its rank, so that a message
// that lands in the wrong elements changes the objective.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
// RUN: %mpiad-emit %s -I%S/../Inputs -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck --check-prefix=GEN %s
// GEN: double Fcol_b(
// GEN: MPI_Type_vector(NY, 1, NX + 2, MPI_DOUBLE, &col);
// GEN: mpiad_push_layout(&u[0][0], 1, col);
// GEN: mpiad_sendrecv_fwd(&u[0][NX], 1, col, right, 0, &u[0][0], 1, col, left, 0, comm, MPI_STATUS_IGNORE);
// GEN: /* MPI_Type_free(&col) happens in the reverse sweep */
// GEN: mpiad_sendrecv_rev(&u_b[0][NX], 1, col, right, 0, &u_b[0][0], 1, col, 0, comm);
// GEN: mpiad_pop_layout(&u[0][0], 1, col);
// GEN: MPI_Type_free(&col);
// GEN: double Fpar_b(
// GEN: mpiad_isend_fwd(&u[0][1], &u_b[0][1], 1, col, left, 3, comm, &req[0]);
// GEN: double Fbc_b(
// GEN: mpiad_bcast_rev(w_b, 1, wcol, 0, comm, 1);
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

#define NX 4
#define NY 3
#define N (NX * NY)

#pragma mpiad differentiate wrt(x) varying(x)
#pragma mpiad differentiate forward wrt(x)
double Fcol(const double *x, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  int left = (r + P - 1) % P, right = (r + 1) % P;
  double u[NY][NX + 2];
  MPI_Datatype col;
  MPI_Type_vector(NY, 1, NX + 2, MPI_DOUBLE, &col);
  MPI_Type_commit(&col);
  for (int j = 0; j < NY; j++) {
    u[j][0] = x[j * NX] * x[j * NX + 1];
    u[j][NX + 1] = 0.0;
    for (int i = 0; i < NX; i++)
      u[j][i + 1] = sin(x[j * NX + i]) + x[j * NX + i] * x[j * NX + i];
  }
  double l = 0.0;
  for (int j = 0; j < NY; j++)
    l += u[j][0] * u[j][0] * (1.0 + j);
  /* the last interior column goes right into the left neighbour's halo */
  MPI_Sendrecv(&u[0][NX], 1, col, right, 0, &u[0][0], 1, col, left, 0, comm,
               MPI_STATUS_IGNORE);
  MPI_Sendrecv(&u[0][1], 1, col, left, 1, &u[0][NX + 1], 1, col, right, 1,
               comm, MPI_STATUS_IGNORE);
  MPI_Type_free(&col);
  for (int j = 0; j < NY; j++)
    for (int i = 1; i <= NX; i++)
      l += u[j][i] * (u[j][i - 1] + u[j][i + 1]) * (1.0 + 0.1 * j);
  return l;
}

#pragma mpiad differentiate wrt(x) varying(x)
#pragma mpiad differentiate forward wrt(x)
double Fpar(const double *x, MPI_Datatype col, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  int left = (r + P - 1) % P, right = (r + 1) % P;
  double u[NY][NX + 2];
  for (int j = 0; j < NY; j++) {
    u[j][0] = 0.0;
    u[j][NX + 1] = 0.0;
    for (int i = 0; i < NX; i++)
      u[j][i + 1] = x[j * NX + i] * (1.0 + 0.5 * x[(j * NX + i + 1) % N]);
  }
  MPI_Request req[2];
  MPI_Isend(&u[0][1], 1, col, left, 3, comm, &req[0]);
  MPI_Irecv(&u[0][NX + 1], 1, col, right, 3, comm, &req[1]);
  MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
  double l = 0.0;
  for (int j = 0; j < NY; j++)
    for (int i = 1; i <= NX; i++)
      l += u[j][i] * u[j][i + 1] * u[j][i + 1] + cos(u[j][i]);
  return l;
}

#pragma mpiad differentiate wrt(x) varying(x)
#pragma mpiad differentiate forward wrt(x)
double Fmix(const double *x, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  int left = (r + P - 1) % P, right = (r + 1) % P;
  double l = 0.0;

  /* indexed: elements 0, 1, 4 and 7, 8, 9 of v */
  double v[10], g[10];
  for (int k = 0; k < 10; k++) {
    v[k] = x[k] * x[k + 1];
    g[k] = 0.5 * x[k];
  }
  int bl[3] = {2, 1, 3}, dis[3] = {0, 4, 7};
  MPI_Datatype idx;
  MPI_Type_indexed(3, bl, dis, MPI_DOUBLE, &idx);
  MPI_Type_commit(&idx);
  MPI_Request rq;
  MPI_Isend(v, 1, idx, right, 7, comm, &rq);
  MPI_Recv(g, 1, idx, left, 7, comm, MPI_STATUS_IGNORE);
  MPI_Wait(&rq, MPI_STATUS_IGNORE);
  for (int k = 0; k < 10; k++)
    l += g[k] * g[k] * (1.0 + 0.1 * k + 0.3 * r) + v[k];

  /* subarray: the 2 x 3 block at (1, 1) of a 4 x 5 array, replaced */
  double a[4][5];
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 5; j++)
      a[i][j] = sin(x[(i * 5 + j) % N]) * (1.0 + i);
  int sizes[2] = {4, 5}, sub[2] = {2, 3}, starts[2] = {1, 1};
  MPI_Datatype blk;
  MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_C, MPI_DOUBLE, &blk);
  MPI_Type_commit(&blk);
  MPI_Sendrecv_replace(a, 1, blk, right, 8, left, 8, comm, MPI_STATUS_IGNORE);
  MPI_Type_free(&blk);
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 5; j++)
      l += a[i][j] * a[i][j] * a[i][j] * (1.0 + 0.01 * j + 0.3 * r);

  /* a struct of two doubles (offsets 0 and 2) resized to 3 doubles, 2 of
   * them; received through an hvector of 2 blocks of 2 (stride 4 doubles) */
  double s[6], t[8];
  for (int k = 0; k < 6; k++)
    s[k] = exp(0.1 * x[k]);
  for (int k = 0; k < 8; k++)
    t[k] = x[k] - 1.0;
  int sbl[2] = {1, 1};
  MPI_Aint sdis[2] = {0, 2 * (MPI_Aint)sizeof(double)};
  MPI_Datatype sty[2] = {MPI_DOUBLE, MPI_DOUBLE};
  MPI_Datatype st0, st, hv;
  MPI_Type_create_struct(2, sbl, sdis, sty, &st0);
  MPI_Type_create_resized(st0, 0, 3 * (MPI_Aint)sizeof(double), &st);
  MPI_Type_commit(&st);
  MPI_Type_create_hvector(2, 2, 4 * (MPI_Aint)sizeof(double), MPI_DOUBLE, &hv);
  MPI_Type_commit(&hv);
  MPI_Sendrecv(s, 2, st, right, 9, t, 1, hv, left, 9, comm, MPI_STATUS_IGNORE);
  MPI_Type_free(&hv);
  MPI_Type_free(&st);
  MPI_Type_free(&st0);
  for (int k = 0; k < 8; k++)
    l += t[k] * t[k] * (2.0 + k + 0.3 * r) + t[k] * s[k % 6];

  return l;
}

/* MPI_Bcast of column 0 of w from rank 0: the other elements of w keep
 * their values, which differ between ranks, so neither w nor the result is
 * replicated. */
#pragma mpiad differentiate wrt(x) varying(x)
#pragma mpiad differentiate forward wrt(x)
double Fbc(const double *x, MPI_Comm comm) {
  double w[3][4];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 4; j++)
      w[i][j] = x[i * 4 + j] * (1.0 + 0.2 * j);
  MPI_Datatype wcol;
  MPI_Type_vector(3, 1, 4, MPI_DOUBLE, &wcol);
  MPI_Type_commit(&wcol);
  MPI_Bcast(w, 1, wcol, 0, comm);
  MPI_Type_free(&wcol);
  double l = 0.0;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 4; j++)
      l += w[i][j] * w[i][j] * (1.0 + i);
  return l;
}

static MPI_Datatype col_g;
static int which; /* 0 Fcol, 1 Fpar, 2 Fmix, 3 Fbc */

static double F(const double *x) {
  MPI_Comm c = MPI_COMM_WORLD;
  return which == 0 ? Fcol(x, c) : which == 1 ? Fpar(x, col_g, c)
       : which == 2 ? Fmix(x, c) : Fbc(x, c);
}
static double B(const double *x, double *xb) {
  MPI_Comm c = MPI_COMM_WORLD;
  return which == 0 ? Fcol_b(x, xb, c, 1.0)
       : which == 1 ? Fpar_b(x, xb, col_g, c, 1.0)
       : which == 2 ? Fmix_b(x, xb, c, 1.0) : Fbc_b(x, xb, c, 1.0);
}
static void D(const double *x, double *xd, double *dot) {
  MPI_Comm c = MPI_COMM_WORLD;
  if (which == 0)
    Fcol_d(x, xd, c, dot);
  else if (which == 1)
    Fpar_d(x, xd, col_g, c, dot);
  else if (which == 2)
    Fmix_d(x, xd, c, dot);
  else
    Fbc_d(x, xd, c, dot);
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
  MPI_Type_vector(NY, 1, NX + 2, MPI_DOUBLE, &col_g);
  MPI_Type_commit(&col_g);
  check("Fcol", 0, 301);
  check("Fpar", 1, 311);
  check("Fmix", 2, 321);
  check("Fbc", 3, 331);
  MPI_Type_free(&col_g);
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
