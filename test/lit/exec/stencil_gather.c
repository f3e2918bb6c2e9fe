// The reverse of a stencil loop is emitted as a gather with peeled boundary
// iterations (see codegen/stencil-no-tape.c).  This checks it where the
// boundaries matter most: an asymmetric stencil (offsets -1..+2), a loop
// starting at 1, every size from 0 to 9 (so ranges shorter than the stencil),
// with the exact dot-product test <v(du), w> = <du, u_b> (the map is linear),
// and a nonlinear variant against central differences.
// RUN: %mpiad-cc %s -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
#include <math.h>
#include <mpi.h>
#include <stdio.h>

#pragma mpiad differentiate wrt(u) output(v) varying(u)
void st(const double *u, double *v, int n) {
  for (int i = 1; i < n - 2; i++)
    v[i] = 0.5 * u[i - 1] - 2.0 * u[i] + 3.0 * u[i + 1] - 0.25 * u[i + 2];
}

#pragma mpiad differentiate wrt(u) output(v) name(stn_b) varying(u)
void stn(const double *u, double *v, double c, int n) {
  for (int i = 1; i < n - 2; i++)
    v[i] = c * sin(u[i - 1]) + u[i] * u[i + 2] - u[i + 1];
}

static double rnd(unsigned *s) {
  *s = *s * 1103515245u + 12345u;
  return ((*s >> 8) & 0xffff) / 65536.0 - 0.5;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int r, bad = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  unsigned seed = 7u + 13u * (unsigned)r;
  for (int n = 0; n <= 9; n++) {
    double u[9], du[9], w[9], v[9], vd[9], ub[9], wb[9];
    for (int i = 0; i < 9; i++) {
      u[i] = rnd(&seed);
      du[i] = rnd(&seed);
      w[i] = rnd(&seed);
      v[i] = vd[i] = ub[i] = 0;
      wb[i] = w[i];
    }
    /* linear: v(du) by the primal, u_b by the adjoint seeded with w */
    st(du, vd, n);
    st_b(u, ub, v, wb, n);
    double lhs = 0, rhs = 0;
    for (int i = 0; i < n; i++) {
      lhs += vd[i] * w[i];
      rhs += du[i] * ub[i];
    }
    if (fabs(lhs - rhs) > 1e-13 * (fabs(lhs) + 1e-300) && fabs(lhs - rhs) > 1e-15) {
      printf("linear n=%d: dot-product test FAIL: %.17g vs %.17g\n", n, lhs, rhs);
      bad = 1;
    }
    /* nonlinear: central differences of <w, v(u)> along du */
    const double h = 1e-6;
    double up[9], um[9], vp[9] = {0}, vm[9] = {0}, ub2[9] = {0}, wb2[9];
    for (int i = 0; i < 9; i++) {
      up[i] = u[i] + h * du[i];
      um[i] = u[i] - h * du[i];
      wb2[i] = w[i];
    }
    stn(up, vp, 0.7, n);
    stn(um, vm, 0.7, n);
    double fd = 0, ad = 0;
    for (int i = 0; i < n; i++)
      fd += w[i] * (vp[i] - vm[i]) / (2 * h);
    stn_b(u, ub2, v, wb2, 0.7, n);
    for (int i = 0; i < n; i++)
      ad += du[i] * ub2[i];
    if (fabs(fd - ad) > 1e-7 * (fabs(fd) + 1e-12)) {
      printf("nonlinear n=%d: central differences FAIL: %.17g vs %.17g\n", n, ad, fd);
      bad = 1;
    }
  }
  int any = 0;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (r == 0)
    printf(any ? "SOME CHECKS FAILED\n" : "ALL PASSED\n");
  MPI_Finalize();
  return any;
}
