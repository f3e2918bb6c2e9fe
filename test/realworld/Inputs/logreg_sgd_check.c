/* Gradient check of logreg_sgd.c: the mean logistic loss over all ranks'
 * samples plus the L2 term, with respect to the replicated weights. The
 * gradient is computed here independently from its formula
 * (sum_i -y_i s(-y_i z_i) x_i / N + lambda w, summed over ranks), compared
 * with central differences, and the adjoint must be identical on all ranks
 * and issue no more collectives than the primal (its Allreduces feed only
 * the replicated loss, so their adjoints are local). */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"
#include "pmpi_count.h"

double loss(const double *w, const double *data, const int *labels, int nlocal, int dim,
            double lambda, MPI_Comm comm);
double loss_b(const double *w, double *w_b, const double *data, const int *labels, int nlocal,
              int dim, double lambda, MPI_Comm comm, double loss_bar);

#define D 3
typedef struct {
  double *w, *data;
  int *labels, n;
} ctx_t;
static double J(void *p) {
  ctx_t *c = p;
  return loss(c->w, c->data, c->labels, c->n, D, 0.01, MPI_COMM_WORLD);
}

int main(void) {
  MPI_Init(NULL, NULL);
  hx_init(MPI_COMM_WORLD);
  int r = hx_rank_g, n = 5 + 3 * r; /* a different shard size on each rank */
  double w[D + 1], dw[D + 1], wb[D + 1] = {0}, want[D + 1] = {0}, g[D + 1];
  double *data = malloc(sizeof(double) * n * D);
  int *labels = malloc(sizeof(int) * n);
  hx_rand(w, D + 1, 71, HX_REP, -0.5, 0.5);
  hx_rand(dw, D + 1, 72, HX_REP, -1.0, 1.0);
  hx_rand(data, (size_t)n * D, 73, r, -1.0, 1.0);
  for (int i = 0; i < n; i++)
    labels[i] = data[i * D] > 0.1 * i - 0.3;
  double cntl = n, cnt;
  MPI_Allreduce(&cntl, &cnt, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  for (int i = 0; i < n; i++) {
    double z = w[D], y = labels[i] ? 1.0 : -1.0;
    for (int j = 0; j < D; j++)
      z += w[j] * data[i * D + j];
    double s = 1.0 / (1.0 + exp(y * z)); /* sigma(-y z) */
    for (int j = 0; j < D; j++)
      want[j] += -y * s * data[i * D + j] / cnt;
    want[D] += -y * s / cnt;
  }
  MPI_Allreduce(want, g, D + 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  for (int j = 0; j < D; j++)
    g[j] += 0.01 * w[j];
  long long c0, b0, c1, b1, c2, b2;
  pmpi_count_get(&c0, &b0);
  double v0 = loss(w, data, labels, n, D, 0.01, MPI_COMM_WORLD);
  pmpi_count_get(&c1, &b1);
  double v = loss_b(w, wb, data, labels, n, D, 0.01, MPI_COMM_WORLD, 1.0);
  pmpi_count_get(&c2, &b2);
  hx_tape("loss_b");
  hx_check("value", v, v0, 1e-15, 1e-300);
  hx_check_vec("gradient vs its formula", wb, g, D + 1, 1e-12, 1e-14);
  hx_check("collectives: adjoint <= primal + 1 (fused weight reduction)",
           (c2 - c1) <= (c1 - c0) + 1 ? 1.0 : 0.0, 1.0, 0.0, 1.0);
  ctx_t c = {w, data, labels, n};
  mpiad_input in = {w, dw, D + 1, 1};
  double *xb[1] = {wb};
  hx_grad("dL/dw", J, &c, &in, 1, xb, 1e-6, 1e-7, 1e-12);
  free(data);
  free(labels);
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
