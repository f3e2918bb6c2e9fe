// Operands that C may skip (of &&, || and ?:) holding what needs a
// statement of its own: an assignment (`k > 0 ? 2 * (y = x * x) : x`), a
// comma (`(x2 = 2 * x, x2 + 1)`), an MPI call used as a value, and a call
// of a same-file function in a loop condition (`while (k > 0 && g(z) <
// 4.0)`).  Each was a located error; each now runs under the test that
// guards it, as C evaluates it.  Against central differences and the
// closed form, at 1-4 ranks and on both sides of every test.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
#include <math.h>
#include <mpi.h>
#include <stdio.h>

#include "harness.h"

static double g(double y) { return y * y; }

#pragma mpiad differentiate wrt(x) varying(x, k)
double f(double x, int k) {
  double y = 0.0, z, x2 = 0.0;
  int r = -1;
  z = k > 0 ? 2.0 * (y = x * x) : x;
  z += k > 1 ? (x2 = 2.0 * x, x2 + 1.0) : 0.5 * x;
  if (k > 2 && MPI_Comm_rank(MPI_COMM_WORLD, &r) == MPI_SUCCESS)
    z += (r + 1) * x;
  while (k > 0 && g(z) < 4.0)
    z = z * 1.5;
  return z + y + x2;
}

/* The same, by hand, for the closed form: the value and its derivative. */
static double ref(double x, int k, int rank, double *d) {
  double y = 0.0, dy = 0.0, z, dz, x2 = 0.0, dx2 = 0.0;
  if (k > 0) {
    y = x * x;
    dy = 2.0 * x;
    z = 2.0 * y;
    dz = 2.0 * dy;
  } else {
    z = x;
    dz = 1.0;
  }
  if (k > 1) {
    x2 = 2.0 * x;
    dx2 = 2.0;
    z += x2 + 1.0;
    dz += dx2;
  } else {
    z += 0.5 * x;
    dz += 0.5;
  }
  if (k > 2) {
    z += (rank + 1) * x;
    dz += rank + 1;
  }
  while (k > 0 && z * z < 4.0) {
    z *= 1.5;
    dz *= 1.5;
  }
  *d = dz + dy + dx2;
  return z + y + x2;
}

static int k_g;
static double J(void *ctx) { return hx_sum(f(*(double *)ctx, k_g)); }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  for (int k = 0; k <= 3; k++) {
    k_g = k;
    double x = 0.3 + 0.1 * hx_rank_g, dx = 1.0, xb = 0.0, d;
    char label[64];
    double v = f_b(x, &xb, k, 1.0);
    snprintf(label, sizeof label, "k = %d: tape", k);
    hx_tape(label);
    double want = ref(x, k, hx_rank_g, &d);
    snprintf(label, sizeof label, "k = %d: value", k);
    hx_check_each(label, v, want, 1e-14, 1e-300);
    snprintf(label, sizeof label, "k = %d: derivative vs closed form", k);
    hx_check_each(label, xb, d, 1e-13, 1e-13);
    mpiad_input in = {&x, &dx, 1, 0};
    double *gp[1] = {&xb};
    snprintf(label, sizeof label, "k = %d", k);
    hx_grad(label, J, &x, &in, 1, gp, 1e-6, 1e-7, 1e-10);
  }
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
