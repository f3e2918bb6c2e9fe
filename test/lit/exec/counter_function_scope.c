// Loop counters declared at function scope and reused by loop nests, as the
// PRK stencil declares them (codegen/counter-function-scope.c shows that they
// are no longer recorded at each loop entry): the adjoints must still equal
// central differences.  The counters' exit values are read after the loops
// (by the objective, and as an index), one counter is reused by a loop that
// is not canonical (a while loop) in between, and a counter is read after a
// loop by the reverse of code before it, so its value from before the loop
// must come back.  Data vary per rank; the objective is summed over ranks
// with MPI_Allreduce.  The tape must be empty after each call.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"

#define RADIUS 2
#define X(i, j) x[(i) + (j) * n]

/* A star stencil of radius 2 over an n x m tile, its result squared and
 * summed, with a nonlinear touch between the sweeps; counters at function
 * scope. */
#pragma mpiad differentiate wrt(x) output(return, x) varying(x) scratch(out[n * m])
double star(double *x, double *out, int n, int m, int sweeps, MPI_Comm comm) {
  int i, j, ii, jj, it;
  double local = 0.0, J = 0.0;
  for (it = 0; it < sweeps; it++) {
    for (j = RADIUS; j < m - RADIUS; j++)
      for (i = RADIUS; i < n - RADIUS; i++) {
        for (jj = -RADIUS; jj <= RADIUS; jj++)
          out[i + j * n] += (jj + 0.5) * X(i, j + jj) * X(i, j);
        for (ii = -RADIUS; ii < 0; ii++)
          out[i + j * n] += 0.25 * ii * X(i + ii, j);
        for (ii = 1; ii <= RADIUS; ii++)
          out[i + j * n] += 0.25 * ii * X(i + ii, j);
      }
    for (j = 0; j < m; j++)
      for (i = 0; i < n; i++)
        X(i, j) += 0.1 * sin(X(i, j));
  }
  for (j = RADIUS; j < m - RADIUS; j++)
    for (i = RADIUS; i < n - RADIUS; i++)
      local += out[i + j * n] * out[i + j * n];
  /* exit values: i == n - RADIUS, j == m - RADIUS, jj == RADIUS + 1 */
  local += X(i - 1, j - 1) * (jj - RADIUS) * (ii - RADIUS);
  MPI_Allreduce(&local, &J, 1, MPI_DOUBLE, MPI_SUM, comm);
  return J;
}

/* A counter read by the reverse of code before its loop, reused by a while
 * loop, its exit value used as an index after the loop, and an inner loop's
 * exit value read in the enclosing loop's body. */
#pragma mpiad differentiate wrt(x) varying(x)
double reuse(const double *x, int n, MPI_Comm comm) {
  int i, k;
  double s = 0.0, J = 0.0;
  i = n / 2;
  s = x[i] * x[i]; /* reverse reads i == n / 2 */
  for (i = 1; i < n; i++)
    s += x[i] * x[i - 1];
  s += 3.0 * x[i - 1] * x[0]; /* i == n */
  i = 0;
  k = 0;
  while (i < n) {
    s += sin(x[i]) * (k + 1);
    i += 2;
    k++;
  }
  for (i = 0; i < n; i++) {
    for (k = 0; k < i; k++)
      s += 0.01 * x[i] * x[k];
    /* k == i: the reverse of the next iteration's inner loop overwrites k
     * before this line's reverse reads it */
    s += 0.5 * x[k] * x[(i + 1) % n];
  }
  s += x[i - 1] * x[k - 1]; /* i == n, k == n - 1 */
  MPI_Allreduce(&s, &J, 1, MPI_DOUBLE, MPI_SUM, comm);
  return J;
}

typedef struct {
  int n, m, sweeps;
  double *x, *work, *out;
} ctx_t;

static double star_J(void *p) {
  ctx_t *c = p;
  size_t len = (size_t)c->n * c->m;
  for (size_t k = 0; k < len; k++) {
    c->work[k] = c->x[k];
    c->out[k] = 0.0;
  }
  return star(c->work, c->out, c->n, c->m, c->sweeps, MPI_COMM_WORLD);
}

static double reuse_J(void *p) {
  ctx_t *c = p;
  return reuse(c->x, c->n, MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  int r = hx_rank_g;
  int sizes[3][2] = {{5, 5}, {7, 6}, {9, 8}};
  for (int s = 0; s < 3; s++) {
    ctx_t c = {sizes[s][0], sizes[s][1], 1 + s, NULL, NULL, NULL};
    size_t len = (size_t)c.n * c.m;
    c.x = malloc(len * sizeof(double));
    c.work = malloc(len * sizeof(double));
    c.out = malloc(len * sizeof(double));
    double *dx = malloc(len * sizeof(double)), *xb = calloc(len, sizeof(double));
    hx_rand(c.x, len, 100 + s, r, -1.0, 1.0);
    hx_rand(dx, len, 200 + s, r, -1.0, 1.0);
    double want = star_J(&c);
    for (size_t k = 0; k < len; k++) {
      c.work[k] = c.x[k];
      c.out[k] = 0.0;
    }
    double got = star_b(c.work, xb, c.out, c.n, c.m, c.sweeps, MPI_COMM_WORLD, 1.0);
    hx_tape("star_b");
    hx_check("star_b value", got, want, 1e-13, 1e-300);
    mpiad_input in = {c.x, dx, len, 0};
    double *g[1] = {xb};
    hx_grad("star d J / d x", star_J, &c, &in, 1, g, 1e-6, 1e-7, 1e-10);

    for (size_t k = 0; k < len; k++)
      xb[k] = 0.0;
    want = reuse_J(&c);
    got = reuse_b(c.x, xb, c.n, MPI_COMM_WORLD, 1.0);
    hx_tape("reuse_b");
    hx_check("reuse_b value", got, want, 1e-13, 1e-300);
    hx_grad("reuse d J / d x", reuse_J, &c, &in, 1, g, 1e-6, 1e-7, 1e-10);
    free(xb);
    free(dx);
    free(c.out);
    free(c.work);
    free(c.x);
  }
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
