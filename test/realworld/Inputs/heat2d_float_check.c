/* Gradient check of heat2d_float.c: the sum of squares after 10 explicit
 * heat steps (single precision) with respect to the initial grid, against
 * central differences of the primal. The objective is quadratic in u, so
 * central differences are exact but for rounding: the tolerance is float's. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

float heat_steps(float *u, int rows, int ny, int steps, int left, int right, MPI_Comm comm);
float heat_steps_b(float *u, float *u_b, int rows, int ny, int steps, int left, int right,
                   MPI_Comm comm, double heat_steps_bar);

#define ROWS 3
#define NY 6
#define LEN (2 * (ROWS + 2) * NY)
typedef struct {
  double *u;
  int left, right;
} ctx_t;

static float work[LEN];
static double J(void *p) {
  ctx_t *c = p;
  for (int i = 0; i < LEN; i++)
    work[i] = (float)c->u[i];
  return heat_steps(work, ROWS, NY, 10, c->left, c->right, MPI_COMM_WORLD);
}

int main(void) {
  MPI_Init(NULL, NULL);
  hx_init(MPI_COMM_WORLD);
  int P = hx_size_g, r = hx_rank_g;
  ctx_t c;
  double u[LEN], du[LEN], ub[LEN];
  float uf[LEN], uf_b[LEN];
  c.u = u;
  c.left = r > 0 ? r - 1 : -1;
  c.right = r < P - 1 ? r + 1 : -1;
  hx_rand(u, LEN, 51, r, 0.0, 1.0);
  hx_rand(du, LEN, 52, r, -1.0, 1.0);
  for (int i = 0; i < LEN; i++) {
    uf[i] = (float)u[i];
    u[i] = uf[i];
    uf_b[i] = 0.0f;
  }
  double want = J(&c);
  double got = heat_steps_b(uf, uf_b, ROWS, NY, 10, c.left, c.right, MPI_COMM_WORLD, 1.0);
  hx_tape("heat_steps_b");
  hx_check("value", got, want, 1e-6, 1e-300);
  for (int i = 0; i < LEN; i++)
    ub[i] = uf_b[i];
  mpiad_input in = {u, du, LEN, 0};
  double *xb[1] = {ub};
  hx_grad("d heat / d u", J, &c, &in, 1, xb, 5e-2, 5e-4, 1e-6);
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
