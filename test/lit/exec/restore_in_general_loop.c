// Reduced from the random computation tester (gen_compute.py seed 548):
// the reverse sweep restores an array element that a `while` loop (or a
// `for` loop with `continue` or `break`, which becomes one) overwrote, at
// the loop's index.  The index is not read by any adjoint statement, so
// the dry run did not ask for it, and the restore `a[i] = mpiad_pop_f64()`
// used i's final value: a[2] (past the end) was written, a[1] kept its new
// value, and dt/dx0 came out 2 where it is 1.  The restores' reads now
// take part in the recording decision (Reverse.cpp, addRestoreReads).
// Since stop 35 the reverse computes i's old value (`i--`, the inverse of
// `i++`) where it needs it, instead of popping a record of it.
// Expected values are the closed forms; also central differences, at 1-4
// ranks.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
// RUN: %mpiad-emit %s -I%S/../Inputs -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck --check-prefix=GEN %s
// GEN-LABEL: double w_b(
// GEN-NOT: mpiad_push_i64(i);
// GEN: i--;
// GEN-NEXT: a[i] = mpiad_pop_f64();
#include <math.h>
#include <mpi.h>
#include <stdio.h>

#include "harness.h"

/* t = x0 * a[1] with a[1] = 1 when t is computed: dt/dx0 = 1, dt/dx1 = 0. */
#pragma mpiad differentiate wrt(x) varying(x)
double w(const double *x) {
  double a[3] = {1.0, 1.0, 1.0};
  double t = x[0] * a[1] + x[1] * a[2];
  int i = 1;
  while (i < 3) {
    a[i] *= 2.0 + x[1] * 0.0;
    i++;
  }
  return t;
}

#pragma mpiad differentiate wrt(x) varying(x)
double c(const double *x) {
  double a[3] = {1.0, 1.0, 1.0};
  double t = x[0] * a[1] * a[2];
  for (int i = 0; i < 3; i++) {
    if (i == 0)
      continue;
    a[i] *= 3.0;
  }
  return t;
}

#pragma mpiad differentiate wrt(x) varying(x)
double b(const double *x) {
  double a[3] = {1.0, 1.0, 1.0};
  double t = x[0] * x[0] * a[0] * a[1];
  for (int i = 0; i < 3; i++) {
    a[i] *= 4.0;
    if (i == 1)
      break;
  }
  return t;
}

static double Jw(void *p) { return hx_sum(w(p)); }
static double Jc(void *p) { return hx_sum(c(p)); }
static double Jb(void *p) { return hx_sum(b(p)); }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  double x[2] = {0.7 + 0.1 * hx_rank_g, -0.3}, dx[2] = {1.0, 0.5};
  mpiad_input in = {x, dx, 2, 0};

  double xb[2] = {0, 0};
  w_b(x, xb, 1.0);
  hx_tape("w_b");
  hx_check("while: dt/dx0", xb[0], 1.0, 1e-15, 1e-300);
  hx_check("while: dt/dx1", xb[1], 1.0, 1e-15, 1e-300);
  double *xbp[1] = {xb};
  hx_grad("while", Jw, x, &in, 1, xbp, 1e-6, 1e-8, 1e-12);

  double cb[2] = {0, 0};
  c_b(x, cb, 1.0);
  hx_tape("c_b");
  hx_check("for with continue: dt/dx0", cb[0], 1.0, 1e-15, 1e-300);
  double *cbp[1] = {cb};
  hx_grad("for with continue", Jc, x, &in, 1, cbp, 1e-6, 1e-8, 1e-12);

  double bb[2] = {0, 0};
  b_b(x, bb, 1.0);
  hx_tape("b_b");
  hx_check("for with break: dt/dx0", bb[0], 2.0 * x[0], 1e-15, 1e-300);
  double *bbp[1] = {bb};
  hx_grad("for with break", Jb, x, &in, 1, bbp, 1e-6, 1e-8, 1e-12);

  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
