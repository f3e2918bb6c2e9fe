/* Gradient check of scatterv_dot.c, whose computation is a block in main:
 * the root's dot product J = sum x_k y_k of two 4 x 4 arrays equal on all
 * processes (replicated), scattered in uneven parts.  dJ/dx = y and
 * dJ/dy = x on every process (the replicated inputs' gradients are summed
 * over the processes); the value at the root against a serial sum; central
 * differences along a direction equal on all processes.  dot_b is the
 * adjoint of the block: its parameters are the variables of main the block
 * uses, in the order of their first use. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"

#define SIZE 4
void dot_b(double (*x)[SIZE], double (*x_b)[SIZE], int *sendcounts,
           int *displs, int rank, double (*y)[SIZE], double (*y_b)[SIZE],
           double *TotalSum, double *TotalSum_b);

static int *counts_g, *displs_g;

/* J at (x, y) = the 32 numbers of p: the adjoint with a zero seed
 * computes it too. */
static double J(void *p) {
  double *v = p, x[SIZE][SIZE], y[SIZE][SIZE], xb[SIZE][SIZE] = {{0}},
         yb[SIZE][SIZE] = {{0}}, t = 0.0, tb = 0.0;
  for (int k = 0; k < SIZE * SIZE; k++) {
    x[k / SIZE][k % SIZE] = v[k];
    y[k / SIZE][k % SIZE] = v[SIZE * SIZE + k];
  }
  dot_b(x, xb, counts_g, displs_g, hx_rank_g, y, yb, &t, &tb);
  MPI_Bcast(&t, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  return t;
}

int main(void) {
  MPI_Init(NULL, NULL);
  hx_init(MPI_COMM_WORLD);
  int P = hx_size_g, rank = hx_rank_g, rem = (SIZE * SIZE) % P, sum = 0;
  counts_g = malloc(P * sizeof(int));
  displs_g = malloc(P * sizeof(int));
  for (int i = 0; i < P; i++) {
    counts_g[i] = (SIZE * SIZE) / P + (i < rem);
    displs_g[i] = sum;
    sum += counts_g[i];
  }
  double v[2 * SIZE * SIZE], dv[2 * SIZE * SIZE], g[2 * SIZE * SIZE],
      want[2 * SIZE * SIZE];
  hx_rand(v, 2 * SIZE * SIZE, 7, HX_REP, -1.0, 1.0);
  hx_rand(dv, 2 * SIZE * SIZE, 8, HX_REP, -1.0, 1.0);
  double x[SIZE][SIZE], y[SIZE][SIZE], xb[SIZE][SIZE] = {{0}},
         yb[SIZE][SIZE] = {{0}}, serial = 0.0;
  for (int k = 0; k < SIZE * SIZE; k++) {
    x[k / SIZE][k % SIZE] = v[k];
    y[k / SIZE][k % SIZE] = v[SIZE * SIZE + k];
    serial += v[k] * v[SIZE * SIZE + k];
    want[k] = v[SIZE * SIZE + k];
    want[SIZE * SIZE + k] = v[k];
  }
  /* the objective is the root's value: the seed is 1 there */
  double t = 0.0, tb = rank == 0 ? 1.0 : 0.0;
  dot_b(x, xb, counts_g, displs_g, rank, y, yb, &t, &tb);
  hx_tape("dot_b");
  MPI_Bcast(&t, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  hx_check("J at the root vs the serial sum", t, serial, 1e-14, 1e-300);
  for (int k = 0; k < SIZE * SIZE; k++) {
    g[k] = xb[k / SIZE][k % SIZE];
    g[SIZE * SIZE + k] = yb[k / SIZE][k % SIZE];
  }
  hx_check_vec("dJ/dx = y, dJ/dy = x on every process", g, want,
               2 * SIZE * SIZE, 1e-15, 1e-300);
  mpiad_input in = {v, dv, 2 * SIZE * SIZE, 1};
  double *gp[1] = {g};
  hx_grad("dJ/d(x, y)", J, v, &in, 1, gp, 1e-6, 1e-8, 1e-12);
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
