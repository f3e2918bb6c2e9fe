// replicas(...) on the shapes the random computation tester (run_compute.py
// --replicas) found wrong or crashing, each now exact: a per-replica scalar
// passed by value to a same-file helper (its adjoint was dropped), a helper
// taking the address of a per-replica scalar (an in-place Allreduce on a
// one-element array, whose replicated result was taken as varying), a
// fixed array with an initialiser inside a helper called under a
// per-replica condition, free() on one path of an early return, and a
// break under a per-replica condition.  Each replica against central
// differences of the primal and against F_b on that replica.  (The loop
// over replicas is `rep`: the function has a variable `r`.)
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
// RUN: %mpiad-emit %s -I%S/../Inputs -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck --check-prefix=GEN %s
// GEN-LABEL: static void mpiad_H_bv(
// GEN: t_arg_rep[rep] = t[rep];
// GEN: mpiad_fwd_soft(t_arg_rep[rep])
// GEN: /* free(w) after the replicas are done, at the end */
// GEN: mpiad_allreduce_rev(MPI_IN_PLACE, v_b, R, MPI_DOUBLE, MPI_SUM, c, 1);
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static double soft(double a) {
  if (a > 1.0)
    return a - 0.5 * tanh(a);
  return a * a * 0.5 + sin(a);
}
static void gsum_inplace(double *v, MPI_Comm c) {
  MPI_Allreduce(MPI_IN_PLACE, v, 1, MPI_DOUBLE, MPI_SUM, c);
}
static double weights(const double *v, double a, int k) {
  double loc[3] = {0.5, 0.25, 0.125};
  double acc = 0.0;
  for (int i = 0; i < k; i++)
    acc += loc[i % 3] * v[i] * a;
  return acc;
}

#pragma mpiad differentiate wrt(x, s) replicated(s) varying(x, n) replicas(x[n], s)
double H(const double *x, double s, int n, MPI_Comm comm) {
  double *w = malloc(n * sizeof(double));
  for (int i = 0; i < n; i++)
    w[i] = x[i] * s;
  double t = w[0] + 0.3;
  t = soft(t) + soft(w[n - 1]);   /* t by value to a helper */
  double g = t * t;
  gsum_inplace(&g, comm);         /* its address to a helper */
  double q = 0.0;
  if (x[0] > 0.0)                 /* a helper with a fixed array, per replica */
    q = weights(w, t, n);
  for (int i = 0; i < n; i++) {
    q += w[i] * w[i];
    if (q > 4.0)                  /* a break taken by some replicas only */
      break;
  }
  if (s > 1.2) {                  /* an early return on some replicas */
    free(w);
    return g + q;
  }
  double r = g * s + q;
  free(w);
  return r;
}

#define NR 3
#define NL 4

static double gsum(double v) {
  double t = 0.0;
  MPI_Allreduce(&v, &t, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return t;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  MPI_Comm comm = MPI_COMM_WORLD;
  double x[NR * NL], dx[NR * NL], s[NR] = {0.9, 1.3, 1.1}, ds[NR] = {0.4, -0.3, 0.7};
  hx_rand(x, NR * NL, 31, hx_rank_g, -0.6, 0.9);
  hx_rand(dx, NR * NL, 32, hx_rank_g, -1.0, 1.0);
  double bar[NR] = {1.0, -1.5, 0.5}, val[NR], x_b[NR * NL], s_b[NR];
  memset(x_b, 0, sizeof x_b);
  memset(s_b, 0, sizeof s_b);
  H_bv(NR, x, x_b, s, s_b, NL, comm, bar, val);
  hx_tape("H_bv");
  for (int r = 0; r < NR; r++) {
    char label[128];
    const double *xr = x + r * NL, *dr = dx + r * NL;
    double want = H(xr, s[r], NL, comm);
    snprintf(label, sizeof label, "replica %d: value", r);
    hx_check_each(label, val[r], want, 1e-13, 1e-300);
    double h = 1e-6, xp[NL], xm[NL];
    for (int k = 0; k < NL; k++) {
      xp[k] = xr[k] + h * dr[k];
      xm[k] = xr[k] - h * dr[k];
    }
    /* H's value varies over ranks (q does): the objective sums it */
    double fd = gsum(H(xp, s[r] + h * ds[r], NL, comm) -
                     H(xm, s[r] - h * ds[r], NL, comm)) / (2 * h);
    double xdot = 0.0;
    for (int k = 0; k < NL; k++)
      xdot += dr[k] * x_b[r * NL + k];
    double ad = gsum(xdot) + ds[r] * s_b[r];
    snprintf(label, sizeof label, "replica %d: H_bv vs central differences", r);
    hx_check(label, ad, bar[r] * fd, 1e-6, 1e-9);
    double g[NL], sb = 0.0;
    memset(g, 0, sizeof g);
    double v = H_b(xr, g, s[r], &sb, NL, comm, bar[r]);
    snprintf(label, sizeof label, "replica %d: value = H_b's", r);
    hx_check_each(label, val[r], v, 1e-13, 1e-300);
    snprintf(label, sizeof label, "replica %d: gradient = H_b's", r);
    hx_check_vec(label, x_b + r * NL, g, NL, 1e-12, 1e-14);
    snprintf(label, sizeof label, "replica %d: s gradient = H_b's", r);
    hx_check(label, s_b[r], sb, 1e-12, 1e-14);
  }
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
