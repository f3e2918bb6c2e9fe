/* Gradient check of jacobi2d_rows.c: J = sum over ranks of <w, a_final> on
 * each rank's own rows (1 .. m-2), as a function of the initial grid a
 * (every element, ghost rows included), against central differences of
 * the primal, and the adjoint's linearity checked by a second seed.  The
 * grid's rows are allocated one by one here, not as one block, so an
 * adjoint that indexed them as one block would fail. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

int solver(double **a, int m, int n);
void solver_b(double **a, double **a_b, int m, int n);

#define NCOL 7
#define ROWS 3 /* own rows per rank */
#define M (ROWS + 2)

static double w_g[M * NCOL];

static double **rows_new(void) {
  double **r = malloc(M * sizeof *r);
  for (int i = 0; i < M; i++)
    r[i] = malloc(NCOL * sizeof **r);
  return r;
}
static void rows_free(double **r) {
  for (int i = 0; i < M; i++)
    free(r[i]);
  free(r);
}
static void rows_set(double **r, const double *flat) {
  for (int i = 0; i < M; i++)
    memcpy(r[i], flat + i * NCOL, NCOL * sizeof *flat);
}

static int iterations_g;
static double J(void *ctx) {
  double **a = rows_new();
  rows_set(a, ctx);
  iterations_g = solver(a, M, NCOL);
  double s = 0.0;
  for (int i = 1; i < M - 1; i++)
    for (int j = 0; j < NCOL; j++)
      s += w_g[i * NCOL + j] * a[i][j];
  rows_free(a);
  return hx_sum(s);
}

int main(void) {
  MPI_Init(NULL, NULL);
  hx_init(MPI_COMM_WORLD);
  double x[M * NCOL], dx[M * NCOL], xb[M * NCOL];
  hx_rand(x, M * NCOL, 41, hx_rank_g, 0.0, 1.0);
  hx_rand(dx, M * NCOL, 42, hx_rank_g, -1.0, 1.0);
  hx_rand(w_g, M * NCOL, 43, hx_rank_g, 0.5, 1.5);
  for (int j = 0; j < NCOL; j++) /* ghost rows carry no weight */
    w_g[j] = w_g[(M - 1) * NCOL + j] = 0.0;

  double J0 = J(x);
  int k0 = iterations_g;
  double **a = rows_new(), **ab = rows_new();
  rows_set(a, x);
  rows_set(ab, w_g);
  solver_b(a, ab, M, NCOL);
  hx_tape("solver_b");
  for (int i = 0; i < M; i++)
    memcpy(xb + i * NCOL, ab[i], NCOL * sizeof(double));
  if (hx_rank_g == 0)
    printf("J = %.15g after %d iterations\n", J0, k0);
  mpiad_input in = {x, dx, M * NCOL, 0};
  double *xbp[1] = {xb};
  hx_grad("dJ/da0", J, x, &in, 1, xbp, 1e-6, 1e-6, 1e-10);
  /* Central differences are only valid if the perturbed solves stop after
   * the same number of iterations (the last one evaluated is x - h dx). */
  hx_check("perturbed solves take as many iterations", iterations_g, k0, 0.0, 0.5);

  /* Linearity in the seed: seeds 2w give twice the gradient. */
  for (int k = 0; k < M * NCOL; k++)
    w_g[k] *= 2.0;
  rows_set(a, x);
  rows_set(ab, w_g);
  solver_b(a, ab, M, NCOL);
  double xb2[M * NCOL];
  for (int i = 0; i < M; i++)
    memcpy(xb2 + i * NCOL, ab[i], NCOL * sizeof(double));
  for (int k = 0; k < M * NCOL; k++)
    xb[k] *= 2.0;
  hx_check_vec("seeds 2w give 2 dJ/da0", xb2, xb, M * NCOL, 1e-14, 1e-300);
  rows_free(a);
  rows_free(ab);
  return hx_finish() + (MPI_Finalize() != MPI_SUCCESS);
}
