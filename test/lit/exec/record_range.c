// One record for a loop's range of elements (tool/lib/RecordRange.cpp): a
// loop that overwrites a[base + j] in iteration j, whose old values the
// reverse sweep needs, pushes a[base + lo .. base + hi] once before it and
// pops them once after the reversed loop, instead of one push and one pop per
// iteration.  Cases:
//   rows:    the 2-D copy-back over the interior of samples/halo2d, after a
//            nonlinear step and a halo exchange (one array push per row);
//   rowsf:   the same in float, with a range from a variable lower bound and
//            no rows at all on rank 0 (empty ranges);
//   reads:   the reverse of the loop reads the array, only the element each
//            iteration restores: the range is popped before the reversed
//            loop;
//   touch:   the PRK stencil's touch `in[c] += 0.1 * sin(in[c])` over the rows
//            of a 2-D field read through an index macro (popped before);
//   ahead:   the reverse reads v[j + 1] too, which the reversed loop has
//            restored before it reaches j: popped before;
//   neighbour: the reverse reads v[j - 1] too, which an earlier iteration
//            overwrote and the reverse of j must see new: recorded per
//            element;
//   twice:   the body writes two elements: recorded per element.
// Each is checked at 1-4 ranks against central differences and by the
// dot-product test, with an empty tape after each adjoint.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
// RUN: %mpiad-emit %s -I%S/../Inputs -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck --check-prefix=GEN %s
// GEN-LABEL: double rows_b(
// GEN: mpiad_push_f64_array(&u[i * ys + 1], ny > 0 ? ny : 0);
// GEN-NEXT: for (int j = 1; j <= ny; j++) {
// GEN-NEXT: u[i * ys + j] = un[i * ys + j];
// GEN: /* reverse sweep */
// GEN: mpiad_pop_f64_array(&u[i * ys + 1], ny > 0 ? ny : 0);
// GEN-LABEL: double rowsf_b(
// GEN: mpiad_push_f32_array(&u[i * ys + lo], hi - lo > 0 ? hi - lo : 0);
// GEN-LABEL: double reads_b(
// GEN: mpiad_push_f64_array(&v[0], n > 0 ? n : 0);
// GEN-NEXT: for (int j = 0; j < n; j++) {
// GEN-NEXT: v[j] = v[j] * v[j] * 0.5 + x[j];
// GEN: /* reverse sweep */
// GEN: mpiad_pop_f64_array(&v[0], n > 0 ? n : 0);
// GEN-NEXT: for (int j = n - 1; j >= 0; j--) {
// GEN-NOT: mpiad_pop
// GEN: }
// GEN-LABEL: double touch_b(
// GEN: mpiad_push_f64_array(&in[-istart + (j - jstart + 2) * (width + 2 * 2) + (istart + 2)], iend - istart + 1 > 0 ? iend - istart + 1 : 0);
// GEN: /* reverse sweep */
// GEN: mpiad_pop_f64_array(&in[-istart + (j - jstart + 2) * (width + 2 * 2) + (istart + 2)], iend - istart + 1 > 0 ? iend - istart + 1 : 0);
// GEN-NEXT: for (i = iend; i >= istart; i--) {
// GEN-NEXT: double mpiad_t1 = in_b[i - istart + 2 + (j - jstart + 2) * (width + 2 * 2)];
// GEN-NEXT: in_b[i - istart + 2 + (j - jstart + 2) * (width + 2 * 2)] += 0.1 * mpiad_t1 * cos(in[i - istart + 2 + (j - jstart + 2) * (width + 2 * 2)]);
// GEN-LABEL: double ahead_b(
// GEN: /* reverse sweep */
// GEN: mpiad_pop_f64_array(&v[0], n > 0 ? n : 0);
// GEN-NEXT: for (int j = n - 1; j >= 0; j--) {
// GEN-LABEL: double neighbour_b(
// GEN: mpiad_push_f64(v[j]);
// GEN: v[j] = mpiad_pop_f64();
// GEN-LABEL: double twice_b(
// GEN: mpiad_push_f64(v[j]);
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/* nx rows of ny points with a ghost frame; the rows are split over the
   ranks, and the ghost rows come from the neighbours */
#pragma mpiad differentiate wrt(u0) varying(u0, nx)
#pragma mpiad differentiate forward wrt(u0) varying(u0, nx)
double rows(const double *u0, int nx, int ny, int T, MPI_Comm comm) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int up = rank > 0 ? rank - 1 : MPI_PROC_NULL;
  int down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
  int ys = ny + 2;
  double *u = calloc((size_t)(nx + 2) * ys, sizeof(double));
  double *un = calloc((size_t)(nx + 2) * ys, sizeof(double));
  for (int i = 1; i <= nx; i++)
    for (int j = 1; j <= ny; j++)
      u[i * ys + j] = u0[(i - 1) * ny + (j - 1)];
  for (int t = 0; t < T; t++) {
    MPI_Sendrecv(&u[1 * ys], ys, MPI_DOUBLE, up, 0, &u[(nx + 1) * ys], ys,
                 MPI_DOUBLE, down, 0, comm, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&u[nx * ys], ys, MPI_DOUBLE, down, 1, &u[0], ys, MPI_DOUBLE,
                 up, 1, comm, MPI_STATUS_IGNORE);
    for (int i = 1; i <= nx; i++)
      for (int j = 1; j <= ny; j++) {
        int c = i * ys + j;
        un[c] = u[c] + 0.1 * (u[c - ys] + u[c + ys] + u[c - 1] + u[c + 1] -
                              4.0 * u[c]) +
                0.05 * sin(u[c]);
      }
    for (int i = 1; i <= nx; i++)
      for (int j = 1; j <= ny; j++)
        u[i * ys + j] = un[i * ys + j];
  }
  double s = 0.0;
  for (int i = 1; i <= nx; i++)
    for (int j = 1; j <= ny; j++)
      s += u[i * ys + j] * u[i * ys + j] * (j + 1);
  free(u);
  free(un);
  return s;
}

/* float, the copied range [lo, hi) of each row */
#pragma mpiad differentiate wrt(u0) varying(u0, nx)
#pragma mpiad differentiate forward wrt(u0) varying(u0, nx)
double rowsf(const float *u0, int nx, int ny, int lo, int hi, int T) {
  int ys = ny + 2;
  float *u = calloc((size_t)(nx + 2) * ys, sizeof(float));
  float *un = calloc((size_t)(nx + 2) * ys, sizeof(float));
  for (int i = 1; i <= nx; i++)
    for (int j = 1; j <= ny; j++)
      u[i * ys + j] = u0[(i - 1) * ny + (j - 1)];
  for (int t = 0; t < T; t++) {
    for (int i = 1; i <= nx; i++)
      for (int j = 1; j <= ny; j++)
        un[i * ys + j] = u[i * ys + j] * u[i * ys + j - 1] * 0.5f + 0.3f;
    for (int i = 1; i <= nx; i++)
      for (int j = lo; j < hi; j++)
        u[i * ys + j] = un[i * ys + j];
  }
  double s = 0.0;
  for (int i = 1; i <= nx; i++)
    for (int j = 1; j <= ny; j++)
      s += u[i * ys + j] * (i + j);
  free(u);
  free(un);
  return s;
}

/* the reverse of the loop reads v[j] after its pop: the row is restored
   before the reversed loop */
#pragma mpiad differentiate wrt(x) varying(x)
#pragma mpiad differentiate forward wrt(x) varying(x)
double reads(const double *x, int n) {
  double *v = malloc(n * sizeof(double));
  for (int j = 0; j < n; j++)
    v[j] = x[j];
  for (int t = 0; t < 3; t++)
    for (int j = 0; j < n; j++)
      v[j] = v[j] * v[j] * 0.5 + x[j];
  double s = 0.0;
  for (int j = 0; j < n; j++)
    s += v[j];
  free(v);
  return s;
}

/* PRK's touch of the star stencil: rows of a field with a halo of 2,
   read through an index macro; the sums of sin make it nonlinear */
#define RADIUS 2
#define IN(i, j) in[(i) - istart + RADIUS + ((j) - jstart + RADIUS) * (width + 2 * RADIUS)]
#pragma mpiad differentiate wrt(x) varying(x)
#pragma mpiad differentiate forward wrt(x) varying(x)
double touch(const double *x, int istart, int iend, int jstart, int jend) {
  int i, j, t;
  int width = iend - istart + 1, height = jend - jstart + 1;
  double *in = calloc((size_t)(width + 2 * RADIUS) * (height + 2 * RADIUS),
                      sizeof(double));
  for (j = jstart; j <= jend; j++)
    for (i = istart; i <= iend; i++)
      IN(i, j) = x[(j - jstart) * width + (i - istart)];
  for (t = 0; t < 3; t++)
    for (j = jstart; j <= jend; j++)
      for (i = istart; i <= iend; i++)
        IN(i, j) += 0.1 * sin(IN(i, j));
  double s = 0.0;
  for (j = jstart; j <= jend; j++)
    for (i = istart; i <= iend; i++)
      s += IN(i, j) * IN(i, j) * (1 + i - j);
  free(in);
  return s;
}

/* the reverse reads v[j + 1], which iteration j + 1 overwrote after j
   read it: the reversed loop restores it before it reaches j, so the row
   may be restored before the reversed loop */
#pragma mpiad differentiate wrt(x) varying(x)
#pragma mpiad differentiate forward wrt(x) varying(x)
double ahead(const double *x, int n) {
  double *v = malloc((n + 1) * sizeof(double));
  for (int j = 0; j <= n; j++)
    v[j] = x[j % n];
  for (int t = 0; t < 2; t++)
    for (int j = 0; j < n; j++)
      v[j] = v[j] * v[j + 1] + 0.25 * x[j] + 0.5;
  double s = 0.0;
  for (int j = 0; j <= n; j++)
    s += v[j] * v[j] * (j + 1);
  free(v);
  return s;
}

/* the reverse reads v[j - 1], which the iteration before overwrote: each
   element is restored at its own iteration (restoring them all first would
   give the reverse of iteration j the old v[j - 1]) */
#pragma mpiad differentiate wrt(x) varying(x)
#pragma mpiad differentiate forward wrt(x) varying(x)
double neighbour(const double *x, int n) {
  double *v = malloc((n + 1) * sizeof(double));
  for (int j = 0; j <= n; j++)
    v[j] = x[j % n];
  for (int t = 0; t < 2; t++)
    for (int j = 1; j <= n; j++)
      v[j] = v[j] * v[j - 1] + 0.25 * x[j - 1];
  double s = 0.0;
  for (int j = 0; j <= n; j++)
    s += v[j] * v[j];
  free(v);
  return s;
}

/* two elements written per iteration */
#pragma mpiad differentiate wrt(x) varying(x)
#pragma mpiad differentiate forward wrt(x) varying(x)
double twice(const double *x, int n) {
  double *v = malloc((n + 1) * sizeof(double)), *w = malloc(n * sizeof(double));
  for (int j = 0; j <= n; j++)
    v[j] = x[j % n];
  double s = 0.0;
  for (int t = 0; t < 2; t++) {
    for (int j = 0; j < n; j++)
      w[j] = v[j] * v[j + 1];
    for (int j = 0; j < n; j++) {
      v[j] = w[j];
      v[j + 1] = 0.5 * w[j];
    }
  }
  for (int j = 0; j <= n; j++)
    s += v[j] * v[j];
  free(v);
  free(w);
  return s;
}

#define NX 3
#define NY 4

typedef struct {
  double *u0, *x;
  float *f0;
  int nx, which;
} ctx_t;

static double J(void *p) {
  ctx_t *c = p;
  double v = c->which == 0   ? rows(c->u0, c->nx, NY, 3, MPI_COMM_WORLD)
             : c->which == 1 ? rowsf(c->f0, c->nx, NY, 2, NY, 2)
             : c->which == 2 ? reads(c->x, NY)
             : c->which == 3 ? twice(c->x, NY)
             : c->which == 4 ? touch(c->x, 3, 6, 5, 7) /* 4 x 3 = NY * 3 */
             : c->which == 5 ? neighbour(c->x, NY)
                             : ahead(c->x, NY);
  return c->which == 0 ? v : hx_sum(v);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  int nx = hx_rank_g == 0 ? 0 : NX; /* no rows on rank 0: empty ranges */
  if (hx_size_g == 1)
    nx = NX;
  double u0[NX * NY], du[NX * NY], x[3 * NY], dx[3 * NY];
  float f0[NX * NY];
  hx_rand(u0, NX * NY, 1, hx_rank_g, -1.0, 1.0);
  hx_rand(du, NX * NY, 2, hx_rank_g, -1.0, 1.0);
  hx_rand(x, 3 * NY, 3, hx_rank_g, 0.2, 0.9);
  hx_rand(dx, 3 * NY, 4, hx_rank_g, -1.0, 1.0);
  for (int k = 0; k < NX * NY; k++)
    f0[k] = (float)(0.5 * u0[k] + 0.5);
  ctx_t c = {u0, x, f0, nx, 0};

  /* rows: each rank returns its part; the objective is their sum */
  double ub[NX * NY] = {0}, ud = 0.0;
  rows_b(u0, ub, nx, NY, 3, MPI_COMM_WORLD, 1.0);
  hx_tape("rows_b");
  double h = 1e-6;
  double up[NX * NY], um[NX * NY];
  for (int k = 0; k < NX * NY; k++) {
    up[k] = u0[k] + h * du[k];
    um[k] = u0[k] - h * du[k];
  }
  double fd = (hx_sum(rows(up, nx, NY, 3, MPI_COMM_WORLD)) -
               hx_sum(rows(um, nx, NY, 3, MPI_COMM_WORLD))) / (2 * h);
  double ad = 0.0;
  for (int k = 0; k < nx * NY; k++)
    ad += du[k] * ub[k];
  hx_check("rows_b vs central differences", hx_sum(ad), fd, 1e-6, 1e-9);
  rows_d(u0, du, nx, NY, 3, MPI_COMM_WORLD, &ud);
  hx_check("rows: dot-product test", hx_sum(ud), hx_sum(ad), 1e-12, 1e-300);

  /* rowsf: float, checked at float precision */
  float fb[NX * NY] = {0}, fdir[NX * NY], fp[NX * NY], fm[NX * NY];
  double fdd = 0.0;
  for (int k = 0; k < NX * NY; k++)
    fdir[k] = (float)du[k];
  rowsf_b(f0, fb, nx, NY, 2, NY, 2, 1.0);
  hx_tape("rowsf_b");
  float hf = 1e-2f;
  for (int k = 0; k < NX * NY; k++) {
    fp[k] = f0[k] + hf * fdir[k];
    fm[k] = f0[k] - hf * fdir[k];
  }
  double ffd = (hx_sum(rowsf(fp, nx, NY, 2, NY, 2)) -
                hx_sum(rowsf(fm, nx, NY, 2, NY, 2))) / (2.0 * hf);
  double fad = 0.0;
  for (int k = 0; k < nx * NY; k++)
    fad += (double)fdir[k] * fb[k];
  hx_check("rowsf_b vs central differences", hx_sum(fad), ffd, 1e-3, 1e-4);
  rowsf_d(f0, fdir, nx, NY, 2, NY, 2, &fdd);
  hx_check("rowsf: dot-product test", hx_sum(fdd), hx_sum(fad), 1e-5, 1e-6);

  /* reads, twice, touch (3 * NY inputs), neighbour and ahead */
  const char *names[] = {"", "", "reads_b", "twice_b", "touch_b", "neighbour_b",
                         "ahead_b"};
  for (int which = 2; which <= 6; which++) {
    c.which = which;
    const char *name = names[which];
    int m = which == 4 ? 3 * NY : NY;
    double x_b[3 * NY] = {0}, t = 0.0;
    if (which == 2) {
      reads_b(x, x_b, NY, 1.0);
      reads_d(x, dx, NY, &t);
    } else if (which == 3) {
      twice_b(x, x_b, NY, 1.0);
      twice_d(x, dx, NY, &t);
    } else if (which == 4) {
      touch_b(x, x_b, 3, 6, 5, 7, 1.0);
      touch_d(x, dx, 3, 6, 5, 7, &t);
    } else if (which == 5) {
      neighbour_b(x, x_b, NY, 1.0);
      neighbour_d(x, dx, NY, &t);
    } else {
      ahead_b(x, x_b, NY, 1.0);
      ahead_d(x, dx, NY, &t);
    }
    hx_tape(name);
    mpiad_input in[] = {{x, dx, m, 0}};
    hx_grad(name, J, &c, in, 1, (double *const[]){x_b}, 1e-6, 1e-6, 1e-9);
    double l = 0.0;
    for (int k = 0; k < m; k++)
      l += dx[k] * x_b[k];
    char label[64];
    snprintf(label, sizeof label, "%s: dot-product test", name);
    hx_check(label, hx_sum(t), hx_sum(l), 1e-12, 1e-300);
  }
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
