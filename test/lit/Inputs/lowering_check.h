/*
 * lowering_check.h - the execution tests of lowered C constructs (switch,
 * comma, chained assignment, assert, calls in loop conditions, MPI handles
 * through macros and variables, MPI return codes).
 *
 * Each tested function has the shape  double F(const double *x, int n)  and is
 * marked twice:
 *   #pragma mpiad differentiate forward wrt(x)
 *   #pragma mpiad differentiate reverse wrt(x) varying(x, n)
 * so its generated functions are
 *   double F_b(const double *x, double *x_b, int n, double f_bar)
 *   double F_d(const double *x, double *x_d, int n, double *f_dot)
 *
 * lc_check(label, F, F_b, F_d, x, n) compares, with J = the sum over ranks of
 * F(x_rank) (x differs between ranks):
 *   - the values F_b and F_d return with F's,
 *   - every x_b[i] on every rank with a central difference of J, x[i] moved
 *     on that rank only,
 *   - the tangent of J (the sum over ranks of F_d's) along a random direction
 *     with a central difference of J along it.
 * The differences use the primal only, never generated code.  Each check
 * prints "PASS" or "FAIL" on rank 0; lc_finish() prints "ALL PASSED".
 */
#ifndef MPIAD_LOWERING_CHECK_H
#define MPIAD_LOWERING_CHECK_H

#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "mpiad.h"

#define LC_MAXN 64

typedef double (*lc_primal)(const double *x, int n);
typedef double (*lc_rev)(const double *x, double *x_b, int n, double f_bar);
typedef double (*lc_fwd)(const double *x, double *x_d, int n, double *f_dot);

/* The prototypes of F_b and F_d (generated after F in the same file). */
#define LC_DECLARE(F)                                                          \
  double F##_b(const double *x, double *x_b, int n, double f_bar);             \
  double F##_d(const double *x, double *x_d, int n, double *f_dot);

static int lc_rank, lc_size, lc_fails;

static void lc_init(void) {
  MPI_Comm_rank(MPI_COMM_WORLD, &lc_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &lc_size);
  lc_fails = 0;
}

static double lc_sum(double v) {
  double g;
  MPI_Allreduce(&v, &g, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return g;
}

static int lc_close(double got, double want, double rtol, double atol) {
  return fabs(got - want) <= atol + rtol * fabs(want);
}

/* One result for all ranks: every rank must agree. */
static void lc_report(const char *label, const char *what, int ok,
                      double got, double want) {
  int all;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  if (!all)
    lc_fails++;
  if (lc_rank == 0)
    printf("%s: %s: got %.15g want %.15g %s\n", label, what, got, want,
           all ? "PASS" : "FAIL");
  fflush(stdout);
}

static void lc_check(const char *label, lc_primal F, lc_rev B, lc_fwd D,
                     const double *x0, int n) {
  double x[LC_MAXN], xb[LC_MAXN], xd[LC_MAXN], dx[LC_MAXN];
  const double h = 1e-6, rtol = 1e-6, atol = 1e-8;
  memcpy(x, x0, n * sizeof(double));
  double v = F(x, n);
  memset(xb, 0, sizeof xb);
  double vb = B(x, xb, n, 1.0);
  lc_report(label, "F_b value", vb == v, vb, v);
  lc_report(label, "tape empty", mpiad_tape_bytes() == 0,
            (double)mpiad_tape_bytes(), 0.0);
  /* the gradient, entry by entry, rank by rank */
  int ok = 1;
  double worstGot = 0, worstWant = 0;
  for (int q = 0; q < lc_size; q++)
    for (int i = 0; i < n; i++) {
      double keep = x[i];
      if (lc_rank == q)
        x[i] = keep + h;
      double jp = lc_sum(F(x, n));
      if (lc_rank == q)
        x[i] = keep - h;
      double jm = lc_sum(F(x, n));
      x[i] = keep;
      double fd = (jp - jm) / (2 * h);
      if (lc_rank == q && !lc_close(xb[i], fd, rtol, atol)) {
        ok = 0;
        worstGot = xb[i];
        worstWant = fd;
      }
    }
  lc_report(label, "F_b gradient vs central differences", ok, worstGot,
            worstWant);
  /* the tangent along a direction that differs between ranks */
  for (int i = 0; i < n; i++)
    dx[i] = sin(1.0 + 0.7 * i + 1.3 * lc_rank);
  memcpy(xd, dx, n * sizeof(double));
  double tan = 0.0;
  double vd = D(x, xd, n, &tan);
  lc_report(label, "F_d value", vd == v, vd, v);
  double xp[LC_MAXN], xm[LC_MAXN];
  for (int i = 0; i < n; i++) {
    xp[i] = x[i] + h * dx[i];
    xm[i] = x[i] - h * dx[i];
  }
  double fd = (lc_sum(F(xp, n)) - lc_sum(F(xm, n))) / (2 * h);
  double t = lc_sum(tan);
  lc_report(label, "F_d tangent vs central differences",
            lc_close(t, fd, rtol, atol), t, fd);
}

static int lc_finish(void) {
  if (lc_rank == 0)
    printf(lc_fails ? "SOME CHECKS FAILED: %d\n" : "ALL PASSED\n", lc_fails);
  return lc_fails != 0;
}

#endif
