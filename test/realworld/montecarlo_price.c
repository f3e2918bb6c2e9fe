/* Corpus program: a Monte Carlo estimator split over the ranks, in the shape
 * of the MPI Monte Carlo examples of tutorials and courses (the pi
 * estimators, option pricers): each rank draws its own samples from a
 * per-rank seed with rand_r, turns uniforms into normals by Box-Muller, sums
 * locally and combines with MPI_Reduce to rank 0, which divides by the total
 * count. Here the estimate is the price of a European call under geometric
 * Brownian motion, and its gradient with respect to (S0, sigma) is the
 * pathwise delta and vega. Written for mpiad (its idioms, not any one text).
 * The only mpiad edit: the pragma before mc_price.
 *
 * RUN: %mpiad-cc -c -Dmain=program_main %s -o %t.o
 * RUN: %mpiad-cc %S/Inputs/montecarlo_price_check.c %t.o -I%harness -lm -o %t
 * RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
 * RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
 * RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
 * CHECK: ALL PASSED
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define PI 3.14159265358979323846

#pragma mpiad differentiate wrt(S0, sigma) replicated(S0, sigma, K, r, T, nsamples)
double mc_price(double S0, double sigma, double K, double r, double T, long nsamples,
                MPI_Comm comm) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  unsigned int seed = 12345u + 7919u * (unsigned int)rank;
  long my_n = nsamples / size + (rank < nsamples % size ? 1 : 0);
  double sum = 0.0, total = 0.0, price = 0.0;
  double drift = (r - 0.5 * sigma * sigma) * T, vol = sigma * sqrt(T);
  for (long i = 0; i < my_n; i++) {
    double u1 = (rand_r(&seed) + 1.0) / ((double)RAND_MAX + 2.0);
    double u2 = (rand_r(&seed) + 1.0) / ((double)RAND_MAX + 2.0);
    double z = sqrt(-2.0 * log(u1)) * cos(2.0 * PI * u2);
    double ST = S0 * exp(drift + vol * z);
    double payoff = ST > K ? ST - K : 0.0;
    sum += payoff;
  }
  MPI_Reduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, 0, comm);
  if (rank == 0)
    price = exp(-r * T) * total / nsamples;
  return price;
}

int main(int argc, char **argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  double p = mc_price(100.0, 0.2, 100.0, 0.05, 1.0, 1000000, MPI_COMM_WORLD);
  if (rank == 0)
    printf("price %f\n", p);
  MPI_Finalize();
  return 0;
}
