// Datatypes and communicators made by same-file helpers (`static
// MPI_Datatype mkcol(int)`, `static MPI_Comm mkcart(MPI_Comm)`) and freed in
// the marked function: the free stayed in the forward sweep (the helper's
// handle reached the free through a copy), and the reverse sweep used the
// freed handle (MPI_ERR_TYPE, or SIGSEGV).  The release of a copy of a
// handle made here is now deferred to the reverse of its creation, as for
// the handle itself, and that of a handle the caller made to the end of the
// reverse sweep.  Also a helper called with the same buffer as its
// const input and its output, `sq(t, t, n)`, whose generated helper wrote
// through a const pointer (an internal error: the C did not compile).
// Against the closed form, central differences and forward vs reverse, at
// 1-4 ranks.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
// RUN: %mpiad-emit %s -I%S/../Inputs -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck --check-prefix=GEN %s
// GEN-LABEL: double shift_b(
// GEN: /* MPI_Type_free(&t) happens in the reverse sweep */
// GEN: /* MPI_Comm_free(&ring) happens in the reverse sweep */
// GEN: /* reverse sweep */
// GEN: MPI_Comm_free(
// GEN: MPI_Type_free(
// GEN-LABEL: double shift_given_b(
// GEN: /* MPI_Type_free(&t) happens at the end of the reverse sweep */
// GEN: /* reverse sweep */
// GEN: mpiad_sendrecv_replace_rev(
// GEN: MPI_Type_free(&t);
// GEN-NEXT: return mpiad_ret;
#include <math.h>
#include <mpi.h>
#include <stdio.h>

#include "harness.h"

#define N 4

static MPI_Datatype mkcol(int n) {
  MPI_Datatype t;
  MPI_Type_contiguous(n, MPI_DOUBLE, &t);
  MPI_Type_commit(&t);
  return t;
}

static MPI_Comm mkcart(MPI_Comm comm) {
  int p, periodic = 1;
  MPI_Comm cart;
  MPI_Comm_size(comm, &p);
  MPI_Cart_create(comm, 1, &p, &periodic, 0, &cart);
  return cart;
}

static void pass_right(double *u, MPI_Datatype t, MPI_Comm ring) {
  int left, right;
  MPI_Cart_shift(ring, 0, 1, &left, &right);
  MPI_Sendrecv_replace(u, 1, t, right, 3, left, 3, ring, MPI_STATUS_IGNORE);
}

static void sq(const double *a, double *b, int n) {
  for (int i = 0; i < n; i++)
    b[i] = a[i] * a[i] + 1.0;
}

/* J = sum over ranks of sum_i x_i * (left neighbour's x_i^2 + 1)^2 */
#pragma mpiad differentiate wrt(x) varying(x)
#pragma mpiad differentiate forward wrt(x) varying(x)
double shift(const double *x, MPI_Comm comm) {
  double u[N], s = 0.0, g;
  for (int i = 0; i < N; i++)
    u[i] = x[i];
  sq(u, u, N);
  MPI_Datatype t = mkcol(N);
  MPI_Comm ring = mkcart(comm);
  pass_right(u, t, ring);
  MPI_Type_free(&t);
  MPI_Comm_free(&ring);
  for (int i = 0; i < N; i++)
    s += x[i] * u[i] * u[i];
  MPI_Allreduce(&s, &g, 1, MPI_DOUBLE, MPI_SUM, comm);
  return g;
}

/* The same with the datatype made by the caller and freed here: the
 * release waits for the end of the reverse sweep, which still uses it. */
#pragma mpiad differentiate wrt(x) varying(x)
double shift_given(const double *x, MPI_Datatype t, MPI_Comm comm) {
  double u[N], s = 0.0, g;
  for (int i = 0; i < N; i++)
    u[i] = x[i];
  sq(u, u, N);
  MPI_Comm ring = mkcart(comm);
  pass_right(u, t, ring);
  MPI_Type_free(&t);
  MPI_Comm_free(&ring);
  for (int i = 0; i < N; i++)
    s += x[i] * u[i] * u[i];
  MPI_Allreduce(&s, &g, 1, MPI_DOUBLE, MPI_SUM, comm);
  return g;
}

static double J(void *ctx) { return shift(ctx, MPI_COMM_WORLD); }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  int P = hx_size_g, r = hx_rank_g;
  double x[N], dx[N], xb[N] = {0}, want[N], xl[N], xr[N];
  hx_rand(x, N, 81, r, -1.0, 1.0);
  hx_rand(dx, N, 82, r, -1.0, 1.0);
  hx_rand(xl, N, 81, (r + P - 1) % P, -1.0, 1.0);
  hx_rand(xr, N, 81, (r + 1) % P, -1.0, 1.0);
  double J0 = shift_b(x, xb, MPI_COMM_WORLD, 1.0);
  hx_tape("shift_b");
  hx_check("J", J0, J(x), 1e-14, 1e-300);
  /* own term: (xl^2 + 1)^2; the right neighbour's term reads x_i as its
   * left neighbour: xr_i * 2 (x_i^2 + 1) * 2 x_i */
  for (int i = 0; i < N; i++) {
    double a = xl[i] * xl[i] + 1.0, b = x[i] * x[i] + 1.0;
    want[i] = a * a + xr[i] * 2.0 * b * 2.0 * x[i];
  }
  hx_check_vec("dJ/dx vs closed form", xb, want, N, 1e-13, 1e-13);
  mpiad_input in = {x, dx, N, 0};
  double *gp[1] = {xb};
  hx_grad("shift", J, x, &in, 1, gp, 1e-6, 1e-7, 1e-10);
  double Jd = 0.0;
  shift_d(x, dx, MPI_COMM_WORLD, &Jd);
  hx_dot_test("shift_d against shift_b", Jd, &in, 1, gp, 1e-12);
  double gb[N] = {0};
  double J1 = shift_given_b(x, gb, mkcol(N), MPI_COMM_WORLD, 1.0);
  hx_tape("shift_given_b");
  hx_check("J, datatype from the caller", J1, J0, 1e-14, 1e-300);
  hx_check_vec("dJ/dx, datatype from the caller", gb, want, N, 1e-13, 1e-13);
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
