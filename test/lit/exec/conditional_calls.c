// Calls of same-file functions in operands that C may skip: `c ? f(a) :
// g(b)`, `a && h(x)`, `a || h(x)`.  They were a located error ("assign it
// to a variable under an if first"); they are now lowered as C evaluates
// them, each call under the test that guards it (a call on the untaken
// side does not run: `count_calls` checks it).  Reverse against the
// closed form and central differences, forward against reverse, at 1-4
// ranks.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
// RUN: %mpiad-emit %s -I%S/../Inputs -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck --check-prefix=GEN %s
// GEN-LABEL: double mix_b(
// GEN: if (x[i] > 0.0) {
// GEN: = mpiad_fwd_sq3(
// GEN: } else {
// GEN: = mpiad_fwd_lin(
// GEN: if (x[i] > -0.5) {
// GEN: = pos(
// GEN-NEXT: mpiad_c{{[0-9]+}} = mpiad_c{{[0-9]+}} > 0.1;
// GEN: if (!(x[i] < -0.5)) {
#include <math.h>
#include <mpi.h>
#include <stdio.h>

#include "harness.h"

#define N 8

static int calls_g; /* calls of pos(), which must not run when skipped */

static double sq3(double v) { return v * v * v; }
static double lin(double v) { return 2.0 * v + 1.0; }
static double pos(double v) {
  calls_g++;
  return v * v;
}

/* J = sum over ranks of sum_i  (x_i > 0 ? x_i^3 : 2 x_i + 1)
 *                            + [x_i > -0.5 && x_i^2 > 0.1] x_i
 *                            + [x_i < -0.5 || x_i^2 > 0.3] x_i^2 */
#pragma mpiad differentiate wrt(x) varying(x)
#pragma mpiad differentiate forward wrt(x) varying(x)
double mix(const double *x, int n, MPI_Comm comm) {
  double s = 0.0, t;
  for (int i = 0; i < n; i++) {
    double y = x[i] > 0.0 ? sq3(x[i]) : lin(x[i]);
    int a = x[i] > -0.5 && pos(x[i]) > 0.1;
    int b = x[i] < -0.5 || pos(x[i]) > 0.3;
    s += y + a * x[i] + b * x[i] * x[i];
  }
  MPI_Allreduce(&s, &t, 1, MPI_DOUBLE, MPI_SUM, comm);
  return t;
}

static double J(void *ctx) { return mix(ctx, N, MPI_COMM_WORLD); }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  double x[N], dx[N], xb[N] = {0}, want[N];
  hx_rand(x, N, 121, hx_rank_g, -1.0, 1.0);
  hx_rand(dx, N, 122, hx_rank_g, -1.0, 1.0);
  int expected_calls = 0;
  for (int i = 0; i < N; i++)
    expected_calls += (x[i] > -0.5) + !(x[i] < -0.5);
  calls_g = 0;
  double J0 = J(x);
  hx_check_each("pos() runs only where C evaluates it (primal)", calls_g,
                expected_calls, 0.0, 1.0);
  calls_g = 0;
  double Jb = mix_b(x, xb, N, MPI_COMM_WORLD, 1.0);
  hx_check_each("pos() runs only where C evaluates it (adjoint)",
                calls_g >= expected_calls && calls_g <= 2 * expected_calls,
                1.0, 0.0, 1.0);
  hx_tape("mix_b");
  hx_check("J", Jb, J0, 1e-14, 1e-300);
  for (int i = 0; i < N; i++) {
    double v = x[i];
    int a = v > -0.5 && v * v > 0.1, b = v < -0.5 || v * v > 0.3;
    want[i] = (v > 0.0 ? 3.0 * v * v : 2.0) + a + b * 2.0 * v;
  }
  hx_check_vec("dJ/dx vs closed form", xb, want, N, 1e-13, 1e-13);
  mpiad_input in = {x, dx, N, 0};
  double *gp[1] = {xb};
  hx_grad("mix", J, x, &in, 1, gp, 1e-6, 1e-7, 1e-10);
  double Jd = 0.0;
  mix_d(x, dx, N, MPI_COMM_WORLD, &Jd);
  hx_dot_test("mix_d against mix_b", Jd, &in, 1, gp, 1e-12);
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
