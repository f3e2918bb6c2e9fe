/*
 * stencils.c - the primals of the stencil benchmark (see stencils.h), written
 * as their users wrote them and marked for mpiad-cc, which generates
 * halo2d_b, stencil_norm_b and heat3d_b from them.  bench/stencil_bench.c
 * times them against the hand-written adjoints of handwritten_stencils.c;
 * test/lit/exec/handwritten_stencils.c checks both against central
 * differences.
 */
#include <math.h>
#include <mpi.h>
#include <stdlib.h>

#include "stencils.h"

/* ---- halo2d: identical to samples/halo2d/halo2d.c ------------------------- */

#pragma mpiad differentiate wrt(kappa) replicated(nsteps, r) \
    varying(kappa, u0, uobs, nx, ny, north, south, west, east) semantics(global) name(halo2d_b)
double halo2d(const double *kappa, const double *u0, const double *uobs,
              int nx, int ny, int nsteps, double r, int north, int south,
              int west, int east, MPI_Comm comm) {
  int ys = ny + 2; /* row stride of u, with the ghost columns */
  double *u = malloc((size_t)(nx + 2) * (size_t)ys * sizeof(double));
  double *un = malloc((size_t)(nx + 2) * (size_t)ys * sizeof(double));
  /* ghost columns: packed send buffers and receive buffers (west, east) */
  double *sw = malloc((size_t)nx * sizeof(double));
  double *se = malloc((size_t)nx * sizeof(double));
  double *rw = malloc((size_t)nx * sizeof(double));
  double *re = malloc((size_t)nx * sizeof(double));
  for (int i = 0; i < nx + 2; i++)
    for (int j = 0; j < ys; j++)
      u[i * ys + j] = 0.0; /* the ghosts at the physical boundary stay 0 */
  for (int i = 1; i <= nx; i++)
    for (int j = 1; j <= ny; j++)
      u[i * ys + j] = u0[(i - 1) * ny + (j - 1)];
  for (int i = 0; i < nx; i++) {
    rw[i] = 0.0; /* left as they are by a receive from MPI_PROC_NULL */
    re[i] = 0.0;
  }

  MPI_Request reqs[8];
  for (int t = 0; t < nsteps; t++) {
    /* 1. receive the ghost edges.  Tags name the direction the data moves:
     * 0 northwards, 1 southwards, 2 westwards, 3 eastwards. */
    MPI_Irecv(&u[1], ny, MPI_DOUBLE, north, 1, comm, &reqs[0]);
    MPI_Irecv(&u[(nx + 1) * ys + 1], ny, MPI_DOUBLE, south, 0, comm,
              &reqs[1]);
    MPI_Irecv(rw, nx, MPI_DOUBLE, west, 3, comm, &reqs[2]);
    MPI_Irecv(re, nx, MPI_DOUBLE, east, 2, comm, &reqs[3]);
    /* 2. send the boundary edges; the columns are packed first */
    for (int i = 1; i <= nx; i++) {
      sw[i - 1] = u[i * ys + 1];
      se[i - 1] = u[i * ys + ny];
    }
    MPI_Isend(&u[ys + 1], ny, MPI_DOUBLE, north, 0, comm, &reqs[4]);
    MPI_Isend(&u[nx * ys + 1], ny, MPI_DOUBLE, south, 1, comm, &reqs[5]);
    MPI_Isend(sw, nx, MPI_DOUBLE, west, 2, comm, &reqs[6]);
    MPI_Isend(se, nx, MPI_DOUBLE, east, 3, comm, &reqs[7]);

    /* 3. the interior points that need no ghost, while messages fly */
    for (int i = 2; i < nx; i++)
      for (int j = 2; j < ny; j++) {
        int c = i * ys + j;
        un[c] = u[c] + r * kappa[(i - 1) * ny + (j - 1)] *
                           (u[c - ys] + u[c + ys] + u[c - 1] + u[c + 1] -
                            4.0 * u[c]);
      }

    /* 4. wait for the 8 transfers, unpack the ghost columns */
    MPI_Waitall(8, reqs, MPI_STATUSES_IGNORE);
    for (int i = 1; i <= nx; i++) {
      u[i * ys] = rw[i - 1];
      u[i * ys + ny + 1] = re[i - 1];
    }

    /* 5. the boundary ring: first and last rows, then first and last
     * columns (without the corners).  With nx == 1 or ny == 1 a point is
     * updated twice, to the same value. */
    for (int j = 1; j <= ny; j++) {
      int c = ys + j;
      un[c] = u[c] + r * kappa[j - 1] *
                         (u[c - ys] + u[c + ys] + u[c - 1] + u[c + 1] -
                          4.0 * u[c]);
      int d = nx * ys + j;
      un[d] = u[d] + r * kappa[(nx - 1) * ny + (j - 1)] *
                         (u[d - ys] + u[d + ys] + u[d - 1] + u[d + 1] -
                          4.0 * u[d]);
    }
    for (int i = 2; i < nx; i++) {
      int c = i * ys + 1;
      un[c] = u[c] + r * kappa[(i - 1) * ny] *
                         (u[c - ys] + u[c + ys] + u[c - 1] + u[c + 1] -
                          4.0 * u[c]);
      int d = i * ys + ny;
      un[d] = u[d] + r * kappa[(i - 1) * ny + (ny - 1)] *
                         (u[d - ys] + u[d + ys] + u[d - 1] + u[d + 1] -
                          4.0 * u[d]);
    }
    for (int i = 1; i <= nx; i++)
      for (int j = 1; j <= ny; j++)
        u[i * ys + j] = un[i * ys + j];
  }

  double local = 0.0;
  for (int i = 1; i <= nx; i++)
    for (int j = 1; j <= ny; j++) {
      double d = u[i * ys + j] - uobs[(i - 1) * ny + (j - 1)];
      local += d * d;
    }
  double J = 0.0;
  MPI_Allreduce(&local, &J, 1, MPI_DOUBLE, MPI_SUM, comm);
  free(re);
  free(rw);
  free(se);
  free(sw);
  free(un);
  free(u);
  return J;
}

/* ---- stencil_norm: identical to test/realworld/stencil2d_star.c ---------- */

#define RADIUS 2
#define DTYPE double
#define MPI_DTYPE MPI_DOUBLE
#define MAX(x, y) ((x) > (y) ? (x) : (y))
#define MIN(x, y) ((x) < (y) ? (x) : (y))
#define IN(i, j) in[(i) - istart + RADIUS + ((j) - jstart + RADIUS) * (width + 2 * RADIUS)]
#define OUT(i, j) out[(i) - istart + ((j) - jstart) * width]
#define WEIGHT(ii, jj) weight[ii + RADIUS][jj + RADIUS]

/* Applies `iterations` sweeps of the star stencil to the tile [istart, iend] x
 * [jstart, jend] of an n x n grid (in has a halo of RADIUS), accumulating into
 * out, and returns the global sum of squares of out. */
#pragma mpiad differentiate wrt(in) output(return, in) varying(in) scratch(out[(iend - istart + 1) * (jend - jstart + 1)])
double stencil_norm(DTYPE *in, DTYPE *out, int n, int iterations, int istart, int iend,
                    int jstart, int jend, int my_IDx, int my_IDy, int Num_procsx,
                    int Num_procsy, MPI_Comm comm) {
  int i, j, ii, jj, kk, iter;
  int width = iend - istart + 1, height = jend - jstart + 1;
  int my_ID = my_IDy * Num_procsx + my_IDx;
  int right_nbr = my_ID + 1, left_nbr = my_ID - 1;
  int top_nbr = my_ID + Num_procsx, bottom_nbr = my_ID - Num_procsx;
  DTYPE weight[2 * RADIUS + 1][2 * RADIUS + 1];
  MPI_Request request[8];
  MPI_Status status[8];
  DTYPE *top_buf_out = (DTYPE *)malloc(4 * sizeof(DTYPE) * RADIUS * width);
  DTYPE *top_buf_in = top_buf_out + RADIUS * width;
  DTYPE *bottom_buf_out = top_buf_out + 2 * RADIUS * width;
  DTYPE *bottom_buf_in = top_buf_out + 3 * RADIUS * width;
  DTYPE *right_buf_out = (DTYPE *)malloc(4 * sizeof(DTYPE) * RADIUS * height);
  DTYPE *right_buf_in = right_buf_out + RADIUS * height;
  DTYPE *left_buf_out = right_buf_out + 2 * RADIUS * height;
  DTYPE *left_buf_in = right_buf_out + 3 * RADIUS * height;
  DTYPE local_norm, norm;

  for (jj = -RADIUS; jj <= RADIUS; jj++)
    for (ii = -RADIUS; ii <= RADIUS; ii++)
      WEIGHT(ii, jj) = (DTYPE)0.0;
  for (ii = 1; ii <= RADIUS; ii++) {
    WEIGHT(0, ii) = WEIGHT(ii, 0) = (DTYPE)(1.0 / (2.0 * ii * RADIUS));
    WEIGHT(0, -ii) = WEIGHT(-ii, 0) = -(DTYPE)(1.0 / (2.0 * ii * RADIUS));
  }

  for (iter = 0; iter <= iterations; iter++) {
    if (my_IDy < Num_procsy - 1) {
      MPI_Irecv(top_buf_in, RADIUS * width, MPI_DTYPE, top_nbr, 101, comm, &(request[1]));
      for (kk = 0, j = jend - RADIUS + 1; j <= jend; j++)
        for (i = istart; i <= iend; i++)
          top_buf_out[kk++] = IN(i, j);
      MPI_Isend(top_buf_out, RADIUS * width, MPI_DTYPE, top_nbr, 99, comm, &(request[0]));
    }
    if (my_IDy > 0) {
      MPI_Irecv(bottom_buf_in, RADIUS * width, MPI_DTYPE, bottom_nbr, 99, comm, &(request[3]));
      for (kk = 0, j = jstart; j <= jstart + RADIUS - 1; j++)
        for (i = istart; i <= iend; i++)
          bottom_buf_out[kk++] = IN(i, j);
      MPI_Isend(bottom_buf_out, RADIUS * width, MPI_DTYPE, bottom_nbr, 101, comm, &(request[2]));
    }
    if (my_IDy < Num_procsy - 1) {
      MPI_Wait(&(request[0]), &(status[0]));
      MPI_Wait(&(request[1]), &(status[1]));
      for (kk = 0, j = jend + 1; j <= jend + RADIUS; j++)
        for (i = istart; i <= iend; i++)
          IN(i, j) = top_buf_in[kk++];
    }
    if (my_IDy > 0) {
      MPI_Wait(&(request[2]), &(status[2]));
      MPI_Wait(&(request[3]), &(status[3]));
      for (kk = 0, j = jstart - RADIUS; j <= jstart - 1; j++)
        for (i = istart; i <= iend; i++)
          IN(i, j) = bottom_buf_in[kk++];
    }

    if (my_IDx < Num_procsx - 1) {
      MPI_Irecv(right_buf_in, RADIUS * height, MPI_DTYPE, right_nbr, 1010, comm, &(request[1 + 4]));
      for (kk = 0, j = jstart; j <= jend; j++)
        for (i = iend - RADIUS + 1; i <= iend; i++)
          right_buf_out[kk++] = IN(i, j);
      MPI_Isend(right_buf_out, RADIUS * height, MPI_DTYPE, right_nbr, 990, comm, &(request[0 + 4]));
    }
    if (my_IDx > 0) {
      MPI_Irecv(left_buf_in, RADIUS * height, MPI_DTYPE, left_nbr, 990, comm, &(request[3 + 4]));
      for (kk = 0, j = jstart; j <= jend; j++)
        for (i = istart; i <= istart + RADIUS - 1; i++)
          left_buf_out[kk++] = IN(i, j);
      MPI_Isend(left_buf_out, RADIUS * height, MPI_DTYPE, left_nbr, 1010, comm, &(request[2 + 4]));
    }
    if (my_IDx < Num_procsx - 1) {
      MPI_Wait(&(request[0 + 4]), &(status[0 + 4]));
      MPI_Wait(&(request[1 + 4]), &(status[1 + 4]));
      for (kk = 0, j = jstart; j <= jend; j++)
        for (i = iend + 1; i <= iend + RADIUS; i++)
          IN(i, j) = right_buf_in[kk++];
    }
    if (my_IDx > 0) {
      MPI_Wait(&(request[2 + 4]), &(status[2 + 4]));
      MPI_Wait(&(request[3 + 4]), &(status[3 + 4]));
      for (kk = 0, j = jstart; j <= jend; j++)
        for (i = istart - RADIUS; i <= istart - 1; i++)
          IN(i, j) = left_buf_in[kk++];
    }

    /* Apply the stencil operator */
    for (j = MAX(jstart, RADIUS); j <= MIN(n - RADIUS - 1, jend); j++) {
      for (i = MAX(istart, RADIUS); i <= MIN(n - RADIUS - 1, iend); i++) {
        for (jj = -RADIUS; jj <= RADIUS; jj++)
          OUT(i, j) += WEIGHT(0, jj) * IN(i, j + jj);
        for (ii = -RADIUS; ii < 0; ii++)
          OUT(i, j) += WEIGHT(ii, 0) * IN(i + ii, j);
        for (ii = 1; ii <= RADIUS; ii++)
          OUT(i, j) += WEIGHT(ii, 0) * IN(i + ii, j);
      }
    }
    /* a nonlinear touch, so that the gradient depends on the state */
    for (j = jstart; j <= jend; j++)
      for (i = istart; i <= iend; i++)
        IN(i, j) += 0.1 * sin(IN(i, j));
  }

  local_norm = (DTYPE)0.0;
  for (j = MAX(jstart, RADIUS); j <= MIN(n - RADIUS - 1, jend); j++)
    for (i = MAX(istart, RADIUS); i <= MIN(n - RADIUS - 1, iend); i++)
      local_norm += OUT(i, j) * OUT(i, j);
  MPI_Allreduce(&local_norm, &norm, 1, MPI_DTYPE, MPI_SUM, comm);
  free(top_buf_out);
  free(right_buf_out);
  return norm;
}

/* ---- heat3d: explicit 3-D heat steps on z-slabs --------------------------- */

/* T explicit steps of u <- u + nu (sum of the 6 neighbours - 6 u) on this
 * rank's slab of nz planes of nx-by-ny interior points, from u0 (nz planes of
 * ny rows of nx points); J = sum over all ranks of sum u_T^2.  Each array
 * holds nz + 2 planes of (ny + 2) x (nx + 2) points: a frame of zeros around
 * each plane (u = 0 on the x and y boundary), and a ghost plane below and
 * above, received from the ranks `down` and `up` (MPI_PROC_NULL at the ends
 * of the domain, where the ghosts stay 0).  The step computes un from u and
 * copies it back. */
#pragma mpiad differentiate wrt(u0) varying(u0, nz, down, up) replicated(nx, ny, T, nu) name(heat3d_b)
double heat3d(const double *u0, int nx, int ny, int nz, int T, double nu,
              int down, int up, MPI_Comm comm) {
  int sx = nx + 2;             /* row stride */
  int sp = (ny + 2) * (nx + 2); /* plane stride */
  int len = (nz + 2) * sp;
  double *u = malloc((size_t)len * sizeof(double));
  double *un = malloc((size_t)len * sizeof(double));
  for (int c = 0; c < len; c++) {
    u[c] = 0.0;
    un[c] = 0.0;
  }
  for (int k = 1; k <= nz; k++)
    for (int j = 1; j <= ny; j++)
      for (int i = 1; i <= nx; i++)
        u[k * sp + j * sx + i] = u0[((k - 1) * ny + (j - 1)) * nx + (i - 1)];

  for (int t = 0; t < T; t++) {
    /* ghost planes: the top plane goes up, the bottom plane down */
    MPI_Sendrecv(&u[nz * sp], sp, MPI_DOUBLE, up, 0, &u[0], sp, MPI_DOUBLE,
                 down, 0, comm, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&u[sp], sp, MPI_DOUBLE, down, 1, &u[(nz + 1) * sp], sp,
                 MPI_DOUBLE, up, 1, comm, MPI_STATUS_IGNORE);
    for (int k = 1; k <= nz; k++)
      for (int j = 1; j <= ny; j++)
        for (int i = 1; i <= nx; i++) {
          int c = k * sp + j * sx + i;
          un[c] = u[c] + nu * (u[c - 1] + u[c + 1] + u[c - sx] + u[c + sx] +
                               u[c - sp] + u[c + sp] - 6.0 * u[c]);
        }
    for (int k = 1; k <= nz; k++)
      for (int j = 1; j <= ny; j++)
        for (int i = 1; i <= nx; i++)
          u[k * sp + j * sx + i] = un[k * sp + j * sx + i];
  }

  double local = 0.0;
  for (int k = 1; k <= nz; k++)
    for (int j = 1; j <= ny; j++)
      for (int i = 1; i <= nx; i++)
        local += u[k * sp + j * sx + i] * u[k * sp + j * sx + i];
  double J = 0.0;
  MPI_Allreduce(&local, &J, 1, MPI_DOUBLE, MPI_SUM, comm);
  free(un);
  free(u);
  return J;
}
