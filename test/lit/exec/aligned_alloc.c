// Aligned allocations (issue 14's project allocators): PRK's prk_malloc
// wrapper around posix_memalign (its failure sets the pointer to NULL),
// posix_memalign called directly with its answer tested, and
// aligned_alloc.  Each is the allocation of its size to the adjoint, which
// gives the buffer a calloc'd shadow.  PRK's prk_free(p) is inlined, so
// that its free is deferred like free's (called as is, it freed memory the
// reverse sweep still read).  Reverse mode against central
// differences, forward against reverse, at 1-4 ranks.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
// RUN: %mpiad-emit %s -I%S/../Inputs -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck --check-prefix=GEN %s
// GEN: double f_b(
// GEN: w = malloc(n * sizeof(double));
// GEN-NEXT: w_b = calloc(1, n * sizeof(double));
// GEN: v = malloc(n * sizeof(double));
// GEN-NEXT: v_b = calloc(1, n * sizeof(double));
// GEN-NEXT: ret = v == NULL;
// GEN: u = malloc(n * sizeof(double));
// GEN-NEXT: u_b = calloc(1, n * sizeof(double));
// GEN: /* inlined: prk_free(w) */
// GEN-NEXT: /* free(w) happens in the reverse sweep */
// GEN: double f_d(
// GEN: /* inlined: prk_free(w) */
// GEN-NEXT: free(w);
// GEN-NEXT: free(w_d);
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define PRK_ALIGNMENT 64

static inline void prk_free(void *p) { free(p); }

static inline void *prk_malloc(size_t bytes) {
  void *ptr = NULL;
  int ret = posix_memalign(&ptr, PRK_ALIGNMENT, bytes);
  if (ret)
    ptr = NULL;
  return ptr;
}

#pragma mpiad differentiate wrt(x) varying(x)
#pragma mpiad differentiate forward wrt(x) varying(x)
double f(const double *x, int n, MPI_Comm comm) {
  double *w = prk_malloc(n * sizeof(double));
  double *v;
  int ret = posix_memalign((void **)&v, PRK_ALIGNMENT, n * sizeof(double));
  if (ret != 0 || w == NULL) {
    fprintf(stderr, "out of memory\n");
    MPI_Abort(comm, 1);
  }
  double *u = aligned_alloc(PRK_ALIGNMENT, n * sizeof(double));
  for (int i = 0; i < n; i++) {
    w[i] = x[i] * x[i];
    v[i] = sin(w[i]);
    u[i] = v[i] * x[(i + 1) % n];
  }
  double s = 0.0, g;
  for (int i = 0; i < n; i++)
    s += u[i] * w[i];
  prk_free(w);
  free(v);
  prk_free(u);
  MPI_Allreduce(&s, &g, 1, MPI_DOUBLE, MPI_SUM, comm);
  return g;
}

#define N 8 /* n * sizeof(double) is a multiple of the alignment */

static double J(void *ctx) { return f(ctx, N, MPI_COMM_WORLD); }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  double x[N], dx[N], xb[N], xd[N];
  hx_rand(x, N, 101, hx_rank_g, 0.2, 1.0);
  hx_rand(dx, N, 102, hx_rank_g, -1.0, 1.0);
  memset(xb, 0, sizeof xb);
  double v = f_b(x, xb, N, MPI_COMM_WORLD, 1.0);
  hx_tape("f_b");
  hx_check("f_b value", v, J(x), 1e-14, 1e-300);
  mpiad_input in = {x, dx, N, 0};
  double *xbp[1] = {xb};
  hx_grad("f_b", J, x, &in, 1, xbp, 1e-6, 1e-7, 1e-10);
  memcpy(xd, dx, sizeof xd);
  double dot = 0.0;
  f_d(x, xd, N, MPI_COMM_WORLD, &dot);
  hx_dot_test("f_d vs f_b", dot, &in, 1, xbp, 1e-12);
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
