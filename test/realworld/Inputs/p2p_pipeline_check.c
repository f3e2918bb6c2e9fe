/* Gradient check of p2p_pipeline.c: the corner value after two pipelined
 * sweeps, differentiated with respect to the whole grid (its boundary row and
 * column are what the sweep reads), against central differences of the
 * primal on a fresh copy of the grid. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

double pipeline_corner(double *vector, const int *start, const int *end, int m, int n,
                       int iterations, MPI_Comm comm);
double pipeline_corner_b(double *vector, double *vector_b, const int *start, const int *end,
                         int m, int n, int iterations, MPI_Comm comm,
                         double pipeline_corner_bar);

typedef struct {
  double *v, *work;
  int *start, *end, m, n;
  size_t len;
} ctx_t;

static double J(void *p) {
  ctx_t *c = p;
  memcpy(c->work, c->v, c->len * sizeof(double));
  return pipeline_corner(c->work, c->start, c->end, c->m, c->n, 2, MPI_COMM_WORLD);
}

int main(void) {
  MPI_Init(NULL, NULL);
  hx_init(MPI_COMM_WORLD);
  int P = hx_size_g, r = hx_rank_g;
  ctx_t c;
  c.m = 13;
  c.n = 6;
  c.start = malloc(P * sizeof(int));
  c.end = malloc(P * sizeof(int));
  int width = c.m / P, leftover = c.m % P;
  for (int id = 0; id < P; id++) {
    c.start[id] = id * width + (id < leftover ? id : leftover);
    c.end[id] = c.start[id] + width - 1 + (id < leftover ? 1 : 0);
  }
  c.len = (size_t)(c.end[r] - c.start[r] + 2) * c.n;
  c.v = malloc(c.len * sizeof(double));
  c.work = malloc(c.len * sizeof(double));
  double *vb = calloc(c.len, sizeof(double)), *dx = malloc(c.len * sizeof(double));
  hx_rand(c.v, c.len, 21, r, -1.0, 1.0);
  hx_rand(dx, c.len, 22, r, -1.0, 1.0);
  double want = J(&c);
  memcpy(c.work, c.v, c.len * sizeof(double));
  double got = pipeline_corner_b(c.work, vb, c.start, c.end, c.m, c.n, 2, MPI_COMM_WORLD, 1.0);
  hx_tape("pipeline_corner_b");
  hx_check("corner value", got, want, 1e-14, 1e-300);
  mpiad_input in = {c.v, dx, c.len, 0};
  double *xb[1] = {vb};
  hx_grad("d corner / d grid", J, &c, &in, 1, xb, 1e-6, 1e-7, 1e-10);
  free(c.v); free(c.work); free(vb); free(dx); free(c.start); free(c.end);
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
