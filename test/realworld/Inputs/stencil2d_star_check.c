/* Gradient check of stencil2d_star.c: stencil_norm_b against central
 * differences of stencil_norm, and its value against the primal. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define RADIUS 2
double stencil_norm(double *in, double *out, int n, int iterations, int istart, int iend,
                    int jstart, int jend, int my_IDx, int my_IDy, int Num_procsx,
                    int Num_procsy, MPI_Comm comm);
double stencil_norm_b(double *in, double *in_b, double *out, int n, int iterations,
                      int istart, int iend, int jstart, int jend, int my_IDx, int my_IDy,
                      int Num_procsx, int Num_procsy, MPI_Comm comm, double norm_bar);

typedef struct {
  int n, it, is, ie, js, je, px, py, nx, ny;
  size_t nin, nout;
  double *in, *work, *out;
} grid_t;

static double J(void *p) {
  grid_t *g = p;
  memcpy(g->work, g->in, g->nin * sizeof(double));
  memset(g->out, 0, g->nout * sizeof(double));
  return stencil_norm(g->work, g->out, g->n, g->it, g->is, g->ie, g->js, g->je, g->px, g->py,
                      g->nx, g->ny, MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  int P = hx_size_g, r = hx_rank_g, nx, ny = 1;
  for (nx = (int)sqrt(P + 1); nx > 0; nx--)
    if (P % nx == 0) {
      ny = P / nx;
      break;
    }
  grid_t g;
  g.n = 12;
  g.it = 2;
  g.px = r % nx;
  g.py = r / nx;
  g.nx = nx;
  g.ny = ny;
  int w = g.n / nx, h = g.n / ny;
  g.is = g.px * w;
  g.ie = g.is + w - 1;
  g.js = g.py * h;
  g.je = g.js + h - 1;
  g.nin = (size_t)(w + 2 * RADIUS) * (h + 2 * RADIUS);
  g.nout = (size_t)w * h;
  g.in = malloc(g.nin * sizeof(double));
  g.work = malloc(g.nin * sizeof(double));
  g.out = malloc(g.nout * sizeof(double));
  double *in_b = calloc(g.nin, sizeof(double)), *dx = malloc(g.nin * sizeof(double));
  hx_rand(g.in, g.nin, 11, r, -1.0, 1.0);
  hx_rand(dx, g.nin, 12, r, -1.0, 1.0);

  double want = J(&g);
  memcpy(g.work, g.in, g.nin * sizeof(double));
  memset(g.out, 0, g.nout * sizeof(double));
  double got = stencil_norm_b(g.work, in_b, g.out, g.n, g.it, g.is, g.ie, g.js, g.je, g.px,
                              g.py, g.nx, g.ny, MPI_COMM_WORLD, 1.0);
  hx_tape("stencil_norm_b");
  hx_check("stencil_norm_b value", got, want, 1e-13, 1e-300);
  mpiad_input inp = {g.in, dx, g.nin, 0};
  double *xb[1] = {in_b};
  hx_grad("d norm / d in", J, &g, &inp, 1, xb, 1e-6, 1e-6, 1e-10);
  free(g.in);
  free(g.work);
  free(g.out);
  free(in_b);
  free(dx);
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
