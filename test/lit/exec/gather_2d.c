// The gather form of a stencil's reverse (Gather.cpp gatherForm) for the
// inner loop of a 2-D nest and with other accumulations in the body (tri:
// a triangular nest, which the gather over the whole nest of
// exec/gather_nest.c does not take; plane: a rectangular one, which it
// does): the reverse of `w[c] = u[c] + k[c] * (u[c - 1] - 2 u[c] + u[c + 1] +
// u[c - ys] + u[c + ys])` gathers into u_b[i * ys + j] from the same row
// (offsets -1, 0, +1), after a loop of its own over the primal iterations
// that runs the accumulations into k_b and into the rows above and below
// (u_b[c -+ ys]).  The seeds w_b of the points outside the loop's range are
// not zero there (the objective reads every w), so an accumulation run for
// an iteration outside the range would show.  1-D and
// 2-D, checked at 1-4 ranks against central differences, forward against
// reverse by the dot-product test.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
// RUN: %mpiad-emit %s -I%S/../Inputs -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck --check-prefix=GEN %s
// GEN-LABEL: double line_b(
// GEN: reverse of the stencil loop over i, as a gather
// GEN: for (int mpiad_p = 1; mpiad_p <= n - 2; mpiad_p++) {
// GEN-NEXT: k_b[mpiad_p] +=
// GEN-LABEL: double plane_b(
// GEN: reverse of the stencil nest over i, j, as a gather over the whole nest
// GEN-LABEL: double tri_b(
// GEN: reverse of the stencil loop over j, as a gather
// GEN-NEXT: for (int mpiad_p = 1; mpiad_p <= i - 1; mpiad_p++) {
// GEN: u_b[i * ys + mpiad_p - ys] +=
// GEN: for (int mpiad_j{{[0-9]+}} = 2; mpiad_j{{[0-9]+}} <= i - 2; mpiad_j{{[0-9]+}}++) {
// GEN-NEXT: u_b[i * ys + mpiad_j{{[0-9]+}}] += w_b[i * ys + mpiad_j{{[0-9]+}}] +
// GEN-NOT: u_b[i * ys + mpiad_j{{[0-9]+}} - ys]
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#pragma mpiad differentiate wrt(x, k) varying(x, k)
#pragma mpiad differentiate forward wrt(x, k) varying(x, k)
double line(const double *x, const double *k, int n) {
  double *u = malloc(n * sizeof(double)), *w = malloc(n * sizeof(double));
  for (int i = 0; i < n; i++)
    u[i] = x[i] * x[i] + 0.1 * i;
  for (int i = 0; i < n; i++)
    w[i] = u[i];
  for (int i = 1; i < n - 1; i++)
    w[i] = u[i] + k[i] * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += w[i] * w[i] * (i + 1);
  free(u);
  free(w);
  return s;
}

/* nx rows of ny points, row stride ys = ny + 1 (one spare column) */
#pragma mpiad differentiate wrt(x, k) varying(x, k)
#pragma mpiad differentiate forward wrt(x, k) varying(x, k)
double plane(const double *x, const double *k, int nx, int ny) {
  int ys = ny + 1, m = nx * ys;
  double *u = malloc(m * sizeof(double)), *w = malloc(m * sizeof(double));
  for (int c = 0; c < m; c++)
    u[c] = x[c] * x[c] + 0.01 * c;
  for (int c = 0; c < m; c++)
    w[c] = u[c];
  for (int i = 1; i < nx - 1; i++)
    for (int j = 1; j < ny - 1; j++) {
      int c = i * ys + j;
      w[c] = u[c] + k[c] * (u[c - 1] - 4.0 * u[c] + u[c + 1] + u[c - ys] +
                            u[c + ys]);
    }
  double s = 0.0;
  for (int c = 0; c < m; c++)
    s += w[c] * w[c] * (c % 7 + 1);
  free(u);
  free(w);
  return s;
}

/* the same on the points j < i of each row (nx <= ny) */
#pragma mpiad differentiate wrt(x, k) varying(x, k)
#pragma mpiad differentiate forward wrt(x, k) varying(x, k)
double tri(const double *x, const double *k, int nx, int ny) {
  int ys = ny + 1, m = nx * ys;
  double *u = malloc(m * sizeof(double)), *w = malloc(m * sizeof(double));
  for (int c = 0; c < m; c++)
    u[c] = x[c] * x[c] + 0.01 * c;
  for (int c = 0; c < m; c++)
    w[c] = u[c];
  for (int i = 1; i < nx - 1; i++)
    for (int j = 1; j < i; j++) {
      int c = i * ys + j;
      w[c] = u[c] + k[c] * (u[c - 1] - 4.0 * u[c] + u[c + 1] + u[c - ys] +
                            u[c + ys]);
    }
  double s = 0.0;
  for (int c = 0; c < m; c++)
    s += w[c] * w[c] * (c % 7 + 1);
  free(u);
  free(w);
  return s;
}

#define N 7
#define NX 5
#define NY 6
#define M (NX * (NY + 1))

typedef struct {
  double *x, *k;
  int which;
} ctx_t;

static double J(void *p) {
  ctx_t *c = p;
  double v = c->which == 0   ? line(c->x, c->k, N)
             : c->which == 1 ? plane(c->x, c->k, NX, NY)
                             : tri(c->x, c->k, NX, NY);
  return hx_sum(v);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  for (int which = 0; which < 3; which++) {
    int n = which == 0 ? N : M;
    double x[M], k[M], dx[M], dk[M], x_b[M] = {0}, k_b[M] = {0}, t = 0.0;
    hx_rand(x, n, 10 + which, hx_rank_g, -1.0, 1.0);
    hx_rand(k, n, 20 + which, hx_rank_g, 0.1, 0.4);
    hx_rand(dx, n, 30 + which, hx_rank_g, -1.0, 1.0);
    hx_rand(dk, n, 40 + which, hx_rank_g, -1.0, 1.0);
    const char *name = which == 0 ? "line_b" : which == 1 ? "plane_b" : "tri_b";
    if (which == 0) {
      line_b(x, x_b, k, k_b, N, 1.0);
      line_d(x, dx, k, dk, N, &t);
    } else if (which == 1) {
      plane_b(x, x_b, k, k_b, NX, NY, 1.0);
      plane_d(x, dx, k, dk, NX, NY, &t);
    } else {
      tri_b(x, x_b, k, k_b, NX, NY, 1.0);
      tri_d(x, dx, k, dk, NX, NY, &t);
    }
    hx_tape(name);
    ctx_t c = {x, k, which};
    mpiad_input in[] = {{x, dx, (size_t)n, 0}, {k, dk, (size_t)n, 0}};
    hx_grad(name, J, &c, in, 2, (double *const[]){x_b, k_b}, 1e-6, 1e-6, 1e-9);
    double l = 0.0;
    for (int i = 0; i < n; i++)
      l += dx[i] * x_b[i] + dk[i] * k_b[i];
    char label[64];
    snprintf(label, sizeof label, "%s: dot-product test", name);
    hx_check(label, hx_sum(t), hx_sum(l), 1e-12, 1e-300);
  }
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
