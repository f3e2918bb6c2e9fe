// A helper inlined into a loop whose counter has the name of the helper's
// parameter (`for (int k ...) s += w(prm, k)` with `w(const P p, int k)`):
// the parameter's copy was declared at function scope as `k`, hidden inside
// the loop by the counter, so that binding it was `k = k;` and a helper
// that changes its parameter changed the loop's counter (found by the
// generated-code warning check, -Wself-assign).  The copy is now `k_2`.
// Against the closed form at 1-4 ranks.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
// RUN: %mpiad-emit %s -I%S/../Inputs -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck --check-prefix=GEN %s
// GEN: k_2 = k;
// GEN-NOT: {{^ *}}k = k;
#include <math.h>
#include <mpi.h>
#include <stdio.h>

#include "harness.h"

typedef struct {
  double a;
} P;

// Changes its parameter, as helpers may.
static double w(const P p, int k) {
  k = k * 2 + 1;
  return p.a * k;
}

// J = sum over ranks of sum_k x_k * a * (2k + 1), k < 4.
#pragma mpiad differentiate wrt(x) varying(x)
double f(const double *x, const P p, MPI_Comm comm) {
  double s = 0.0, g;
  for (int k = 0; k < 4; k++)
    s += x[k] * w(p, k);
  MPI_Allreduce(&s, &g, 1, MPI_DOUBLE, MPI_SUM, comm);
  return g;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  double x[4], xb[4] = {0, 0, 0, 0};
  hx_rand(x, 4, 17, hx_rank_g, -1.0, 1.0);
  P p = {0.5};
  double want = 0.0;
  for (int k = 0; k < 4; k++)
    want += x[k] * 0.5 * (2 * k + 1);
  double v = f_b(x, xb, p, MPI_COMM_WORLD, 1.0);
  hx_tape("f_b");
  hx_check("value", v, hx_sum(want), 1e-14, 1e-300);
  double err = 0.0;
  for (int k = 0; k < 4; k++)
    err = fmax(err, fabs(xb[k] - 0.5 * (2 * k + 1)));
  hx_check_each("f_b = a (2k + 1), largest error", err, 0.0, 1.0, 1e-14);
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
