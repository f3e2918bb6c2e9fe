// An output written through a pointer parameter and then overwritten with
// an MPI_Allreduce result (issue 40, found again on miniWeather's
// `reductions(&mass, &te)` by a tester who did not write mpiad): the output
// parameter was one web over all its stores, counted as varying, so its
// seed was taken on every rank and the gradient came out P times too large,
// silently.  A pointer parameter that names one value (`*te`, `te[0]`,
// copies, one-element buffers) is now tracked per store, and its value on
// exit decides: the Allreduce result is equal on all ranks (also when the
// pointers go through an inlined helper, whose copies of them were the
// root of their alias class and hid the parameter: miniWeather's block in
// main still gave P times the gradient).  Each variant
// against its closed form at 1-4 ranks, and central differences.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
// The seed of te reaches the reduced value once, without a sum over ranks;
// the overwritten store gets nothing.
// RUN: %mpiad-emit %s -I%S/../Inputs -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck --check-prefix=GEN %s
// GEN: void energy_b(
// GEN: /* reverse sweep */
// GEN-NOT: MPI_IN_PLACE
// GEN: glob_b += te_b[0];
// GEN-NEXT: te_b[0] = 0;
// GEN-NEXT: loc_b += glob_b;
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

#define N 3

// te = sum over ranks of sum x^2: the rank's share stored first.
#pragma mpiad differentiate wrt(x) output(te) varying(x)
void energy(const double *x, int n, double *te) {
  double loc = 0, glob;
  for (int i = 0; i < n; i++)
    loc += x[i] * x[i];
  *te = loc;
  MPI_Allreduce(&loc, &glob, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  *te = glob;
}

// miniWeather's reductions(): both outputs accumulated in place, copied
// out, reduced together, stored back.
#pragma mpiad differentiate wrt(x) output(mass, te) varying(x)
void reductions(const double *x, int n, double *mass, double *te) {
  *mass = 0;
  *te = 0;
  for (int i = 0; i < n; i++) {
    *mass += x[i];
    te[0] += 0.5 * x[i] * x[i] * x[i];
  }
  double glob[2], loc[2];
  loc[0] = *mass;
  loc[1] = *te;
  MPI_Allreduce(loc, glob, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  *mass = glob[0];
  *te = glob[1];
}

// The result reduced straight into the output, through a copy of it.
#pragma mpiad differentiate wrt(x) output(te) varying(x)
void direct(const double *x, int n, double *te) {
  double *out = te;
  *out = 0;
  for (int i = 0; i < n; i++)
    *out += sin(x[i]);
  double loc = *out;
  MPI_Allreduce(&loc, out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}

// The last store is the rank's own value: the objective is the sum of
// the ranks' outputs, each rank's gradient its own (2 x).
#pragma mpiad differentiate wrt(x) output(te) varying(x)
void own_last(const double *x, int n, double *te) {
  double loc = 0, glob;
  for (int i = 0; i < n; i++)
    loc += x[i] * x[i];
  MPI_Allreduce(&loc, &glob, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  *te = glob;
  *te = loc;
}

// The same reductions as a helper that the marked function passes its
// pointers to (inlined: its copies of them root the pointers' alias class),
// one of them a work array.  A block in main passes `&(*te)` the same way.
static void reductions_helper(const double *x, int n, double *mass, double *te) {
  *mass = 0;
  *te = 0;
  for (int i = 0; i < n; i++) {
    *mass += x[i];
    *te += 0.5 * x[i] * x[i] * x[i];
  }
  double loc[2] = {*mass, *te}, glob[2];
  MPI_Allreduce(loc, glob, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  *mass = glob[0];
  *te = glob[1];
}

#pragma mpiad differentiate wrt(x) output(te) scratch(mass) varying(x)
void through_helper(const double *x, int n, double *mass, double *te) {
  reductions_helper(x, n, mass, te);
}

static double J_energy(void *x) {
  double te;
  energy(x, N, &te);
  return te;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  int r = hx_rank_g;
  double x[N], dx[N], xb[N];
  hx_rand(x, N, 41, r, 0.2, 1.0);
  hx_rand(dx, N, 42, r, -1.0, 1.0);

  double te, te_b = 1.0;
  memset(xb, 0, sizeof xb);
  energy_b(x, xb, N, &te, &te_b);
  hx_tape("energy_b");
  for (int i = 0; i < N; i++)
    hx_check_each("energy_b = 2 x", xb[i], 2.0 * x[i], 1e-14, 1e-300);
  hx_check("energy_b seed consumed", te_b, 0.0, 0.0, 0.0);
  mpiad_input in = {x, dx, N, 0};
  double *xbp[1] = {xb};
  hx_grad("energy_b", J_energy, x, &in, 1, xbp, 1e-6, 1e-8, 1e-12);

  double mass, mass_b = 0.25;
  te_b = 1.0;
  memset(xb, 0, sizeof xb);
  reductions_b(x, xb, N, &mass, &mass_b, &te, &te_b);
  hx_tape("reductions_b");
  for (int i = 0; i < N; i++)
    hx_check_each("reductions_b = 0.25 + 1.5 x^2", xb[i], 0.25 + 1.5 * x[i] * x[i], 1e-14, 1e-300);

  te_b = 1.0;
  memset(xb, 0, sizeof xb);
  through_helper_b(x, xb, N, &mass, &te, &te_b);
  hx_tape("through_helper_b");
  for (int i = 0; i < N; i++)
    hx_check_each("through_helper_b = 1.5 x^2", xb[i], 1.5 * x[i] * x[i], 1e-14, 1e-300);

  te_b = 1.0;
  memset(xb, 0, sizeof xb);
  direct_b(x, xb, N, &te, &te_b);
  hx_tape("direct_b");
  for (int i = 0; i < N; i++)
    hx_check_each("direct_b = cos x", xb[i], cos(x[i]), 1e-14, 1e-300);

  te_b = 1.0;
  memset(xb, 0, sizeof xb);
  own_last_b(x, xb, N, &te, &te_b);
  hx_tape("own_last_b");
  for (int i = 0; i < N; i++)
    hx_check_each("own_last_b = 2 x", xb[i], 2.0 * x[i], 1e-14, 1e-300);
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
