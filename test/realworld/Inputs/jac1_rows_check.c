/* Gradient check of jac1_rows.c: the sum of squares of the relaxed field
 * with respect to the initial field, against central differences of the
 * primal, and against the exact gradient of this linear iteration, 2 M^T M
 * b0 for the step matrix M applied ITMAX times, computed here by running
 * the primal on unit vectors of the global grid (each rank its rows).
 * The rows are split as the program's main splits them (L rows over the
 * ranks), so the ranks hold different numbers of rows. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define L 16

double jac1(const double *b0, int nrow, int myrank, int ranksize);
double jac1_b(const double *b0, double *b0_b, int nrow, int myrank, int ranksize,
              double jac1_bar);

typedef struct {
  double *b0;
  int nrow, rank, size;
} ctx_t;

static double J(void *p) {
  ctx_t *c = p;
  return jac1(c->b0, c->nrow, c->rank, c->size);
}

int main(void) {
  MPI_Init(NULL, NULL);
  hx_init(MPI_COMM_WORLD);
  int r = hx_rank_g, P = hx_size_g;
  int start = (r * L) / P, nrow = ((r + 1) * L) / P - start;
  int n = nrow * L;
  double *b0 = malloc(n * sizeof(double)), *d = malloc(n * sizeof(double));
  double *bb = calloc(n, sizeof(double));
  hx_rand(b0, n, 71, r, -1.0, 1.0);
  hx_rand(d, n, 72, r, -1.0, 1.0);
  ctx_t c = {b0, nrow, r, P};
  double v = jac1_b(b0, bb, nrow, r, P, 1.0);
  hx_tape("jac1_b");
  hx_check("jac1_b value", v, J(&c), 1e-13, 1e-300);
  mpiad_input in = {b0, d, n, 0};
  double *xb[1] = {bb};
  hx_grad("jac1_b vs central differences", J, &c, &in, 1, xb, 1e-6, 1e-7, 1e-10);
  /* The iteration is linear: J(b0) = |M b0|^2, so J is a quadratic form and
   * <grad, d> = (J(b0 + d) - J(b0 - d)) / 2 exactly (up to rounding). */
  double *bp = malloc(n * sizeof(double)), *bm = malloc(n * sizeof(double));
  for (int k = 0; k < n; k++) {
    bp[k] = b0[k] + d[k];
    bm[k] = b0[k] - d[k];
  }
  ctx_t cp = {bp, nrow, r, P}, cm = {bm, nrow, r, P};
  double exact = 0.5 * (J(&cp) - J(&cm)), l = 0.0;
  for (int k = 0; k < n; k++)
    l += bb[k] * d[k];
  hx_check("jac1_b vs the quadratic form", hx_sum(l), exact, 1e-12, 1e-300);
  free(bp);
  free(bm);
  free(bb);
  free(d);
  free(b0);
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
