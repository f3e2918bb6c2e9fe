// Row-pointer arrays (`double **u`, issue 14): parameters in wrt/output
// whose shadows are the caller's row-pointer arrays of the same shape, a
// halo exchange that sends and receives whole rows (u[1], &u[nx][0]), a
// time loop that swaps two row-pointer arrays, a row taken as a pointer
// (double *row = u[i]), helpers given a row or the whole array, and local
// row-pointer arrays built both ways programs build them (one malloc per
// row, and one block with row pointers into it, also in alloc2d/free2d
// helpers), freed at the end.  The
// rows of every array here are separate allocations, not one block, so a
// shadow indexed as if it were flat would fail.  Reverse mode against
// central differences (with seeds on the output arrays too), forward mode
// against reverse mode, at 1-4 ranks.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
// RUN: %mpiad-emit %s -I%S/../Inputs -o - 2>/dev/null | sed '/^\/\/ [A-Z-]*:/d' | FileCheck --check-prefix=GEN %s
// GEN: double sweep_b(double **u, double **u_b, double **v, double **v_b, int nx, int ny, MPI_Comm comm, double sweep_bar)
// GEN: mpiad_sendrecv_rev(&u_b[nx][0], ny, MPI_DOUBLE, down, 1, u_b[0], ny, MPI_DOUBLE, 1, comm);
// GEN: double steps_b(double **u, double **u_b, double **w, double **w_b,
// GEN: row_b = u_b[i];
// GEN: double steps_d(double **u, double **u_d, double **w, double **w_d,
// GEN: double grid_b(const double *x, double *x_b, int nx, int ny, MPI_Comm comm, double grid_bar)
// GEN: a[i] = malloc(ny * sizeof(double));
// GEN-NEXT: a_b[i] = calloc(1, ny * sizeof(double));
// GEN: b_b[0] = calloc(1, nx * ny * sizeof(double));
// GEN: b_b[i] = b_b[0] + i * ny;
// GEN: free(a[i]);
// GEN-NEXT: free(a_b[i]);
// GEN: double grid_d(
// GEN: a_d[i] = calloc(1, ny * sizeof(double));
// GEN: free(a_d[i]);
// GEN: double grid2_b(
// GEN: /* inlined: alloc2d(nx, ny) */
// GEN: [[A:a_[0-9]+]]_b[0] = calloc(n * m, sizeof(double));
// GEN: [[A]]_b[i_2] = &[[A]]_b[0][i_2 * m];
// GEN: free([[A]][0]);
// GEN-NEXT: free([[A]]_b[0]);
// GEN: double grid2_d(
// GEN: /* inlined: alloc2d(nx, ny) */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define NX 3
#define NY 5

/* Rows 0 and nx + 1 of u are halos; u is updated in place (its halos). */
#pragma mpiad differentiate wrt(u) output(return, u, v) varying(u, v)
#pragma mpiad differentiate forward wrt(u) output(return, u, v) varying(u, v)
double sweep(double **u, double **v, int nx, int ny, MPI_Comm comm) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int up = rank > 0 ? rank - 1 : MPI_PROC_NULL;
  int down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
  MPI_Sendrecv(u[1], ny, MPI_DOUBLE, up, 0, u[nx + 1], ny, MPI_DOUBLE, down, 0,
               comm, MPI_STATUS_IGNORE);
  MPI_Sendrecv(&u[nx][0], ny, MPI_DOUBLE, down, 1, u[0], ny, MPI_DOUBLE, up, 1,
               comm, MPI_STATUS_IGNORE);
  for (int i = 1; i <= nx; i++)
    for (int j = 1; j < ny - 1; j++)
      v[i][j] = 0.25 * (u[i - 1][j] + u[i + 1][j] + u[i][j - 1] + u[i][j + 1]) +
                sin(u[i][j]);
  double s = 0.0, g;
  for (int i = 1; i <= nx; i++)
    for (int j = 1; j < ny - 1; j++)
      s += v[i][j] * v[i][j];
  MPI_Allreduce(&s, &g, 1, MPI_DOUBLE, MPI_SUM, comm);
  return g;
}

static double rowsum(const double *r, int n) {
  double s = 0.0;
  for (int j = 0; j < n; j++)
    s += r[j] * r[j] * r[j];
  return s;
}

static void smooth(double **dst, double **src, int nx, int ny) {
  for (int i = 0; i < nx; i++) {
    for (int j = 1; j < ny - 1; j++)
      dst[i][j] = src[i][j] + 0.1 * sin(src[i][j - 1] * src[i][j + 1]);
    dst[i][0] = src[i][0];
    dst[i][ny - 1] = src[i][ny - 1];
  }
}

/* A time loop over two row-pointer arrays swapped each step. */
#pragma mpiad differentiate wrt(u) output(return, u, w) varying(u, w)
#pragma mpiad differentiate forward wrt(u) output(return, u, w) varying(u, w)
double steps(double **u, double **w, int nx, int ny, int nt, MPI_Comm comm) {
  for (int t = 0; t < nt; t++) {
    if (t % 2 == 0) {
      for (int i = 0; i < nx; i++)
        for (int j = 1; j < ny - 1; j++)
          w[i][j] = u[i][j] + 0.1 * sin(u[i][j - 1] * u[i][j + 1]);
      for (int i = 0; i < nx; i++) {
        w[i][0] = u[i][0];
        w[i][ny - 1] = u[i][ny - 1];
      }
    } else {
      smooth(w, u, nx, ny);
    }
    double **tmp = u;
    u = w;
    w = tmp;
  }
  for (int i = 0; i < nx; i++) {
    double *row = u[i];
    for (int j = 0; j < ny; j++)
      row[j] = row[j] * row[j];
  }
  double s = 0.0, g;
  for (int i = 0; i < nx; i++)
    s += rowsum(u[i], ny);
  MPI_Allreduce(&s, &g, 1, MPI_DOUBLE, MPI_SUM, comm);
  return g;
}

/* Local row-pointer arrays: one malloc per row, and one block. */
#pragma mpiad differentiate wrt(x) varying(x)
#pragma mpiad differentiate forward wrt(x) varying(x)
double grid(const double *x, int nx, int ny, MPI_Comm comm) {
  double **a = malloc(nx * sizeof(double *));
  for (int i = 0; i < nx; i++)
    a[i] = malloc(ny * sizeof(double));
  double **b = malloc(nx * sizeof *b);
  b[0] = malloc(nx * ny * sizeof(double));
  for (int i = 1; i < nx; i++)
    b[i] = b[0] + i * ny;
  for (int i = 0; i < nx; i++)
    for (int j = 0; j < ny; j++) {
      a[i][j] = x[i * ny + j];
      b[i][j] = sin(a[i][j]);
    }
  for (int i = 1; i < nx; i++)
    memcpy(a[i], b[i - 1], ny * sizeof(double));
  double s = 0.0, g;
  for (int i = 0; i < nx; i++)
    for (int j = 0; j < ny; j++)
      s += a[i][j] * b[i][j] * x[i * ny + j];
  for (int i = 0; i < nx; i++)
    free(a[i]);
  free(a);
  free(b[0]);
  free(b);
  MPI_Allreduce(&s, &g, 1, MPI_DOUBLE, MPI_SUM, comm);
  return g;
}

/* A row-pointer array from same-file helpers, as codes write alloc2d. */
static double **alloc2d(int n, int m) {
  double **a;
  int i;
  a = (double **)malloc(n * sizeof(double *));
  a[0] = (double *)calloc(n * m, sizeof(double));
  for (i = 1; i < n; i++)
    a[i] = &a[0][i * m];
  return a;
}
static void free2d(double **a) {
  free(a[0]);
  free(a);
}

#pragma mpiad differentiate wrt(x) varying(x)
#pragma mpiad differentiate forward wrt(x) varying(x)
double grid2(const double *x, int nx, int ny, MPI_Comm comm) {
  double **a = alloc2d(nx, ny);
  for (int i = 0; i < nx; i++)
    for (int j = 0; j < ny; j++)
      a[i][j] = x[i * ny + j] * x[i * ny + j];
  double s = 0.0, g;
  for (int i = 0; i < nx; i++)
    for (int j = 1; j < ny; j++)
      s += sin(a[i][j] * a[i][j - 1]);
  free2d(a);
  MPI_Allreduce(&s, &g, 1, MPI_DOUBLE, MPI_SUM, comm);
  return g;
}

/* Rows allocated one by one, each of n doubles, from a flat vector. */
static double **rows_new(int nrows, int n) {
  double **r = malloc(nrows * sizeof *r);
  for (int i = 0; i < nrows; i++)
    r[i] = malloc(n * sizeof **r);
  return r;
}
static void rows_free(double **r, int nrows) {
  for (int i = 0; i < nrows; i++)
    free(r[i]);
  free(r);
}
static void rows_set(double **r, const double *flat, int nrows, int n) {
  for (int i = 0; i < nrows; i++)
    memcpy(r[i], flat + (size_t)i * n, n * sizeof *flat);
}
static void rows_get(double *flat, double **r, int nrows, int n) {
  for (int i = 0; i < nrows; i++)
    memcpy(flat + (size_t)i * n, r[i], n * sizeof *flat);
}
static double rows_dot(double **r, const double *flat, int nrows, int n) {
  double s = 0.0;
  for (int i = 0; i < nrows; i++)
    for (int j = 0; j < n; j++)
      s += r[i][j] * flat[i * n + j];
  return hx_sum(s);
}

/* sweep: x is u (NX + 2 rows, halos included); J = sweep + <cu, u_final> +
 * <cv, v_final> summed over ranks, v starting from cv0. */
static double cu_g[(NX + 2) * NY], cv_g[(NX + 2) * NY], cv0_g[(NX + 2) * NY];
static double J_sweep(void *ctx) {
  const double *x = ctx;
  double **u = rows_new(NX + 2, NY), **v = rows_new(NX + 2, NY);
  rows_set(u, x, NX + 2, NY);
  rows_set(v, cv0_g, NX + 2, NY);
  double r = sweep(u, v, NX, NY, MPI_COMM_WORLD);
  r += rows_dot(u, cu_g, NX + 2, NY) + rows_dot(v, cv_g, NX + 2, NY);
  rows_free(u, NX + 2);
  rows_free(v, NX + 2);
  return r;
}

static double cw_g[NX * NY];
static double J_steps(void *ctx) {
  const double *x = ctx;
  double **u = rows_new(NX, NY), **w = rows_new(NX, NY);
  rows_set(u, x, NX, NY);
  rows_set(w, cv0_g, NX, NY);
  double r = steps(u, w, NX, NY, 5, MPI_COMM_WORLD);
  r += rows_dot(u, cu_g, NX, NY) + rows_dot(w, cw_g, NX, NY);
  rows_free(u, NX);
  rows_free(w, NX);
  return r;
}

static double J_grid(void *ctx) {
  return grid(ctx, NX, NY, MPI_COMM_WORLD);
}
static double J_grid2(void *ctx) {
  return grid2(ctx, NX, NY, MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  enum { N = (NX + 2) * NY };
  double x[N], dx[N], xb[N], xd[N];
  hx_rand(x, N, 61, hx_rank_g, 0.2, 1.0);
  hx_rand(dx, N, 62, hx_rank_g, -1.0, 1.0);
  hx_rand(cu_g, N, 63, hx_rank_g, -1.0, 1.0);
  hx_rand(cv_g, N, 64, hx_rank_g, -1.0, 1.0);
  hx_rand(cv0_g, N, 65, hx_rank_g, -1.0, 1.0);
  hx_rand(cw_g, NX * NY, 66, hx_rank_g, -1.0, 1.0);

  /* sweep */
  {
    double **u = rows_new(NX + 2, NY), **ub = rows_new(NX + 2, NY);
    double **v = rows_new(NX + 2, NY), **vb = rows_new(NX + 2, NY);
    rows_set(u, x, NX + 2, NY);
    rows_set(v, cv0_g, NX + 2, NY);
    rows_set(ub, cu_g, NX + 2, NY);
    rows_set(vb, cv_g, NX + 2, NY);
    double val = sweep_b(u, ub, v, vb, NX, NY, MPI_COMM_WORLD, 1.0);
    hx_tape("sweep_b");
    rows_set(u, x, NX + 2, NY);
    rows_set(v, cv0_g, NX + 2, NY);
    hx_check("sweep_b value", val, sweep(u, v, NX, NY, MPI_COMM_WORLD), 1e-14,
             1e-300);
    rows_get(xb, ub, NX + 2, NY);
    mpiad_input in = {x, dx, N, 0};
    double *xbp[1] = {xb};
    hx_grad("sweep_b", J_sweep, x, &in, 1, xbp, 1e-6, 1e-7, 1e-10);

    /* Forward: <seeds, tangent of the outputs> equals <dx, x_b>. */
    double **ud = rows_new(NX + 2, NY), **vd = rows_new(NX + 2, NY);
    rows_set(u, x, NX + 2, NY);
    rows_set(v, cv0_g, NX + 2, NY);
    rows_set(ud, dx, NX + 2, NY);
    memset(xd, 0, sizeof xd);
    rows_set(vd, xd, NX + 2, NY);
    double dot = 0.0;
    sweep_d(u, ud, v, vd, NX, NY, MPI_COMM_WORLD, &dot);
    double lhs = dot + rows_dot(ud, cu_g, NX + 2, NY) +
                 rows_dot(vd, cv_g, NX + 2, NY);
    hx_dot_test("sweep_d vs sweep_b", lhs, &in, 1, xbp, 1e-12);
    rows_free(u, NX + 2);
    rows_free(ub, NX + 2);
    rows_free(v, NX + 2);
    rows_free(vb, NX + 2);
    rows_free(ud, NX + 2);
    rows_free(vd, NX + 2);
  }

  /* steps */
  {
    double **u = rows_new(NX, NY), **ub = rows_new(NX, NY);
    double **w = rows_new(NX, NY), **wb = rows_new(NX, NY);
    rows_set(u, x, NX, NY);
    rows_set(w, cv0_g, NX, NY);
    rows_set(ub, cu_g, NX, NY);
    rows_set(wb, cw_g, NX, NY);
    steps_b(u, ub, w, wb, NX, NY, 5, MPI_COMM_WORLD, 1.0);
    hx_tape("steps_b");
    rows_get(xb, ub, NX, NY);
    mpiad_input in = {x, dx, NX * NY, 0};
    double *xbp[1] = {xb};
    hx_grad("steps_b", J_steps, x, &in, 1, xbp, 1e-6, 1e-7, 1e-10);

    double **ud = rows_new(NX, NY), **wd = rows_new(NX, NY);
    rows_set(u, x, NX, NY);
    rows_set(w, cv0_g, NX, NY);
    rows_set(ud, dx, NX, NY);
    memset(xd, 0, sizeof xd);
    rows_set(wd, xd, NX, NY);
    double dot = 0.0;
    steps_d(u, ud, w, wd, NX, NY, 5, MPI_COMM_WORLD, &dot);
    double lhs = dot + rows_dot(ud, cu_g, NX, NY) + rows_dot(wd, cw_g, NX, NY);
    hx_dot_test("steps_d vs steps_b", lhs, &in, 1, xbp, 1e-12);
    rows_free(u, NX);
    rows_free(ub, NX);
    rows_free(w, NX);
    rows_free(wb, NX);
    rows_free(ud, NX);
    rows_free(wd, NX);
  }

  /* grid */
  {
    memset(xb, 0, sizeof xb);
    double val = grid_b(x, xb, NX, NY, MPI_COMM_WORLD, 1.0);
    hx_tape("grid_b");
    hx_check("grid_b value", val, J_grid(x), 1e-14, 1e-300);
    mpiad_input in = {x, dx, NX * NY, 0};
    double *xbp[1] = {xb};
    hx_grad("grid_b", J_grid, x, &in, 1, xbp, 1e-6, 1e-7, 1e-10);
    memcpy(xd, dx, sizeof xd);
    double dot = 0.0;
    grid_d(x, xd, NX, NY, MPI_COMM_WORLD, &dot);
    hx_dot_test("grid_d vs grid_b", dot, &in, 1, xbp, 1e-12);

    memset(xb, 0, sizeof xb);
    val = grid2_b(x, xb, NX, NY, MPI_COMM_WORLD, 1.0);
    hx_tape("grid2_b");
    hx_check("grid2_b value", val, J_grid2(x), 1e-14, 1e-300);
    hx_grad("grid2_b", J_grid2, x, &in, 1, xbp, 1e-6, 1e-7, 1e-10);
    memcpy(xd, dx, sizeof xd);
    dot = 0.0;
    grid2_d(x, xd, NX, NY, MPI_COMM_WORLD, &dot);
    hx_dot_test("grid2_d vs grid2_b", dot, &in, 1, xbp, 1e-12);
  }
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
