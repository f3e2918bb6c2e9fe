// Forward mode (F_d) through the communicator rules and the count queries:
// MPI_Comm_split (row groups of two ranks) with an Allreduce over the
// sub-communicator, MPI_Comm_dup with a Bcast over the copy, MPI_Comm_free of
// both, and MPI_Get_count / MPI_Get_elements after a Recv whose length differs
// per rank; also a helper that communicates (forward mode keeps it a tangent
// helper). Each function has a reverse pragma too; Inputs/fwd_check.h checks
// F_d against central differences and the dot-product test against F_b, at 1-4
// ranks.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "fwd_check.h"

#define N 3

#pragma mpiad differentiate forward wrt(x) output(y)
#pragma mpiad differentiate reverse wrt(x) output(y) varying(x)
void split_dup(const double *x, double *y, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  MPI_Comm row, copy;
  MPI_Comm_split(comm, r / 2, r, &row);
  MPI_Comm_dup(comm, &copy);
  double a[N], s[N], b[N];
  for (int i = 0; i < N; i++)
    a[i] = x[i] * x[i] + sin(x[(i + 1) % N]);
  MPI_Allreduce(a, s, N, MPI_DOUBLE, MPI_SUM, row);
  for (int i = 0; i < N; i++)
    b[i] = s[i] * x[i];
  MPI_Bcast(b, N, MPI_DOUBLE, 0, copy);
  for (int i = 0; i < N; i++)
    y[i] = b[i] + x[i] * s[(i + 2) % N];
  MPI_Comm_free(&row);
  MPI_Comm_free(&copy);
}

/* rank q sends q % N + 1 values to rank q + 1 (a chain); the receiver uses
   the count it got */
#pragma mpiad differentiate forward wrt(x) output(y)
#pragma mpiad differentiate reverse wrt(x) output(y) varying(x)
void counted(const double *x, double *y, MPI_Comm comm) {
  int r, P, cnt = 0, elems = 0;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  double in[N], out[N];
  for (int i = 0; i < N; i++) {
    out[i] = exp(0.3 * x[i]);
    in[i] = 0.0;
  }
  if (r + 1 < P)
    MPI_Send(out, r % N + 1, MPI_DOUBLE, r + 1, 7, comm);
  if (r > 0) {
    MPI_Status st;
    MPI_Recv(in, N, MPI_DOUBLE, r - 1, 7, comm, &st);
    MPI_Get_count(&st, MPI_DOUBLE, &cnt);
    MPI_Get_elements(&st, MPI_DOUBLE, &elems);
  }
  for (int i = 0; i < N; i++)
    y[i] = x[i] * (i < cnt ? in[i] : 1.0) + (i < elems ? in[i] * in[i] : 0.0);
}

static void gsum_vec(const double *a, double *s, MPI_Comm comm) {
  MPI_Allreduce(a, s, N, MPI_DOUBLE, MPI_SUM, comm);
}

#pragma mpiad differentiate forward wrt(x) output(y)
#pragma mpiad differentiate reverse wrt(x) output(y) varying(x)
void helper_comm(const double *x, double *y, MPI_Comm comm) {
  double a[N], s[N];
  for (int i = 0; i < N; i++)
    a[i] = x[i] * x[(i + 1) % N];
  gsum_vec(a, s, comm);
  for (int i = 0; i < N; i++)
    y[i] = s[i] * cos(x[i]);
}

#define W MPI_COMM_WORLD
#define ADAPT_V(f)                                                             \
  static void P_##f(const double *x, const double *th, double *y) {           \
    (void)th;                                                                  \
    f(x, y, W);                                                                \
  }                                                                            \
  static void D_##f(const double *x, const double *dx, const double *th,      \
                    const double *dth, double *y, double *yd) {               \
    double xd[N];                                                              \
    (void)th; (void)dth;                                                       \
    memcpy(xd, dx, sizeof xd);                                                 \
    f##_d(x, xd, y, yd, W);                                                    \
  }                                                                            \
  static void B_##f(const double *x, double *xb, const double *th,            \
                    double *thb, double *y, double *yb) {                     \
    (void)th; (void)thb;                                                       \
    f##_b(x, xb, y, yb, W);                                                    \
  }
ADAPT_V(split_dup)
ADAPT_V(counted)
ADAPT_V(helper_comm)

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  unsigned long long seed = 2000;
#define CASE(f)                                                                \
  {                                                                            \
    fc_case c = {#f, P_##f, D_##f, B_##f, N, 0, N, 0};                         \
    fc_run(&c, seed += 10);                                                    \
  }
  CASE(split_dup)
  CASE(counted)
  CASE(helper_comm)
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
