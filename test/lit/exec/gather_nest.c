// The gather over a whole nest (Gather.cpp nestGatherForm): the reverse of
// a 2-D or 3-D stencil gathers every term, the rows above and below and
// the planes in front and behind included, into one adjoint; the rows where
// some term falls outside the loop's box are guarded, the read adjoints are
// zeroed after the nest, and a run-time check that the iterations' rows
// are disjoint chooses the reversed nest otherwise.  Kernels:
//  - cube: 7-point step in 3-D with a varying coefficient (its adjoint
//    accumulates apart, first), on grids from 1 to 4 planes thick (every
//    row a border row when a dimension has fewer than 3 points);
//  - skew: an asymmetric 2-D stencil with offsets -2..+1 and a different
//    weight per offset, and a nonlinear term that reads the neighbours;
//  - overlap: a row stride smaller than the row (rows overlap: the check
//    fails and the reversed nest runs);
//  - the read adjoints of a slice of the outer loop are zeroed after the
//    last target slice that reads them (skew's outer offsets run from -2
//    to +1: its row i - 1 is zeroed after target row i);
//  - cols: the inner loop runs across rows (stride ys), the outer along
//    them: no gather over the nest;
//  - first: the first term's index holds the row stride with an offset,
//    (i - 1) * ys (a term was dropped when the strides were learnt in the
//    order of the terms);
//  - radial: PRK's form, counters of the function, the arms as loops of a
//    constant trip count over a macro radius (unrolled), `w +=` (its seed
//    read at any element, never zeroed);
//  - macro: PRK's star stencil as written, through its index macros: the
//    row stride an expression (`width + 2 * RADIUS`), the tile's origin
//    subtracted (`(i) - istart + RADIUS`, no term at offset zero), the
//    loop bounds clipped with MAX/MIN (IndexPoly.cpp reads the indices),
//    and one more read of in at a run-time shift, which is not a term of
//    the gathered stencil (the rest of its index differs);
//  - macroset: the same with `OUT(i, j) =` first, so that the reverse
//    zeroes out_b, each row after the last target row that reads it.
// The seeds of the points outside the box are not zero (the objective
// reads every point).  Checked at 1-4 ranks against central differences,
// forward against reverse by the dot-product test.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
// RUN: %mpiad-emit %s -I%S/../Inputs -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck --check-prefix=GEN %s
// GEN-LABEL: double cube_b(
// GEN: if (1 <= nx && 1 <= ny && 1 <= nz && sx >= nx && sp >= (ny - 1) * sx + nx) {
// GEN-NEXT: reverse of the stencil nest over k, j, i, as a gather over the whole nest (u_b at every offset)
// GEN-NEXT: the other accumulations first
// GEN: a_b[k * sp + j * sx + i] +=
// GEN: for (int k = 0; k <= nz + 1; k++) {
// GEN-NEXT: for (int j = 0; j <= ny + 1; j++) {
// GEN-NEXT: if (k >= 2 && k <= nz - 1 && (j >= 2 && j <= ny - 1)) {
// GEN: for (int i = 2; i <= nx - 1; i++) {
// GEN-NEXT: u_b[k * sp + j * sx + i] += {{.*}}w_b[(k + 1) * sp + j * sx + i]
// GEN: } else {
// GEN-NEXT: if (k >= 1 && k <= nz && (j >= 1 && j <= ny)) {
// GEN-NEXT: for (int i = 1; i <= nx; i++) {
// GEN: if (k >= 1 && k <= nz && (j >= 1 && j <= ny)) {
// GEN-NEXT: for (int i = 0; i <= nx - 1; i++) {
// GEN-NEXT: u_b[k * sp + j * sx + i] += {{.*}}w_b[k * sp + j * sx + (i + 1)]
// GEN: if (k - 1 >= 1 && k - 1 <= nz && (j >= 1 && j <= ny)) {
// GEN-NEXT: for (int i = 1; i <= nx; i++) {
// GEN-NEXT: u_b[k * sp + j * sx + i] += {{.*}}w_b[(k - 1) * sp + j * sx + i]
// GEN: the read adjoints of slice k - 1 are read no more: zero them
// GEN-NEXT: if (k - 1 >= 1 && k - 1 <= nz) {
// GEN: w_b[(k - 1) * sp + j * sx + i] = 0;
// GEN: } else {
// GEN-NEXT: for (int k = nz; k >= 1; k--) {
// GEN-LABEL: double skew_b(
// GEN: as a gather over the whole nest
// GEN-NEXT: for (int i = 0; i <= nx + 1; i++) {
// GEN-NEXT: if (i >= 3 && i <= nx - 2) {
// GEN-NEXT: for (int j = 0; j <= (2 < ny + 1 ? 2 : ny + 1); j++) {
// GEN-LABEL: double first_b(
// GEN: for (int j = 0; j <= ny - 1; j++) {
// GEN-NEXT: u_b[i * ys + j] += 1.5 * w_b[(i + 1) * ys + j] + 1.25 * w_b[i * ys + j] + 0.125 * w_b[(i - 1) * ys + j];
// GEN-LABEL: double radial_b(
// GEN: reverse of the stencil nest over i2, j2, as a gather over the whole nest
// GEN-NEXT: for (int i2 = RAD - 2; i2 <= nx + RAD + 1; i2++) {
// GEN-NEXT: if (i2 >= RAD + 2 && i2 <= nx + RAD - 3) {
// GEN: for (int j2 = RAD + 2; j2 <= ny + RAD - 3; j2++) {
// GEN-NEXT: u_b[i2 * ys + j2] += 0.2 * 2 * w_b[i2 * ys + (j2 - 2)] +
// GEN-LABEL: double macro_b(
// GEN: reverse of the stencil nest over j2, i2, as a gather over the whole nest (in_b at every offset)
// GEN-NEXT: the other accumulations first
// GEN: in_b[i2 - istart + (j2 - jstart) * (width + 2 * RADIUS) + shift] += 0.05 * out_b[i2 - istart + (j2 - jstart) * width];
// GEN: for (int j2 = (jstart > 2 ? jstart : 2) - 2; j2 <= (n - 2 - 1 < jend ? n - 2 - 1 : jend) + 2; j2++) {
// GEN: for (int i2 = (istart > 2 ? istart : 2) + 2; i2 <= (n - 2 - 1 < iend ? n - 2 - 1 : iend) - 2; i2++) {
// GEN-NEXT: in_b[i2 - istart + 2 + (j2 - jstart + 2) * (width + 2 * 2)] += weight[2 + 2][0 + 2] * out_b[i2 - 2 - istart + (j2 - jstart) * width] +
// GEN-LABEL: double macroset_b(
// GEN: as a gather over the whole nest (in_b at every offset)
// GEN: the read adjoints of slice j2 - 2 are read no more: zero them
// GEN-NEXT: if (j2 - 2 >= (jstart > 2 ? jstart : 2) && j2 - 2 <= (n - 2 - 1 < jend ? n - 2 - 1 : jend)) {
// GEN-LABEL: double overlap_b(
// GEN: if (1 <= nr && 1 <= nx && ys >= nr) {
// GEN-LABEL: double cols_b(
// GEN-NOT: as a gather over the whole nest
// GEN: return
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/* nz planes of ny rows of nx points inside a frame one point wide */
#pragma mpiad differentiate wrt(x, a) varying(x, a)
#pragma mpiad differentiate forward wrt(x, a) varying(x, a)
double cube(const double *x, const double *a, int nx, int ny, int nz) {
  int sx = nx + 2, sp = (ny + 2) * sx, m = (nz + 2) * sp;
  double *u = malloc(m * sizeof(double)), *w = malloc(m * sizeof(double));
  for (int c = 0; c < m; c++)
    u[c] = x[c] * x[c] + 0.01 * c;
  for (int c = 0; c < m; c++)
    w[c] = 0.5 * u[c];
  for (int k = 1; k <= nz; k++)
    for (int j = 1; j <= ny; j++)
      for (int i = 1; i <= nx; i++) {
        int c = k * sp + j * sx + i;
        w[c] = u[c] + a[c] * (u[c - 1] + u[c + 1] + u[c - sx] + u[c + sx] +
                              u[c - sp] + u[c + sp] - 6.0 * u[c]);
      }
  double s = 0.0;
  for (int c = 0; c < m; c++)
    s += w[c] * w[c] * (c % 5 + 1);
  free(u);
  free(w);
  return s;
}

/* ny + 3 columns of nx + 3 rows: offsets -2..+1 need two rows before */
#pragma mpiad differentiate wrt(x) varying(x)
#pragma mpiad differentiate forward wrt(x) varying(x)
double skew(const double *x, int nx, int ny) {
  int ys = ny + 3, m = (nx + 3) * ys;
  double *u = malloc(m * sizeof(double)), *w = malloc(m * sizeof(double));
  for (int c = 0; c < m; c++)
    u[c] = sin(x[c]) + 0.02 * c;
  for (int c = 0; c < m; c++)
    w[c] = u[c];
  for (int i = 2; i <= nx; i++)
    for (int j = 2; j <= ny; j++)
      w[i * ys + j] = 0.3 * u[i * ys + j - 2] - 0.7 * u[i * ys + j + 1] +
                      1.1 * u[(i - 2) * ys + j] + 0.9 * u[(i + 1) * ys + j] -
                      0.4 * u[(i - 1) * ys + j - 1] +
                      0.2 * u[i * ys + j] * u[(i + 1) * ys + j + 1];
  double s = 0.0;
  for (int c = 0; c < m; c++)
    s += w[c] * w[c] * (c % 3 + 1);
  free(u);
  free(w);
  return s;
}

/* the first term's index holds the row stride with an offset, (i - 1) * ys
 * (the reduced program of run_compute.py --replicas seed 31, where the
 * batched 1-D stencil's index is (i - 1) * R + r: that term was dropped) */
#pragma mpiad differentiate wrt(x) varying(x)
#pragma mpiad differentiate forward wrt(x) varying(x)
double first(const double *x, int nx, int ny) {
  int ys = ny + 2, m = (nx + 2) * ys;
  double *u = malloc(m * sizeof(double)), *w = malloc(m * sizeof(double));
  for (int c = 0; c < m; c++)
    u[c] = x[c] * x[c];
  for (int c = 0; c < m; c++)
    w[c] = 0.0;
  for (int i = 1; i <= nx; i++)
    for (int j = 0; j < ny; j++)
      w[i * ys + j] = 1.5 * u[(i - 1) * ys + j] + 1.25 * u[i * ys + j] +
                      0.125 * u[(i + 1) * ys + j];
  double s = 0.0;
  for (int c = 0; c < m; c++)
    s += w[c] * w[c] * (c % 4 + 1);
  free(u);
  free(w);
  return s;
}

/* PRK's form: counters declared once for the function, the stencil's arms
 * as loops of a constant trip count over a macro radius, and `out +=` (the
 * seed of out is read, never zeroed) */
#define RAD 2
#pragma mpiad differentiate wrt(x) varying(x)
#pragma mpiad differentiate forward wrt(x) varying(x)
double radial(const double *x, int nx, int ny) {
  int i, j, ii;
  int ys = ny + 2 * RAD, m = (nx + 2 * RAD) * ys;
  double *u = malloc(m * sizeof(double)), *w = malloc(m * sizeof(double));
  for (i = 0; i < m; i++)
    u[i] = sin(x[i]) + 0.01 * i;
  for (i = 0; i < m; i++)
    w[i] = 0.5 * u[i];
  for (i = RAD; i < nx + RAD; i++)
    for (j = RAD; j < ny + RAD; j++) {
      for (ii = -RAD; ii <= RAD; ii++)
        w[i * ys + j] += (0.3 + 0.1 * ii) * u[(i + ii) * ys + j];
      for (ii = 1; ii <= RAD; ii++)
        w[i * ys + j] += 0.2 * ii * u[i * ys + j + ii] - 0.15 * u[i * ys + j - ii];
    }
  double s = 0.0;
  for (i = 0; i < m; i++)
    s += w[i] * w[i] * (i % 3 + 1);
  free(u);
  free(w);
  return s;
}

/* PRK's star stencil (test/realworld/stencil2d_star.c) on the tile
 * [istart, iend] x [jstart, jend] of an n x n grid, through its macros */
#define RADIUS 2
#define IN(i, j) in[(i) - istart + RADIUS + ((j) - jstart + RADIUS) * (width + 2 * RADIUS)]
#define OUT(i, j) out[(i) - istart + ((j) - jstart) * width]
#define WEIGHT(ii, jj) weight[ii + RADIUS][jj + RADIUS]
#define MAX(x, y) ((x) > (y) ? (x) : (y))
#define MIN(x, y) ((x) < (y) ? (x) : (y))
#pragma mpiad differentiate wrt(x) varying(x)
#pragma mpiad differentiate forward wrt(x) varying(x)
double macro(const double *x, int n, int istart, int iend, int jstart, int jend,
             int shift) {
  int i, j, ii, jj;
  int width = iend - istart + 1, height = jend - jstart + 1;
  int m = (width + 2 * RADIUS) * (height + 2 * RADIUS);
  double weight[2 * RADIUS + 1][2 * RADIUS + 1];
  double *in = malloc(m * sizeof(double));
  double *out = calloc(width * height, sizeof(double));
  for (i = 0; i < m; i++)
    in[i] = x[i] * (1.0 + 0.5 * x[i]);
  for (jj = -RADIUS; jj <= RADIUS; jj++)
    for (ii = -RADIUS; ii <= RADIUS; ii++)
      WEIGHT(ii, jj) = 0.0;
  for (ii = 1; ii <= RADIUS; ii++) {
    WEIGHT(0, ii) = WEIGHT(ii, 0) = 1.0 / (2.0 * ii * RADIUS);
    WEIGHT(0, -ii) = WEIGHT(-ii, 0) = -1.0 / (2.0 * ii * RADIUS) + 0.1 * ii;
  }
  WEIGHT(0, 0) = 0.3;
  for (j = MAX(jstart, RADIUS); j <= MIN(n - RADIUS - 1, jend); j++)
    for (i = MAX(istart, RADIUS); i <= MIN(n - RADIUS - 1, iend); i++) {
      for (jj = -RADIUS; jj <= RADIUS; jj++)
        OUT(i, j) += WEIGHT(0, jj) * IN(i, j + jj);
      for (ii = -RADIUS; ii < 0; ii++)
        OUT(i, j) += WEIGHT(ii, 0) * IN(i + ii, j);
      for (ii = 1; ii <= RADIUS; ii++)
        OUT(i, j) += WEIGHT(ii, 0) * IN(i + ii, j);
      OUT(i, j) += 0.05 * in[(i) - istart + ((j) - jstart) * (width + 2 * RADIUS) + shift];
    }
  double s = 0.0;
  for (i = 0; i < width * height; i++)
    s += out[i] * out[i] * (i % 3 + 1);
  for (i = 0; i < m; i++)
    s += 0.1 * in[i];
  free(in);
  free(out);
  return s;
}

/* the same tile, with `OUT(i, j) =` first: the reverse zeroes out_b, row by
 * row, once the last target row that reads it is done (offsets counted
 * from the middle term) */
#pragma mpiad differentiate wrt(x) varying(x)
#pragma mpiad differentiate forward wrt(x) varying(x)
double macroset(const double *x, int n, int istart, int iend, int jstart, int jend) {
  int i, j, ii;
  int width = iend - istart + 1, height = jend - jstart + 1;
  int m = (width + 2 * RADIUS) * (height + 2 * RADIUS);
  double *in = malloc(m * sizeof(double));
  double *out = calloc(width * height, sizeof(double));
  for (i = 0; i < m; i++)
    in[i] = x[i] * (1.0 + 0.5 * x[i]);
  for (j = MAX(jstart, RADIUS); j <= MIN(n - RADIUS - 1, jend); j++)
    for (i = MAX(istart, RADIUS); i <= MIN(n - RADIUS - 1, iend); i++) {
      OUT(i, j) = 0.3 * IN(i, j);
      for (ii = 1; ii <= RADIUS; ii++)
        OUT(i, j) += (0.2 + 0.1 * ii) * IN(i, j + ii) - 0.15 * IN(i, j - ii);
      for (ii = 1; ii <= RADIUS; ii++)
        OUT(i, j) += 0.25 * ii * IN(i + ii, j) - 0.05 * IN(i - ii, j);
    }
  double s = 0.0;
  for (i = 0; i < width * height; i++)
    s += out[i] * out[i] * (i % 3 + 1);
  for (i = 0; i < m; i++)
    s += 0.1 * in[i];
  free(in);
  free(out);
  return s;
}

/* rows of nr points, ys = nr - 2 apart: consecutive rows share points */
#pragma mpiad differentiate wrt(x) varying(x)
#pragma mpiad differentiate forward wrt(x) varying(x)
double overlap(const double *x, int nx, int nr) {
  int ys = nr - 2, m = (nx + 2) * ys + nr + 2;
  double *u = malloc(m * sizeof(double)), *w = malloc(m * sizeof(double));
  for (int c = 0; c < m; c++)
    u[c] = x[c] * x[c];
  for (int c = 0; c < m; c++)
    w[c] = 0.0;
  for (int i = 1; i <= nx; i++)
    for (int j = 1; j <= nr; j++) {
      int c = i * ys + j;
      w[c] = 2.0 * u[c] - u[c - 1] + 0.5 * u[c + ys];
    }
  double s = 0.0;
  for (int c = 0; c < m; c++)
    s += w[c] * w[c] * (c % 4 + 1);
  free(u);
  free(w);
  return s;
}

/* the inner loop walks down a column */
#pragma mpiad differentiate wrt(x) varying(x)
double cols(const double *x, int nx, int ny) {
  int ys = ny + 2, m = (nx + 2) * ys;
  double *u = malloc(m * sizeof(double)), *w = malloc(m * sizeof(double));
  for (int c = 0; c < m; c++)
    u[c] = x[c] * x[c];
  for (int c = 0; c < m; c++)
    w[c] = u[c];
  for (int j = 1; j <= ny; j++)
    for (int i = 1; i <= nx; i++) {
      int c = i * ys + j;
      w[c] = u[c] + 0.25 * (u[c - 1] + u[c + 1] + u[c - ys] + u[c + ys]);
    }
  double s = 0.0;
  for (int c = 0; c < m; c++)
    s += w[c] * w[c] * (c % 6 + 1);
  free(u);
  free(w);
  return s;
}

#define MAXM 600

typedef struct {
  double *x, *a;
  int which, nx, ny, nz;
} ctx_t;

static double call(const ctx_t *c) {
  switch (c->which) {
  case 0:
    return cube(c->x, c->a, c->nx, c->ny, c->nz);
  case 1:
    return skew(c->x, c->nx, c->ny);
  case 2:
    return overlap(c->x, c->nx, c->ny);
  case 3:
    return cols(c->x, c->nx, c->ny);
  case 4:
    return first(c->x, c->nx, c->ny);
  case 6: /* the tile [nx, nx + 5] x [ny, ny + 3] of an nz x nz grid */
    return macro(c->x, c->nz, c->nx, c->nx + 5, c->ny, c->ny + 3, 3);
  case 7:
    return macroset(c->x, c->nz, c->nx, c->nx + 5, c->ny, c->ny + 3);
  default:
    return radial(c->x, c->nx, c->ny);
  }
}

static double J(void *p) { return hx_sum(call(p)); }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  /* which, nx, ny, nz */
  const int cases[][4] = {{0, 4, 3, 1}, {0, 3, 4, 2}, {0, 5, 4, 3}, {0, 4, 4, 4},
                          {0, 1, 1, 1}, {1, 5, 6, 0}, {1, 2, 2, 0}, {1, 7, 3, 0},
                          {2, 4, 5, 0}, {3, 4, 5, 0}, {4, 4, 3, 0},
                          {5, 5, 4, 0}, {5, 1, 3, 0},
                          {6, 3, 5, 12}, {6, 0, 0, 6}, {6, 7, 2, 10},
                          {7, 3, 5, 12}, {7, 0, 0, 6}};
  int ncases = sizeof cases / sizeof cases[0];
  for (int q = 0; q < ncases; q++) {
    int which = cases[q][0], nx = cases[q][1], ny = cases[q][2], nz = cases[q][3];
    int n = which == 0   ? (nz + 2) * (ny + 2) * (nx + 2)
            : which == 1 ? (nx + 3) * (ny + 3)
            : which == 2 ? (nx + 2) * (ny - 2) + ny + 2
            : which <= 4 ? (nx + 2) * (ny + 2) /* cols, first */
            : which == 5 ? (nx + 2 * RAD) * (ny + 2 * RAD)
                         : (6 + 2 * RADIUS) * (4 + 2 * RADIUS); /* macro, macroset */
    static double x[MAXM], a[MAXM], dx[MAXM], da[MAXM], x_b[MAXM], a_b[MAXM];
    double t = 0.0;
    memset(x_b, 0, sizeof x_b);
    memset(a_b, 0, sizeof a_b);
    memset(da, 0, sizeof da);
    hx_rand(x, n, 10 + q, hx_rank_g, -1.0, 1.0);
    hx_rand(a, n, 20 + q, hx_rank_g, 0.05, 0.15);
    hx_rand(dx, n, 30 + q, hx_rank_g, -1.0, 1.0);
    if (which == 0)
      hx_rand(da, n, 40 + q, hx_rank_g, -1.0, 1.0);
    static const char *names[] = {"cube_b", "skew_b", "overlap_b", "cols_b", "first_b",
                                  "radial_b", "macro_b", "macroset_b"};
    char name[64];
    snprintf(name, sizeof name, "%s %dx%dx%d", names[which], nx, ny, nz);
    switch (which) {
    case 0:
      cube_b(x, x_b, a, a_b, nx, ny, nz, 1.0);
      cube_d(x, dx, a, da, nx, ny, nz, &t);
      break;
    case 1:
      skew_b(x, x_b, nx, ny, 1.0);
      skew_d(x, dx, nx, ny, &t);
      break;
    case 2:
      overlap_b(x, x_b, nx, ny, 1.0);
      overlap_d(x, dx, nx, ny, &t);
      break;
    case 3:
      cols_b(x, x_b, nx, ny, 1.0);
      break;
    case 4:
      first_b(x, x_b, nx, ny, 1.0);
      first_d(x, dx, nx, ny, &t);
      break;
    case 5:
      radial_b(x, x_b, nx, ny, 1.0);
      radial_d(x, dx, nx, ny, &t);
      break;
    case 6:
      macro_b(x, x_b, nz, nx, nx + 5, ny, ny + 3, 3, 1.0);
      macro_d(x, dx, nz, nx, nx + 5, ny, ny + 3, 3, &t);
      break;
    default:
      macroset_b(x, x_b, nz, nx, nx + 5, ny, ny + 3, 1.0);
      macroset_d(x, dx, nz, nx, nx + 5, ny, ny + 3, &t);
      break;
    }
    hx_tape(name);
    ctx_t c = {x, a, which, nx, ny, nz};
    mpiad_input in[] = {{x, dx, (size_t)n, 0}, {a, da, (size_t)n, 0}};
    hx_grad(name, J, &c, in, which == 0 ? 2 : 1, (double *const[]){x_b, a_b},
            1e-6, 1e-6, 1e-9);
    if (which != 3) {
      double l = 0.0;
      for (int i = 0; i < n; i++)
        l += dx[i] * x_b[i] + da[i] * a_b[i];
      char label[96];
      snprintf(label, sizeof label, "%s: dot-product test", name);
      hx_check(label, hx_sum(t), hx_sum(l), 1e-12, 1e-300);
    }
  }
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
