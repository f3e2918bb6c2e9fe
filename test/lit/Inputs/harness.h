/*
 * harness.h - helpers for the execution tests in test/lit/exec/.
 *
 *   hx_init(comm)                      call once after MPI_Init
 *   hx_rand(v, n, seed, rank, lo, hi)  deterministic pseudo-random vector; pass
 *                                      rank = -1 (HX_REP) for a replicated one
 *   hx_check(label, got, want, rtol, atol)   collective comparison, counts failures
 *   hx_tape(label)                     the tape must be empty (after every F_b call)
 *   hx_grad(label, J, ctx, in, nin, x_b, h, rtol, atol)
 *                                      central differences along the directions of
 *                                      `in` vs <dx, x_b> summed over inputs/ranks
 *   hx_dot_test(label, lhs, in, nin, x_b, rtol)
 *                                      exact dot-product test: lhs = <F(dx), y_b>
 *                                      (computed by the test with the PRIMAL) vs
 *                                      <dx, F^T y_b>
 *   hx_sum(v), hx_check_shares(name, J, B, D, n, seed)
 *                                      for functions whose ranks each return a
 *                                      share of the objective: value, tape,
 *                                      central differences, forward vs reverse
 *   hx_finish()                        prints "ALL PASSED" on rank 0 if nothing
 *                                      failed (else "SOME CHECKS FAILED: n"),
 *                                      returns the exit code for main
 *
 * Every check prints one line on rank 0 ending in PASS or FAIL.  Nothing here
 * is marked for differentiation; everything is static so the file can be
 * included by any test.
 */
#ifndef MPIAD_TEST_HARNESS_H
#define MPIAD_TEST_HARNESS_H

#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "mpiad.h"

#define HX_REP (-1)

static MPI_Comm hx_comm_g;
static int hx_rank_g, hx_size_g, hx_fails_g, hx_checks_g;

static void hx_init(MPI_Comm comm) {
  hx_comm_g = comm;
  MPI_Comm_rank(comm, &hx_rank_g);
  MPI_Comm_size(comm, &hx_size_g);
  hx_fails_g = 0;
  hx_checks_g = 0;
  if (hx_rank_g == 0) {
    printf("ranks: %d\n", hx_size_g);
    fflush(stdout);
  }
}

/* 64-bit LCG; uniform double in [0, 1). */
static double hx_uniform(unsigned long long *s) {
  *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(*s >> 11) * (1.0 / 9007199254740992.0);
}

static unsigned long long hx_seed(unsigned long long seed, int rank) {
  unsigned long long s = seed * 0x9E3779B97F4A7C15ULL + 12345u +
                         (unsigned long long)(rank + 1) * 0xD1B54A32D192ED03ULL;
  for (int k = 0; k < 4; k++)
    hx_uniform(&s);
  return s;
}

/* v[0..n) uniform in [lo, hi), from (seed, rank); rank HX_REP gives the same
 * vector on every rank.  A rank can recompute another rank's vector. */
static void hx_rand(double *v, size_t n, unsigned long long seed, int rank,
                    double lo, double hi) {
  unsigned long long s = hx_seed(seed, rank);
  for (size_t i = 0; i < n; i++)
    v[i] = lo + (hi - lo) * hx_uniform(&s);
}

static void hx_randf(float *v, size_t n, unsigned long long seed, int rank,
                     double lo, double hi) {
  unsigned long long s = hx_seed(seed, rank);
  for (size_t i = 0; i < n; i++)
    v[i] = (float)(lo + (hi - lo) * hx_uniform(&s));
}

static void hx_zero(double *v, size_t n) {
  for (size_t i = 0; i < n; i++)
    v[i] = 0.0;
}

static int hx_check(const char *label, double got, double want, double rtol,
                    double atol) {
  hx_checks_g++;
  int f = mpiad_check_close(label, got, want, rtol, atol, hx_comm_g);
  hx_fails_g += f;
  return f;
}

/* A check that holds or not on each rank separately (rank r's own value):
 * every rank's comparison must pass.  Prints rank 0's line and, on a failing
 * rank != 0, that rank's own line. */
static int hx_check_each(const char *label, double got, double want,
                         double rtol, double atol) {
  double diff = fabs(got - want);
  double scale = fabs(want) > atol ? fabs(want) : atol;
  double relerr = diff == 0.0 ? 0.0 : diff / scale;
  int bad = !(relerr <= rtol), anybad = 0;
  MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, hx_comm_g);
  if (hx_rank_g == 0 || bad) {
    printf("%s [rank %d]: got %.17g want %.17g relerr %.3e %s\n", label,
           hx_rank_g, got, want, relerr, anybad ? "FAIL" : "PASS");
    fflush(stdout);
  }
  hx_checks_g++;
  hx_fails_g += anybad;
  return anybad;
}

/* Every element of got[0..n) against want[0..n) on every rank. */
static int hx_check_vec(const char *label, const double *got,
                        const double *want, size_t n, double rtol,
                        double atol) {
  double worst = 0.0;
  size_t wi = 0;
  for (size_t i = 0; i < n; i++) {
    double diff = fabs(got[i] - want[i]);
    double scale = fabs(want[i]) > atol ? fabs(want[i]) : atol;
    double relerr = diff == 0.0 ? 0.0 : diff / scale;
    if (!(relerr <= worst)) { /* NaN sticks */
      worst = relerr;
      wi = i;
    }
  }
  double g = n ? got[wi] : 0.0, w = n ? want[wi] : 0.0;
  char buf[256];
  snprintf(buf, sizeof buf, "%s (worst element %zu)", label, wi);
  return hx_check_each(buf, g, w, rtol, atol);
}

/* The tape must be empty on every rank after an F_b call returned. */
static int hx_tape(const char *label) {
  double local = (double)mpiad_tape_bytes(), mx = 0.0;
  MPI_Allreduce(&local, &mx, 1, MPI_DOUBLE, MPI_MAX, hx_comm_g);
  char buf[256];
  snprintf(buf, sizeof buf, "tape empty after %s", label);
  return hx_check(buf, mx, 0.0, 0.0, 1.0);
}

/* Central differences vs the adjoint along the directions in `in`. */
static int hx_grad(const char *label, mpiad_objective J, void *ctx,
                   mpiad_input *in, int nin, double *const *x_b, double h,
                   double rtol, double atol) {
  double fd = mpiad_fd_directional(J, ctx, in, nin, h);
  double ad = mpiad_adjoint_directional(in, x_b, nin, hx_comm_g);
  char buf[256];
  snprintf(buf, sizeof buf, "%s: adjoint vs central differences", label);
  return hx_check(buf, ad, fd, rtol, atol);
}

/* The dot-product test: lhs = <F(dx), y_b> over the outputs (computed by the
 * caller with the primal F), rhs = <dx, F^T y_b> over the inputs. */
static int hx_dot_test(const char *label, double lhs, const mpiad_input *in,
                       int nin, double *const *x_b, double rtol) {
  double rhs = mpiad_adjoint_directional(in, x_b, nin, hx_comm_g);
  char buf[256];
  snprintf(buf, sizeof buf, "%s: dot-product test", label);
  return hx_check(buf, rhs, lhs, rtol, 1e-300);
}

/* The sum over the ranks of hx_init's communicator of a per-rank share. */
static double hx_sum(double v) {
  double s = 0.0;
  MPI_Allreduce(&v, &s, 1, MPI_DOUBLE, MPI_SUM, hx_comm_g);
  return s;
}

/* A marked function whose ranks each return a share of the objective (its
 * sum over ranks), as seen through three wrappers: J(x) the summed primal,
 * B(x, x_b) the adjoint with seed 1 (returns the share), D(x, x_d, &dot)
 * forward mode (x_d may be overwritten).  At x in [0.2, 1) (n values per
 * rank, from seed): the value, the tape, the gradient against central
 * differences and forward mode against the adjoint. */
typedef double (*hx_share_adjoint_fn)(const double *x, double *x_b);
typedef void (*hx_share_tangent_fn)(const double *x, double *x_d, double *dot);
static void hx_check_shares(const char *name, mpiad_objective J,
                            hx_share_adjoint_fn B, hx_share_tangent_fn D, size_t n,
                            unsigned long long seed) {
  double *x = malloc(4 * n * sizeof *x);
  double *dx = x + n, *xd = x + 2 * n, *xb = x + 3 * n;
  hx_rand(x, n, seed, hx_rank_g, 0.2, 1.0);
  hx_rand(dx, n, seed + 1, hx_rank_g, -1.0, 1.0);
  hx_zero(xb, n);
  double v = B(x, xb);
  hx_tape(name);
  hx_check(name, hx_sum(v), J(x), 1e-14, 1e-300);
  mpiad_input in = {x, dx, n, 0};
  double *xbp[1] = {xb};
  hx_grad(name, J, x, &in, 1, xbp, 1e-6, 1e-7, 1e-10);
  double dot = 0.0;
  for (size_t k = 0; k < n; k++)
    xd[k] = dx[k];
  D(x, xd, &dot);
  char buf[256];
  snprintf(buf, sizeof buf, "%s: forward vs reverse mode", name);
  hx_check(buf, hx_sum(dot), mpiad_adjoint_directional(&in, xbp, 1, hx_comm_g),
           1e-12, 1e-300);
  free(x);
}

static int hx_finish(void) {
  if (hx_rank_g == 0) {
    if (hx_fails_g == 0)
      printf("ALL PASSED (%d checks)\n", hx_checks_g);
    else
      printf("SOME CHECKS FAILED: %d of %d\n", hx_fails_g, hx_checks_g);
    fflush(stdout);
  }
  return hx_fails_g != 0;
}

#endif /* MPIAD_TEST_HARNESS_H */
