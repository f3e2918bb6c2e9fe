/* Gradient check of p2p_main.c, whose time loop is a block in main.
 * p2p_b is the adjoint of the block: its parameters are the variables of
 * main the block uses, in the order of their first use.
 *
 * The objective is the corner value A(m-1, n-1) on the last rank after the
 * K + 1 sweeps (K = iterations).  Each sweep sets A(i, j) = A(i-1, j) +
 * A(i, j-1) - A(i-1, j-1), which telescopes along a rank's row to
 * A(end, j) = A(start-1, j) + A(end, 0) - A(start-1, 0), and the ghost
 * column A(start-1, j), j >= 1, is the left neighbour's A(end, j).  So the
 * corner of a sweep is c - a, with c = A_0(0, n-1) + sum over ranks of
 * A_r(end, 0) - sum over ranks r >= 1 of their ghost A_r(start-1, 0), and a
 * the current A_0(0, 0), which the sweep then sets to minus the corner:
 * after K + 1 sweeps the corner is (K + 1) c - a0.  Its gradient, written
 * out below from this closed form, is K + 1 at each A_r(end, 0) and at
 * A_0(0, n-1), -(K + 1) at each ghost A_r(start-1, 0), r >= 1, -1 at
 * A_0(0, 0), and 0 elsewhere.  Central differences of the block (evaluated
 * through the adjoint with a zero seed) are compared too, with grp = 1 and
 * grp = 3 (rows sent one at a time and in groups). */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

void p2p_b(int iterations, double *local_pipeline_time, int grp, long n, int my_ID,
           double *vector, double *vector_b, long start, long segment_size, long end,
           int Num_procs, double *inbuf, double *outbuf, int final, int root);

typedef struct {
  int iterations, grp, rank, size;
  long m, n, start, end, seg;
  size_t len;
  double *v, *work, *work_b, *inbuf;
} ctx_t;

#define AT(c, x, i, j) (x)[(i) + 1 + (j) * ((c)->seg + 1)]

static void run_b(ctx_t *c, double *v, double *vb) {
  double t = 0.0;
  p2p_b(c->iterations, &t, c->grp, c->n, c->rank, v, vb, c->start, c->seg, c->end, c->size,
        c->inbuf, c->inbuf + c->grp, c->size - 1, 0);
}

/* The corner on the last rank after the block, on every rank. */
static double J(void *p) {
  ctx_t *c = p;
  memcpy(c->work, c->v, c->len * sizeof(double));
  memset(c->work_b, 0, c->len * sizeof(double));
  run_b(c, c->work, c->work_b);
  double corner = c->rank == c->size - 1 ? AT(c, c->work, c->end, c->n - 1) : 0.0;
  MPI_Bcast(&corner, 1, MPI_DOUBLE, c->size - 1, MPI_COMM_WORLD);
  return corner;
}

static void check(int grp) {
  ctx_t c;
  int P = hx_size_g, r = hx_rank_g;
  c.iterations = 2;
  c.grp = grp;
  c.rank = r;
  c.size = P;
  c.m = 13;
  c.n = 7;
  long seg = c.m / P, leftover = c.m % P, gstart;
  if (r < leftover) {
    gstart = (seg + 1) * r;
    c.end = gstart + seg;
  } else {
    gstart = (seg + 1) * leftover + seg * (r - leftover);
    c.end = gstart + seg - 1;
  }
  c.seg = c.end - gstart + 1;
  c.len = (size_t)(c.seg + 1) * c.n;
  c.start = r == 0 ? 1 : 0;
  c.end = c.seg - 1;
  c.v = malloc(c.len * sizeof(double));
  c.work = malloc(c.len * sizeof(double));
  c.work_b = malloc(c.len * sizeof(double));
  c.inbuf = malloc(2 * grp * sizeof(double));
  hx_rand(c.v, c.len, 51, r, -1.0, 1.0);

  /* The closed form of the corner and of its gradient. */
  double K1 = c.iterations + 1;
  double mine = AT(&c, c.v, c.end, 0) - (r > 0 ? AT(&c, c.v, -1, 0) : 0.0) +
                (r == 0 ? AT(&c, c.v, 0, c.n - 1) : 0.0);
  double cc = hx_sum(mine), a0 = r == 0 ? AT(&c, c.v, 0, 0) : 0.0;
  MPI_Bcast(&a0, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  double *want = calloc(c.len, sizeof(double));
  AT(&c, want, c.end, 0) += K1;
  if (r > 0)
    AT(&c, want, -1, 0) -= K1;
  else {
    AT(&c, want, 0, c.n - 1) += K1;
    AT(&c, want, 0, 0) -= 1.0;
  }

  double *vb = calloc(c.len, sizeof(double)), *v = malloc(c.len * sizeof(double));
  memcpy(v, c.v, c.len * sizeof(double));
  if (r == P - 1)
    AT(&c, vb, c.end, c.n - 1) = 1.0;
  run_b(&c, v, vb);
  hx_tape("p2p_b");
  double corner = r == P - 1 ? AT(&c, v, c.end, c.n - 1) : 0.0;
  MPI_Bcast(&corner, 1, MPI_DOUBLE, P - 1, MPI_COMM_WORLD);
  char label[96];
  snprintf(label, sizeof label, "grp %d: corner after the block", grp);
  hx_check(label, corner, K1 * cc - a0, 1e-13, 1e-12);
  snprintf(label, sizeof label, "grp %d: d corner / d grid, closed form", grp);
  hx_check_vec(label, vb, want, c.len, 1e-13, 1e-12);

  double *dx = malloc(c.len * sizeof(double));
  hx_rand(dx, c.len, 52, r, -1.0, 1.0);
  mpiad_input in = {c.v, dx, c.len, 0};
  double *xb[1] = {vb};
  snprintf(label, sizeof label, "grp %d: d corner / d grid", grp);
  hx_grad(label, J, &c, &in, 1, xb, 1e-6, 1e-7, 1e-10);
  free(c.v); free(c.work); free(c.work_b); free(c.inbuf);
  free(want); free(vb); free(v); free(dx);
}

int main(void) {
  MPI_Init(NULL, NULL);
  hx_init(MPI_COMM_WORLD);
  check(1);
  check(3);
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
