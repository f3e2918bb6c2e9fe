// A copy-back of the interior of a grid with ghost cells (a region of the
// buffers, read as rows `i * ys + j`) becomes, when a run-time check on the
// strides and bounds holds, a swap of the buffers followed by an exchange of
// the elements outside the region; the check's else branch keeps the copy.
// The forward sweep swaps the adjoints too (the runtime keeps the adjoint
// addresses of the non-blocking receives from the forward sweep); the
// reverse sweep exchanges values and adjoints outside the region and swaps
// both back.  A nonlinear step's reverse reads the old field, which the copy
// recorded: after the swap, un's buffer holds it, and the tape keeps that
// buffer whole (un takes another, with its elements outside the region);
// the reverse takes the buffer back before exchanging.
// The functions after the first break one condition each and keep the copy:
// the source read after the copy, the step writing only part of the region,
// a receive into the field completed after the copy.  exec/region_swap.c
// runs the adjoints and tangents.
//
// RUN: %mpiad-emit %s -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck %s
#include <mpi.h>
#include <stdlib.h>

#pragma mpiad differentiate wrt(u0, kappa) varying(u0, kappa, up, down)
#pragma mpiad differentiate forward wrt(u0)
double grid(const double *u0, const double *kappa, int nx, int ny, int T,
            int up, int down, MPI_Comm comm) {
  int ys = ny + 2;
  double *u = calloc((size_t)(nx + 2) * ys, sizeof(double));
  double *un = calloc((size_t)(nx + 2) * ys, sizeof(double));
  for (int i = 1; i <= nx; i++)
    for (int j = 1; j <= ny; j++)
      u[i * ys + j] = u0[(i - 1) * ny + (j - 1)];
  MPI_Request reqs[2];
  for (int t = 0; t < T; t++) {
    MPI_Irecv(&u[1], ny, MPI_DOUBLE, down, 0, comm, &reqs[0]);
    MPI_Isend(&u[nx * ys + 1], ny, MPI_DOUBLE, up, 0, comm, &reqs[1]);
    MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
    for (int i = 1; i <= nx; i++)
      for (int j = 1; j <= ny; j++) {
        int c = i * ys + j;
        un[c] = u[c] + kappa[c] * (u[c - ys] + u[c - 1] - 2.0 * u[c]);
      }
    for (int i = 1; i <= nx; i++)
      for (int j = 1; j <= ny; j++)
        u[i * ys + j] = un[i * ys + j];
  }
  double s = 0.0;
  for (int c = 0; c < (nx + 2) * ys; c++)
    s += u[c];
  double J = 0.0;
  MPI_Allreduce(&s, &J, 1, MPI_DOUBLE, MPI_SUM, comm);
  free(un);
  free(u);
  return J;
}
// CHECK-LABEL: double grid_b(
// CHECK:      mpiad_waitall_fwd(2, reqs, MPI_STATUSES_IGNORE);
// CHECK:      if (1 <= ny && 1 <= nx && ys >= ny && ys + 1 >= 0 && (long long)(nx * ys + ny) < (long long)((size_t)(nx + 2) * ys)) {
// CHECK-NEXT:   /* copy-back of the region of u from un: the old contents of un there are not read again, so swap the buffers and exchange the elements outside the region */
// CHECK-NEXT:   {
// CHECK-NEXT:     double *mpiad_swap = u;
// CHECK-NEXT:     u = un;
// CHECK-NEXT:     un = mpiad_swap;
// CHECK-NEXT:   }
// CHECK-NEXT:   {
// CHECK-NEXT:     double *mpiad_swap2 = u_b;
// CHECK-NEXT:     u_b = un_b;
// CHECK-NEXT:     un_b = mpiad_swap2;
// CHECK-NEXT:   }
// CHECK-NEXT:   /* the old region of u, now in un, is kept on the tape as it is: un takes another buffer, with its elements outside the region */
// CHECK-NEXT:   double *mpiad_fresh = (double *)mpiad_push_buffer(un, (size_t)(nx + 2) * ys * sizeof(double));
// CHECK-NEXT:   {
// CHECK-NEXT:     long long mpiad_at = 0;
// CHECK-NEXT:     for (int mpiad_r = 1; mpiad_r <= nx; mpiad_r++) {
// CHECK-NEXT:       for (long long mpiad_e = mpiad_at; mpiad_e < mpiad_r * ys + 1; mpiad_e++) {
// CHECK-NEXT:         double mpiad_t = u[mpiad_e];
// CHECK-NEXT:         u[mpiad_e] = un[mpiad_e];
// CHECK-NEXT:         un[mpiad_e] = mpiad_t;
// CHECK-NEXT:         mpiad_fresh[mpiad_e] = mpiad_t;
// CHECK-NEXT:       }
// CHECK-NEXT:       mpiad_at = mpiad_r * ys + 1 + ny;
// CHECK-NEXT:     }
// CHECK-NEXT:     for (long long mpiad_e2 = mpiad_at; mpiad_e2 < (long long)((size_t)(nx + 2) * ys); mpiad_e2++) {
// CHECK:        un = mpiad_fresh;
// CHECK-NEXT: } else {
// CHECK-NEXT:     for (int i = 1; i <= nx; i++) {
// CHECK:      /* reverse sweep */
// CHECK:      /* adjoint of the copy-back of the region of u from un (un_b is zero on the region): exchange back, swap back */
// CHECK-NEXT: /* un takes back its buffer that the tape kept, with the old region of u */
// CHECK-NEXT: un = (double *)mpiad_pop_buffer(un, (size_t)(nx + 2) * ys * sizeof(double));
// CHECK:          double mpiad_t3 = u[mpiad_e3];
// CHECK-NEXT:     u[mpiad_e3] = un[mpiad_e3];
// CHECK-NEXT:     un[mpiad_e3] = mpiad_t3;
// CHECK-NEXT:     double mpiad_t4 = u_b[mpiad_e3];
// CHECK-NEXT:     u_b[mpiad_e3] = un_b[mpiad_e3];
// CHECK-NEXT:     un_b[mpiad_e3] = mpiad_t4;
// CHECK:          un_b = mpiad_swap4;
// CHECK-NEXT:   }
// CHECK-NEXT: } else {
// CHECK-LABEL: double grid_d(
// CHECK:      copy-back of the region of u from un
// CHECK:          double mpiad_t2 = u_d[mpiad_e];
// CHECK-NEXT:     u_d[mpiad_e] = un_d[mpiad_e];

/* un is read after the copy: its old contents are not dead. */
#pragma mpiad differentiate wrt(u0) varying(u0)
double readsrc(const double *u0, int nx, int ny, int T) {
  int ys = ny + 2;
  double *u = calloc((nx + 2) * ys, sizeof(double));
  double *un = calloc((nx + 2) * ys, sizeof(double));
  for (int c = 0; c < (nx + 2) * ys; c++)
    u[c] = u0[c];
  double m = 0.0;
  for (int t = 0; t < T; t++) {
    for (int i = 1; i <= nx; i++)
      for (int j = 1; j <= ny; j++)
        un[i * ys + j] = 0.5 * u[i * ys + j] + 0.2 * u[i * ys + j - 1];
    for (int i = 1; i <= nx; i++)
      for (int j = 1; j <= ny; j++)
        u[i * ys + j] = un[i * ys + j];
    m += un[ys + 1];
  }
  free(un);
  free(u);
  return m;
}
// CHECK-LABEL: double readsrc_b(
// CHECK-NOT:  copy-back of the region
// CHECK:      u[i * ys + j] = un[i * ys + j];

/* The step writes un only on columns 1..ny-1 of the region. */
#pragma mpiad differentiate wrt(u0) varying(u0)
double cols(const double *u0, int nx, int ny, int T) {
  int ys = ny + 2;
  double *u = calloc((nx + 2) * ys, sizeof(double));
  double *un = calloc((nx + 2) * ys, sizeof(double));
  for (int c = 0; c < (nx + 2) * ys; c++)
    u[c] = u0[c];
  for (int t = 0; t < T; t++) {
    for (int i = 1; i <= nx; i++)
      for (int j = 1; j < ny; j++)
        un[i * ys + j] = 0.5 * u[i * ys + j] + 0.2 * u[i * ys + j + 1];
    for (int i = 1; i <= nx; i++)
      for (int j = 1; j <= ny; j++)
        u[i * ys + j] = un[i * ys + j];
  }
  double m = 0.0;
  for (int c = 0; c < (nx + 2) * ys; c++)
    m += u[c] * u[c];
  free(un);
  free(u);
  return m;
}
// CHECK-LABEL: double cols_b(
// CHECK-NOT:  copy-back of the region
// CHECK:      u[i * ys + j] = un[i * ys + j];

/* A receive into the field is completed after the copy. */
#pragma mpiad differentiate wrt(u0) varying(u0, up, down)
double late(const double *u0, int nx, int ny, int T, int up, int down,
            MPI_Comm comm) {
  int ys = ny + 2;
  double *u = calloc((nx + 2) * ys, sizeof(double));
  double *un = calloc((nx + 2) * ys, sizeof(double));
  for (int c = 0; c < (nx + 2) * ys; c++)
    u[c] = u0[c];
  MPI_Request rq[2];
  for (int t = 0; t < T; t++) {
    MPI_Isend(&u[nx * ys + 1], ny, MPI_DOUBLE, up, 0, comm, &rq[1]);
    for (int i = 1; i <= nx; i++)
      for (int j = 1; j <= ny; j++)
        un[i * ys + j] = 0.5 * u[i * ys + j] + 0.2 * u[i * ys + j - ys];
    MPI_Irecv(&u[1], ny, MPI_DOUBLE, down, 0, comm, &rq[0]);
    for (int i = 1; i <= nx; i++)
      for (int j = 1; j <= ny; j++)
        u[i * ys + j] = un[i * ys + j];
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
  }
  double m = 0.0;
  for (int c = 0; c < (nx + 2) * ys; c++)
    m += u[c] * u[c];
  double J = 0.0;
  MPI_Allreduce(&m, &J, 1, MPI_DOUBLE, MPI_SUM, comm);
  free(un);
  free(u);
  return J;
}
// CHECK-LABEL: double late_b(
// CHECK-NOT:  copy-back of the region
// CHECK:      u[i * ys + j] = un[i * ys + j];
