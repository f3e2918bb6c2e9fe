/* Gradient check of montecarlo_price.c: the pathwise delta and vega of the
 * Monte Carlo price (rank 0's estimate, summed over all ranks' paths),
 * against central differences of the same estimator (same seeds, so the
 * differences are smooth away from the kink), and against the Black-Scholes
 * delta and vega to the sampling error. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"

double mc_price(double S0, double sigma, double K, double r, double T, long nsamples,
                MPI_Comm comm);
double mc_price_b(double S0, double *S0_b, double sigma, double *sigma_b, double K, double r,
                  double T, long nsamples, MPI_Comm comm, double mc_price_bar);

#define NS 200000L
static double J(void *p) {
  double *x = p;
  double v = mc_price(x[0], x[1], 100.0, 0.05, 1.0, NS, MPI_COMM_WORLD);
  MPI_Bcast(&v, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  return v;
}
static double Phi(double x) { return 0.5 * erfc(-x / sqrt(2.0)); }

int main(void) {
  MPI_Init(NULL, NULL);
  hx_init(MPI_COMM_WORLD);
  double x[2] = {100.0, 0.2}, dx[2] = {1.0, 0.01}, g[2] = {0.0, 0.0};
  double v = mc_price_b(x[0], &g[0], x[1], &g[1], 100.0, 0.05, 1.0, NS, MPI_COMM_WORLD, 1.0);
  hx_tape("mc_price_b");
  MPI_Bcast(&v, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  hx_check("value", v, J(x), 1e-14, 1e-300);
  double d1 = (log(x[0] / 100.0) + (0.05 + 0.5 * x[1] * x[1])) / x[1];
  double bs = x[0] * Phi(d1) - 100.0 * exp(-0.05) * Phi(d1 - x[1]);
  hx_check("price vs Black-Scholes (sampling error)", v, bs, 2e-2, 1e-300);
  hx_check("delta vs Black-Scholes", g[0], Phi(d1), 2e-2, 1e-300);
  hx_check("vega vs Black-Scholes", g[1], x[0] * exp(-0.5 * d1 * d1) / sqrt(2 * M_PI), 3e-2,
           1e-300);
  mpiad_input in = {x, dx, 2, 1};
  double *xb[1] = {g};
  hx_grad("d price / d(S0, sigma)", J, x, &in, 1, xb, 1e-4, 1e-4, 1e-10);
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
