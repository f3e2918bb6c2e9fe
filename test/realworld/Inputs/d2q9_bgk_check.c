/* Gradient check of d2q9_bgk.c: the average velocity after 5 steps on a
 * 6 x 8 grid with a wall row and a block, with respect to params.accel,
 * params.omega (both equal on all ranks: their adjoint comes back summed
 * over ranks through params_b) and every owned initial density, against
 * central differences of the primal along one random direction. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"

#define NSPEEDS 9
typedef struct { int nx, ny, maxIters, reynolds_dim; double density, accel, omega; } t_param;
typedef struct { double speeds[NSPEEDS]; } t_speed;
typedef struct { int rank, size, up, down, local_ny, start_row; } m_info;
double simulate(const t_param params, t_speed *cells, t_speed *tmp_cells, int *obstacles, m_info rank_info);
double simulate_b(const t_param params, t_param *params_b, t_speed *cells, t_speed *cells_b,
                  t_speed *tmp_cells, int *obstacles, m_info rank_info, double simulate_bar);

#define NX 6
#define NY 8
typedef struct { t_param params; m_info info; int *obstacles; double *x; int ncells; } ctx_t;
/* x = (accel, omega, the owned cells' speeds) */
static double J(void *p) {
  ctx_t *c = p;
  t_param params = c->params;
  params.accel = c->x[0];
  params.omega = c->x[1];
  int n = c->ncells;
  t_speed *cells = calloc(n, sizeof *cells), *tmp = calloc(n, sizeof *tmp);
  memcpy(cells + NX, c->x + 2, (size_t)c->info.local_ny * NX * NSPEEDS * sizeof(double));
  double v = simulate(params, cells, tmp, c->obstacles, c->info);
  free(cells); free(tmp);
  return v;
}

int main(void) {
  MPI_Init(NULL, NULL);
  hx_init(MPI_COMM_WORLD);
  int P = hx_size_g, r = hx_rank_g;
  ctx_t c;
  c.params = (t_param){NX, NY, 5, NX, 0.1, 0.005, 1.7};
  c.info.rank = r; c.info.size = P;
  c.info.up = (r + 1) % P; c.info.down = (r + P - 1) % P;
  c.info.local_ny = NY / P + (r < NY % P);
  c.info.start_row = r * (NY / P) + (r < NY % P ? r : NY % P);
  c.ncells = (c.info.local_ny + 2) * NX;
  c.obstacles = calloc(c.ncells, sizeof(int));
  for (int jj = 1; jj <= c.info.local_ny; jj++)
    for (int ii = 0; ii < NX; ii++) {
      int gy = c.info.start_row + jj - 1;
      c.obstacles[ii + jj * NX] = (gy == 2 && ii >= 2 && ii <= 3) || gy == 0;
    }
  int nown = c.info.local_ny * NX * NSPEEDS, nx = 2 + nown;
  double *x = malloc(nx * sizeof *x), *dx = malloc(nx * sizeof *dx), *xb = calloc(nx, sizeof *xb);
  x[0] = c.params.accel; x[1] = c.params.omega;
  hx_rand(x + 2, nown, 71, r, 0.9, 1.1);
  for (int k = 2; k < nx; k++) x[k] *= c.params.density * ((k - 2) % NSPEEDS == 0 ? 4.0 : (k - 2) % NSPEEDS < 5 ? 1.0 : 0.25);
  hx_rand(dx, 2, 72, HX_REP, -1.0, 1.0);
  hx_rand(dx + 2, nown, 73, r, -1.0, 1.0);
  for (int k = 2; k < nx; k++) dx[k] *= 0.01;
  c.x = x;
  double want = J(&c);
  t_speed *cells = calloc(c.ncells, sizeof *cells), *cells_b = calloc(c.ncells, sizeof *cells_b);
  t_speed *tmp = calloc(c.ncells, sizeof *tmp);
  t_param params = c.params, params_b;
  memset(&params_b, 0, sizeof params_b);
  memcpy(cells + NX, x + 2, nown * sizeof(double));
  double got = simulate_b(params, &params_b, cells, cells_b, tmp, c.obstacles, c.info, 1.0);
  hx_tape("simulate_b");
  hx_check("value", got, want, 1e-12, 1e-300);
  /* the adjoint of accel and omega is summed over ranks: equal on all */
  xb[0] = r == 0 ? params_b.accel : 0.0;
  xb[1] = r == 0 ? params_b.omega : 0.0;
  memcpy(xb + 2, cells_b + NX, nown * sizeof(double));
  mpiad_input in = {x, dx, nx, 0};
  double *xbs[1] = {xb};
  hx_grad("d av_vel / d (accel, omega, cells)", J, &c, &in, 1, xbs, 1e-5, 1e-6, 1e-10);
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
