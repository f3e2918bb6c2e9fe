// A constant added to an element (`v[i] += 1.0`, `v[k]++`, `v[i] -= 0.25`)
// has no adjoint of its own, but it overwrites a value that the reverse of
// earlier statements reads.  Its record was built (one record of the loop's
// range, RecordRange.cpp) and then dropped with the loop's empty reverse:
// the reverse sweep read the incremented values, a wrong gradient silently
// (a_b = {7.5, 27.5} instead of {7.375, 27.25} for v = {10, 20}).  Also an
// index the tool cannot relate to the reads (the rank's block of v) and a
// loop the tool does not count.  Against closed forms, central differences
// and forward vs reverse, at 1-4 ranks.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
// RUN: %mpiad-emit %s -I%S/../Inputs -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck --check-prefix=GEN %s
// GEN-LABEL: double f_b(
// GEN: mpiad_push_f64_array(&v[0],
// GEN-NEXT: for (int i = 0; i < n; i++) {
// GEN-NEXT: v[i] += 1.0;
// GEN: mpiad_pop_f64_array(&v[0],
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

#define N 5
#define PMAX 4

/* The reported program: s = s / 2 + a[k] v[k] over two passes, v + 1 each. */
#pragma mpiad differentiate wrt(a, v) output(return, v) varying(a, v)
double f(double *v, const double *a, int n) {
  double s = 0.0;
  for (int it = 0; it < 2; it++) {
    for (int i = 0; i < n; i++) v[i] += 1.0;
    for (int k = 0; k < n; k++) s = s * 0.5 + a[k] * v[k];
  }
  return s;
}

/* The rank's own block of v (length n * p) is incremented, by ++, -= and a
 * loop the tool does not count; the sum reads all of v. */
#pragma mpiad differentiate wrt(a, v) output(return, v) varying(a, v)
#pragma mpiad differentiate forward wrt(a, v) output(return, v) varying(a, v)
double g(double *v, const double *a, int n, MPI_Comm comm) {
  int r, p;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &p);
  double s = 0.0, t = 0.0;
  for (int it = 0; it < 3; it++) {
    if (it == 0) {
      for (int i = 0; i < n; i++) v[r * n + i]++;
    } else if (it == 1) {
      int i = 0;
      while (i < n) {
        v[r * n + i] -= 0.25;
        i += 1;
      }
    } else {
      for (int i = n - 1; i >= 0; i--) v[r * n + i] += 2.0;
    }
    for (int k = 0; k < n * p; k++) s = s * 0.5 + a[k] * v[k] * v[k];
  }
  MPI_Allreduce(&s, &t, 1, MPI_DOUBLE, MPI_SUM, comm);
  return t;
}

static double v0[N * PMAX], vs[N * PMAX];
static double Jf(void *ctx) {
  memcpy(vs, v0, sizeof vs);
  return hx_sum(f(vs, ctx, N));
}
static double Jg(void *ctx) {
  memcpy(vs, v0, sizeof vs);
  return g(vs, ctx, N, MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  int P = hx_size_g, r = hx_rank_g;
  int m = N * P;
  double a[N * PMAX], da[N * PMAX], dv[N * PMAX], ab[N * PMAX] = {0},
         vb[N * PMAX] = {0}, want_a[N * PMAX], want_v[N * PMAX];

  /* The numbers, one rank's worth: v = {10, 20}, a = {1, 1}. */
  {
    double v[2] = {10, 20}, a2[2] = {1, 1}, a2b[2] = {0}, v2b[2] = {0};
    f_b(v, v2b, a2, a2b, 2, 1.0);
    hx_check_each("f_b a_b[0] (the reported case)", a2b[0], 7.375, 1e-15, 1e-300);
    hx_check_each("f_b a_b[1] (the reported case)", a2b[1], 27.25, 1e-15, 1e-300);
    hx_check_each("f_b v after the call", v[1], 22.0, 0.0, 1e-300);
  }

  /* f: term (it, k) has weight 0.5^(2N - 1 - (it N + k)). */
  hx_rand(v0, N, 21, r, -1.0, 1.0);
  hx_rand(a, N, 22, r, -1.0, 1.0);
  for (int k = 0; k < N; k++) {
    want_a[k] = want_v[k] = 0.0;
    for (int it = 0; it < 2; it++) {
      double w = pow(0.5, 2 * N - 1 - (it * N + k));
      want_a[k] += w * (v0[k] + it + 1);
      want_v[k] += w * a[k];
    }
  }
  memcpy(vs, v0, sizeof vs);
  f_b(vs, vb, a, ab, N, 1.0);
  hx_tape("f_b");
  hx_check_vec("f: a_b vs closed form", ab, want_a, N, 1e-13, 1e-13);
  hx_check_vec("f: v_b vs closed form", vb, want_v, N, 1e-13, 1e-13);
  {
    hx_rand(da, N, 23, r, -1.0, 1.0);
    mpiad_input in[1] = {{a, da, N, 0}};
    double *gp[1] = {ab};
    hx_grad("f wrt a", Jf, a, in, 1, gp, 1e-6, 1e-7, 1e-10);
  }

  /* g: the increment of element k at pass it, inc[it] on the own block. */
  const double inc[3] = {1.0, -0.25, 2.0};
  hx_rand(v0, m, 31, r, -1.0, 1.0);
  hx_rand(a, m, 32, r, -1.0, 1.0);
  for (int k = 0; k < m; k++) {
    int own = k / N == r;
    double vk = v0[k];
    want_a[k] = want_v[k] = 0.0;
    for (int it = 0; it < 3; it++) {
      if (own)
        vk += inc[it];
      double w = pow(0.5, 3 * m - 1 - (it * m + k));
      want_a[k] += w * vk * vk;
      want_v[k] += w * a[k] * 2.0 * vk;
    }
  }
  hx_zero(ab, m);
  hx_zero(vb, m);
  memcpy(vs, v0, sizeof vs);
  double J0 = g_b(vs, vb, a, ab, N, MPI_COMM_WORLD, 1.0);
  hx_tape("g_b");
  hx_check("g: value", J0, Jg(a), 1e-14, 1e-300);
  hx_check_vec("g: a_b vs closed form", ab, want_a, m, 1e-12, 1e-13);
  hx_check_vec("g: v_b vs closed form", vb, want_v, m, 1e-12, 1e-13);
  hx_rand(da, m, 33, r, -1.0, 1.0);
  hx_rand(dv, m, 34, r, -1.0, 1.0);
  {
    mpiad_input in[1] = {{a, da, (size_t)m, 0}};
    double *gp[1] = {ab};
    hx_grad("g wrt a", Jg, a, in, 1, gp, 1e-6, 1e-7, 1e-10);
  }
  {
    /* forward mode: <g'(a, v) (da, dv), 1> against <(da, dv), (a_b, v_b)> */
    double vd[N * PMAX], Jd = 0.0;
    memcpy(vs, v0, sizeof vs);
    memcpy(vd, dv, sizeof vd);
    g_d(vs, vd, a, da, N, MPI_COMM_WORLD, &Jd);
    mpiad_input in[2] = {{a, da, (size_t)m, 0}, {v0, dv, (size_t)m, 0}};
    double *gp[2] = {ab, vb};
    hx_dot_test("g_d against g_b", Jd, in, 2, gp, 1e-12);
  }
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
