// Pointers to rows (`double w[][NY]`) beyond wrt and output: a scratch
// array of rows (its shadow allocated with the row's size, not the
// element's: scratch(w[LEN]) counts rows, as the C pointer does), a second
// one whose length is inferred, a replicated array of rows read by
// rank-varying code (its gradient summed over ranks, every element of every
// row), and a helper taking `double x[][NY]` that communicates (inlined; it
// was refused before).  Reduced from test/realworld/poisson2d_cart.c, whose
// scratch shadow was maxn doubles instead of maxn rows.  Reverse mode
// against the closed form and central differences, forward mode against
// reverse (the dot-product test), at 1-4 ranks.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
// RUN: %mpiad-emit %s -I%S/../Inputs -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck --check-prefix=GEN %s
// GEN-LABEL: double rows_b(
// GEN: double (*c_b_part)[5] = mpiad_alloc_zeroed((3), sizeof(double[5]), "rows_b", "c", comm);
// GEN: double (*w_b)[5] = mpiad_alloc_zeroed((3), sizeof(double[5]), "rows_b", "w", comm);
// GEN: double (*t_b)[5] = mpiad_alloc_zeroed((nx), sizeof(double[5]), "rows_b", "t", comm);
// GEN: /* inlined: shift_rows(w, nx, comm) */
// GEN: mpiad_batch_add_f64(&mpiad_sum, (const double *)c_b_part, (double *)c_b, (3) * 5);
// GEN-LABEL: double rows_d(
// GEN: w_d = mpiad_alloc_zeroed((3), sizeof(double[5]), "rows_d", "w", comm);
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

#define NX 3
#define NY 5

/* w's first row takes the last row of the rank below (rank 0 keeps it):
   a helper with a pointer-to-rows parameter that communicates. */
static void shift_rows(double x[][NY], int nx, MPI_Comm comm) {
  int me, p;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &p);
  int up = me + 1 < p ? me + 1 : MPI_PROC_NULL;
  int down = me > 0 ? me - 1 : MPI_PROC_NULL;
  MPI_Sendrecv(&x[nx - 1][0], NY, MPI_DOUBLE, up, 7, &x[0][0], NY, MPI_DOUBLE,
               down, 7, comm, MPI_STATUS_IGNORE);
}

/* J = sum over ranks of sum sin(w) + t^2, w = c * x^2 then shifted, t = w + x */
#pragma mpiad differentiate wrt(x, c) varying(x) replicated(c[NX]) scratch(w[NX], t[nx]) name(rows_b)
#pragma mpiad differentiate forward wrt(x, c) scratch(w[NX], t[nx]) name(rows_d)
double rows(double x[][NY], double c[][NY], double w[][NY], double t[][NY], int nx,
            MPI_Comm comm) {
  for (int i = 0; i < nx; i++)
    for (int j = 0; j < NY; j++)
      w[i][j] = c[i][j] * x[i][j] * x[i][j];
  shift_rows(w, nx, comm);
  double s = 0.0, g;
  for (int i = 0; i < nx; i++)
    for (int j = 0; j < NY; j++) {
      t[i][j] = w[i][j] + x[i][j];
      s += sin(w[i][j]) + t[i][j] * t[i][j];
    }
  MPI_Allreduce(&s, &g, 1, MPI_DOUBLE, MPI_SUM, comm);
  return g;
}

static double c_g[NX][NY];
static double J(void *p) {
  const double *v = p; /* x then c */
  double x[NX][NY], c[NX][NY], w[NX][NY], t[NX][NY];
  memcpy(x, v, sizeof x);
  memcpy(c, v + NX * NY, sizeof c);
  return rows(x, c, w, t, NX, MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  int me = hx_rank_g, P = hx_size_g;
  double x[NX][NY], c[NX][NY], xb[NX][NY], cb[NX][NY], w[NX][NY], t[NX][NY];
  double dxc[2 * NX * NY], xc[2 * NX * NY];
  hx_rand(&x[0][0], NX * NY, 5, me, -1.0, 1.0);
  hx_rand(&c[0][0], NX * NY, 6, 0, 0.5, 1.5); /* replicated: the same seed */
  hx_rand(dxc, NX * NY, 7, me, -1.0, 1.0);
  hx_rand(dxc + NX * NY, NX * NY, 8, 0, -1.0, 1.0);
  memcpy(c_g, c, sizeof c);
  memset(xb, 0, sizeof xb);
  memset(cb, 0, sizeof cb);
  double J0 = rows_b(x, xb, c, cb, w, t, NX, MPI_COMM_WORLD, 1.0);
  hx_tape("rows_b");

  /* Closed form.  wv = c x^2 before the shift; after it, row 0 of a rank
     above 0 is the last row of the rank below.  dJ/dw = cos(w) + 2 t,
     dJ/dx = 2 t + (shifted back) dJ/dw * 2 c x, dJ/dc = sum over ranks of
     (shifted back) dJ/dw * x^2. */
  double wv[NX][NY], below[NY], gw[NX][NY], gx[NX][NY], gc[NX][NY], lc[NX][NY];
  int up = me + 1 < P ? me + 1 : MPI_PROC_NULL, down = me > 0 ? me - 1 : MPI_PROC_NULL;
  for (int i = 0; i < NX; i++)
    for (int j = 0; j < NY; j++)
      wv[i][j] = c[i][j] * x[i][j] * x[i][j];
  memcpy(below, wv[0], sizeof below);
  MPI_Sendrecv(wv[NX - 1], NY, MPI_DOUBLE, up, 1, below, NY, MPI_DOUBLE, down, 1,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  double sh[NX][NY], s = 0.0;
  memcpy(sh, wv, sizeof sh);
  memcpy(sh[0], below, sizeof below);
  for (int i = 0; i < NX; i++)
    for (int j = 0; j < NY; j++) {
      double tv = sh[i][j] + x[i][j];
      s += sin(sh[i][j]) + tv * tv;
      gw[i][j] = cos(sh[i][j]) + 2.0 * tv;
      gx[i][j] = 2.0 * tv;
    }
  /* the adjoint of the shift: row 0's gw goes down to the rank below's last row */
  double back[NY], mine0[NY];
  memcpy(mine0, gw[0], sizeof mine0);
  for (int j = 0; j < NY; j++)
    back[j] = 0.0;
  MPI_Sendrecv(gw[0], NY, MPI_DOUBLE, down, 2, back, NY, MPI_DOUBLE, up, 2, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  if (down != MPI_PROC_NULL)
    for (int j = 0; j < NY; j++)
      gw[0][j] = 0.0; /* overwritten by the received row: no path back here */
  (void)mine0;
  if (up != MPI_PROC_NULL)
    for (int j = 0; j < NY; j++)
      gw[NX - 1][j] += back[j];
  for (int i = 0; i < NX; i++)
    for (int j = 0; j < NY; j++) {
      gx[i][j] += gw[i][j] * 2.0 * c[i][j] * x[i][j];
      lc[i][j] = gw[i][j] * x[i][j] * x[i][j];
    }
  MPI_Allreduce(lc, gc, NX * NY, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  double Jw = hx_sum(s);
  hx_check("J", J0, Jw, 1e-13, 1e-300);
  hx_check_vec("dJ/dx vs closed form", &xb[0][0], &gx[0][0], NX * NY, 1e-12, 1e-12);
  hx_check_vec("dJ/dc vs closed form", &cb[0][0], &gc[0][0], NX * NY, 1e-12, 1e-12);

  /* central differences along (dx, dc) */
  memcpy(xc, x, sizeof x);
  memcpy(xc + NX * NY, c, sizeof c);
  double grad[2 * NX * NY];
  memcpy(grad, xb, sizeof xb);
  memcpy(grad + NX * NY, cb, sizeof cb);
  mpiad_input in[2] = {{xc, dxc, NX * NY, 0}, {xc + NX * NY, dxc + NX * NY, NX * NY, 1}};
  double *gp[2] = {grad, grad + NX * NY};
  hx_grad("rows", J, xc, in, 2, gp, 1e-6, 1e-7, 1e-10);

  /* forward mode: dJ along (dx, dc) equals <grad, (dx, dc)> */
  double xd[NX][NY], cd[NX][NY], Jd = 0.0;
  memcpy(xd, dxc, sizeof xd);
  memcpy(cd, dxc + NX * NY, sizeof cd);
  rows_d(x, xd, c, cd, w, t, NX, MPI_COMM_WORLD, &Jd);
  hx_dot_test("rows_d against rows_b", Jd, in, 2, gp, 1e-12);
  return hx_finish() + (MPI_Finalize() != MPI_SUCCESS);
}
