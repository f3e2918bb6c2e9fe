/* Corpus program: data-parallel logistic regression, in the shape of the
 * distributed gradient-descent examples of ML-on-MPI tutorials and course
 * code (each rank holds a shard of the samples, the loss is a mean over all
 * samples through MPI_Allreduce of the local sum and of the local count, the
 * model vector is the same on all ranks): a row-major feature matrix read
 * through an X(i, j) macro, a static inline sigmoid, log1p/exp, an L2 term
 * added once. Written for mpiad (its idioms, not any one text).
 * The only mpiad edit: the pragma before loss.
 *
 * RUN: %mpiad-cc -c -Dmain=program_main %s -o %t.o
 * RUN: %mpiad-cc %S/Inputs/logreg_sgd_check.c %harness/pmpi_count.c %t.o -I%harness -lm -o %t
 * RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
 * RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
 * RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
 * CHECK: ALL PASSED
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define X(i, j) data[(i) * (size_t)dim + (j)]

static inline double sigmoid(double z) { return 1.0 / (1.0 + exp(-z)); }

#pragma mpiad differentiate wrt(w) replicated(w, dim, lambda) varying(data, labels, nlocal)
double loss(const double *w, const double *data, const int *labels, int nlocal, int dim,
            double lambda, MPI_Comm comm) {
  double local = 0.0, total, cnt_local = nlocal, cnt;
  for (int i = 0; i < nlocal; i++) {
    double z = w[dim]; /* bias */
    for (int j = 0; j < dim; j++)
      z += w[j] * X(i, j);
    double y = labels[i] ? 1.0 : -1.0;
    local += log1p(exp(-y * z));
  }
  MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, comm);
  MPI_Allreduce(&cnt_local, &cnt, 1, MPI_DOUBLE, MPI_SUM, comm);
  double reg = 0.0;
  for (int j = 0; j < dim; j++)
    reg += w[j] * w[j];
  return total / cnt + 0.5 * lambda * reg;
}

/* Accuracy of the model on this rank's shard (not differentiated). */
double accuracy(const double *w, const double *data, const int *labels, int nlocal, int dim) {
  int ok = 0;
  for (int i = 0; i < nlocal; i++) {
    double z = w[dim];
    for (int j = 0; j < dim; j++)
      z += w[j] * X(i, j);
    ok += (sigmoid(z) > 0.5) == (labels[i] != 0);
  }
  return nlocal ? (double)ok / nlocal : 1.0;
}

int main(int argc, char **argv) {
  int rank, dim = 4, nlocal = 100;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  double *data = malloc(sizeof(double) * nlocal * dim);
  int *labels = malloc(sizeof(int) * nlocal);
  double w[5] = {0}, g[5];
  srand(rank + 1);
  for (int i = 0; i < nlocal; i++) {
    for (int j = 0; j < dim; j++)
      X(i, j) = rand() / (double)RAND_MAX - 0.5;
    labels[i] = X(i, 0) + 0.5 * X(i, 1) > 0;
  }
  for (int it = 0; it < 100; it++) {
    for (int j = 0; j <= dim; j++)
      g[j] = 0.0;
    double l = loss_b(w, g, data, labels, nlocal, dim, 1e-3, MPI_COMM_WORLD, 1.0);
    for (int j = 0; j <= dim; j++)
      w[j] -= 1.0 * g[j];
    if (rank == 0 && it % 20 == 0)
      printf("iteration %d: loss %f, accuracy %f\n", it, l,
             accuracy(w, data, labels, nlocal, dim));
  }
  free(data);
  free(labels);
  MPI_Finalize();
  return 0;
}
