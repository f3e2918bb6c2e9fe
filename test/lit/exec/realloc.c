// realloc of buffers that carry derivatives (issue 14): a buffer grown in a
// loop as values arrive (the doubling idiom), one shrunk, realloc(NULL, n)
// as the first allocation, and an int index array grown alongside.  In the
// generated code each realloc is a malloc, an element copy and a free
// deferred to the reverse sweep, so the statements before it still read
// the old values.  Reverse mode against central differences, forward
// against reverse, at 1-4 ranks.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
// RUN: %mpiad-emit %s -I%S/../Inputs -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck --check-prefix=GEN %s
// GEN: double grow_b(
// GEN: mpiad_rb2 = cap * sizeof(double);
// GEN: mpiad_rp2 = malloc(mpiad_rb2);
// GEN-NEXT: mpiad_rp2_b = calloc(1, mpiad_rb2);
// GEN: mpiad_rp2[mpiad_rc2] = vals[mpiad_rc2];
// GEN: /* free(vals) happens in the reverse sweep */
// GEN: vals = mpiad_rp2;
// GEN: /* reverse sweep */
// GEN: vals_b[mpiad_rc2] += mpiad_t1;
// GEN: free(mpiad_rp2);
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define N 6

/* Keeps the values of x above a threshold in a buffer that doubles when
 * full, then combines them; the buffer's old contents are read after each
 * growth, and before it by the products. */
#pragma mpiad differentiate wrt(x) varying(x)
#pragma mpiad differentiate forward wrt(x) varying(x)
double grow(const double *x, int n, double lo, MPI_Comm comm) {
  int cap = 1, len = 0;
  double *vals = malloc(cap * sizeof(double));
  int *where = NULL;
  where = realloc(where, cap * sizeof(int));
  double prod = 1.0;
  for (int i = 0; i < n; i++) {
    if (x[i] < lo)
      continue;
    if (len == cap) {
      cap *= 2;
      vals = realloc(vals, cap * sizeof(double));
      where = realloc(where, cap * sizeof(int));
    }
    vals[len] = sin(x[i]) * x[i];
    where[len] = i;
    prod *= 1.0 + 0.1 * vals[len];
    len++;
  }
  double s = prod, g;
  for (int k = 0; k < len; k++)
    s += vals[k] * x[where[k]];
  free(vals);
  free(where);
  MPI_Allreduce(&s, &g, 1, MPI_DOUBLE, MPI_SUM, comm);
  return g;
}

/* realloc(NULL, n) first, then a shrink that keeps the first half. */
#pragma mpiad differentiate wrt(x) varying(x)
#pragma mpiad differentiate forward wrt(x) varying(x)
double shrink(const double *x, int n, MPI_Comm comm) {
  double *t = realloc(NULL, n * sizeof(double));
  for (int i = 0; i < n; i++)
    t[i] = x[i] * x[(i + 1) % n];
  double before = t[n - 1];
  t = realloc(t, (n / 2) * sizeof(double));
  double s = before * before, g;
  for (int i = 0; i < n / 2; i++)
    s += t[i] * t[i];
  free(t);
  MPI_Allreduce(&s, &g, 1, MPI_DOUBLE, MPI_SUM, comm);
  return g;
}

static double J_grow(void *ctx) { return grow(ctx, N, 0.35, MPI_COMM_WORLD); }
static double J_shrink(void *ctx) { return shrink(ctx, N, MPI_COMM_WORLD); }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  double x[N], dx[N], xb[N], xd[N];
  hx_rand(x, N, 81, hx_rank_g, 0.2, 1.0);
  hx_rand(dx, N, 82, hx_rank_g, -1.0, 1.0);
  mpiad_input in = {x, dx, N, 0};
  double *xbp[1] = {xb};

  memset(xb, 0, sizeof xb);
  double v = grow_b(x, xb, N, 0.35, MPI_COMM_WORLD, 1.0);
  hx_tape("grow_b");
  hx_check("grow_b value", v, J_grow(x), 1e-14, 1e-300);
  hx_grad("grow_b", J_grow, x, &in, 1, xbp, 1e-6, 1e-7, 1e-10);
  memcpy(xd, dx, sizeof xd);
  double dot = 0.0;
  grow_d(x, xd, N, 0.35, MPI_COMM_WORLD, &dot);
  hx_dot_test("grow_d vs grow_b", dot, &in, 1, xbp, 1e-12);

  memset(xb, 0, sizeof xb);
  v = shrink_b(x, xb, N, MPI_COMM_WORLD, 1.0);
  hx_tape("shrink_b");
  hx_check("shrink_b value", v, J_shrink(x), 1e-14, 1e-300);
  hx_grad("shrink_b", J_shrink, x, &in, 1, xbp, 1e-6, 1e-7, 1e-10);
  memcpy(xd, dx, sizeof xd);
  dot = 0.0;
  shrink_d(x, xd, N, MPI_COMM_WORLD, &dot);
  hx_dot_test("shrink_d vs shrink_b", dot, &in, 1, xbp, 1e-12);
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
