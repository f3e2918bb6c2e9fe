// Time loops whose copy-back copies only a region of the buffers (the
// interior of a grid with ghost cells): mpiad-cc swaps the buffers and
// exchanges the elements outside the region when a run-time check on the
// strides and bounds holds, and copies otherwise (codegen/region_swap.c
// shows the code).  Gradients against central differences of the user's
// primal, which copies, in reverse and forward mode:
//  - rows1d: a 1-D field with one ghost cell per side, exchanged with the
//    neighbouring ranks by MPI_Sendrecv; linear, nothing recorded;
//  - grid2d: a 2-D field with a ghost frame, ghost rows from the
//    neighbours, a coefficient per point that is differentiated too (the
//    reverse reads the old field), the
//    interior written by a nest and a last-row loop, through an integer
//    local `c`;
//  - halo2d: the ghost rows received by MPI_Irecv into the field itself,
//    sent by MPI_Isend from it, completed by MPI_Waitall before the copy;
//  - box3d: a 3-D nest, ghost planes by MPI_Sendrecv, a loop order k, j, i;
//  - overlap: rows s elements apart, s chosen by the caller: with s < ny
//    the rows overlap and the check fails (the code copies);
//  - partial: the step writes only part of the region, so the old contents
//    of the source are read by the next copy: no swap, and the gradient
//    must still be exact;
//  - allred: the whole buffer, a nonlinear step (the reverse reads the old
//    field), the field reduced in place over the ranks after the copy
//    (the reverse reads its result: the reduction is not linear here).
//  - macro2d: grid2d written through index macros, `U(i, j) u[(i) * (ny +
//    2) + (j)]`: the row stride is the expression `(ny + 2)`, read as a
//    stride as a variable is (BufferSwap.cpp decompose);
//  - macropart: the same, the step writing all rows but the last: the copy
//    reads the old contents of un there, so no swap;
//  - macro3d: box3d through a macro whose plane stride is the product
//    `(k) * (nx + 2) * (ny + 2)`;
//  - frame: a nonlinear 1-D step that reads un outside the region (its
//    ghost cells, set once before the time loop) after writing the region:
//    the tape keeps un's old buffer, and the buffer un takes in its place
//    must carry those cells (from the second call on, it is a spare that
//    an earlier call gave back, holding stale values).
//  - helpers: halo2d, nonlinear, with the exchange in helper functions
//    (`start_ex(u, ..., reqs)` starts it through pointer parameters,
//    `finish_ex(reqs)` waits) and the objective in a helper called after
//    the time loop: the inlined parameters are copies of u, each assigned
//    before its uses and used before the copy, so the swap applies;
//  - before: a pointer to u taken before the time loop and read in it
//    still points to the first buffer after a swap, so no swap.
//  - framelin: a linear step, and an objective that reads un's ghost cells
//    (set once before the loop) nonlinearly in every step: the reverse reads
//    un, so no swap.
// Where the reverse sweep reads neither buffer (rows1d, box3d: linear
// steps), the adjoint of the copy exchanges back only the adjoints'
// elements outside the region.
// Where the reverse reads the old field (grid2d, halo2d, allred, macro2d,
// frame, helpers), the tape keeps un's buffer, which holds it after the
// swap, whole.
// Sizes 1 to 5 in each dimension, 0 to 3 steps; data vary per rank.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
// RUN: %mpiad-emit %s -I%S/../Inputs -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck --check-prefix=GEN %s
// GEN-LABEL: double rows1d_b(
// GEN: exchange back the adjoints (the rest of the reverse sweep reads neither buffer), swap back
// GEN-NOT: = un[mpiad_e
// GEN: u = un;
// GEN-LABEL: double macro2d_b(
// GEN: copy-back of the region of u from un: the old contents of un there are not read again, so swap the buffers
// GEN-LABEL: double macro2d_d(
// GEN: copy-back of the region of u from un
// GEN-LABEL: double macropart_b(
// GEN-NOT: copy-back of the region
// GEN-LABEL: double macropart_d(
// GEN-LABEL: double macro3d_b(
// GEN: copy-back of the region of u from un: the old contents of un there are not read again, so swap the buffers
// GEN-LABEL: double frame_b(
// GEN: copy-back of the region of u from un: the old contents of un there are not read again, so swap the buffers
// GEN: double *mpiad_fresh = (double *)mpiad_push_buffer(un, (size_t)(n + 2) * sizeof(double));
// GEN: un = (double *)mpiad_pop_buffer(un, (size_t)(n + 2) * sizeof(double));
// GEN-LABEL: double framelin_b(
// GEN-NOT: swap the buffers
// GEN-LABEL: double framelin_d(
// GEN-LABEL: double helpers_b(
// GEN: copy-back of the region of u from un: the old contents of un there are not read again, so swap the buffers
// GEN: mpiad_push_buffer(un,
// GEN-LABEL: double helpers_d(
// GEN: /* inlined: finish_ex(reqs) */
// GEN-NEXT: rq_2 = reqs;
// GEN-NEXT: mpiad_waitall_tan(4, rq_2, MPI_STATUSES_IGNORE);
// GEN-LABEL: double before_b(
// GEN-NOT: swap the buffers
// GEN-LABEL: double before_d(
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"

static int up_g, down_g; /* neighbouring ranks, MPI_PROC_NULL at the ends */

#pragma mpiad differentiate wrt(u0) varying(u0, up, down)
#pragma mpiad differentiate forward wrt(u0)
double rows1d(const double *u0, int n, int T, int up, int down,
              MPI_Comm comm) {
  double *u = calloc(n + 2, sizeof(double));
  double *un = calloc(n + 2, sizeof(double));
  for (int i = 1; i <= n; i++)
    u[i] = u0[i - 1];
  for (int t = 0; t < T; t++) {
    MPI_Sendrecv(&u[n], 1, MPI_DOUBLE, up, 0, &u[0], 1, MPI_DOUBLE, down, 0,
                 comm, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, down, 1, &u[n + 1], 1, MPI_DOUBLE, up,
                 1, comm, MPI_STATUS_IGNORE);
    for (int i = 1; i <= n; i++)
      un[i] = u[i] + 0.2 * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
    for (int i = 1; i <= n; i++)
      u[i] = un[i];
  }
  double s = 0.0;
  for (int i = 0; i < n + 2; i++)
    s += u[i] * u[i] * (1.0 + 0.1 * i);
  double J = 0.0;
  MPI_Allreduce(&s, &J, 1, MPI_DOUBLE, MPI_SUM, comm);
  free(un);
  free(u);
  return J;
}

#pragma mpiad differentiate wrt(u0, kappa) varying(u0, kappa, nx, up, down)
#pragma mpiad differentiate forward wrt(u0, kappa)
double grid2d(const double *u0, const double *kappa, int nx, int ny, int T,
              int up, int down, MPI_Comm comm) {
  int ys = ny + 2;
  double *u = malloc((size_t)(nx + 2) * (size_t)ys * sizeof(double));
  double *un = malloc((size_t)(nx + 2) * (size_t)ys * sizeof(double));
  for (int c = 0; c < (nx + 2) * ys; c++) {
    u[c] = 0.0;
    un[c] = 0.0;
  }
  for (int i = 1; i <= nx; i++)
    for (int j = 1; j <= ny; j++)
      u[i * ys + j] = u0[(i - 1) * ny + (j - 1)];
  for (int t = 0; t < T; t++) {
    MPI_Sendrecv(&u[nx * ys], ys, MPI_DOUBLE, up, 0, &u[0], ys, MPI_DOUBLE,
                 down, 0, comm, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&u[ys], ys, MPI_DOUBLE, down, 1, &u[(nx + 1) * ys], ys,
                 MPI_DOUBLE, up, 1, comm, MPI_STATUS_IGNORE);
    for (int i = 1; i < nx; i++)
      for (int j = 1; j <= ny; j++) {
        int c = i * ys + j;
        double k = kappa[(i - 1) * ny + (j - 1)];
        un[c] = u[c] + 0.1 * k * (u[c - ys] + u[c + ys] + u[c - 1] +
                                  u[c + 1] - 4.0 * u[c]);
      }
    for (int j = 1; j <= ny; j++) {
      int c = nx * ys + j;
      un[c] = u[c] + 0.1 * kappa[(nx - 1) * ny + (j - 1)] * u[c] *
                         (u[c - ys] - u[c]);
    }
    for (int i = 1; i <= nx; i++)
      for (int j = 1; j <= ny; j++)
        u[i * ys + j] = un[i * ys + j];
  }
  double s = 0.0;
  for (int i = 1; i <= nx; i++)
    for (int j = 1; j <= ny; j++)
      s += sin(u[i * ys + j]) * (1.0 + 0.01 * (i * ys + j));
  double J = 0.0;
  MPI_Allreduce(&s, &J, 1, MPI_DOUBLE, MPI_SUM, comm);
  free(un);
  free(u);
  return J;
}

#pragma mpiad differentiate wrt(u0, kappa) varying(u0, kappa, up, down)
#pragma mpiad differentiate forward wrt(u0, kappa)
double halo2d(const double *u0, const double *kappa, int nx, int ny, int T,
              int up, int down, MPI_Comm comm) {
  int ys = ny + 2;
  double *u = calloc((size_t)(nx + 2) * ys, sizeof(double));
  double *un = calloc((size_t)(nx + 2) * ys, sizeof(double));
  for (int i = 1; i <= nx; i++)
    for (int j = 1; j <= ny; j++)
      u[i * ys + j] = u0[(i - 1) * ny + (j - 1)];
  MPI_Request reqs[4];
  for (int t = 0; t < T; t++) {
    MPI_Irecv(&u[1], ny, MPI_DOUBLE, down, 0, comm, &reqs[0]);
    MPI_Irecv(&u[(nx + 1) * ys + 1], ny, MPI_DOUBLE, up, 1, comm, &reqs[1]);
    MPI_Isend(&u[nx * ys + 1], ny, MPI_DOUBLE, up, 0, comm, &reqs[2]);
    MPI_Isend(&u[ys + 1], ny, MPI_DOUBLE, down, 1, comm, &reqs[3]);
    MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE);
    for (int i = 1; i <= nx; i++)
      for (int j = 1; j <= ny; j++) {
        int c = i * ys + j;
        un[c] = u[c] + kappa[(i - 1) * ny + (j - 1)] *
                           (u[c - ys] + u[c + ys] + u[c - 1] + u[c + 1] -
                            4.0 * u[c]);
      }
    for (int i = 1; i <= nx; i++)
      for (int j = 1; j <= ny; j++)
        u[i * ys + j] = un[i * ys + j];
  }
  double s = 0.0;
  for (int i = 1; i <= nx; i++)
    for (int j = 1; j <= ny; j++)
      s += u[i * ys + j] * u[i * ys + j] * (1.0 + 0.01 * j);
  double J = 0.0;
  MPI_Allreduce(&s, &J, 1, MPI_DOUBLE, MPI_SUM, comm);
  free(un);
  free(u);
  return J;
}

#pragma mpiad differentiate wrt(u0) varying(u0, nz, up, down)
#pragma mpiad differentiate forward wrt(u0)
double box3d(const double *u0, int nx, int ny, int nz, int T, int up,
             int down, MPI_Comm comm) {
  int sx = nx + 2;
  int sp = (ny + 2) * sx;
  int len = (nz + 2) * sp;
  double *u = calloc(len, sizeof(double));
  double *un = calloc(len, sizeof(double));
  for (int k = 1; k <= nz; k++)
    for (int j = 1; j <= ny; j++)
      for (int i = 1; i <= nx; i++)
        u[k * sp + j * sx + i] = u0[((k - 1) * ny + (j - 1)) * nx + (i - 1)];
  for (int t = 0; t < T; t++) {
    MPI_Sendrecv(&u[nz * sp], sp, MPI_DOUBLE, up, 0, &u[0], sp, MPI_DOUBLE,
                 down, 0, comm, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&u[sp], sp, MPI_DOUBLE, down, 1, &u[(nz + 1) * sp], sp,
                 MPI_DOUBLE, up, 1, comm, MPI_STATUS_IGNORE);
    for (int k = 1; k <= nz; k++)
      for (int j = 1; j <= ny; j++)
        for (int i = 1; i <= nx; i++) {
          int c = k * sp + j * sx + i;
          un[c] = u[c] + 0.1 * (u[c - 1] + u[c + 1] + u[c - sx] + u[c + sx] +
                                u[c - sp] + u[c + sp] - 6.0 * u[c]);
        }
    for (int k = 1; k <= nz; k++)
      for (int j = 1; j <= ny; j++)
        for (int i = 1; i <= nx; i++)
          u[k * sp + j * sx + i] = un[k * sp + j * sx + i];
  }
  double s = 0.0;
  for (int c = 0; c < len; c++)
    s += u[c] * u[c] * (1.0 + 0.001 * c);
  double J = 0.0;
  MPI_Allreduce(&s, &J, 1, MPI_DOUBLE, MPI_SUM, comm);
  free(un);
  free(u);
  return J;
}

#pragma mpiad differentiate wrt(u0) varying(u0)
#pragma mpiad differentiate forward wrt(u0)
double overlap(const double *u0, int nx, int ny, int s, int T,
               MPI_Comm comm) {
  int len = nx * s + ny + 1;
  double *u = calloc(len, sizeof(double));
  double *un = calloc(len, sizeof(double));
  for (int c = 0; c < len; c++)
    u[c] = u0[c];
  for (int t = 0; t < T; t++) {
    for (int i = 0; i < nx; i++)
      for (int j = 0; j < ny; j++)
        un[i * s + j] = 0.5 * u[i * s + j] + 0.25 * u[i * s + j + 1] +
                        0.125 * u[len - 1 - (i * s + j)];
    for (int i = 0; i < nx; i++)
      for (int j = 0; j < ny; j++)
        u[i * s + j] = un[i * s + j];
  }
  double r = 0.0;
  for (int c = 0; c < len; c++)
    r += u[c] * u[c] * (1.0 + 0.1 * c);
  double J = 0.0;
  MPI_Allreduce(&r, &J, 1, MPI_DOUBLE, MPI_SUM, comm);
  free(un);
  free(u);
  return J;
}

#pragma mpiad differentiate wrt(u0) varying(u0)
#pragma mpiad differentiate forward wrt(u0)
double partial(const double *u0, int nx, int ny, int T, MPI_Comm comm) {
  int ys = ny + 2;
  double *u = calloc((nx + 2) * ys, sizeof(double));
  double *un = calloc((nx + 2) * ys, sizeof(double));
  for (int c = 0; c < (nx + 2) * ys; c++) {
    u[c] = u0[c];
    un[c] = 0.5 * u0[c];
  }
  for (int t = 0; t < T; t++) {
    for (int i = 1; i <= nx; i++)
      for (int j = 1; j < ny; j++) /* the last column keeps its old un */
        un[i * ys + j] = u[i * ys + j] - 0.3 * u[i * ys + j + 1];
    for (int i = 1; i <= nx; i++)
      for (int j = 1; j <= ny; j++)
        u[i * ys + j] = un[i * ys + j];
  }
  double r = 0.0;
  for (int c = 0; c < (nx + 2) * ys; c++)
    r += u[c] * u[c] * (1.0 + 0.1 * c);
  double J = 0.0;
  MPI_Allreduce(&r, &J, 1, MPI_DOUBLE, MPI_SUM, comm);
  free(un);
  free(u);
  return J;
}

/* The whole buffer, a nonlinear step (the reverse reads the old field) and
 * the field reduced in place over the ranks after the copy. */
#pragma mpiad differentiate wrt(u0) varying(u0)
#pragma mpiad differentiate forward wrt(u0)
double allred(const double *u0, int n, int T, MPI_Comm comm) {
  double *u = malloc(n * sizeof(double));
  double *un = malloc(n * sizeof(double));
  for (int i = 0; i < n; i++)
    u[i] = u0[i];
  for (int t = 0; t < T; t++) {
    for (int i = 0; i < n; i++)
      un[i] = 0.3 * u[i] * u[i] + 0.1 * u[(i + 1) % n];
    for (int i = 0; i < n; i++)
      u[i] = un[i];
    MPI_Allreduce(MPI_IN_PLACE, u, n, MPI_DOUBLE, MPI_SUM, comm);
  }
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += u[i] * (1.0 + 0.5 * i);
  double J = 0.0;
  MPI_Allreduce(&s, &J, 1, MPI_DOUBLE, MPI_SUM, comm);
  free(un);
  free(u);
  return J;
}

#define U(i, j) u[(i) * (ny + 2) + (j)]
#define UN(i, j) un[(i) * (ny + 2) + (j)]
#pragma mpiad differentiate wrt(u0, kappa) varying(u0, kappa, nx, up, down)
#pragma mpiad differentiate forward wrt(u0, kappa)
double macro2d(const double *u0, const double *kappa, int nx, int ny, int T,
               int up, int down, MPI_Comm comm) {
  double *u = calloc((size_t)(nx + 2) * (size_t)(ny + 2), sizeof(double));
  double *un = calloc((size_t)(nx + 2) * (size_t)(ny + 2), sizeof(double));
  for (int i = 1; i <= nx; i++)
    for (int j = 1; j <= ny; j++)
      U(i, j) = u0[(i - 1) * ny + (j - 1)];
  for (int t = 0; t < T; t++) {
    MPI_Sendrecv(&U(nx, 0), ny + 2, MPI_DOUBLE, up, 0, &U(0, 0), ny + 2,
                 MPI_DOUBLE, down, 0, comm, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&U(1, 0), ny + 2, MPI_DOUBLE, down, 1, &U(nx + 1, 0), ny + 2,
                 MPI_DOUBLE, up, 1, comm, MPI_STATUS_IGNORE);
    for (int i = 1; i <= nx; i++)
      for (int j = 1; j <= ny; j++)
        UN(i, j) = U(i, j) + 0.1 * kappa[(i - 1) * ny + (j - 1)] * U(i, j) *
                                 (U(i - 1, j) + U(i + 1, j) + U(i, j - 1) +
                                  U(i, j + 1) - 4.0 * U(i, j));
    for (int i = 1; i <= nx; i++)
      for (int j = 1; j <= ny; j++)
        U(i, j) = UN(i, j);
  }
  double s = 0.0;
  for (int i = 1; i <= nx; i++)
    for (int j = 1; j <= ny; j++)
      s += sin(U(i, j)) * (1.0 + 0.01 * (i * (ny + 2) + j));
  double J = 0.0;
  MPI_Allreduce(&s, &J, 1, MPI_DOUBLE, MPI_SUM, comm);
  free(un);
  free(u);
  return J;
}

/* the same, the step writing rows 1 .. nx - 1 only: row nx of un keeps its
 * old contents, which the copy reads, so no swap */
#pragma mpiad differentiate wrt(u0, kappa) varying(u0, kappa, nx, up, down)
#pragma mpiad differentiate forward wrt(u0, kappa)
double macropart(const double *u0, const double *kappa, int nx, int ny, int T,
                 int up, int down, MPI_Comm comm) {
  double *u = calloc((size_t)(nx + 2) * (size_t)(ny + 2), sizeof(double));
  double *un = calloc((size_t)(nx + 2) * (size_t)(ny + 2), sizeof(double));
  for (int i = 1; i <= nx; i++)
    for (int j = 1; j <= ny; j++) {
      U(i, j) = u0[(i - 1) * ny + (j - 1)];
      UN(i, j) = 0.5 * U(i, j);
    }
  for (int t = 0; t < T; t++) {
    MPI_Sendrecv(&U(nx, 0), ny + 2, MPI_DOUBLE, up, 0, &U(0, 0), ny + 2,
                 MPI_DOUBLE, down, 0, comm, MPI_STATUS_IGNORE);
    for (int i = 1; i < nx; i++)
      for (int j = 1; j <= ny; j++)
        UN(i, j) = U(i, j) + 0.1 * kappa[(i - 1) * ny + (j - 1)] *
                                 (U(i - 1, j) + U(i + 1, j) - 2.0 * U(i, j));
    for (int i = 1; i <= nx; i++)
      for (int j = 1; j <= ny; j++)
        U(i, j) = UN(i, j);
  }
  double s = 0.0;
  for (int i = 1; i <= nx; i++)
    for (int j = 1; j <= ny; j++)
      s += sin(U(i, j)) * (1.0 + 0.01 * (i * (ny + 2) + j));
  double J = 0.0;
  MPI_Allreduce(&s, &J, 1, MPI_DOUBLE, MPI_SUM, comm);
  free(un);
  free(u);
  return J;
}
#undef U
#undef UN

/* box3d through a macro whose plane stride is a product */
#define U(i, j, k) u[(k) * (nx + 2) * (ny + 2) + (j) * (nx + 2) + (i)]
#define UN(i, j, k) un[(k) * (nx + 2) * (ny + 2) + (j) * (nx + 2) + (i)]
#pragma mpiad differentiate wrt(u0) varying(u0, up, down)
#pragma mpiad differentiate forward wrt(u0)
double macro3d(const double *u0, int nx, int ny, int nz, int T, int up,
               int down, MPI_Comm comm) {
  int len = (nz + 2) * (ny + 2) * (nx + 2);
  double *u = calloc(len, sizeof(double));
  double *un = calloc(len, sizeof(double));
  for (int k = 1; k <= nz; k++)
    for (int j = 1; j <= ny; j++)
      for (int i = 1; i <= nx; i++)
        U(i, j, k) = u0[((k - 1) * ny + (j - 1)) * nx + (i - 1)];
  for (int t = 0; t < T; t++) {
    MPI_Sendrecv(&U(0, 0, nz), (nx + 2) * (ny + 2), MPI_DOUBLE, up, 0,
                 &U(0, 0, 0), (nx + 2) * (ny + 2), MPI_DOUBLE, down, 0, comm,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv(&U(0, 0, 1), (nx + 2) * (ny + 2), MPI_DOUBLE, down, 1,
                 &U(0, 0, nz + 1), (nx + 2) * (ny + 2), MPI_DOUBLE, up, 1, comm,
                 MPI_STATUS_IGNORE);
    for (int k = 1; k <= nz; k++)
      for (int j = 1; j <= ny; j++)
        for (int i = 1; i <= nx; i++)
          UN(i, j, k) = U(i, j, k) + 0.1 * (U(i - 1, j, k) + U(i + 1, j, k) +
                                            U(i, j - 1, k) + U(i, j + 1, k) +
                                            U(i, j, k - 1) + U(i, j, k + 1) -
                                            6.0 * U(i, j, k));
    for (int k = 1; k <= nz; k++)
      for (int j = 1; j <= ny; j++)
        for (int i = 1; i <= nx; i++)
          U(i, j, k) = UN(i, j, k);
  }
  double s = 0.0;
  for (int c = 0; c < len; c++)
    s += u[c] * u[c] * (1.0 + 0.001 * c);
  double J = 0.0;
  MPI_Allreduce(&s, &J, 1, MPI_DOUBLE, MPI_SUM, comm);
  free(un);
  free(u);
  return J;
}
#undef U
#undef UN

/* The step reads un's ghost cells, outside the copied region. */
#pragma mpiad differentiate wrt(u0) varying(u0)
#pragma mpiad differentiate forward wrt(u0)
double frame(const double *u0, int n, int T, MPI_Comm comm) {
  double *u = calloc(n + 2, sizeof(double));
  double *un = calloc(n + 2, sizeof(double));
  for (int i = 1; i <= n; i++)
    u[i] = u0[i - 1];
  un[0] = 0.5 * u0[0];
  un[n + 1] = u0[n - 1] * u0[n - 1];
  double acc = 0.0;
  for (int t = 0; t < T; t++) {
    for (int i = 1; i <= n; i++)
      un[i] = u[i] + 0.1 * u[i] * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
    acc += 0.5 * un[0] - un[n + 1] + u[1] * u[n];
    for (int i = 1; i <= n; i++)
      u[i] = un[i];
  }
  double s = acc;
  for (int i = 0; i < n + 2; i++)
    s += u[i] * u[i] * (1.0 + 0.1 * i);
  double J = 0.0;
  MPI_Allreduce(&s, &J, 1, MPI_DOUBLE, MPI_SUM, comm);
  free(un);
  free(u);
  return J;
}

#pragma mpiad differentiate wrt(u0) varying(u0)
#pragma mpiad differentiate forward wrt(u0)
double framelin(const double *u0, int n, int T, MPI_Comm comm) {
  double *u = calloc(n + 2, sizeof(double));
  double *un = calloc(n + 2, sizeof(double));
  for (int i = 1; i <= n; i++)
    u[i] = u0[i - 1];
  un[0] = 0.5 * u0[0];
  un[n + 1] = u0[n - 1] * u0[n - 1];
  double acc = 0.0;
  for (int t = 0; t < T; t++) {
    for (int i = 1; i <= n; i++)
      un[i] = u[i] + 0.1 * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
    acc += un[0] * un[n + 1];
    for (int i = 1; i <= n; i++)
      u[i] = un[i];
  }
  double s = acc;
  for (int i = 0; i < n + 2; i++)
    s += u[i] * u[i] * (1.0 + 0.1 * i);
  double J = 0.0;
  MPI_Allreduce(&s, &J, 1, MPI_DOUBLE, MPI_SUM, comm);
  free(un);
  free(u);
  return J;
}

/* The exchange and the objective in helpers, as samples/halo2d has them. */
static void start_ex(double *f, int nx, int ny, int up, int down,
                     MPI_Comm comm, MPI_Request *rq) {
  int ys = ny + 2;
  MPI_Irecv(&f[1], ny, MPI_DOUBLE, down, 0, comm, &rq[0]);
  MPI_Irecv(&f[(nx + 1) * ys + 1], ny, MPI_DOUBLE, up, 1, comm, &rq[1]);
  MPI_Isend(&f[nx * ys + 1], ny, MPI_DOUBLE, up, 0, comm, &rq[2]);
  MPI_Isend(&f[ys + 1], ny, MPI_DOUBLE, down, 1, comm, &rq[3]);
}

static void finish_ex(MPI_Request *rq) {
  MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
}

static double misfit_of(const double *f, int nx, int ny, MPI_Comm comm) {
  int ys = ny + 2;
  double s = 0.0;
  for (int i = 1; i <= nx; i++)
    for (int j = 1; j <= ny; j++)
      s += f[i * ys + j] * f[i * ys + j] * (1.0 + 0.01 * j);
  double J = 0.0;
  MPI_Allreduce(&s, &J, 1, MPI_DOUBLE, MPI_SUM, comm);
  return J;
}

#pragma mpiad differentiate wrt(u0, kappa) varying(u0, kappa, up, down)
#pragma mpiad differentiate forward wrt(u0, kappa)
double helpers(const double *u0, const double *kappa, int nx, int ny, int T,
               int up, int down, MPI_Comm comm) {
  int ys = ny + 2;
  double *u = calloc((size_t)(nx + 2) * ys, sizeof(double));
  double *un = calloc((size_t)(nx + 2) * ys, sizeof(double));
  for (int i = 1; i <= nx; i++)
    for (int j = 1; j <= ny; j++)
      u[i * ys + j] = u0[(i - 1) * ny + (j - 1)];
  MPI_Request reqs[4];
  for (int t = 0; t < T; t++) {
    start_ex(u, nx, ny, up, down, comm, reqs);
    finish_ex(reqs);
    for (int i = 1; i <= nx; i++)
      for (int j = 1; j <= ny; j++) {
        int c = i * ys + j;
        un[c] = u[c] + kappa[(i - 1) * ny + (j - 1)] * u[c] *
                           (u[c - ys] + u[c + ys] + u[c - 1] + u[c + 1] -
                            4.0 * u[c]);
      }
    for (int i = 1; i <= nx; i++)
      for (int j = 1; j <= ny; j++)
        u[i * ys + j] = un[i * ys + j];
  }
  double J = misfit_of(u, nx, ny, comm);
  free(un);
  free(u);
  return J;
}

/* v = u before the time loop: v is the first buffer all along, which the
 * copy keeps up to date and a swap would not. */
#pragma mpiad differentiate wrt(u0, kappa) varying(u0, kappa, up, down)
#pragma mpiad differentiate forward wrt(u0, kappa)
double before(const double *u0, const double *kappa, int nx, int ny, int T,
              int up, int down, MPI_Comm comm) {
  int ys = ny + 2;
  double *u = calloc((size_t)(nx + 2) * ys, sizeof(double));
  double *un = calloc((size_t)(nx + 2) * ys, sizeof(double));
  double *v = u;
  for (int i = 1; i <= nx; i++)
    for (int j = 1; j <= ny; j++)
      u[i * ys + j] = u0[(i - 1) * ny + (j - 1)];
  double acc = 0.0;
  for (int t = 0; t < T; t++) {
    acc += v[ys + 1] * v[nx * ys + ny];
    for (int i = 1; i <= nx; i++)
      for (int j = 1; j <= ny; j++) {
        int c = i * ys + j;
        un[c] = u[c] + kappa[(i - 1) * ny + (j - 1)] * u[c] *
                           (u[c - ys] + u[c + ys] - 2.0 * u[c]);
      }
    for (int i = 1; i <= nx; i++)
      for (int j = 1; j <= ny; j++)
        u[i * ys + j] = un[i * ys + j];
  }
  double A = 0.0;
  MPI_Allreduce(&acc, &A, 1, MPI_DOUBLE, MPI_SUM, comm);
  double J = A + misfit_of(u, nx, ny, comm);
  free(un);
  free(u);
  return J;
}

enum { NMAX = 7 * 7 * 7 };
typedef struct {
  double *u0, *kappa;
  int which, nx, ny, nz, s, T;
} ctx_t;

static double J(void *p) {
  ctx_t *c = p;
  MPI_Comm w = MPI_COMM_WORLD;
  switch (c->which) {
  case 0:
    return rows1d(c->u0, c->nx, c->T, up_g, down_g, w);
  case 1:
    return grid2d(c->u0, c->kappa, c->nx, c->ny, c->T, up_g, down_g, w);
  case 2:
    return halo2d(c->u0, c->kappa, c->nx, c->ny, c->T, up_g, down_g, w);
  case 3:
    return box3d(c->u0, c->nx, c->ny, c->nz, c->T, up_g, down_g, w);
  case 4:
    return overlap(c->u0, c->nx, c->ny, c->s, c->T, w);
  case 6:
    return allred(c->u0, c->nx, c->T, w);
  case 7:
    return macro2d(c->u0, c->kappa, c->nx, c->ny, c->T, up_g, down_g, w);
  case 8:
    return macropart(c->u0, c->kappa, c->nx, c->ny, c->T, up_g, down_g, w);
  case 9:
    return macro3d(c->u0, c->nx, c->ny, c->nz, c->T, up_g, down_g, w);
  case 10:
    return frame(c->u0, c->nx, c->T, w);
  case 11:
    return helpers(c->u0, c->kappa, c->nx, c->ny, c->T, up_g, down_g, w);
  case 12:
    return before(c->u0, c->kappa, c->nx, c->ny, c->T, up_g, down_g, w);
  case 13:
    return framelin(c->u0, c->nx, c->T, w);
  default:
    return partial(c->u0, c->nx, c->ny, c->T, w);
  }
}

/* The adjoint (or, with `tangent`, the tangent) of kernel c->which. */
static double run(ctx_t *c, double *ub, double *kb, double *ud,
                  double *kd, double *jd, int tangent) {
  MPI_Comm w = MPI_COMM_WORLD;
  int nx = c->nx, ny = c->ny, nz = c->nz, T = c->T;
  switch (c->which) {
  case 0:
    return tangent ? rows1d_d(c->u0, ud, nx, T, up_g, down_g, w, jd)
                   : rows1d_b(c->u0, ub, nx, T, up_g, down_g, w, 1.0);
  case 1:
    return tangent ? grid2d_d(c->u0, ud, c->kappa, kd, nx, ny, T, up_g,
                              down_g, w, jd)
                   : grid2d_b(c->u0, ub, c->kappa, kb, nx, ny, T, up_g,
                              down_g, w, 1.0);
  case 2:
    return tangent ? halo2d_d(c->u0, ud, c->kappa, kd, nx, ny, T, up_g,
                              down_g, w, jd)
                   : halo2d_b(c->u0, ub, c->kappa, kb, nx, ny, T, up_g,
                              down_g, w, 1.0);
  case 3:
    return tangent ? box3d_d(c->u0, ud, nx, ny, nz, T, up_g, down_g, w, jd)
                   : box3d_b(c->u0, ub, nx, ny, nz, T, up_g, down_g, w, 1.0);
  case 4:
    return tangent ? overlap_d(c->u0, ud, nx, ny, c->s, T, w, jd)
                   : overlap_b(c->u0, ub, nx, ny, c->s, T, w, 1.0);
  case 6:
    return tangent ? allred_d(c->u0, ud, nx, T, w, jd)
                   : allred_b(c->u0, ub, nx, T, w, 1.0);
  case 7:
    return tangent ? macro2d_d(c->u0, ud, c->kappa, kd, nx, ny, T, up_g,
                               down_g, w, jd)
                   : macro2d_b(c->u0, ub, c->kappa, kb, nx, ny, T, up_g,
                               down_g, w, 1.0);
  case 8:
    return tangent ? macropart_d(c->u0, ud, c->kappa, kd, nx, ny, T, up_g,
                                 down_g, w, jd)
                   : macropart_b(c->u0, ub, c->kappa, kb, nx, ny, T, up_g,
                                 down_g, w, 1.0);
  case 9:
    return tangent ? macro3d_d(c->u0, ud, nx, ny, nz, T, up_g, down_g, w, jd)
                   : macro3d_b(c->u0, ub, nx, ny, nz, T, up_g, down_g, w, 1.0);
  case 10:
    return tangent ? frame_d(c->u0, ud, nx, T, w, jd)
                   : frame_b(c->u0, ub, nx, T, w, 1.0);
  case 11:
    return tangent ? helpers_d(c->u0, ud, c->kappa, kd, nx, ny, T, up_g,
                               down_g, w, jd)
                   : helpers_b(c->u0, ub, c->kappa, kb, nx, ny, T, up_g,
                               down_g, w, 1.0);
  case 12:
    return tangent ? before_d(c->u0, ud, c->kappa, kd, nx, ny, T, up_g,
                              down_g, w, jd)
                   : before_b(c->u0, ub, c->kappa, kb, nx, ny, T, up_g,
                              down_g, w, 1.0);
  case 13:
    return tangent ? framelin_d(c->u0, ud, nx, T, w, jd)
                   : framelin_b(c->u0, ub, nx, T, w, 1.0);
  default:
    return tangent ? partial_d(c->u0, ud, nx, ny, T, w, jd)
                   : partial_b(c->u0, ub, nx, ny, T, w, 1.0);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  int r = hx_rank_g, p = hx_size_g;
  up_g = r + 1 < p ? r + 1 : MPI_PROC_NULL;
  down_g = r > 0 ? r - 1 : MPI_PROC_NULL;
  const char *names[] = {"rows1d",  "grid2d",  "halo2d", "box3d",
                         "overlap", "partial", "allred", "macro2d",
                         "macropart", "macro3d", "frame",
                         "helpers", "before", "framelin"};
  const int sizes[][3] = {{1, 1, 1}, {2, 3, 1}, {3, 1, 2},
                          {5, 4, 3}, {4, 5, 2}, {7, 6, 2}};
  const int steps[] = {0, 1, 3};
  for (int which = 0; which < 14; which++)
    for (int si = 0; si < 6; si++)
      for (int ti = 0; ti < 3; ti++)
        for (int sv = 0; sv < (which == 4 ? 2 : 1); sv++) {
          ctx_t c = {0};
          c.which = which;
          c.nx = sizes[si][0];
          c.ny = sizes[si][1];
          c.nz = sizes[si][2];
          c.T = steps[ti];
          c.s = c.ny - sv; /* overlap: rows apart, or overlapping */
          if (which == 4 && c.s < 1)
            continue;
          int nu = which == 0 || which == 6 || which == 10 || which == 13
                       ? c.nx
                   : which == 3 || which == 9 ? c.nx * c.ny * c.nz
                   : which == 4 ? c.nx * c.s + c.ny + 1
                   : which == 5 ? (c.nx + 2) * (c.ny + 2)
                                : c.nx * c.ny;
          int nk = which == 1 || which == 2 || which == 7 || which == 8 ||
                           which == 11 || which == 12
                       ? c.nx * c.ny
                       : 0;
          double u0[NMAX], du[NMAX], ub[NMAX] = {0}, ud[NMAX];
          double kappa[NMAX], dk[NMAX], kb[NMAX] = {0}, kd[NMAX];
          unsigned long long seed = 100 * which + 10 * si + ti + 1000 * sv;
          hx_rand(u0, nu, seed, r, -1.0, 1.0);
          hx_rand(du, nu, seed + 1, r, -1.0, 1.0);
          hx_rand(kappa, nk, seed + 2, r, 0.05, 0.2);
          hx_rand(dk, nk, seed + 3, r, -1.0, 1.0);
          c.u0 = u0;
          c.kappa = kappa;
          char label[96];
          snprintf(label, sizeof label, "%s %dx%dx%d s=%d T=%d",
                   names[which], c.nx, c.ny, c.nz, c.s, c.T);
          double v = run(&c, ub, kb, NULL, NULL, NULL, 0);
          hx_check(label, v, J(&c), 1e-14, 1e-300);
          hx_tape(label);
          mpiad_input in[2] = {{u0, du, nu, 0}, {kappa, dk, nk, 0}};
          double *xb[2] = {ub, kb};
          hx_grad(label, J, &c, in, nk ? 2 : 1, xb, 1e-6, 1e-6, 1e-9);
          for (int k = 0; k < nu; k++)
            ud[k] = du[k];
          for (int k = 0; k < nk; k++)
            kd[k] = dk[k];
          double jd = 0.0;
          v = run(&c, NULL, NULL, ud, kd, &jd, 1);
          char flabel[128];
          snprintf(flabel, sizeof flabel, "%s: tangent", label);
          hx_check(flabel, v, J(&c), 1e-14, 1e-300);
          double fd = mpiad_fd_directional(J, &c, in, nk ? 2 : 1, 1e-6);
          hx_check(flabel, jd, fd, 1e-6, 1e-9);
        }
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
