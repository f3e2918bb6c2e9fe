// A differentiated block in a function that declares all its variables at
// its top, C89 style, as the Parallel Research Kernels' main() does
// (MPI1/Synch_p2p/p2p.c, MPI1/Stencil/stencil.c): the block shares its
// counters and temporaries with the code around it (Outline.cpp).
//  - `corner` and `local` carry derivatives; the block assigns each before
//    reading it, and the code after the block assigns each before reading
//    it: their values neither enter nor leave the block, so the outlined
//    function declares its own (before, each was a parameter that carried
//    derivatives with no clause: an error that asked for scratch(...)).
//  - `j` is assigned by the block, read after it, and used in the block
//    through the index macro U(i, j): its uses cannot be rewritten as `(*j)`,
//    so the outlined function copies `*mpiad_j` into a local `j` on entry
//    and back on exit (before, "assigns 'j', which it uses through a macro").
//  - `i` is assigned before any read in the block and not read after it: a
//    local of the outlined function.
//  - relax(): a block inside a loop, whose temporary `s` (declared at the top,
//    used by the block only) is assigned first in every run of the block.
// The program's results must be what the same code computes written out by
// hand, and the adjoints must match central differences, at 1-4 ranks.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
// RUN: %mpiad-emit %s -I%S/../Inputs -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck --check-prefix=GEN %s
// GEN: static void mpiad_block_L{{[0-9]+}}(int nsweep, int *mpiad_j, int ny, int nx, double *u, double scale, double *total)
// GEN-NEXT: #line
// GEN-NEXT: { int j = *mpiad_j; int sweep; int i; double corner; double local;
// GEN: *mpiad_j = j; }
// GEN: void program_b(int nsweep, int *mpiad_j, int ny, int nx, double *u, double *u_b, double scale, double *total, double *total_b)
// GEN: mpiad_block_L{{[0-9]+}}(nsweep, &j, ny, nx, u, scale, &total);
// GEN: static void mpiad_block_L{{[0-9]+}}(int n, double *w, double a)
// GEN-NEXT: #line
// GEN-NEXT: { double s; int k;
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

#define NX 5
#define NY 4
#define U(i, j) u[(i) + (j) * nx]

static double program(double *u, int nx, int ny, int nsweep, int *last_row) {
  int i, j, sweep;
  double corner, local, total, scale;
  for (j = 0; j < ny; j++)
    for (i = 0; i < nx; i++)
      U(i, j) = U(i, j) * 0.5;
  scale = 0.45;
#pragma mpiad differentiate wrt(u) output(u, total) varying(u) name(program_b)
  {
    for (sweep = 0; sweep < nsweep; sweep++) {
      for (j = 1; j < ny; j++)
        for (i = 1; i < nx; i++)
          U(i, j) = scale * (U(i - 1, j) + U(i, j - 1)) + 0.1 * U(i, j) * U(i, j);
      corner = U(nx - 1, ny - 1);
      U(0, 0) = -0.5 * corner;
    }
    local = 0.0;
    for (j = 0; j < ny; j++)
      local += U(nx - 1, j) * U(nx - 1, j);
    MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    j = ny - 2;
  }
  *last_row = j;
  corner = U(nx - 1, j);
  local = corner * 2.0;
  return total + local;
}

static double program_by_hand(double *u, int nx, int ny, int nsweep, int *last_row) {
  for (int j = 0; j < ny; j++)
    for (int i = 0; i < nx; i++)
      u[i + j * nx] *= 0.5;
  for (int sweep = 0; sweep < nsweep; sweep++) {
    for (int j = 1; j < ny; j++)
      for (int i = 1; i < nx; i++)
        u[i + j * nx] = 0.45 * (u[i - 1 + j * nx] + u[i + (j - 1) * nx]) +
                        0.1 * u[i + j * nx] * u[i + j * nx];
    u[0] = -0.5 * u[nx - 1 + (ny - 1) * nx];
  }
  double local = 0.0, total;
  for (int j = 0; j < ny; j++)
    local += u[nx - 1 + j * nx] * u[nx - 1 + j * nx];
  MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  *last_row = ny - 2;
  return total + 2.0 * u[nx - 1 + (ny - 2) * nx];
}

static double relax(double *w, int n, int nrep) {
  int k, rep;
  double s, a = 0.3;
  for (rep = 0; rep < nrep; rep++) {
#pragma mpiad differentiate wrt(w) output(w) varying(w) name(relax_b)
    {
      s = 0.0;
      for (k = 0; k < n; k++)
        s += w[k] * w[k];
      for (k = 0; k < n; k++)
        w[k] = w[k] - a * w[k] * s;
    }
  }
  return w[0];
}

/* J(u) = total after one run of the block, evaluated through the adjoint
 * with a zero seed (the block's forward sweep computes it). */
static double J(void *p) {
  double u[NX * NY], ub[NX * NY] = {0}, total = 0.0, totalb = 0.0;
  int j = 0;
  memcpy(u, p, sizeof u);
  program_b(2, &j, NY, NX, u, ub, 0.45, &total, &totalb);
  return total;
}

/* K(w) = sum of w after one run of relax's block. */
static double K(void *p) {
  double w[3], wb[3] = {0};
  memcpy(w, p, sizeof w);
  relax_b(3, w, wb, 0.3);
  return hx_sum(w[0] + w[1] + w[2]);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  double u0[NX * NY], u[NX * NY], v[NX * NY];
  hx_rand(u0, NX * NY, 41, hx_rank_g, 0.1, 0.9);
  int row = -1, row_hand = -2;
  memcpy(u, u0, sizeof u);
  memcpy(v, u0, sizeof v);
  double got = program(u, NX, NY, 2, &row);
  double want = program_by_hand(v, NX, NY, 2, &row_hand);
  hx_check_each("the function with the outlined block", got, want, 1e-14,
                1e-300);
  hx_check("j after the block", row, row_hand, 0.0, 0.0);
  hx_check_each("u after the block", u[NX * NY - 1], v[NX * NY - 1], 1e-14,
                1e-300);

  /* relax: three runs of the block, and the same loop by hand. */
  double w[3] = {0.2, 0.4, 0.6}, wh[3] = {0.2, 0.4, 0.6};
  relax(w, 3, 3);
  for (int rep = 0; rep < 3; rep++) {
    double s = 0.0;
    for (int k = 0; k < 3; k++)
      s += wh[k] * wh[k];
    for (int k = 0; k < 3; k++)
      wh[k] -= 0.3 * wh[k] * s;
  }
  for (int k = 0; k < 3; k++)
    hx_check_each("relax's w", w[k], wh[k], 1e-15, 1e-300);

  /* program_b: the seed total_b = 1, on every rank (total is replicated). */
  double ub[NX * NY] = {0}, total = 0.0, totalb = 1.0;
  int j = 0;
  memcpy(u, u0, sizeof u);
  program_b(2, &j, NY, NX, u, ub, 0.45, &total, &totalb);
  hx_tape("program_b");
  hx_check("j after program_b", j, NY - 2, 0.0, 0.0);
  double dx[NX * NY], x[NX * NY];
  hx_rand(dx, NX * NY, 42, hx_rank_g, -1.0, 1.0);
  memcpy(x, u0, sizeof x);
  mpiad_input in = {x, dx, NX * NY, 0};
  double *xb[1] = {ub};
  hx_grad("program_b", J, x, &in, 1, xb, 1e-6, 1e-7, 1e-12);

  /* relax_b: seeds w_b = 1 (K is the sum of w over ranks). */
  double w0[3], wb[3] = {1.0, 1.0, 1.0};
  hx_rand(w0, 3, 43, hx_rank_g, 0.1, 0.5);
  memcpy(w, w0, sizeof w);
  relax_b(3, w, wb, 0.3);
  hx_tape("relax_b");
  double dw[3], y[3];
  hx_rand(dw, 3, 44, hx_rank_g, -1.0, 1.0);
  memcpy(y, w0, sizeof y);
  mpiad_input in2 = {y, dw, 3, 0};
  double *yb[1] = {wb};
  hx_grad("relax_b", K, y, &in2, 1, yb, 1e-6, 1e-7, 1e-12);
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
