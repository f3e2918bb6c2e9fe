// Allocation wrappers as C programs write them: `xmalloc` and `xcalloc`
// that check the block and end the program when it is NULL, and `xrealloc`
// that does the same for realloc (the reduced program of the wrapper that
// used to be refused: "'realloc' of 'p', a parameter").  In the generated
// code `p = xrealloc(p, n)` is `p = realloc(p, n)` (lowered as in
// exec/realloc.c) followed by the wrapper's check on p; the primal still
// calls the wrappers.  A buffer grown by doubling as values arrive, and a
// work array from xcalloc.  Reverse mode against central differences,
// forward against reverse (the dot-product test), 1-4 ranks.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
// RUN: %mpiad-emit %s -I%S/../Inputs -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck --check-prefix=GEN %s
// GEN-LABEL: double grow_b(
// GEN: vals = malloc(cap * sizeof(double));
// GEN-NEXT: vals_b = calloc(1, cap * sizeof(double));
// GEN: if (vals == NULL) {
// GEN-NEXT: fprintf(stderr, "xmalloc: out of memory\n");
// GEN-NEXT: MPI_Abort(MPI_COMM_WORLD, 1);
// GEN: mpiad_rp{{[0-9]+}} = malloc(mpiad_rb{{[0-9]+}});
// GEN: vals = mpiad_rp{{[0-9]+}};
// GEN: if (vals == NULL) {
// GEN-NEXT: perror("xrealloc");
// GEN-NEXT: exit(1);
// GEN-NOT: xrealloc(
// GEN-LABEL: double grow_d(
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define N 7

static void *xmalloc(size_t n) {
  void *p = malloc(n);
  if (p == NULL) {
    fprintf(stderr, "xmalloc: out of memory\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  return p;
}

static double *xcalloc(size_t n, size_t size) {
  double *p;
  p = calloc(n, size);
  if (!p) {
    fputs("xcalloc: out of memory\n", stderr);
    abort();
  }
  return p;
}

static void *xrealloc(void *old, size_t bytes) {
  void *p = realloc(old, bytes);
  if (!p) {
    perror("xrealloc");
    exit(1);
  }
  return p;
}

/* Keeps the values of x above a threshold in a buffer that doubles when
 * full (its old contents are read after each growth), and a weight per
 * kept value in a work array. */
#pragma mpiad differentiate wrt(x) varying(x)
#pragma mpiad differentiate forward wrt(x) varying(x)
double grow(const double *x, int n, double lo, MPI_Comm comm) {
  int cap = 2, len = 0;
  double *vals = xmalloc(cap * sizeof(double));
  double *wt = xcalloc(n, sizeof(double));
  double prod = 1.0;
  for (int i = 0; i < n; i++) {
    if (x[i] < lo)
      continue;
    if (len == cap) {
      cap *= 2;
      vals = xrealloc(vals, cap * sizeof(double));
    }
    vals[len] = sin(x[i]) * x[i];
    wt[len] = 1.0 + 0.5 * len;
    prod *= 1.0 + 0.1 * vals[len];
    len++;
  }
  double s = prod, g;
  for (int k = 0; k < len; k++)
    s += wt[k] * vals[k] * vals[k];
  free(wt);
  free(vals);
  MPI_Allreduce(&s, &g, 1, MPI_DOUBLE, MPI_SUM, comm);
  return g;
}

static double J_grow(void *ctx) { return grow(ctx, N, 0.3, MPI_COMM_WORLD); }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  double x[N], dx[N], xb[N], xd[N];
  hx_rand(x, N, 91, hx_rank_g, 0.1, 1.0);
  hx_rand(dx, N, 92, hx_rank_g, -1.0, 1.0);
  mpiad_input in = {x, dx, N, 0};
  double *xbp[1] = {xb};
  memset(xb, 0, sizeof xb);
  double v = grow_b(x, xb, N, 0.3, MPI_COMM_WORLD, 1.0);
  hx_tape("grow_b");
  hx_check("grow_b value", v, J_grow(x), 1e-14, 1e-300);
  hx_grad("grow_b", J_grow, x, &in, 1, xbp, 1e-6, 1e-7, 1e-10);
  memcpy(xd, dx, sizeof xd);
  double dot = 0.0;
  grow_d(x, xd, N, 0.3, MPI_COMM_WORLD, &dot);
  hx_dot_test("grow_d vs grow_b", dot, &in, 1, xbp, 1e-12);
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
