// Globals that carry derivatives (issue 14): a grid kept in a global
// two-plane array, as LLNL's mpi_heat2D.c keeps it, a global accumulator
// that the function reads and updates (its value on entry is a constant),
// a static global read as a constant, and same-file helpers that read the
// grid and update the accumulator.  Their adjoints and tangents are
// file-scope arrays (grid_b, total_b, grid_d, total_d) that each call of
// F_b / F_d starts at zero.  Reverse mode against central differences,
// forward against reverse mode at 1-4 ranks; F_b leaves the globals as F
// does.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
// RUN: %mpiad-emit %s -I%S/../Inputs -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck --check-prefix=GEN %s
// GEN: static double grid_b[2][6];
// GEN: static double total_b;
// GEN: *   globals:      grid (grid_b), total (total_b)
// GEN-NEXT: *     adjoints at file scope, zeroed on entry; a global is neither
// GEN-NEXT: *     input nor output (pass it as a parameter to make it one)
// GEN: double heat_b(const double *u0, double *u0_b, double kappa, double *kappa_b, int nsteps, MPI_Comm comm, double heat_bar)
// GEN: memset(grid_b, 0, sizeof grid_b);
// GEN: static double grid_d[2][6];
// GEN: *   globals:      grid (grid_d), total (total_d)
// GEN: double heat_d(
// GEN: memset(grid_d, 0, sizeof grid_d);
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

#define NX 6
double grid[2][NX];
double total = 0.0;
static double scale = 0.5;
int calls = 0;

static double energy(int k) {
  double e = 0.0;
  for (int i = 0; i < NX; i++)
    e += grid[k][i] * grid[k][i];
  return e;
}

static void add_total(double v) { total += v * v; }

#pragma mpiad differentiate wrt(u0, kappa) replicated(kappa, nsteps) varying(u0)
#pragma mpiad differentiate forward wrt(u0, kappa)
double heat(const double *u0, double kappa, int nsteps, MPI_Comm comm) {
  int iz = 0;
  for (int i = 0; i < NX; i++)
    grid[0][i] = u0[i];
  for (int t = 0; t < nsteps; t++) {
    for (int i = 1; i < NX - 1; i++)
      grid[1 - iz][i] = grid[iz][i] + kappa * (grid[iz][i - 1] -
                                               2.0 * grid[iz][i] +
                                               grid[iz][i + 1]);
    grid[1 - iz][0] = scale * grid[iz][0];
    grid[1 - iz][NX - 1] = scale * grid[iz][NX - 1] * grid[iz][NX - 2];
    iz = 1 - iz;
    total += sin(grid[iz][1]);
    add_total(grid[iz][2]);
  }
  calls++;
  double loc = energy(iz) + total * total, g;
  MPI_Allreduce(&loc, &g, 1, MPI_DOUBLE, MPI_SUM, comm);
  return g;
}

/* x = (u0[0..NX-1], kappa); total starts at 0.25 in every evaluation. */
static double J(void *ctx) {
  const double *x = ctx;
  total = 0.25;
  return heat(x, x[NX], 5, MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  double x[NX + 1], dx[NX + 1];
  hx_rand(x, NX, 51, hx_rank_g, 0.1, 1.0);
  x[NX] = 0.2; /* kappa, replicated */
  hx_rand(dx, NX, 52, hx_rank_g, -1.0, 1.0);
  dx[NX] = 0.3; /* the same on every rank */

  /* The reference: F from the same state. */
  total = 0.25;
  double v_ref = heat(x, x[NX], 5, MPI_COMM_WORLD);
  double grid_ref[2][NX], total_ref = total;
  memcpy(grid_ref, grid, sizeof grid);

  total = 0.25;
  memset(grid, 0, sizeof grid);
  double u0b[NX] = {0}, kb = 0.0;
  calls = 0;
  double v = heat_b(x, u0b, x[NX], &kb, 5, MPI_COMM_WORLD, 1.0);
  hx_tape("heat_b");
  hx_check("heat_b returns the primal value", v, v_ref, 1e-14, 1e-300);
  hx_check_vec("heat_b leaves grid as heat does", &grid[0][0], &grid_ref[0][0],
               2 * NX, 1e-15, 1e-300);
  hx_check("heat_b leaves total as heat does", total, total_ref, 1e-15, 1e-300);
  hx_check("heat_b counts its call", calls, 1, 0.0, 0.5);

  /* A second call starts from zero adjoints again. */
  total = 0.25;
  double u0b2[NX] = {0}, kb2 = 0.0;
  heat_b(x, u0b2, x[NX], &kb2, 5, MPI_COMM_WORLD, 1.0);
  hx_check_vec("a second heat_b gives the same gradient", u0b2, u0b, NX, 0.0,
               1e-300);

  /* u0 varies per rank, kappa is replicated: one gradient vector with the
   * kappa part counted once (mpiad_input's replicated flag). */
  mpiad_input in[2] = {{x, dx, NX, 0}, {x + NX, dx + NX, 1, 1}};
  double *xb[2] = {u0b, &kb};
  hx_grad("heat_b", J, x, in, 2, xb, 1e-6, 1e-7, 1e-10);

  total = 0.25;
  double ud[NX], kd = dx[NX], dot = 0.0;
  memcpy(ud, dx, sizeof ud);
  double vd = heat_d(x, ud, x[NX], kd, 5, MPI_COMM_WORLD, &dot);
  hx_check("heat_d value", vd, v_ref, 1e-14, 1e-300);
  hx_check("heat_d vs heat_b", dot, mpiad_adjoint_directional(in, xb, 2, hx_comm_g),
           1e-12, 1e-300);
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
