// Variable-length arrays (issue 14): `double t[n];` is a malloc'd buffer in
// the generated code, freed where C ends its lifetime (the end of its
// block, or a return, break or continue that leaves it).  At function
// scope and in a loop body left by break and continue, an int VLA of
// indices, a VLA as an MPI buffer, float data, an early return from a
// nested block, and a helper with a VLA of its own.  Reverse mode against
// central differences, forward mode against reverse, at 1-4 ranks.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
// RUN: %mpiad-emit %s -I%S/../Inputs -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck --check-prefix=GEN %s
// GEN: double loops_b(
// GEN: double *t = NULL;
// GEN: t = malloc(n * sizeof(double));
// GEN: t_b = calloc(1, n * sizeof(double));
// GEN: u = malloc((n + 1) * sizeof(double));
// GEN: free(u);
// GEN-NEXT: free(u_b);
// GEN: free(t);
// GEN-NEXT: free(t_b);
// GEN: double loops_d(
// GEN: t_d = calloc(1, n * sizeof(double));
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

#define N 5

/* A VLA at function scope, one per iteration of a loop left by break and
 * continue, an int VLA of indices. */
#pragma mpiad differentiate wrt(x) varying(x)
#pragma mpiad differentiate forward wrt(x) varying(x)
double loops(const double *x, int n, MPI_Comm comm) {
  double t[n];
  int perm[n];
  for (int i = 0; i < n; i++) {
    t[i] = sin(x[i]);
    perm[i] = (3 * i + 1) % n;
  }
  double s = 0.0, g;
  for (int k = 0; k < 4; k++) {
    double u[n + 1];
    u[n] = 0.5;
    for (int i = 0; i < n; i++) {
      u[i] = t[perm[i]] * x[i] + u[n];
      if (u[i] > 0.9)
        break;
    }
    if (k == 2)
      continue;
    s += u[0] * u[0] + u[n] * t[k % n];
  }
  s += t[0];
  MPI_Allreduce(&s, &g, 1, MPI_DOUBLE, MPI_SUM, comm);
  return g;
}

/* The VLA is the buffer of the reduction; an early return from a nested
 * block frees it first. */
#pragma mpiad differentiate wrt(x) varying(x)
#pragma mpiad differentiate forward wrt(x) varying(x)
double reduce(const double *x, int n, double cut, MPI_Comm comm) {
  double loc[n], tot[n];
  for (int i = 0; i < n; i++)
    loc[i] = x[i] * x[i];
  MPI_Allreduce(loc, tot, n, MPI_DOUBLE, MPI_SUM, comm);
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    double w[2];
    w[0] = tot[i];
    w[1] = loc[i];
    s += w[0] * w[1];
    if (s > cut) {
      double r[n];
      for (int j = 0; j < n; j++)
        r[j] = s * tot[j];
      return r[n - 1];
    }
  }
  return s;
}

/* float data, and a helper with a VLA of its own. */
static float smooth_sum(const float *v, int n) {
  float c[n];
  for (int i = 0; i < n; i++)
    c[i] = v[i] * v[(i + 1) % n];
  float s = 0.0f;
  for (int i = 0; i < n; i++)
    s += c[i];
  return s;
}

#pragma mpiad differentiate wrt(x) varying(x)
#pragma mpiad differentiate forward wrt(x) varying(x)
double floats(const float *x, int n, MPI_Comm comm) {
  float y[n];
  for (int i = 0; i < n; i++)
    y[i] = 2.0f * x[i] * x[i];
  double s = smooth_sum(y, n), g;
  MPI_Allreduce(&s, &g, 1, MPI_DOUBLE, MPI_SUM, comm);
  return g;
}

static double J_loops(void *ctx) { return loops(ctx, N, MPI_COMM_WORLD); }
static double cut_g;
static double J_reduce(void *ctx) {
  return hx_sum(reduce(ctx, N, cut_g, MPI_COMM_WORLD));
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  double x[N], dx[N], xb[N], xd[N];
  hx_rand(x, N, 71, hx_rank_g, 0.2, 1.0);
  hx_rand(dx, N, 72, hx_rank_g, -1.0, 1.0);
  mpiad_input in = {x, dx, N, 0};
  double *xbp[1] = {xb};

  memset(xb, 0, sizeof xb);
  double v = loops_b(x, xb, N, MPI_COMM_WORLD, 1.0);
  hx_tape("loops_b");
  hx_check("loops_b value", v, J_loops(x), 1e-14, 1e-300);
  hx_grad("loops_b", J_loops, x, &in, 1, xbp, 1e-6, 1e-7, 1e-10);
  memcpy(xd, dx, sizeof xd);
  double dot = 0.0;
  loops_d(x, xd, N, MPI_COMM_WORLD, &dot);
  hx_dot_test("loops_d vs loops_b", dot, &in, 1, xbp, 1e-12);

  /* Each rank returns its share: with the cut low, every rank returns
   * early; with it high, none does. */
  double cuts[2] = {0.5, 1e9};
  for (int c = 0; c < 2; c++) {
    cut_g = cuts[c];
    memset(xb, 0, sizeof xb);
    v = reduce_b(x, xb, N, cut_g, MPI_COMM_WORLD, 1.0);
    hx_tape("reduce_b");
    hx_check("reduce_b value", hx_sum(v), J_reduce(x), 1e-14, 1e-300);
    hx_grad(c ? "reduce_b (no early return)" : "reduce_b (early return)",
            J_reduce, x, &in, 1, xbp, 1e-6, 1e-7, 1e-10);
    memcpy(xd, dx, sizeof xd);
    dot = 0.0;
    reduce_d(x, xd, N, cut_g, MPI_COMM_WORLD, &dot);
    hx_dot_test("reduce_d vs reduce_b", hx_sum(dot), &in, 1, xbp, 1e-12);
  }

  /* floats: the gradient from float data against its closed form: each
   * rank's x enters only its own term sum_k 4 x_k^2 x_{k+1}^2 (cyclic). */
  float xf[N], xfb[N];
  for (int i = 0; i < N; i++)
    xf[i] = (float)x[i];
  memset(xfb, 0, sizeof xfb);
  floats_b(xf, xfb, N, MPI_COMM_WORLD, 1.0);
  hx_tape("floats_b");
  double want[N], got[N];
  for (int i = 0; i < N; i++) {
    double a = xf[i], p = xf[(i + N - 1) % N], q = xf[(i + 1) % N];
    want[i] = 8.0 * a * (p * p + q * q);
    got[i] = xfb[i];
  }
  hx_check_vec("floats_b vs closed form", got, want, N, 1e-5, 1e-6);
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
