// Non-blocking messages with large tags on a Cartesian communicator.  Open
// MPI gives no MPI_TAG_UB attribute on a communicator made by
// MPI_Cart_create; the runtime fell back to 32767 and stopped F_b for any
// tag >= 6 ("tags up to 5 are supported").  The bound now comes from
// MPI_COMM_WORLD, as for every communicator of the process.  A periodic
// ring on the Cartesian communicator with tags 7 and 4000, against the
// closed form, central differences and forward vs reverse, at 1-4 ranks.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
#include <math.h>
#include <mpi.h>
#include <stdio.h>

#include "harness.h"

#define N 4
#define TAG_LEFT 7
#define TAG_RIGHT 4000

/* J = sum over ranks of sum_i u_i * (left neighbour's u_i)^2
 *                      + sum_i u_i^2 * (right neighbour's u_i) */
#pragma mpiad differentiate wrt(u) varying(u)
#pragma mpiad differentiate forward wrt(u) varying(u)
double ring(const double *u, MPI_Comm cart) {
  double fromL[N], fromR[N], s = 0.0, t;
  int left, right;
  MPI_Request rq[4];
  MPI_Cart_shift(cart, 0, 1, &left, &right);
  MPI_Irecv(fromL, N, MPI_DOUBLE, left, TAG_LEFT, cart, &rq[0]);
  MPI_Irecv(fromR, N, MPI_DOUBLE, right, TAG_RIGHT, cart, &rq[1]);
  MPI_Isend(u, N, MPI_DOUBLE, right, TAG_LEFT, cart, &rq[2]);
  MPI_Isend(u, N, MPI_DOUBLE, left, TAG_RIGHT, cart, &rq[3]);
  MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
  for (int i = 0; i < N; i++)
    s += u[i] * fromL[i] * fromL[i] + u[i] * u[i] * fromR[i];
  MPI_Allreduce(&s, &t, 1, MPI_DOUBLE, MPI_SUM, cart);
  return t;
}

static MPI_Comm cart_g;
static double J(void *ctx) { return ring(ctx, cart_g); }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  int P = hx_size_g, r = hx_rank_g, periodic = 1;
  MPI_Cart_create(MPI_COMM_WORLD, 1, &P, &periodic, 0, &cart_g);
  double u[N], du[N], ub[N] = {0}, want[N], uL[N], uR[N];
  hx_rand(u, N, 61, r, -1.0, 1.0);
  hx_rand(du, N, 62, r, -1.0, 1.0);
  hx_rand(uL, N, 61, (r + P - 1) % P, -1.0, 1.0);
  hx_rand(uR, N, 61, (r + 1) % P, -1.0, 1.0);
  double J0 = ring_b(u, ub, cart_g, 1.0);
  hx_tape("ring_b");
  hx_check("J", J0, J(u), 1e-14, 1e-300);
  /* u_i of rank r appears in its own term, in the right neighbour's (as
   * fromL) and in the left neighbour's (as fromR). */
  for (int i = 0; i < N; i++)
    want[i] = uL[i] * uL[i] + 2.0 * u[i] * uR[i] + 2.0 * uR[i] * u[i] +
              uL[i] * uL[i];
  hx_check_vec("dJ/du vs closed form", ub, want, N, 1e-13, 1e-13);
  mpiad_input in = {u, du, N, 0};
  double *gp[1] = {ub};
  hx_grad("ring", J, u, &in, 1, gp, 1e-6, 1e-7, 1e-10);
  double Jd = 0.0;
  ring_d(u, du, cart_g, &Jd);
  hx_dot_test("ring_d against ring_b", Jd, &in, 1, gp, 1e-12);
  MPI_Comm_free(&cart_g);
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
