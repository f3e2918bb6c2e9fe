// The hand-written adjoints of the stencil benchmark (bench/handwritten_stencils.c)
// against central differences of their primals (bench/stencils.c), at 1 to 4
// ranks on small grids with uneven blocks: halo2d (2-D non-blocking halo
// exchange, d/d kappa), stencil_norm (star stencil of radius 2, d/d in, with a
// random seed on the final `in`, ghosts included) and heat3d (3-D 7-point
// heat steps over z-slabs, d/d u0).  Their values must equal the primal's.
// The adjoints mpiad-cc generates from the same primals must agree with the
// hand-written ones element by element, and leave the tape empty.
// RUN: %mpiad-cc -Wno-mpiad-restored-output -I%srcroot/bench -I%S/../Inputs %srcroot/bench/stencils.c %srcroot/bench/handwritten_stencils.c %s -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "stencils.h"

static int block(int n, int p, int c, int *off) {
  *off = c * (n / p) + (c < n % p ? c : n % p);
  return n / p + (c < n % p ? 1 : 0);
}

/* ---- halo2d: a 9 x 7 grid on MPI_Dims_create's 2-D process grid ---- */
typedef struct {
  int nx, ny, nsteps, nb[4];
  double r, *kappa, *u0, *uobs;
  MPI_Comm comm;
} halo2d_ctx;

static double halo2d_J(void *p) {
  halo2d_ctx *c = p;
  return halo2d(c->kappa, c->u0, c->uobs, c->nx, c->ny, c->nsteps, c->r, c->nb[0],
                c->nb[1], c->nb[2], c->nb[3], c->comm);
}

static void check_halo2d(void) {
  int dims[2] = {0, 0}, periods[2] = {0, 0}, coords[2], rank, io, jo;
  MPI_Dims_create(hx_size_g, 2, dims);
  halo2d_ctx c;
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &c.comm);
  MPI_Comm_rank(c.comm, &rank);
  MPI_Cart_coords(c.comm, rank, 2, coords);
  MPI_Cart_shift(c.comm, 0, 1, &c.nb[0], &c.nb[1]);
  MPI_Cart_shift(c.comm, 1, 1, &c.nb[2], &c.nb[3]);
  c.nx = block(9, dims[0], coords[0], &io);
  c.ny = block(7, dims[1], coords[1], &jo);
  c.nsteps = 4;
  c.r = 0.2 / 1.6;
  size_t n = (size_t)c.nx * c.ny;
  c.kappa = malloc(n * sizeof(double));
  c.u0 = malloc(n * sizeof(double));
  c.uobs = malloc(n * sizeof(double));
  double *dk = malloc(n * sizeof(double)), *gh = calloc(n, sizeof(double)),
         *gg = calloc(n, sizeof(double));
  hx_rand(c.kappa, n, 21, rank, 1.0, 1.5);
  hx_rand(c.u0, n, 22, rank, -1.0, 1.0);
  hx_rand(c.uobs, n, 23, rank, -1.0, 1.0);
  hx_rand(dk, n, 24, rank, -1.0, 1.0);

  double want = halo2d_J(&c);
  double hand = halo2d_hand_b(c.kappa, gh, c.u0, c.uobs, c.nx, c.ny, c.nsteps, c.r, c.nb[0],
                              c.nb[1], c.nb[2], c.nb[3], c.comm, 1.0);
  double gen = halo2d_b(c.kappa, gg, c.u0, c.uobs, c.nx, c.ny, c.nsteps, c.r, c.nb[0],
                        c.nb[1], c.nb[2], c.nb[3], c.comm, 1.0);
  hx_tape("halo2d_b");
  hx_check("halo2d_hand_b value", hand, want, 1e-13, 1e-300);
  hx_check("halo2d_b value", gen, want, 1e-13, 1e-300);
  mpiad_input in = {c.kappa, dk, n, 0};
  double *xb[1] = {gh};
  hx_grad("halo2d_hand_b d J / d kappa", halo2d_J, &c, &in, 1, xb, 1e-6, 1e-7, 1e-12);
  hx_check_vec("halo2d_b vs halo2d_hand_b", gg, gh, n, 1e-11, 1e-13);
  free(gg);
  free(gh);
  free(dk);
  free(c.uobs);
  free(c.u0);
  free(c.kappa);
  MPI_Comm_free(&c.comm);
}

/* ---- stencil_norm: the corpus program's 12 x 12 grid, PRK's process grid ---- */
#define RADIUS 2
typedef struct {
  int n, it, is, ie, js, je, px, py, nx, ny;
  size_t nin, nout;
  double *in, *work, *out;
  const double *seed; /* the seed of the final in: J adds <seed, in_final> */
} star_ctx;

static double star_J(void *p) {
  star_ctx *g = p;
  memcpy(g->work, g->in, g->nin * sizeof(double));
  memset(g->out, 0, g->nout * sizeof(double));
  double norm = stencil_norm(g->work, g->out, g->n, g->it, g->is, g->ie, g->js, g->je, g->px,
                             g->py, g->nx, g->ny, MPI_COMM_WORLD);
  double s = 0.0, all = 0.0;
  for (size_t k = 0; k < g->nin; k++)
    s += g->seed[k] * g->work[k];
  MPI_Allreduce(&s, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return norm + all;
}

static void check_star(void) {
  int P = hx_size_g, r = hx_rank_g, nx, ny = 1;
  for (nx = (int)sqrt(P + 1); nx > 0; nx--)
    if (P % nx == 0) {
      ny = P / nx;
      break;
    }
  star_ctx g;
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
  double *seed = malloc(g.nin * sizeof(double)), *dx = malloc(g.nin * sizeof(double));
  double *bh = malloc(g.nin * sizeof(double)), *bg = malloc(g.nin * sizeof(double));
  hx_rand(g.in, g.nin, 31, r, -1.0, 1.0);
  hx_rand(seed, g.nin, 32, r, -1.0, 1.0);
  hx_rand(dx, g.nin, 33, r, -1.0, 1.0);
  g.seed = seed;

  double want = star_J(&g);
  double *final_in = malloc(g.nin * sizeof(double));
  memcpy(final_in, g.work, g.nin * sizeof(double));
  double norm = want;
  {
    double s = 0.0, all = 0.0;
    for (size_t k = 0; k < g.nin; k++)
      s += seed[k] * final_in[k];
    MPI_Allreduce(&s, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    norm -= all;
  }
  memcpy(g.work, g.in, g.nin * sizeof(double));
  memset(g.out, 0, g.nout * sizeof(double));
  memcpy(bh, seed, g.nin * sizeof(double));
  double hand = stencil_norm_hand_b(g.work, bh, g.out, g.n, g.it, g.is, g.ie, g.js, g.je,
                                    g.px, g.py, g.nx, g.ny, MPI_COMM_WORLD, 1.0);
  hx_check("stencil_norm_hand_b value", hand, norm, 1e-12, 1e-300);
  double worst = 0.0;
  for (size_t k = 0; k < g.nin; k++)
    worst = fmax(worst, fabs(g.work[k] - final_in[k]));
  hx_check_each("stencil_norm_hand_b leaves in as the primal does", worst, 0.0, 0.0, 1.0);

  memcpy(g.work, g.in, g.nin * sizeof(double));
  memset(g.out, 0, g.nout * sizeof(double));
  memcpy(bg, seed, g.nin * sizeof(double));
  double gen = stencil_norm_b(g.work, bg, g.out, g.n, g.it, g.is, g.ie, g.js, g.je, g.px, g.py,
                              g.nx, g.ny, MPI_COMM_WORLD, 1.0);
  hx_tape("stencil_norm_b");
  hx_check("stencil_norm_b value", gen, norm, 1e-12, 1e-300);

  mpiad_input in = {g.in, dx, g.nin, 0};
  double *xb[1] = {bh};
  hx_grad("stencil_norm_hand_b d J / d in", star_J, &g, &in, 1, xb, 1e-6, 1e-7, 1e-12);
  hx_check_vec("stencil_norm_b vs stencil_norm_hand_b", bg, bh, g.nin, 1e-11, 1e-13);
  free(final_in);
  free(bg);
  free(bh);
  free(dx);
  free(seed);
  free(g.in);
  free(g.work);
  free(g.out);
}

/* ---- heat3d: 5 x 4 x 7 points, the 7 planes split over the ranks ---- */
typedef struct {
  int nx, ny, nz, T, down, up;
  double nu, *u0;
} heat3d_ctx;

static double heat3d_J(void *p) {
  heat3d_ctx *c = p;
  return heat3d(c->u0, c->nx, c->ny, c->nz, c->T, c->nu, c->down, c->up, MPI_COMM_WORLD);
}

static void check_heat3d(void) {
  int r = hx_rank_g, P = hx_size_g, zo;
  heat3d_ctx c = {5, 4, 0, 3, r > 0 ? r - 1 : MPI_PROC_NULL,
                  r < P - 1 ? r + 1 : MPI_PROC_NULL, 0.1, NULL};
  c.nz = block(7, P, r, &zo);
  size_t n = (size_t)c.nx * c.ny * c.nz;
  c.u0 = malloc(n * sizeof(double));
  double *du = malloc(n * sizeof(double)), *gh = calloc(n, sizeof(double)),
         *gg = calloc(n, sizeof(double));
  hx_rand(c.u0, n, 41, r, -1.0, 1.0);
  hx_rand(du, n, 42, r, -1.0, 1.0);
  double want = heat3d_J(&c);
  double hand = heat3d_hand_b(c.u0, gh, c.nx, c.ny, c.nz, c.T, c.nu, c.down, c.up,
                              MPI_COMM_WORLD, 1.0);
  double gen =
      heat3d_b(c.u0, gg, c.nx, c.ny, c.nz, c.T, c.nu, c.down, c.up, MPI_COMM_WORLD, 1.0);
  hx_tape("heat3d_b");
  hx_check("heat3d_hand_b value", hand, want, 1e-13, 1e-300);
  hx_check("heat3d_b value", gen, want, 1e-13, 1e-300);
  mpiad_input in = {c.u0, du, n, 0};
  double *xb[1] = {gh};
  hx_grad("heat3d_hand_b d J / d u0", heat3d_J, &c, &in, 1, xb, 1e-6, 1e-7, 1e-12);
  hx_check_vec("heat3d_b vs heat3d_hand_b", gg, gh, n, 1e-11, 1e-13);
  free(gg);
  free(gh);
  free(du);
  free(c.u0);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  check_halo2d();
  check_star();
  check_heat3d();
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
