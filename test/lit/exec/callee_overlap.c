// A same-file helper called with two different pointers into one array, one
// of them written (tool/lib/Inline.cpp inlines such calls): a recurrence
// x[i+1] = x[i] + y[i] written as vecAdd(x + 1, x, y, n - 1), and the two
// planes of one grid passed as &u[iz * len] and &u[(1 - iz) * len] to a
// smoothing step, as LLNL's mpi_heat2D does. Checks against central
// differences and, for the linear recurrence, the closed form.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
// RUN: %mpiad-emit %s -I%S/../Inputs -o - 2>/dev/null | sed '/^\/\/ [A-Z-]*:/d' | FileCheck --check-prefix=GEN %s
// GEN: void prefix_b(
// GEN: /* inlined: vecAdd(x + 1, x, y, n - 1) */
// GEN: double planes_b(
// GEN: /* inlined: smooth(len, &u[iz * len], &u[(1 - iz) * len]) */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static void vecAdd(double *sum, const double *v1, const double *v2, int n) {
  for (int i = 0; i < n; i++)
    sum[i] = v1[i] + v2[i];
}

/* x[k] = x[0] + y[0] + ... + y[k-1] afterwards */
#pragma mpiad differentiate wrt(x, y) output(x) varying(x, y) replicated(n)
void prefix(double *x, const double *y, int n) {
  vecAdd(x + 1, x, y, n - 1);
}

static void smooth(int len, const double *u1, double *u2) {
  u2[0] = u1[0];
  u2[len - 1] = u1[len - 1];
  for (int i = 1; i < len - 1; i++)
    u2[i] = u1[i] + 0.2 * (u1[i - 1] - 2.0 * u1[i] + u1[i + 1]) + 0.05 * sin(u1[i]);
}

/* u holds two planes of len points; the first is the initial state */
#pragma mpiad differentiate wrt(u) output(return, u) varying(u) replicated(len, steps)
double planes(double *u, int len, int steps, MPI_Comm comm) {
  int iz = 0;
  for (int t = 0; t < steps; t++) {
    smooth(len, &u[iz * len], &u[(1 - iz) * len]);
    iz = 1 - iz;
  }
  double l = 0.0, s;
  for (int i = 0; i < len; i++)
    l += u[iz * len + i] * u[iz * len + i];
  MPI_Allreduce(&l, &s, 1, MPI_DOUBLE, MPI_SUM, comm);
  return s;
}

#define N 6
#define LEN 5
typedef struct {
  double *u;
} ctx_t;
static double work[2 * LEN];
static double J(void *p) {
  memcpy(work, ((ctx_t *)p)->u, sizeof work);
  return planes(work, LEN, 3, MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  int r = hx_rank_g;
  {
    /* J = sum_k w_k x_k after the prefix sum: x_b[0] = sum w, x_b[j] = 0 for
       j >= 1, y_b[j] = sum_{k>j} w_k */
    double x[N], y[N], w[N], x_b[N], y_b[N] = {0}, wx[N], wy[N];
    hx_rand(x, N, 61, r, -1.0, 1.0);
    hx_rand(y, N, 62, r, -1.0, 1.0);
    hx_rand(w, N, 63, r, -1.0, 1.0);
    memcpy(x_b, w, sizeof w);
    prefix_b(x, x_b, y, y_b, N);
    hx_tape("prefix_b");
    for (int j = 0; j < N; j++) {
      wx[j] = 0.0; /* x[j], j >= 1, is overwritten */
      wy[j] = 0.0;
      for (int k = j + 1; k < N; k++)
        wy[j] += w[k];
    }
    wx[0] = 0.0;
    for (int k = 0; k < N; k++)
      wx[0] += w[k];
    hx_check_vec("prefix: x_b", x_b, wx, N, 1e-14, 1e-14);
    hx_check_vec("prefix: y_b", y_b, wy, N - 1, 1e-14, 1e-14);
  }
  {
    double u[2 * LEN], du[2 * LEN], u_b[2 * LEN] = {0};
    hx_rand(u, 2 * LEN, 64, r, -1.0, 1.0);
    hx_rand(du, 2 * LEN, 65, r, -1.0, 1.0);
    ctx_t c = {u};
    double want = J(&c);
    memcpy(work, u, sizeof work);
    double got = planes_b(work, u_b, LEN, 3, MPI_COMM_WORLD, 1.0);
    hx_tape("planes_b");
    hx_check("planes: value", got, want, 1e-14, 1e-300);
    mpiad_input in = {u, du, 2 * LEN, 0};
    double *xb[1] = {u_b};
    hx_grad("planes", J, &c, &in, 1, xb, 1e-6, 1e-7, 1e-10);
  }
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
