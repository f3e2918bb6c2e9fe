// The same programs differentiated under semantics(global) and
// semantics(per_rank) (pragma otherwise identical), with the expected relations:
//   replicated output y (after an Allreduce):
//     x_b(per_rank) = P * x_b(global)
//     sum_r theta_b(per_rank)_r = P * theta_b(global);  theta_b(global) same on all ranks
//   varying output:
//     x_b(per_rank) = x_b(global);  sum_r theta_b(per_rank)_r = theta_b(global)
// and central differences of each under its own objective: global counts a
// replicated output once and moves theta as one shared variable; per_rank sums the
// outputs of all ranks and moves each rank's copy of theta separately.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
#include <math.h>
#include <mpi.h>
#include <stdio.h>

#include "harness.h"

#define N 5
#define D 3

#pragma mpiad differentiate wrt(x, theta) replicated(theta, d) varying(x)
double rep_g(const double *x, const double *theta, int n, int d, MPI_Comm comm) {
  double loc = 0.0;
  for (int i = 0; i < n; i++) {
    double z = 0.0;
    for (int j = 0; j < d; j++)
      z += theta[j] * cos(x[i] + j);
    loc += z * z + x[i] * theta[0];
  }
  double tot = 0.0;
  MPI_Allreduce(&loc, &tot, 1, MPI_DOUBLE, MPI_SUM, comm);
  return sqrt(1.0 + tot * tot);
}

#pragma mpiad differentiate wrt(x, theta) replicated(theta, d) semantics(per_rank)
double rep_p(const double *x, const double *theta, int n, int d, MPI_Comm comm) {
  double loc = 0.0;
  for (int i = 0; i < n; i++) {
    double z = 0.0;
    for (int j = 0; j < d; j++)
      z += theta[j] * cos(x[i] + j);
    loc += z * z + x[i] * theta[0];
  }
  double tot = 0.0;
  MPI_Allreduce(&loc, &tot, 1, MPI_DOUBLE, MPI_SUM, comm);
  return sqrt(1.0 + tot * tot);
}

#pragma mpiad differentiate wrt(x, theta) replicated(theta[d], d) varying(x)
double var_g(const double *x, const double *theta, int n, int d, MPI_Comm comm) {
  double loc = 0.0;
  for (int i = 0; i < n; i++)
    loc += x[i] * x[i] * theta[i % d];
  double tot = 0.0;
  MPI_Allreduce(&loc, &tot, 1, MPI_DOUBLE, MPI_SUM, comm);
  double s = 0.0;
  for (int j = 0; j < d; j++)
    s += sin(theta[j] * x[j]);
  return s * tot + loc * theta[1];
}

#pragma mpiad differentiate wrt(x, theta) replicated(theta[d], d) semantics(per_rank)
double var_p(const double *x, const double *theta, int n, int d, MPI_Comm comm) {
  double loc = 0.0;
  for (int i = 0; i < n; i++)
    loc += x[i] * x[i] * theta[i % d];
  double tot = 0.0;
  MPI_Allreduce(&loc, &tot, 1, MPI_DOUBLE, MPI_SUM, comm);
  double s = 0.0;
  for (int j = 0; j < d; j++)
    s += sin(theta[j] * x[j]);
  return s * tot + loc * theta[1];
}

typedef struct {
  double *x, *theta;
  int which; /* 0 rep global, 1 rep per_rank, 2 var global, 3 var per_rank */
} ctx_t;

static double J(void *p) {
  ctx_t *c = p;
  MPI_Comm w = MPI_COMM_WORLD;
  double v, s;
  switch (c->which) {
  case 0: return rep_g(c->x, c->theta, N, D, w);
  case 1: v = rep_p(c->x, c->theta, N, D, w); break;
  case 2: v = var_g(c->x, c->theta, N, D, w); break;
  default: v = var_p(c->x, c->theta, N, D, w); break;
  }
  MPI_Allreduce(&v, &s, 1, MPI_DOUBLE, MPI_SUM, w);
  return s;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  int r = hx_rank_g, P = hx_size_g;
  MPI_Comm w = MPI_COMM_WORLD;
  char label[256];
  for (int var = 0; var < 2; var++) {
    const char *nm = var ? "varying output" : "replicated output";
    double x[N], theta[D], xg[N], tg[D], xp[N], tp[D];
    hx_rand(x, N, 1200 + var, r, -1.0, 1.0);
    hx_rand(theta, D, 1210 + var, HX_REP, -1.0, 1.0);
    hx_zero(xg, N); hx_zero(tg, D); hx_zero(xp, N); hx_zero(tp, D);
    if (var) {
      var_g_b(x, xg, theta, tg, N, D, w, 1.0);
      hx_tape("var_g_b");
      var_p_b(x, xp, theta, tp, N, D, w, 1.0);
      hx_tape("var_p_b");
    } else {
      rep_g_b(x, xg, theta, tg, N, D, w, 1.0);
      hx_tape("rep_g_b");
      rep_p_b(x, xp, theta, tp, N, D, w, 1.0);
      hx_tape("rep_p_b");
    }
    double fac = var ? 1.0 : (double)P;
    double want[N], tsum[D], twant[D];
    for (int i = 0; i < N; i++)
      want[i] = fac * xg[i];
    snprintf(label, sizeof label, "%s: x_b(per_rank) = %g * x_b(global)", nm, fac);
    hx_check_vec(label, xp, want, N, 1e-13, 1e-300);
    MPI_Allreduce(tp, tsum, D, MPI_DOUBLE, MPI_SUM, w);
    for (int j = 0; j < D; j++)
      twant[j] = fac * tg[j];
    snprintf(label, sizeof label, "%s: sum_r theta_b(per_rank) = %g * theta_b(global)", nm,
             fac);
    hx_check_vec(label, tsum, twant, D, 1e-13, 1e-300);
    double mx[D], mn[D], spread = 0.0;
    MPI_Allreduce(tg, mx, D, MPI_DOUBLE, MPI_MAX, w);
    MPI_Allreduce(tg, mn, D, MPI_DOUBLE, MPI_MIN, w);
    for (int j = 0; j < D; j++)
      spread = fmax(spread, mx[j] - mn[j]);
    snprintf(label, sizeof label, "%s: theta_b(global) spread over ranks", nm);
    hx_check(label, spread, 0.0, 0.0, 1.0);

    double dx[N], dtr[D], dtv[D];
    hx_rand(dx, N, 1220 + var, r, -1.0, 1.0);
    hx_rand(dtr, D, 1230 + var, HX_REP, -1.0, 1.0);
    hx_rand(dtv, D, 1240 + var, r, -1.0, 1.0);
    ctx_t cg = {x, theta, 2 * var}, cp = {x, theta, 2 * var + 1};
    mpiad_input ing[2] = {{x, dx, N, 0}, {theta, dtr, D, 1}};
    mpiad_input inp[2] = {{x, dx, N, 0}, {theta, dtv, D, 0}};
    double *bg[2] = {xg, tg}, *bp[2] = {xp, tp};
    snprintf(label, sizeof label, "%s global", nm);
    hx_grad(label, J, &cg, ing, 2, bg, 1e-6, 1e-6, 1e-10);
    snprintf(label, sizeof label, "%s per_rank", nm);
    hx_grad(label, J, &cp, inp, 2, bp, 1e-6, 1e-6, 1e-10);
  }
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
