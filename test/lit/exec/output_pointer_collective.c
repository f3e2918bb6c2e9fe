// An output written through a pointer by a helper that ends with a
// collective, as miniWeather's reductions(&mass, &te) does: it zeroes *te,
// accumulates the rank's sum in it, then stores the MPI_Allreduce result in
// it.  Replication merged every store through te into one value, so the
// returned total was taken as varying (summed over ranks) and the gradient
// was P times too large, silently (issue 40).  A store `*te = e` through a
// pointer to one local scalar is now a new value of that scalar, as `t = e`
// is.  Against the closed form, central differences and forward vs reverse,
// at 1-4 ranks.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
// RUN: %mpiad-emit %s -I%S/../Inputs -o - | FileCheck --check-prefix=GEN %s
// GEN: dependents:   return value (replicated: counted once)
#include <math.h>
#include <mpi.h>
#include <stdio.h>

#include "harness.h"

#define N 5

static void total(const double *x, int n, double *te) {
  *te = 0;
  for (int i = 0; i < n; i++)
    *te += x[i] * x[i];
  double loc = *te, glob;
  MPI_Allreduce(&loc, &glob, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  *te = glob;
}

/* The shape of miniWeather's reductions(): two outputs through pointers,
 * both reduced in one call. */
static void reductions(const double *x, int n, double *mass, double *te) {
  double loc[2] = {0.0, 0.0}, glob[2];
  for (int i = 0; i < n; i++) {
    loc[0] += x[i];
    loc[1] += 0.5 * x[i] * x[i] * x[i];
  }
  MPI_Allreduce(loc, glob, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  *mass = glob[0];
  *te = glob[1];
}

#pragma mpiad differentiate wrt(x) varying(x)
double f(const double *x, int n) {
  double t;
  total(x, n, &t);
  return t;
}

#pragma mpiad differentiate wrt(x) varying(x)
#pragma mpiad differentiate forward wrt(x) varying(x)
double energy(const double *x, int n) {
  double mass, te;
  reductions(x, n, &mass, &te);
  return te + mass * mass;
}

static double Jf(void *ctx) { return f(ctx, N); }
static double Je(void *ctx) { return energy(ctx, N); }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  double x[N], dx[N], xb[N] = {0}, eb[N] = {0}, want[N];
  hx_rand(x, N, 101, hx_rank_g, -1.0, 1.0);
  hx_rand(dx, N, 102, hx_rank_g, -1.0, 1.0);
  double J0 = f_b(x, xb, N, 1.0);
  hx_tape("f_b");
  hx_check("f: value", J0, Jf(x), 1e-14, 1e-300);
  for (int i = 0; i < N; i++)
    want[i] = 2.0 * x[i];
  hx_check_vec("f: gradient vs closed form", xb, want, N, 1e-14, 1e-14);
  mpiad_input in = {x, dx, N, 0};
  double *gp[1] = {xb};
  hx_grad("f", Jf, x, &in, 1, gp, 1e-6, 1e-7, 1e-10);

  double E0 = energy_b(x, eb, N, 1.0);
  hx_tape("energy_b");
  hx_check("energy: value", E0, Je(x), 1e-14, 1e-300);
  double m = 0.0;
  for (int i = 0; i < N; i++)
    m += x[i];
  m = hx_sum(m);
  for (int i = 0; i < N; i++)
    want[i] = 1.5 * x[i] * x[i] + 2.0 * m;
  hx_check_vec("energy: gradient vs closed form", eb, want, N, 1e-13, 1e-13);
  double *ge[1] = {eb};
  hx_grad("energy", Je, x, &in, 1, ge, 1e-6, 1e-7, 1e-10);
  double Ed = 0.0;
  energy_d(x, dx, N, &Ed);
  hx_dot_test("energy_d against energy_b", Ed, &in, 1, ge, 1e-12);
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
