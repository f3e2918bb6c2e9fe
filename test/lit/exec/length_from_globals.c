// Lengths where programs keep them (issue 40): miniWeather sizes its
// arrays with globals set once at start-up (`nx`, `nz`) and file-scope
// constants (`hs`, `NUM_VARS`).  A scratch array's length is inferred from
// loops bounded by them, or written with them in the clause; both were
// refused ("must be an integer parameter").  A global the function changes
// is refused in the clause (diag/length-global-changed.c), and one a
// function of another file might change is not used for inference.
// Against the closed form at 1-4 ranks (the shadow's length is checked by
// the sanitizer runs, which see a short allocation).
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
// RUN: %mpiad-emit %s -I%S/../Inputs -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck --check-prefix=GEN %s
// GEN: double *w_b = mpiad_alloc_zeroed(mpiad_max_len((nx + 2 * hs) * NUM_VARS, (nx + hs) * NUM_VARS), sizeof(double), "inferred_b", "w", comm);
// GEN: double *w_b = mpiad_alloc_zeroed((nx * NUM_VARS + NE), sizeof(double), "written_b", "w", comm);
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

static const int hs = 2;
static const int NUM_VARS = 3;
enum { NE = 1 };
int nx; /* set once by main */

// J = sum over ranks of sum_i sin(x_i)^2 over the owned cells, through a
// work array with halo cells.
#pragma mpiad differentiate wrt(x) scratch(w) varying(x)
double inferred(const double *x, double *w, MPI_Comm comm) {
  for (int i = 0; i < (nx + 2 * hs) * NUM_VARS; i++)
    w[i] = 0.0;
  for (int i = hs * NUM_VARS; i < (nx + hs) * NUM_VARS; i++)
    w[i] = sin(x[i - hs * NUM_VARS]);
  double s = 0.0, g;
  for (int i = 0; i < (nx + 2 * hs) * NUM_VARS; i++)
    s += w[i] * w[i];
  MPI_Allreduce(&s, &g, 1, MPI_DOUBLE, MPI_SUM, comm);
  return g;
}

// The same sum through an index array the tool cannot bound: the length
// is written in the clause with the globals and an enumerator.
#pragma mpiad differentiate wrt(x) scratch(w[nx * NUM_VARS + NE]) varying(x)
double written(const double *x, double *w, const int *perm, MPI_Comm comm) {
  for (int i = 0; i < nx * NUM_VARS; i++)
    w[perm[i]] = sin(x[i]);
  double s = 0.0, g;
  for (int i = 0; i < nx * NUM_VARS; i++)
    s += w[i] * w[i];
  MPI_Allreduce(&s, &g, 1, MPI_DOUBLE, MPI_SUM, comm);
  return g;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  nx = 4 + hx_rank_g; /* each rank its own size */
  int n = nx * NUM_VARS;
  double x[7 * 3], xb[7 * 3], w[(7 + 4) * 3 + 1];
  int perm[7 * 3];
  double err;
  hx_rand(x, n, 21, hx_rank_g, -1.0, 1.0);
  for (int i = 0; i < n; i++)
    perm[i] = (i + 1) % n;

  memset(xb, 0, sizeof xb);
  inferred_b(x, xb, w, MPI_COMM_WORLD, 1.0);
  hx_tape("inferred_b");
  err = 0.0; /* ranks hold different counts: one collective check each */
  for (int i = 0; i < n; i++)
    err = fmax(err, fabs(xb[i] - 2.0 * sin(x[i]) * cos(x[i])));
  hx_check_each("inferred_b = 2 sin cos, largest error", err, 0.0, 1.0, 1e-14);

  memset(xb, 0, sizeof xb);
  written_b(x, xb, w, perm, MPI_COMM_WORLD, 1.0);
  hx_tape("written_b");
  err = 0.0; /* ranks hold different counts: one collective check each */
  for (int i = 0; i < n; i++)
    err = fmax(err, fabs(xb[i] - 2.0 * sin(x[i]) * cos(x[i])));
  hx_check_each("written_b = 2 sin cos, largest error", err, 0.0, 1.0, 1e-14);
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
