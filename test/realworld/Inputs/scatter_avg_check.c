/* Gradient check of scatter_avg.c, whose computation is a block in main.
 * The objective is the root's average of all N = P * n numbers, which only
 * the root holds: d avg / d x_k = 1 / N for each of them (the average of
 * the P averages of n numbers), computed here in closed form; the value
 * against a double sum of the same floats, and central differences of the
 * outlined computation (in float, so a loose tolerance).  avg_b is the
 * adjoint of the block: its parameters are the variables of main the block
 * uses, in the order of their first use.  rand_nums and its adjoint are
 * NULL on the other processes, as in the program. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"

#define NLOC 16
#define NMAX (NLOC * 8)
void avg_b(int num_elements_per_proc, float *rand_nums, float *rand_nums_b,
           int world_rank, int world_size, float *avg, float *avg_b);

static float xs[NMAX];
/* avg at x (root's x; NULL elsewhere): the adjoint with a zero seed
 * computes it too. */
static double J(void *p) {
  double *x = p;
  int P = hx_size_g, root = hx_rank_g == 0;
  float xb[NMAX] = {0}, a = 0.0f, ab = 0.0f;
  for (int i = 0; root && i < NLOC * P; i++)
    xs[i] = (float)x[i];
  avg_b(NLOC, root ? xs : NULL, root ? xb : NULL, hx_rank_g, P, &a, &ab);
  double v = a;
  MPI_Bcast(&v, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  return v;
}

int main(void) {
  MPI_Init(NULL, NULL);
  hx_init(MPI_COMM_WORLD);
  int P = hx_size_g, root = hx_rank_g == 0, N = NLOC * P;
  double x[NMAX], dx[NMAX], xb[NMAX], want[NMAX];
  float xf[NMAX], xf_b[NMAX];
  hx_rand(x, (size_t)N, 5, HX_REP, 0.0, 1.0);
  hx_rand(dx, (size_t)N, 6, HX_REP, -1.0, 1.0);
  double sum = 0.0;
  for (int i = 0; i < N; i++) {
    xf[i] = (float)x[i];
    x[i] = xf[i];
    xf_b[i] = 0.0f;
    sum += x[i];
    want[i] = 1.0 / N;
  }
  /* the objective is the root's value: the seed is 1 there */
  float a = 0.0f, a_b = root ? 1.0f : 0.0f;
  avg_b(NLOC, root ? xf : NULL, root ? xf_b : NULL, hx_rank_g, P, &a, &a_b);
  hx_tape("avg_b");
  double v = a;
  MPI_Bcast(&v, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  hx_check("avg", v, sum / N, 1e-6, 1e-300);
  hx_check("seed consumed", a_b, 0.0, 0.0, 1e-300);
  for (int i = 0; i < N; i++)
    xb[i] = xf_b[i];
  hx_check_vec("d avg / dx vs closed form (root's numbers)", xb, want,
               root ? (size_t)N : 0, 1e-6, 1e-300);
  /* only the root's numbers are inputs: the directional derivative along
   * dx (root's part) against central differences */
  mpiad_input in = {x, dx, root ? (size_t)N : 0, 0};
  double *xbp[1] = {xb};
  hx_grad("d avg / dx", J, x, &in, 1, xbp, 1e-2, 2e-3, 1e-6);
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
