/* Gradient check of stddev_main.c, whose computation is a block in main.
 * The objective is rank 0's standard deviation s of all N = P * n numbers;
 * ds/dx_k = (x_k - mean) / (N s) is computed here in double from the same
 * data, and central differences of the outlined computation (in float, so a
 * loose tolerance) are compared too.  stddev_b is the adjoint of the block:
 * its parameters are the variables of main the block uses, in the order of
 * their first use. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"

#define NLOC 64
void stddev_b(int num_elements_per_proc, float *rand_nums, float *rand_nums_b,
              int world_size, int world_rank, float *stddev, float *stddev_b);

static float xs[NLOC];
/* s at x: the adjoint with a zero seed computes it too. */
static double J(void *p) {
  double *x = p;
  float xb[NLOC] = {0}, s = 0.0f, sb = 0.0f;
  for (int i = 0; i < NLOC; i++)
    xs[i] = (float)x[i];
  stddev_b(NLOC, xs, xb, hx_size_g, hx_rank_g, &s, &sb);
  double v = s;
  MPI_Bcast(&v, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  return v;
}

int main(void) {
  MPI_Init(NULL, NULL);
  hx_init(MPI_COMM_WORLD);
  int P = hx_size_g;
  double x[NLOC], dx[NLOC], xb[NLOC], want[NLOC];
  float xf[NLOC], xf_b[NLOC];
  hx_rand(x, NLOC, 5, hx_rank_g, 0.0, 1.0);
  hx_rand(dx, NLOC, 6, hx_rank_g, -1.0, 1.0);
  for (int i = 0; i < NLOC; i++) {
    xf[i] = (float)x[i];
    x[i] = xf[i];
    xf_b[i] = 0.0f;
  }
  /* independent reference in double */
  double ls = 0.0, s, lq = 0.0, q;
  for (int i = 0; i < NLOC; i++)
    ls += x[i];
  MPI_Allreduce(&ls, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  double mean = s / (NLOC * P);
  for (int i = 0; i < NLOC; i++)
    lq += (x[i] - mean) * (x[i] - mean);
  MPI_Allreduce(&lq, &q, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  double sd = sqrt(q / (NLOC * P));
  for (int i = 0; i < NLOC; i++)
    want[i] = (x[i] - mean) / (NLOC * P * sd);

  /* the objective is rank 0's value: the seed is 1 there */
  float sf = 0.0f, sf_b = hx_rank_g == 0 ? 1.0f : 0.0f;
  stddev_b(NLOC, xf, xf_b, P, hx_rank_g, &sf, &sf_b);
  hx_tape("stddev_b");
  double v = sf;
  MPI_Bcast(&v, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  hx_check("stddev", v, sd, 1e-5, 1e-300);
  for (int i = 0; i < NLOC; i++)
    xb[i] = xf_b[i];
  hx_check_vec("ds/dx vs closed form", xb, want, NLOC, 1e-4, 1e-6);
  mpiad_input in = {x, dx, NLOC, 0};
  double *xbp[1] = {xb};
  hx_grad("ds/dx", J, x, &in, 1, xbp, 1e-2, 2e-3, 1e-6);
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
