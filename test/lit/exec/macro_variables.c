// Variables read and written through object-like macros (`#define XX x`,
// `#define KAPPA kappa`, `#define YY (y)`): such a macro printed as its name,
// an opaque constant, so the variable behind it carried no derivative
// (x_b = 0, silently) and a write through it was refused.  A macro whose
// expansion names a variable of the program is now lowered as its
// expansion; macros of constants (N, M_PI) and library objects
// (MPI_COMM_WORLD) still print as their names.  Against closed forms,
// central differences and forward vs reverse, at 1-4 ranks.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
// RUN: %mpiad-emit %s -I%S/../Inputs -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck --check-prefix=GEN %s
// GEN-LABEL: double energy_b(
// GEN: MPI_Allreduce(&s, &t, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
// GEN: x_b[i] +=
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

#define N 6
#define XX x
#define KAPPA kappa
#define YY (y)
#define WORK w
#define SCALE gscale
#define COMM MPI_COMM_WORLD

static double gscale = 1.5; /* a global read through a macro */

/* J = sum over ranks of  kappa * SCALE * sum_i y_i^2,
 *     y_i = x_i^2 + kappa * x_i  (written through the macro YY),
 *     plus sum_i w_i x_i with w a local array written through WORK. */
#pragma mpiad differentiate wrt(x, kappa) varying(x) replicated(kappa)
#pragma mpiad differentiate forward wrt(x, kappa) varying(x) replicated(kappa)
double energy(const double *x, double kappa, int n) {
  double y[N], w[N];
  double s = 0.0, t = 0.0;
  for (int i = 0; i < n; i++) {
    YY[i] = XX[i] * XX[i] + KAPPA * XX[i];
    WORK[i] = sin(XX[i]);
  }
  for (int i = 0; i < n; i++)
    s += KAPPA * SCALE * YY[i] * YY[i] + WORK[i] * XX[i];
  MPI_Allreduce(&s, &t, 1, MPI_DOUBLE, MPI_SUM, COMM);
  return t;
}

static double kap = 0.7;
static double J(void *ctx) { return energy(ctx, kap, N); }
static double Jk(void *ctx) { return energy(ctx, kap, N); }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  double x[N], dx[N], xb[N] = {0}, want[N], kb = 0.0;
  hx_rand(x, N, 41, hx_rank_g, -1.0, 1.0);
  hx_rand(dx, N, 42, hx_rank_g, -1.0, 1.0);
  double J0 = energy_b(x, xb, kap, &kb, N, 1.0);
  hx_tape("energy_b");
  hx_check("J", J0, J(x), 1e-14, 1e-300);
  double wantk = 0.0;
  for (int i = 0; i < N; i++) {
    double y = x[i] * x[i] + kap * x[i];
    want[i] = kap * gscale * 2.0 * y * (2.0 * x[i] + kap) + cos(x[i]) * x[i] +
              sin(x[i]);
    wantk += gscale * y * y + kap * gscale * 2.0 * y * x[i];
  }
  hx_check_vec("dJ/dx vs closed form", xb, want, N, 1e-13, 1e-13);
  hx_check("dJ/dkappa vs closed form", kb, hx_sum(wantk), 1e-13, 1e-13);
  mpiad_input in = {x, dx, N, 0};
  double *gp[1] = {xb};
  hx_grad("energy wrt x", J, x, &in, 1, gp, 1e-6, 1e-7, 1e-10);
  double dk = 0.3, *kbp[1] = {&kb};
  mpiad_input ink = {&kap, &dk, 1, 1};
  hx_grad("energy wrt kappa", Jk, x, &ink, 1, kbp, 1e-6, 1e-7, 1e-10);
  double Jd = 0.0;
  energy_d(x, dx, kap, 0.0, N, &Jd);
  hx_dot_test("energy_d against energy_b", Jd, &in, 1, gp, 1e-12);
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
