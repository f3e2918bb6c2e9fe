// A scalar passed by address to a helper that communicates in place
// (global_sum(&s, comm), MPI_Allreduce(MPI_IN_PLACE, v, ...)): inlined through
// a one-element array that is copied back after the helper's body, also when
// the call's result is assigned to the same scalar (s = scaled_sum(&s, ...)).
// The same function with the Allreduce written in place is the reference,
// and central differences check both. Reduced from a wrong gradient of the
// first version of the inliner (the pointer to s was not followed).
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
// RUN: %mpiad-emit %s -I%S/../Inputs -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck --check-prefix=GEN %s
// GEN: /* inlined: global_sum(&s, comm) */
// GEN-NEXT: s_ref[0] = s;
// GEN: MPI_Allreduce(MPI_IN_PLACE, v, 1, MPI_DOUBLE, MPI_SUM, comm_2);
// GEN-NEXT: s = s_ref[0];
// GEN: /* inlined: scaled_sum(&t, 0.5, comm) */
// GEN: t = t_ref[0];
// GEN-NEXT: t = c * v_2[0];
#include <math.h>
#include <mpi.h>
#include <stdio.h>

#include "harness.h"

static void global_sum(double *v, MPI_Comm comm) {
  MPI_Allreduce(MPI_IN_PLACE, v, 1, MPI_DOUBLE, MPI_SUM, comm);
}
static double scaled_sum(double *v, double c, MPI_Comm comm) {
  MPI_Allreduce(MPI_IN_PLACE, v, 1, MPI_DOUBLE, MPI_SUM, comm);
  return c * v[0];
}

#pragma mpiad differentiate wrt(x) varying(x) replicated(n)
double f(const double *x, int n, MPI_Comm comm) {
  double s = 0.0, t = 0.0;
  for (int i = 0; i < n; i++) {
    s += x[i] * x[i];
    t += sin(x[i]);
  }
  global_sum(&s, comm);
  t = scaled_sum(&t, 0.5, comm);
  return s * x[0] + t * t * x[1];
}

#pragma mpiad differentiate wrt(x) varying(x) replicated(n)
double g(const double *x, int n, MPI_Comm comm) {
  double s = 0.0, t = 0.0;
  for (int i = 0; i < n; i++) {
    s += x[i] * x[i];
    t += sin(x[i]);
  }
  MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, comm);
  MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_SUM, comm);
  t = 0.5 * t;
  return s * x[0] + t * t * x[1];
}

#define N 4
/* the objective: the returned values summed over the ranks (they vary) */
static double J(void *p) {
  double v = f(p, N, MPI_COMM_WORLD), s;
  MPI_Allreduce(&v, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return s;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  double x[N], dx[N], a[N] = {0}, b[N] = {0};
  hx_rand(x, N, 101, hx_rank_g, -1.0, 1.0);
  hx_rand(dx, N, 102, hx_rank_g, -1.0, 1.0);
  double v = f_b(x, a, N, MPI_COMM_WORLD, 1.0);
  hx_tape("f_b");
  g_b(x, b, N, MPI_COMM_WORLD, 1.0);
  hx_check("value", v, g(x, N, MPI_COMM_WORLD), 1e-15, 1e-300);
  hx_check_vec("helper form = in-place form", a, b, N, 1e-14, 1e-14);
  mpiad_input in = {x, dx, N, 0};
  double *xb[1] = {a};
  hx_grad("f", J, x, &in, 1, xb, 1e-6, 1e-7, 1e-10);
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
