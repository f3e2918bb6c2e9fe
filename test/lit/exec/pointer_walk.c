// Loops that walk a pointer through an array, as C programs write them:
// `for (q = u; q < u + n; q++)`, `p += 2` over pairs, `--r` from the end.
// `q++` and `p += k` on a pointer were lowered as `q += 1`, which the
// reverse sweep took for a pointer set from storage without a shadow (an
// error at the `q++`); they are now `q = q + 1`, a new address that the
// shadow follows as for any pointer copy.  Reverse mode against the closed
// form and central differences, forward mode against reverse (the
// dot-product test), at 1-4 ranks.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
// RUN: %mpiad-emit %s -I%S/../Inputs -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck --check-prefix=GEN %s
// GEN-LABEL: double walk_b(
// GEN: q = q + 1;
// GEN-NEXT: q_b = q_b + 1;
// GEN: p = p + 2;
// GEN-NEXT: p_b = p_b + 2;
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

#define N 8 /* even: p walks pairs */

/* J = sum over ranks of  sum_i u_i^2  +  sum_pairs u_2k * sin(u_2k+1)
 *     + sum_i (i + 1) u_{n-1-i}^3 / 10  */
#pragma mpiad differentiate wrt(u) varying(u) replicated(n)
#pragma mpiad differentiate forward wrt(u) varying(u) replicated(n)
double walk(const double *u, int n, MPI_Comm comm) {
  double s = 0.0, t;
  for (const double *q = u; q < u + n; q++)
    s += *q * *q;
  const double *p = u;
  while (p < u + n) {
    s += p[0] * sin(p[1]);
    p += 2;
  }
  const double *r = u + n;
  int k = 1;
  while (r != u) {
    --r;
    s += k * (*r) * (*r) * (*r) / 10.0;
    k++;
  }
  MPI_Allreduce(&s, &t, 1, MPI_DOUBLE, MPI_SUM, comm);
  return t;
}

static double J(void *ctx) { return walk(ctx, N, MPI_COMM_WORLD); }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  double u[N], du[N], ub[N] = {0}, want[N];
  hx_rand(u, N, 11, hx_rank_g, -1.0, 1.0);
  hx_rand(du, N, 12, hx_rank_g, -1.0, 1.0);
  double J0 = walk_b(u, ub, N, MPI_COMM_WORLD, 1.0);
  hx_tape("walk_b");
  /* closed form, per element */
  for (int i = 0; i < N; i++) {
    int k = N - i; /* u_i is visited k-th from the end */
    want[i] = 2.0 * u[i] + 3.0 * k * u[i] * u[i] / 10.0;
  }
  for (int i = 0; i < N; i += 2) {
    want[i] += sin(u[i + 1]);
    want[i + 1] += u[i] * cos(u[i + 1]);
  }
  hx_check("J", J0, J(u), 1e-14, 1e-300);
  hx_check_vec("dJ/du vs closed form", ub, want, N, 1e-13, 1e-13);
  mpiad_input in = {u, du, N, 0};
  double *gp[1] = {ub};
  hx_grad("walk", J, u, &in, 1, gp, 1e-6, 1e-7, 1e-10);
  double Jd = 0.0;
  walk_d(u, du, N, MPI_COMM_WORLD, &Jd);
  hx_dot_test("walk_d against walk_b", Jd, &in, 1, gp, 1e-12);
  return hx_finish() + (MPI_Finalize() != MPI_SUCCESS);
}
