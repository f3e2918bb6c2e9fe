// Cartesian topologies (rules/mpi.rules): MPI_Dims_create, MPI_Cart_create,
// MPI_Cart_get, MPI_Cart_coords, MPI_Cart_rank, MPI_Cart_shift and MPI_Cart_sub
// carry no derivatives; a 2-D halo exchange over the Cartesian communicator in
// a helper (MPI_Sendrecv along both dimensions, periodic in x), a row sum over
// the Cart_sub communicator (varying over the world), and the objective summed
// over the original communicator. Reverse mode against central differences,
// forward mode against reverse (the dot-product test), at 1-4 ranks.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
// RUN: %mpiad-emit %s -I%S/../Inputs -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck --check-prefix=GEN %s
// GEN: double F_b(
// GEN: MPI_Cart_create(comm, 2, dims, periods, 0, &cart);
// GEN: /* inlined: exchange_halo(u, cart) */
// GEN: /* MPI_Comm_free(&cart) happens in the reverse sweep */
// The row sum over the Cart_sub communicator is varying: its cotangent is
// summed over that communicator, not over comm.
// GEN: MPI_Allreduce(MPI_IN_PLACE, &rowsum_b, 1, MPI_DOUBLE, MPI_SUM, row);
// GEN: MPI_Comm_free(&cart);
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

#define NX 3
#define NY 3
#define IDX(i, j) ((i) * (NY + 2) + (j))

/* ghost rows and columns from the four neighbours (MPI_PROC_NULL at the
   non-periodic ends); a column is packed into a buffer */
static void exchange_halo(double *u, MPI_Comm cart) {
  int west, east, south, north;
  MPI_Cart_shift(cart, 0, 1, &west, &east);
  MPI_Cart_shift(cart, 1, 1, &south, &north);
  MPI_Sendrecv(&u[IDX(NX, 1)], NY, MPI_DOUBLE, east, 1, &u[IDX(0, 1)], NY, MPI_DOUBLE, west, 1,
               cart, MPI_STATUS_IGNORE);
  MPI_Sendrecv(&u[IDX(1, 1)], NY, MPI_DOUBLE, west, 2, &u[IDX(NX + 1, 1)], NY, MPI_DOUBLE, east,
               2, cart, MPI_STATUS_IGNORE);
  double sendcol[NX], recvcol[NX];
  for (int i = 0; i < NX; i++) {
    sendcol[i] = u[IDX(i + 1, NY)];
    recvcol[i] = 0.0;
  }
  MPI_Sendrecv(sendcol, NX, MPI_DOUBLE, north, 3, recvcol, NX, MPI_DOUBLE, south, 3, cart,
               MPI_STATUS_IGNORE);
  for (int i = 0; i < NX; i++)
    u[IDX(i + 1, 0)] = recvcol[i];
}

#pragma mpiad differentiate wrt(u0) varying(u0)
#pragma mpiad differentiate forward wrt(u0)
double F(const double *u0, MPI_Comm comm) {
  int size, me, dims[2] = {0, 0}, periods[2] = {1, 0}, coords[2], back;
  int gdims[2], gperiods[2], gcoords[2], remain[2] = {0, 1};
  MPI_Comm cart, row;
  MPI_Comm_size(comm, &size);
  MPI_Dims_create(size, 2, dims);
  MPI_Cart_create(comm, 2, dims, periods, 0, &cart);
  MPI_Comm_rank(cart, &me);
  MPI_Cart_coords(cart, me, 2, coords);
  MPI_Cart_rank(cart, coords, &back);
  MPI_Cart_get(cart, 2, gdims, gperiods, gcoords);
  MPI_Cart_sub(cart, remain, &row);
  double u[(NX + 2) * (NY + 2)], w[(NX + 2) * (NY + 2)];
  for (int k = 0; k < (NX + 2) * (NY + 2); k++)
    u[k] = 0.0;
  for (int i = 0; i < NX; i++)
    for (int j = 0; j < NY; j++)
      u[IDX(i + 1, j + 1)] = u0[i * NY + j];
  for (int step = 0; step < 2; step++) {
    exchange_halo(u, cart);
    for (int i = 1; i <= NX; i++)
      for (int j = 1; j <= NY; j++)
        w[IDX(i, j)] = u[IDX(i, j)] + 0.1 * (u[IDX(i - 1, j)] + u[IDX(i + 1, j)] +
                                             u[IDX(i, j - 1)] + u[IDX(i, j + 1)] -
                                             4.0 * u[IDX(i, j)]) + 0.05 * sin(u[IDX(i, j)]);
    for (int i = 1; i <= NX; i++)
      for (int j = 1; j <= NY; j++)
        u[IDX(i, j)] = w[IDX(i, j)];
  }
  double l = 0.0, rowsum, total;
  for (int i = 1; i <= NX; i++)
    for (int j = 1; j <= NY; j++)
      l += u[IDX(i, j)] * u[IDX(i, j)] * (1.0 + 0.1 * coords[0] + 0.01 * gcoords[1] + 0.001 * (back == me));
  MPI_Allreduce(&l, &rowsum, 1, MPI_DOUBLE, MPI_SUM, row);
  double mine = l + 0.1 * rowsum * rowsum * (gdims[0] + gperiods[0]);
  MPI_Allreduce(&mine, &total, 1, MPI_DOUBLE, MPI_SUM, comm);
  MPI_Comm_free(&row);
  MPI_Comm_free(&cart);
  return total;
}

static double J(void *p) { return F(p, MPI_COMM_WORLD); }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  double u0[NX * NY], du[NX * NY], ub[NX * NY] = {0}, ud[NX * NY];
  hx_rand(u0, NX * NY, 131, hx_rank_g, -1.0, 1.0);
  hx_rand(du, NX * NY, 132, hx_rank_g, -1.0, 1.0);
  double v = F_b(u0, ub, MPI_COMM_WORLD, 1.0);
  hx_tape("F_b");
  hx_check("value", v, J(u0), 1e-14, 1e-300);
  mpiad_input in = {u0, du, NX * NY, 0};
  double *xb[1] = {ub};
  hx_grad("F", J, u0, &in, 1, xb, 1e-6, 1e-7, 1e-10);
  double dot;
  memcpy(ud, du, sizeof ud);
  F_d(u0, ud, MPI_COMM_WORLD, &dot);
  hx_check("F_d vs F_b", dot, mpiad_adjoint_directional(&in, xb, 1, MPI_COMM_WORLD), 1e-12,
           1e-300);
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
