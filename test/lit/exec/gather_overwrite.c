// The overwriting nest gather (Gather.cpp nestGatherForm, BufferSwap.cpp
// regionOverwriteLoop): after the region swap of a step, the target
// adjoint's region holds zero or stale values, so the gather gives each
// element there its first term with `=` and leaves the read adjoint's
// region stale instead of zeroing it; the elements outside the region
// (frame, ghost rows) keep accumulating with `+=`, and the read adjoint's
// region is zeroed once after the time loop.  Kernels:
//  - frame2d: a 2-D linear step, ghost rows by MPI_Sendrecv, every point of
//    both buffers set from the inputs before the time loop (the frame of u
//    from g, and un = 0.5 g^2 everywhere: its region is dead, and the
//    adjoint of that initialisation reads un_b's region, which must be zero
//    again after the loop), an objective that weighs every point, frame and
//    ghosts included (their adjoints accumulate over the steps);
//  - between: the same with a read of u between the stencil nest and the
//    copy (its adjoint adds into u_b before the gather would overwrite it):
//    no overwrite there;
//  - thin: a 2-D step whose rows have one point (every row a boundary row,
//    the first term of each row loop is the one with `=`).
// The term at the iteration's own element is not the first of frame2d's
// and thin's stencils: the gather must still give it first, with `=`.
// Sizes 1 to 5 in each dimension, 0 to 3 steps; data vary per rank.
// Checked at 1-4 ranks against central differences, forward against
// reverse.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
// RUN: %mpiad-emit %s -I%S/../Inputs -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck --check-prefix=GEN %s
// GEN-LABEL: double frame2d_b(
// GEN: (un_b is zero on the region, or stale where it stands for zero): exchange back the adjoints
// GEN: u_b holds zero or stale values on the region since the swap back
// GEN: for (int i = 2; i <= nx - 1; i++) {
// GEN-NEXT: u_b[j * sx + i] = {{.*}}un_b[j * sx + i]
// GEN-NOT: un_b[{{.*}}] = 0;
// GEN: } else {
// GEN: the adjoint of the region of un is zero: clear what the gathers left
// GEN: un_b[mpiad_e] = 0;
// GEN-LABEL: double between_b(
// GEN-NOT: stale
// GEN: reverse of the stencil nest over j, i, as a gather over the whole nest
// GEN-NOT: stale
// GEN-LABEL: double thin_b(
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"

static int up_g, down_g;

/* Weights of the objective: every point counts, with its own weight. */
static double weighed(const double *u, int len, MPI_Comm comm) {
  double s = 0.0, J = 0.0;
  for (int c = 0; c < len; c++)
    s += u[c] * u[c] * (1.0 + 0.01 * c);
  MPI_Allreduce(&s, &J, 1, MPI_DOUBLE, MPI_SUM, comm);
  return J;
}

#pragma mpiad differentiate wrt(u0, g) varying(u0, g, up, down)
#pragma mpiad differentiate forward wrt(u0, g)
double frame2d(const double *u0, const double *g, int nx, int ny, int T,
               int up, int down, MPI_Comm comm) {
  int sx = nx + 2;
  int len = (ny + 2) * sx;
  double *u = malloc((size_t)len * sizeof(double));
  double *un = malloc((size_t)len * sizeof(double));
  for (int c = 0; c < len; c++) {
    u[c] = g[c];
    un[c] = 0.5 * g[c] * g[c];
  }
  for (int j = 1; j <= ny; j++)
    for (int i = 1; i <= nx; i++)
      u[j * sx + i] = u0[(j - 1) * nx + (i - 1)];
  for (int t = 0; t < T; t++) {
    MPI_Sendrecv(&u[ny * sx], sx, MPI_DOUBLE, up, 0, &u[0], sx, MPI_DOUBLE,
                 down, 0, comm, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&u[sx], sx, MPI_DOUBLE, down, 1, &u[(ny + 1) * sx], sx,
                 MPI_DOUBLE, up, 1, comm, MPI_STATUS_IGNORE);
    for (int j = 1; j <= ny; j++)
      for (int i = 1; i <= nx; i++) {
        int c = j * sx + i;
        un[c] = 0.1 * (u[c - 1] + 2.0 * u[c + 1]) + 0.55 * u[c] +
                0.1 * (u[c - sx] + 0.5 * u[c + sx]);
      }
    for (int j = 1; j <= ny; j++)
      for (int i = 1; i <= nx; i++)
        u[j * sx + i] = un[j * sx + i];
  }
  double J = weighed(u, len, comm);
  free(un);
  free(u);
  return J;
}

#pragma mpiad differentiate wrt(u0, g) varying(u0, g, up, down)
#pragma mpiad differentiate forward wrt(u0, g)
double between(const double *u0, const double *g, int nx, int ny, int T,
               int up, int down, MPI_Comm comm) {
  int sx = nx + 2;
  int len = (ny + 2) * sx;
  double *u = malloc((size_t)len * sizeof(double));
  double *un = malloc((size_t)len * sizeof(double));
  for (int c = 0; c < len; c++) {
    u[c] = g[c];
    un[c] = 0.5 * g[c] * g[c];
  }
  for (int j = 1; j <= ny; j++)
    for (int i = 1; i <= nx; i++)
      u[j * sx + i] = u0[(j - 1) * nx + (i - 1)];
  double acc = 0.0;
  for (int t = 0; t < T; t++) {
    MPI_Sendrecv(&u[ny * sx], sx, MPI_DOUBLE, up, 0, &u[0], sx, MPI_DOUBLE,
                 down, 0, comm, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&u[sx], sx, MPI_DOUBLE, down, 1, &u[(ny + 1) * sx], sx,
                 MPI_DOUBLE, up, 1, comm, MPI_STATUS_IGNORE);
    for (int j = 1; j <= ny; j++)
      for (int i = 1; i <= nx; i++) {
        int c = j * sx + i;
        un[c] = u[c] + 0.1 * (u[c - 1] + 2.0 * u[c + 1] + u[c - sx] +
                              0.5 * u[c + sx] - 4.5 * u[c]);
      }
    acc += 0.3 * u[sx + 1];
    for (int j = 1; j <= ny; j++)
      for (int i = 1; i <= nx; i++)
        u[j * sx + i] = un[j * sx + i];
  }
  double A = 0.0;
  MPI_Allreduce(&acc, &A, 1, MPI_DOUBLE, MPI_SUM, comm);
  double J = A + weighed(u, len, comm);
  free(un);
  free(u);
  return J;
}

/* Rows of one point: nx is 1, the stencil reaches the frame on both sides
 * of every row. */
#pragma mpiad differentiate wrt(u0, g) varying(u0, g, up, down)
#pragma mpiad differentiate forward wrt(u0, g)
double thin(const double *u0, const double *g, int ny, int T, int up,
            int down, MPI_Comm comm) {
  int sx = 3;
  int len = (ny + 2) * sx;
  double *u = malloc((size_t)len * sizeof(double));
  double *un = calloc((size_t)len, sizeof(double));
  for (int c = 0; c < len; c++)
    u[c] = g[c];
  for (int j = 1; j <= ny; j++)
    u[j * sx + 1] = u0[j - 1];
  for (int t = 0; t < T; t++) {
    MPI_Sendrecv(&u[ny * sx], sx, MPI_DOUBLE, up, 0, &u[0], sx, MPI_DOUBLE,
                 down, 0, comm, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&u[sx], sx, MPI_DOUBLE, down, 1, &u[(ny + 1) * sx], sx,
                 MPI_DOUBLE, up, 1, comm, MPI_STATUS_IGNORE);
    for (int j = 1; j <= ny; j++)
      for (int i = 1; i <= 1; i++) {
        int c = j * sx + i;
        un[c] = 0.2 * u[c - 1] + 0.3 * u[c + 1] + 0.4 * u[c - sx] +
                0.1 * u[c + sx] + 0.7 * u[c];
      }
    for (int j = 1; j <= ny; j++)
      for (int i = 1; i <= 1; i++)
        u[j * sx + i] = un[j * sx + i];
  }
  double J = weighed(u, len, comm);
  free(un);
  free(u);
  return J;
}

enum { NMAX = 7 * 7 };
typedef struct {
  double *u0, *g;
  int which, nx, ny, T;
} ctx_t;

static double J(void *p) {
  ctx_t *c = p;
  MPI_Comm w = MPI_COMM_WORLD;
  switch (c->which) {
  case 0:
    return frame2d(c->u0, c->g, c->nx, c->ny, c->T, up_g, down_g, w);
  case 1:
    return between(c->u0, c->g, c->nx, c->ny, c->T, up_g, down_g, w);
  default:
    return thin(c->u0, c->g, c->ny, c->T, up_g, down_g, w);
  }
}

/* The adjoint (or, with `tangent`, the tangent) of kernel c->which. */
static double run(ctx_t *c, double *ub, double *gb, double *ud, double *gd,
                  double *jd, int tangent) {
  MPI_Comm w = MPI_COMM_WORLD;
  int nx = c->nx, ny = c->ny, T = c->T;
  switch (c->which) {
  case 0:
    return tangent ? frame2d_d(c->u0, ud, c->g, gd, nx, ny, T, up_g, down_g,
                               w, jd)
                   : frame2d_b(c->u0, ub, c->g, gb, nx, ny, T, up_g, down_g,
                               w, 1.0);
  case 1:
    return tangent ? between_d(c->u0, ud, c->g, gd, nx, ny, T, up_g, down_g,
                               w, jd)
                   : between_b(c->u0, ub, c->g, gb, nx, ny, T, up_g, down_g,
                               w, 1.0);
  default:
    return tangent ? thin_d(c->u0, ud, c->g, gd, ny, T, up_g, down_g, w, jd)
                   : thin_b(c->u0, ub, c->g, gb, ny, T, up_g, down_g, w, 1.0);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  int r = hx_rank_g, p = hx_size_g;
  up_g = r + 1 < p ? r + 1 : MPI_PROC_NULL;
  down_g = r > 0 ? r - 1 : MPI_PROC_NULL;
  const char *names[] = {"frame2d", "between", "thin"};
  const int sizes[][2] = {{1, 1}, {2, 3}, {3, 1}, {5, 4}, {4, 5}};
  const int steps[] = {0, 1, 3};
  for (int which = 0; which < 3; which++)
    for (int si = 0; si < 5; si++)
      for (int ti = 0; ti < 3; ti++) {
        ctx_t c = {0};
        c.which = which;
        c.nx = which == 2 ? 1 : sizes[si][0];
        c.ny = sizes[si][1];
        c.T = steps[ti];
        int nu = c.nx * c.ny, ng = (c.nx + 2) * (c.ny + 2);
        double u0[NMAX], du[NMAX], ub[NMAX] = {0}, ud[NMAX];
        double g[NMAX], dg[NMAX], gb[NMAX] = {0}, gd[NMAX];
        unsigned long long seed = 100 * which + 10 * si + ti;
        hx_rand(u0, nu, seed, r, -1.0, 1.0);
        hx_rand(du, nu, seed + 1, r, -1.0, 1.0);
        hx_rand(g, ng, seed + 2, r, -1.0, 1.0);
        hx_rand(dg, ng, seed + 3, r, -1.0, 1.0);
        c.u0 = u0;
        c.g = g;
        char label[96];
        snprintf(label, sizeof label, "%s %dx%d T=%d", names[which], c.nx,
                 c.ny, c.T);
        double v = run(&c, ub, gb, NULL, NULL, NULL, 0);
        hx_check(label, v, J(&c), 1e-14, 1e-300);
        hx_tape(label);
        mpiad_input in[2] = {{u0, du, nu, 0}, {g, dg, ng, 0}};
        double *xb[2] = {ub, gb};
        hx_grad(label, J, &c, in, 2, xb, 1e-6, 1e-6, 1e-9);
        for (int k = 0; k < nu; k++)
          ud[k] = du[k];
        for (int k = 0; k < ng; k++)
          gd[k] = dg[k];
        double jd = 0.0;
        double v2 = run(&c, NULL, NULL, ud, gd, &jd, 1);
        char buf[128];
        snprintf(buf, sizeof buf, "%s: forward value", label);
        hx_check(buf, v2, v, 1e-14, 1e-300);
        snprintf(buf, sizeof buf, "%s: forward vs reverse mode", label);
        hx_check(buf, jd, mpiad_adjoint_directional(in, xb, 2, hx_comm_g),
                 1e-12, 1e-300);
      }
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
