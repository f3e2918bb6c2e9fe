// A datatype made by MPI_Type_contiguous(k, MPI_DOUBLE, &row) (committed and
// freed) in point-to-point and collective calls on values that carry
// derivatives: mpiad sees count * k elements of MPI_DOUBLE. A row of k = NY
// values is sent around a ring with MPI_Sendrecv, and two rows per rank are
// gathered on every rank with MPI_Allgather (count 2 of the row type; MPI
// defines no reduction on a derived type). Reverse mode against
// central differences, forward mode against reverse, at 1-4 ranks; FileCheck
// of the scaled counts.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
// RUN: %mpiad-emit %s -I%S/../Inputs -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck --check-prefix=GEN %s
// GEN: double F_b(
// GEN: mpiad_sendrecv_fwd(&u[NY], 1 * ny, MPI_DOUBLE, right, 5, u, 1 * ny, MPI_DOUBLE, left, 5, comm, MPI_STATUS_IGNORE);
// GEN: MPI_Allgather(u, 2 * ny, MPI_DOUBLE, s, 2 * ny, MPI_DOUBLE, comm);
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

#define NY 3
#define PMAX 8

#pragma mpiad differentiate wrt(x) varying(x) replicated(ny)
#pragma mpiad differentiate forward wrt(x)
double F(const double *x, int ny, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  int left = (r + P - 1) % P, right = (r + 1) % P;
  MPI_Datatype row;
  MPI_Type_contiguous(ny, MPI_DOUBLE, &row);
  MPI_Type_commit(&row);
  double u[2 * NY], s[PMAX * 2 * NY];
  for (int j = 0; j < ny; j++) {
    u[j] = 0.0;
    u[NY + j] = x[j] * x[j] + sin(x[(j + 1) % ny]);
  }
  /* my second row goes right; the first row comes from the left */
  MPI_Sendrecv(&u[NY], 1, row, right, 5, u, 1, row, left, 5, comm, MPI_STATUS_IGNORE);
  for (int j = 0; j < ny; j++)
    u[j] = u[j] * x[j];
  MPI_Allgather(u, 2, row, s, 2, row, comm);
  MPI_Type_free(&row);
  double l = 0.0;
  for (int j = 0; j < 2 * ny * P; j++)
    l += s[j] * s[j] * (1.0 + 0.1 * j);
  return l;
}

static double J(void *p) { return F(p, NY, MPI_COMM_WORLD); }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  double x[NY], dx[NY], xb[NY] = {0}, xd[NY];
  hx_rand(x, NY, 141, hx_rank_g, -1.0, 1.0);
  hx_rand(dx, NY, 142, hx_rank_g, -1.0, 1.0);
  double v = F_b(x, xb, NY, MPI_COMM_WORLD, 1.0);
  hx_tape("F_b");
  hx_check("value", v, J(x), 1e-14, 1e-300);
  mpiad_input in = {x, dx, NY, 0};
  double *xbp[1] = {xb};
  hx_grad("F", J, x, &in, 1, xbp, 1e-6, 1e-7, 1e-10);
  double dot;
  memcpy(xd, dx, sizeof xd);
  F_d(x, xd, NY, MPI_COMM_WORLD, &dot);
  hx_check("F_d vs F_b", dot, mpiad_adjoint_directional(&in, xbp, 1, MPI_COMM_WORLD), 1e-12,
           1e-300);
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
