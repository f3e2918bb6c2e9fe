// scratch(p[LEN]): a work array passed in by the caller, whose contents on
// entry and exit do not matter. The adjoint and the tangent allocate its
// shadow themselves (zeroed) and free it; the caller passes none. Two forms:
// the length inferred from the loops (f), and given in the clause (g, where
// the index goes through a local). Checks: F_b against central differences
// and the dot-product test, F_d against F_b (the same directional
// derivative), at 1-4 ranks; the caller's work array holds garbage on entry.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
// RUN: %mpiad-emit %s -I%S/../Inputs -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck --check-prefix=GEN %s
// GEN: scratch:      work (work arrays: their adjoints are allocated here)
// GEN: double f_b(const double *x, double *x_b, double *work, int n, MPI_Comm comm, double f_bar) {
// GEN: double *work_b = mpiad_alloc_zeroed(n, sizeof(double), "f_b", "work", comm);
// GEN: free(work_b);
// GEN: double f_d(const double *x, double *x_d, double *work, int n, MPI_Comm comm, double *f_dot) {
// GEN: work_d = mpiad_alloc_zeroed(n, sizeof(double), "f_d", "work", comm);
// GEN: free(work_d);
// GEN: double *buf_b = mpiad_alloc_zeroed((2 * n), sizeof(double), "g_b", "buf", comm);
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#pragma mpiad differentiate wrt(x) varying(x) replicated(n) scratch(work)
#pragma mpiad differentiate forward wrt(x) scratch(work)
double f(const double *x, double *work, int n, MPI_Comm comm) {
  for (int i = 0; i < n; i++)
    work[i] = sin(x[i]) * x[i];
  double l = 0.0, s;
  for (int i = 0; i < n; i++)
    l += work[i] * work[i] + work[i] * x[(i + 1) % n];
  MPI_Allreduce(&l, &s, 1, MPI_DOUBLE, MPI_SUM, comm);
  return s;
}

/* buf[2k] and buf[2k + 1] through a local index: the length is given */
#pragma mpiad differentiate wrt(x) varying(x) replicated(n) scratch(buf[2 * n])
double g(const double *x, double *buf, int n, MPI_Comm comm) {
  for (int i = 0; i < n; i++) {
    int k = 2 * i;
    buf[k] = x[i] * x[i];
    buf[k + 1] = exp(0.1 * x[i]);
  }
  double l = 0.0, s;
  for (int i = 0; i < 2 * n; i++)
    l += buf[i] * buf[(i + 3) % (2 * n)];
  MPI_Allreduce(&l, &s, 1, MPI_DOUBLE, MPI_SUM, comm);
  return s;
}

#define N 6
typedef struct {
  double *x;
  int which;
} ctx_t;
static double wk[2 * N];
static double J(void *p) {
  ctx_t *c = p;
  return c->which ? g(c->x, wk, N, MPI_COMM_WORLD) : f(c->x, wk, N, MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  int r = hx_rank_g;
  for (int which = 0; which < 2; which++) {
    const char *name = which ? "g (length given)" : "f (length inferred)";
    char label[128];
    double x[N], dx[N], x_b[N] = {0};
    hx_rand(x, N, 81 + which, r, -1.0, 1.0);
    hx_rand(dx, N, 83 + which, r, -1.0, 1.0);
    for (int i = 0; i < 2 * N; i++)
      wk[i] = NAN; /* garbage on entry */
    ctx_t c = {x, which};
    double got = which ? g_b(x, x_b, wk, N, MPI_COMM_WORLD, 1.0)
                       : f_b(x, x_b, wk, N, MPI_COMM_WORLD, 1.0);
    hx_tape(name);
    snprintf(label, sizeof label, "%s: value", name);
    hx_check(label, got, J(&c), 1e-14, 1e-300);
    mpiad_input in = {x, dx, N, 0};
    double *xb[1] = {x_b};
    hx_grad(name, J, &c, &in, 1, xb, 1e-6, 1e-7, 1e-10);
    if (!which) {
      double dot;
      f_d(x, dx, wk, N, MPI_COMM_WORLD, &dot);
      /* <dx, x_b> summed over ranks is the same directional derivative */
      double ad = mpiad_adjoint_directional(&in, xb, 1, MPI_COMM_WORLD);
      hx_check("f_d vs f_b", dot, ad, 1e-12, 1e-300);
    }
  }
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
