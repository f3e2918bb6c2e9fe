/*
 * hx_case.h - a generic adjoint check for the MPI execution tests
 * (test/lit/exec/mpi_*.c), on top of harness.h.
 *
 * A test wraps each marked function in two adapters with uniform signatures:
 *
 *   P(x, th, y)            the primal: x the varying input (nx values on this
 *                          rank), th the replicated input (nth values, equal on
 *                          all ranks), y the outputs: ny varying values then
 *                          nyr replicated values
 *   B(x, xb, th, thb, y, yb)
 *                          the generated adjoint: xb/thb accumulated (the
 *                          runner zeroes them), yb holds the seed on entry
 *
 * and describes the case in an hx_case.  hx_case_run() then checks, on every
 * rank:
 *   - the adjoint's primal outputs equal the primal's (rtol 1e-13, or
 *     primal_rtol),
 *   - the output seeds are zero on return, the tape is empty,
 *   - the replicated inputs' adjoint is bitwise equal on all ranks,
 *   - central differences of the objective
 *         J = sum over ranks of <yb, varying y>  +  <yb, replicated y> (once)
 *     against <dx, xb> summed over ranks + <dth, thb> (once),
 *   - for a linear map, the exact dot-product test: J evaluated with the
 *     PRIMAL applied to the direction (dx, dth) against the same right-hand
 *     side.
 * For semantics(per_rank), describe every output as varying (nyr = 0): J then
 * sums every rank's <seed, output>.  The seed of the replicated outputs is the
 * same on all ranks (HX_REP).
 *
 * Sizes may differ per rank (nx, ny set by the test before the call).
 * `init` (optional) overrides the random x (and th) with a chosen point.
 */
#ifndef MPIAD_TEST_HX_CASE_H
#define MPIAD_TEST_HX_CASE_H

#include <string.h>

#include "harness.h"

typedef void (*hx_primal_fn)(const double *x, const double *th, double *y);
typedef void (*hx_adjoint_fn)(const double *x, double *xb, const double *th,
                              double *thb, double *y, double *yb);

typedef struct {
  const char *name;
  hx_primal_fn P;
  hx_adjoint_fn B;
  int nx, nth, ny, nyr;
  int linear;         /* also run the dot-product test */
  double lo, hi;      /* range of the random x and th (default [0.5, 1.5)) */
  double h;           /* finite-difference step (default 1e-6) */
  double fd_rtol;     /* default 1e-6 */
  double fd_atol;     /* default 1e-8 */
  double dot_rtol;    /* default 1e-12 */
  double primal_rtol; /* default 1e-13 */
  void (*init)(double *x, double *th); /* optional chosen point */
} hx_case;

typedef struct {
  const hx_case *c;
  double *x, *th, *y, *yb;
} hx_case_ctx;

static double hx_case_J(void *p) {
  hx_case_ctx *k = p;
  const hx_case *c = k->c;
  c->P(k->x, k->th, k->y);
  double v = 0.0, s = 0.0, rep = 0.0;
  for (int i = 0; i < c->ny; i++)
    v += k->yb[i] * k->y[i];
  MPI_Allreduce(&v, &s, 1, MPI_DOUBLE, MPI_SUM, hx_comm_g);
  for (int i = c->ny; i < c->ny + c->nyr; i++)
    rep += k->yb[i] * k->y[i];
  /* a replicated output counts once: take rank 0's value */
  MPI_Bcast(&rep, 1, MPI_DOUBLE, 0, hx_comm_g);
  return s + rep;
}

static double *hx_alloc(int n) {
  double *p = calloc((size_t)(n > 0 ? n : 1), sizeof(double));
  if (!p) {
    fprintf(stderr, "out of memory\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  return p;
}

/* The largest |v[i] - v[i] on rank 0| over ranks and elements. */
static double hx_spread(const double *v, int n) {
  double *v0 = hx_alloc(n), d = 0.0, dmax = 0.0;
  memcpy(v0, v, (size_t)n * sizeof(double));
  MPI_Bcast(v0, n, MPI_DOUBLE, 0, hx_comm_g);
  for (int i = 0; i < n; i++) {
    double e = fabs(v[i] - v0[i]);
    if (!(e <= d))
      d = e;
  }
  MPI_Allreduce(&d, &dmax, 1, MPI_DOUBLE, MPI_MAX, hx_comm_g);
  free(v0);
  return dmax;
}

static void hx_case_run(const hx_case *c, unsigned long long seed) {
  int r = hx_rank_g;
  int nout = c->ny + c->nyr;
  double lo = c->lo, hi = c->hi;
  if (lo == 0.0 && hi == 0.0) {
    lo = 0.5;
    hi = 1.5;
  }
  double h = c->h > 0 ? c->h : 1e-6;
  double fd_rtol = c->fd_rtol > 0 ? c->fd_rtol : 1e-6;
  double fd_atol = c->fd_atol > 0 ? c->fd_atol : 1e-8;
  double dot_rtol = c->dot_rtol > 0 ? c->dot_rtol : 1e-12;
  double primal_rtol = c->primal_rtol > 0 ? c->primal_rtol : 1e-13;
  double *x = hx_alloc(c->nx), *dx = hx_alloc(c->nx), *xb = hx_alloc(c->nx);
  double *th = hx_alloc(c->nth), *dth = hx_alloc(c->nth),
         *thb = hx_alloc(c->nth);
  double *y = hx_alloc(nout), *y0 = hx_alloc(nout), *yb = hx_alloc(nout),
         *yb0 = hx_alloc(nout), *ytmp = hx_alloc(nout);
  char label[512];

  hx_rand(x, c->nx, seed, r, lo, hi);
  hx_rand(dx, c->nx, seed + 1, r, -1.0, 1.0);
  hx_rand(th, c->nth, seed + 2, HX_REP, lo, hi);
  hx_rand(dth, c->nth, seed + 3, HX_REP, -1.0, 1.0);
  hx_rand(yb0, c->ny, seed + 4, r, -1.0, 1.0);
  hx_rand(yb0 + c->ny, c->nyr, seed + 5, HX_REP, -1.0, 1.0);
  if (c->init)
    c->init(x, th);

  c->P(x, th, y0);
  memcpy(yb, yb0, (size_t)nout * sizeof(double));
  c->B(x, xb, th, thb, y, yb);
  hx_tape(c->name);

  snprintf(label, sizeof label, "%s: primal outputs of the adjoint", c->name);
  hx_check_vec(label, y, y0, nout, primal_rtol, 1e-300);
  double ybmax = 0.0;
  for (int i = 0; i < nout; i++)
    if (!(fabs(yb[i]) <= ybmax))
      ybmax = fabs(yb[i]);
  snprintf(label, sizeof label, "%s: output seeds zero on return", c->name);
  hx_check_each(label, ybmax, 0.0, 0.0, 1.0);
  double xbnan = 0.0;
  for (int i = 0; i < c->nx; i++)
    if (xb[i] != xb[i] || fabs(xb[i]) == INFINITY)
      xbnan = 1.0;
  for (int i = 0; i < c->nth; i++)
    if (thb[i] != thb[i] || fabs(thb[i]) == INFINITY)
      xbnan = 1.0;
  snprintf(label, sizeof label, "%s: adjoints finite", c->name);
  hx_check_each(label, xbnan, 0.0, 0.0, 1.0);
  if (c->nth > 0) {
    snprintf(label, sizeof label,
             "%s: replicated input's adjoint equal on all ranks", c->name);
    hx_check(label, hx_spread(thb, c->nth), 0.0, 0.0, 1.0);
  }

  mpiad_input in[2] = {{x, dx, (size_t)c->nx, 0}, {th, dth, (size_t)c->nth, 1}};
  double *xbs[2] = {xb, thb};
  int nin = c->nth > 0 ? 2 : 1;
  hx_case_ctx k = {c, x, th, ytmp, yb0};
  hx_grad(c->name, hx_case_J, &k, in, nin, xbs, h, fd_rtol, fd_atol);

  if (c->linear) {
    hx_case_ctx kd = {c, dx, dth, ytmp, yb0};
    double lhs = hx_case_J(&kd);
    hx_dot_test(c->name, lhs, in, nin, xbs, dot_rtol);
  }
  free(x); free(dx); free(xb); free(th); free(dth); free(thb);
  free(y); free(y0); free(yb); free(yb0); free(ytmp);
}

/* Float twin: the float adjoint against the double adjoint of the same code
 * at the same (float-representable) point and seed.  fc and dc must describe
 * the same sizes. */
static void hx_case_twin(const hx_case *fc, const hx_case *dc,
                         unsigned long long seed, double rtol) {
  int r = hx_rank_g;
  int nout = dc->ny + dc->nyr;
  double *x = hx_alloc(dc->nx), *th = hx_alloc(dc->nth);
  double *xbf = hx_alloc(dc->nx), *xbd = hx_alloc(dc->nx);
  double *thbf = hx_alloc(dc->nth), *thbd = hx_alloc(dc->nth);
  double *yb0 = hx_alloc(nout), *yb = hx_alloc(nout), *yf = hx_alloc(nout),
         *yd = hx_alloc(nout);
  char label[512];
  hx_rand(x, dc->nx, seed, r, 0.5, 1.5);
  hx_rand(th, dc->nth, seed + 2, HX_REP, 0.5, 1.5);
  hx_rand(yb0, dc->ny, seed + 4, r, -1.0, 1.0);
  hx_rand(yb0 + dc->ny, dc->nyr, seed + 5, HX_REP, -1.0, 1.0);
  if (dc->init)
    dc->init(x, th);
  for (int i = 0; i < dc->nx; i++)
    x[i] = (float)x[i];
  for (int i = 0; i < dc->nth; i++)
    th[i] = (float)th[i];
  for (int i = 0; i < nout; i++)
    yb0[i] = (float)yb0[i];
  memcpy(yb, yb0, (size_t)nout * sizeof(double));
  fc->B(x, xbf, th, thbf, yf, yb);
  hx_tape(fc->name);
  memcpy(yb, yb0, (size_t)nout * sizeof(double));
  dc->B(x, xbd, th, thbd, yd, yb);
  hx_tape(dc->name);
  snprintf(label, sizeof label, "%s: float outputs vs double", fc->name);
  hx_check_vec(label, yf, yd, nout, rtol, 1e-6);
  snprintf(label, sizeof label, "%s: float adjoint vs double", fc->name);
  hx_check_vec(label, xbf, xbd, dc->nx, rtol, 1e-6);
  if (dc->nth > 0) {
    snprintf(label, sizeof label, "%s: float th adjoint vs double", fc->name);
    hx_check_vec(label, thbf, thbd, dc->nth, rtol, 1e-6);
  }
  free(x); free(th); free(xbf); free(xbd); free(thbf); free(thbd);
  free(yb0); free(yb); free(yf); free(yd);
}

/* double <-> float copies for the float adapters */
static void hx_tof(float *d, const double *s, int n) {
  for (int i = 0; i < n; i++)
    d[i] = (float)s[i];
}
static void hx_tod(double *d, const float *s, int n) {
  for (int i = 0; i < n; i++)
    d[i] = s[i];
}
static void hx_addd(double *d, const float *s, int n) {
  for (int i = 0; i < n; i++)
    d[i] += s[i];
}

#endif /* MPIAD_TEST_HX_CASE_H */
