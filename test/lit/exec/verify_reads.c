// The read verifier (mpiad-cc --verify, docs/errors.md): the forward sweep
// keeps every value the adjoint will read, and the reverse sweep compares
// what it reads with them.  A correct adjoint passes, with every kept value
// checked; the same adjoint with one record removed by hand (the restore of
// v after `v[i] += 1.0`, the missed record of issue 39) stops at the
// statement whose adjoint reads the stale value, naming it and the
// iteration.
// RUN: %mpiad-cc --verify %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
// RUN: %mpiad-emit --verify %s -I%S/../Inputs -o %t.c
// RUN: FileCheck --check-prefix=GEN --input-file %t.c %s
// GEN-LABEL: double f_b(
// GEN: mpiad_verify_push(v[k]);
// GEN-NEXT: mpiad_verify_push(a[k]);
// GEN-NEXT: s = s * 0.5 + a[k] * sin(v[k]);
// GEN: mpiad_verify_check(a[k], "a[k]", "{{.*}}verify_reads.c:[[@LINE+22]]", "it, k", (const long[]){it, k}, 2);
// GEN-NEXT: mpiad_verify_check(v[k], "v[k]", "{{.*}}verify_reads.c:[[@LINE+21]]", "it, k", (const long[]){it, k}, 2);
// RUN: sed '/mpiad_pop_f64_array/d' %t.c > %t.bad.c
// RUN: %mpicc %t.bad.c -I%S/../Inputs -I%include %libmpiad -lm -o %t.bad
// One rank: at two, the ranks print their messages at once and the lines
// can interleave.
// RUN: not %mpirun 1 %t.bad 2>&1 | FileCheck --check-prefix=BAD %s
// BAD: {{.*}}verify_reads.c:[[@LINE+15]]: mpiad verify: rank {{[01]}}: the adjoint of this statement reads 'v[k]' = {{.*}}, but the forward sweep had {{.*}} there (iteration it, k = 0, {{[0-9]}})
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

#define N 4

#pragma mpiad differentiate wrt(a, v) output(return, v) varying(a, v)
double f(double *v, const double *a, int n) {
  double s = 0.0;
  for (int it = 0; it < 2; it++) {
    for (int i = 0; i < n; i++) v[i] += 1.0;
    for (int k = 0; k < n; k++) s = s * 0.5 + a[k] * sin(v[k]);
  }
  return s;
}

static double v0[N], vs[N];
static double J(void *ctx) {
  memcpy(vs, v0, sizeof vs);
  return hx_sum(f(vs, ctx, N));
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  double a[N], da[N], ab[N] = {0}, vb[N] = {0};
  hx_rand(v0, N, 91, hx_rank_g, -1.0, 1.0);
  hx_rand(a, N, 92, hx_rank_g, -1.0, 1.0);
  hx_rand(da, N, 93, hx_rank_g, -1.0, 1.0);
  memcpy(vs, v0, sizeof vs);
  f_b(vs, vb, a, ab, N, 1.0);
  hx_tape("f_b");
  hx_check("values kept and not checked after f_b",
           (double)mpiad_verify_pending(), 0.0, 0.0, 1.0);
  /* 2 passes x N iterations x (a[k], v[k]) */
  hx_check("values checked", (double)mpiad_verify_checks(), 4.0 * N, 0.0, 1.0);
  mpiad_input in = {a, da, N, 0};
  double *gp[1] = {ab};
  hx_grad("f wrt a", J, a, &in, 1, gp, 1e-6, 1e-7, 1e-10);
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
