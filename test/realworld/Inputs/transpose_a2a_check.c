/* Gradient check of transpose_a2a.c: J = sum over B' = B + A^T of
 * b^2 / 2 + sin(b). The gradient with respect to A(i, j) is b + cos(b) at the
 * transposed position of B', gathered here from every rank (an independent
 * closed form), and central differences of the primal agree. The caller's
 * work buffers hold garbage. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

double transpose_objective(double *A_p, double *B_p, double *Work_in_p, double *Work_out_p,
                           int order, int Num_procs, MPI_Comm comm);
double transpose_objective_b(double *A_p, double *A_p_b, double *B_p, double *B_p_b,
                             double *Work_in_p, double *Work_out_p, int order, int Num_procs,
                             MPI_Comm comm, double transpose_objective_bar);

#define CW 2
typedef struct {
  double *A, *B0, *B, *w1, *w2;
  int order, P;
} ctx_t;
static double J(void *p) {
  ctx_t *c = p;
  memcpy(c->B, c->B0, sizeof(double) * c->order * CW);
  return transpose_objective(c->A, c->B, c->w1, c->w2, c->order, c->P, MPI_COMM_WORLD);
}

int main(void) {
  MPI_Init(NULL, NULL);
  hx_init(MPI_COMM_WORLD);
  int P = hx_size_g, r = hx_rank_g, order = CW * P;
  size_t len = (size_t)order * CW;
  ctx_t c;
  c.order = order;
  c.P = P;
  c.A = malloc(len * sizeof(double));
  c.B0 = malloc(len * sizeof(double));
  c.B = malloc(len * sizeof(double));
  c.w1 = malloc(len * sizeof(double));
  c.w2 = malloc(len * sizeof(double));
  double *dA = malloc(len * sizeof(double)), *Ab = calloc(len, sizeof(double));
  double *Bb = calloc(len, sizeof(double)), *want = malloc(len * sizeof(double));
  double *Bfull = malloc(len * P * sizeof(double));
  hx_rand(c.A, len, 91, r, -1.0, 1.0);
  hx_rand(c.B0, len, 92, r, -1.0, 1.0);
  hx_rand(dA, len, 93, r, -1.0, 1.0);
  for (size_t i = 0; i < len; i++)
    c.w1[i] = c.w2[i] = 1e300; /* garbage */
  double want_v = J(&c);
  MPI_Allgather(c.B, (int)len, MPI_DOUBLE, Bfull, (int)len, MPI_DOUBLE, MPI_COMM_WORLD);
  for (int j = 0; j < CW; j++)
    for (int i = 0; i < order; i++) {
      double b = Bfull[(r * CW + j) + (size_t)order * i];
      want[i + (size_t)order * j] = b + cos(b);
    }
  memcpy(c.B, c.B0, len * sizeof(double));
  double v = transpose_objective_b(c.A, Ab, c.B, Bb, c.w1, c.w2, order, P, MPI_COMM_WORLD, 1.0);
  hx_tape("transpose_objective_b");
  hx_check("value", v, want_v, 1e-14, 1e-300);
  hx_check_vec("dJ/dA vs the transposed closed form", Ab, want, len, 1e-13, 1e-14);
  mpiad_input in = {c.A, dA, len, 0};
  double *xb[1] = {Ab};
  hx_grad("dJ/dA", J, &c, &in, 1, xb, 1e-6, 1e-7, 1e-10);
  free(c.A); free(c.B0); free(c.B); free(c.w1); free(c.w2);
  free(dA); free(Ab); free(Bb); free(want); free(Bfull);
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
