/*
 * fwd_check.h - a generic check of forward (tangent) mode F_d for the
 * execution tests test/lit/exec/fwd_*.c, on top of harness.h / hx_case.h.
 *
 * A test wraps each marked function in adapters with uniform signatures:
 *
 *   P(x, th, y)               the primal (as in hx_case.h): x the varying input
 *                             (nx values on this rank), th the replicated input
 *                             (nth values, equal on all ranks), y the outputs:
 *                             ny varying values then nyr replicated values
 *   D(x, dx, th, dth, y, yd)  the generated tangent F_d: dx/dth the direction,
 *                             y the primal outputs F_d computed (its return
 *                             value and/or pointer outputs), yd their tangents
 *   B(x, xb, th, thb, y, yb)  the generated adjoint F_b of the same function
 *                             (as in hx_case.h; may be NULL)
 *
 * fc_run() checks, on every rank:
 *   - F_d's primal outputs equal the primal's (exactly unless primal_rtol),
 *   - the tangents are finite; a replicated output's tangent is the same on
 *     every rank (the replicated inputs get the same direction everywhere),
 *   - every tangent element against central differences of the primal along
 *     (dx, dth), per rank: |yd - fd| <= max(fd_rtol |fd|, fd_atol max(1,|y|))
 *     (skipped with no_fd, e.g. at a MAX tie),
 *   - optionally every tangent element against an exact expected value,
 *   - the tangent/adjoint consistency (dot-product) test in global semantics:
 *         sum over ranks <yb, yd_varying> + <yb, yd_replicated> (once)
 *      == sum over ranks <dx, xb>        + <dth, thb> (once)
 *     with the replicated seeds equal on all ranks.
 */
#ifndef MPIAD_TEST_FWD_CHECK_H
#define MPIAD_TEST_FWD_CHECK_H

#include <string.h>

#include "hx_case.h"

typedef void (*fc_tangent_fn)(const double *x, const double *dx,
                              const double *th, const double *dth, double *y,
                              double *yd);

typedef struct {
  const char *name;
  hx_primal_fn P;
  fc_tangent_fn D;
  hx_adjoint_fn B; /* NULL: no dot-product test */
  int nx, nth, ny, nyr;
  double lo, hi;      /* range of the random x and th (default [0.5, 1.5)) */
  double h;           /* finite-difference step (default 1e-6) */
  double fd_rtol;     /* default 1e-6 */
  double fd_atol;     /* default 1e-8, scaled by max(1, |y_i|) */
  double dot_rtol;    /* default 1e-12 */
  double primal_rtol; /* default 0: bitwise equal */
  double rep_rtol;    /* replicated tangents equal on all ranks (default 0) */
  int no_fd;          /* skip central differences (non-differentiable point) */
  void (*init)(double *x, double *th);      /* optional chosen point */
  void (*init_dir)(double *dx, double *dth); /* optional chosen direction */
  /* optional exact tangent: want[0..ny+nyr) from the point and direction */
  void (*expect)(const double *x, const double *dx, const double *th,
                 const double *dth, double *want);
  double expect_rtol; /* default 1e-14 */
} fc_case;

static double fc_def(double v, double d) { return v > 0 ? v : d; }

/* Is every element finite? */
static int fc_finite(const double *v, int n) {
  for (int i = 0; i < n; i++)
    if (v[i] != v[i] || fabs(v[i]) == INFINITY)
      return 0;
  return 1;
}

static void fc_run(const fc_case *c, unsigned long long seed) {
  int r = hx_rank_g;
  int nout = c->ny + c->nyr;
  double lo = c->lo, hi = c->hi;
  if (lo == 0.0 && hi == 0.0) {
    lo = 0.5;
    hi = 1.5;
  }
  double h = fc_def(c->h, 1e-6);
  double fd_rtol = fc_def(c->fd_rtol, 1e-6);
  double fd_atol = fc_def(c->fd_atol, 1e-8);
  double dot_rtol = fc_def(c->dot_rtol, 1e-12);
  double primal_rtol = c->primal_rtol;
  double *x = hx_alloc(c->nx), *dx = hx_alloc(c->nx), *xb = hx_alloc(c->nx);
  double *th = hx_alloc(c->nth), *dth = hx_alloc(c->nth),
         *thb = hx_alloc(c->nth);
  double *xs = hx_alloc(c->nx), *ths = hx_alloc(c->nth);
  double *y0 = hx_alloc(nout), *y = hx_alloc(nout), *yd = hx_alloc(nout);
  double *yp = hx_alloc(nout), *ym = hx_alloc(nout), *fd = hx_alloc(nout);
  double *yb = hx_alloc(nout), *yb0 = hx_alloc(nout), *ytmp = hx_alloc(nout);
  char label[512];

  hx_rand(x, c->nx, seed, r, lo, hi);
  hx_rand(dx, c->nx, seed + 1, r, -1.0, 1.0);
  hx_rand(th, c->nth, seed + 2, HX_REP, lo, hi);
  hx_rand(dth, c->nth, seed + 3, HX_REP, -1.0, 1.0);
  hx_rand(yb0, c->ny, seed + 4, r, -1.0, 1.0);
  hx_rand(yb0 + c->ny, c->nyr, seed + 5, HX_REP, -1.0, 1.0);
  if (c->init)
    c->init(x, th);
  if (c->init_dir)
    c->init_dir(dx, dth);

  /* the primal, then the tangent at the same point */
  c->P(x, th, y0);
  for (int i = 0; i < nout; i++) {
    y[i] = -12345.0;
    yd[i] = -54321.0;
  }
  c->D(x, dx, th, dth, y, yd);
  snprintf(label, sizeof label, "%s: F_d primal outputs", c->name);
  hx_check_vec(label, y, y0, nout, primal_rtol, 1e-300);
  snprintf(label, sizeof label, "%s: tangents finite", c->name);
  hx_check_each(label, fc_finite(yd, nout) ? 0.0 : 1.0, 0.0, 0.0, 1.0);
  if (c->nyr > 0) {
    double mx = 0.0;
    for (int i = c->ny; i < nout; i++)
      if (fabs(yd[i]) > mx)
        mx = fabs(yd[i]);
    double gmx = 0.0;
    MPI_Allreduce(&mx, &gmx, 1, MPI_DOUBLE, MPI_MAX, hx_comm_g);
    double sp = hx_spread(yd + c->ny, c->nyr);
    snprintf(label, sizeof label,
             "%s: replicated outputs' tangent equal on all ranks", c->name);
    /* exact by default; relative to the largest tangent with rep_rtol */
    hx_check(label, c->rep_rtol > 0 ? sp / (gmx > 0 ? gmx : 1.0) : sp, 0.0,
             c->rep_rtol, 1.0);
  }

  /* central differences along (dx, dth), element by element on every rank */
  if (!c->no_fd) {
    for (int i = 0; i < c->nx; i++)
      xs[i] = x[i] + h * dx[i];
    for (int i = 0; i < c->nth; i++)
      ths[i] = th[i] + h * dth[i];
    c->P(xs, ths, yp);
    for (int i = 0; i < c->nx; i++)
      xs[i] = x[i] - h * dx[i];
    for (int i = 0; i < c->nth; i++)
      ths[i] = th[i] - h * dth[i];
    c->P(xs, ths, ym);
    /* pass when |yd - fd| <= max(fd_rtol |fd|, fd_atol max(1, |y|)) */
    double worst = 0.0;
    int wi = 0;
    for (int i = 0; i < nout; i++) {
      fd[i] = (yp[i] - ym[i]) / (2.0 * h);
      double at = fd_atol * (fabs(y0[i]) > 1.0 ? fabs(y0[i]) : 1.0);
      double tol = fd_rtol * fabs(fd[i]) > at ? fd_rtol * fabs(fd[i]) : at;
      double e = fabs(yd[i] - fd[i]) / tol;
      if (!(e <= worst)) {
        worst = e;
        wi = i;
      }
    }
    double at = nout ? fd_atol * (fabs(y0[wi]) > 1.0 ? fabs(y0[wi]) : 1.0)
                     : 1.0;
    snprintf(label, sizeof label,
             "%s: tangent vs central differences (worst element %d)", c->name,
             wi);
    /* relerr = diff / max(|fd|, at / rtol) <= rtol  <=>
     * diff <= max(rtol |fd|, at) */
    hx_check_each(label, nout ? yd[wi] : 0.0, nout ? fd[wi] : 0.0, fd_rtol,
                  at / fd_rtol);
  }

  if (c->expect) {
    double *want = hx_alloc(nout);
    c->expect(x, dx, th, dth, want);
    snprintf(label, sizeof label, "%s: tangent vs exact value", c->name);
    hx_check_vec(label, yd, want, nout, fc_def(c->expect_rtol, 1e-14),
                 1e-300);
    free(want);
  }

  /* the dot-product test against F_b in global semantics */
  if (c->B) {
    memcpy(yb, yb0, (size_t)nout * sizeof(double));
    c->B(x, xb, th, thb, ytmp, yb);
    hx_tape(c->name);
    double v = 0.0, va = 0.0, rep = 0.0, repa = 0.0;
    for (int i = 0; i < c->ny; i++) {
      v += yb0[i] * yd[i];
      va += fabs(yb0[i] * yd[i]);
    }
    for (int i = c->ny; i < nout; i++) {
      rep += yb0[i] * yd[i];
      repa += fabs(yb0[i] * yd[i]);
    }
    double loc[2] = {v, va}, glob[2] = {0, 0};
    MPI_Allreduce(loc, glob, 2, MPI_DOUBLE, MPI_SUM, hx_comm_g);
    double rr[2] = {rep, repa};
    MPI_Bcast(rr, 2, MPI_DOUBLE, 0, hx_comm_g); /* counts once */
    double lhs = glob[0] + rr[0], lhsa = glob[1] + rr[1];
    mpiad_input in[2] = {{x, dx, (size_t)c->nx, 0},
                         {th, dth, (size_t)c->nth, 1}};
    double *xbs[2] = {xb, thb};
    int nin = c->nth > 0 ? 2 : 1;
    double rhs = mpiad_adjoint_directional(in, xbs, nin, hx_comm_g);
    snprintf(label, sizeof label, "%s: dot-product test F_d vs F_b", c->name);
    hx_check(label, rhs, lhs, dot_rtol, lhsa > 0 ? lhsa : 1e-300);
  }
  free(x); free(dx); free(xb); free(th); free(dth); free(thb);
  free(xs); free(ths); free(y0); free(y); free(yd); free(yp); free(ym);
  free(fd); free(yb); free(yb0); free(ytmp);
}

/* Float twin: the float tangent against the double tangent of the same code
 * at the same float-representable point and direction. */
static void fc_twin(const fc_case *fc, const fc_case *dc,
                    unsigned long long seed, double rtol) {
  int r = hx_rank_g;
  int nout = dc->ny + dc->nyr;
  double *x = hx_alloc(dc->nx), *th = hx_alloc(dc->nth);
  double *dx = hx_alloc(dc->nx), *dth = hx_alloc(dc->nth);
  double *yf = hx_alloc(nout), *ydf = hx_alloc(nout), *yd = hx_alloc(nout),
         *ydd = hx_alloc(nout);
  char label[512];
  hx_rand(x, dc->nx, seed, r, 0.5, 1.5);
  hx_rand(dx, dc->nx, seed + 1, r, -1.0, 1.0);
  hx_rand(th, dc->nth, seed + 2, HX_REP, 0.5, 1.5);
  hx_rand(dth, dc->nth, seed + 3, HX_REP, -1.0, 1.0);
  if (dc->init)
    dc->init(x, th);
  for (int i = 0; i < dc->nx; i++) {
    x[i] = (float)x[i];
    dx[i] = (float)dx[i];
  }
  for (int i = 0; i < dc->nth; i++) {
    th[i] = (float)th[i];
    dth[i] = (float)dth[i];
  }
  fc->D(x, dx, th, dth, yf, ydf);
  dc->D(x, dx, th, dth, yd, ydd);
  snprintf(label, sizeof label, "%s: float primal vs double", fc->name);
  hx_check_vec(label, yf, yd, nout, rtol, 1e-6);
  snprintf(label, sizeof label, "%s: float tangent vs double", fc->name);
  hx_check_vec(label, ydf, ydd, nout, rtol, 1e-6);
  free(x); free(th); free(dx); free(dth); free(yf); free(ydf); free(yd);
  free(ydd);
}

#endif /* MPIAD_TEST_FWD_CHECK_H */
