// Global scalars named in clauses, as miniWeather keeps its diagnostics
// (issue 40): `double mass, te;` at file scope, written through pointers
// by a helper that ends with MPI_Allreduce (`reductions(&mass, &te)`), and
// `te` named in output(...) of a block in the program's driver and of a
// function; a global parameter `kappa` in wrt(...) with varying(kappa)
// (its adjoint kappa_b is this rank's share).  The shadows te_b and
// kappa_b are the caller's: te_b holds the seed on entry and is consumed,
// kappa_b is accumulated (not zeroed on entry); `mass`, in no clause, has
// a shadow zeroed on entry.  Reverse mode against central differences and
// an independent closed form, forward mode against reverse mode, 1-4 ranks.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
// RUN: %mpiad-emit %s -I%S/../Inputs -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck --check-prefix=GEN %s
// GEN: static double mass_b;
// GEN-NEXT: double te_b;
// GEN-NEXT: double kappa_b;
// GEN: globals in clauses: te (te_b), kappa (kappa_b)
// GEN: void energy_b(const double *u, double *u_b, int n)
// GEN-NOT: te_b = 0;
// GEN: mass_b = 0;
// GEN: void energy_d(const double *u, double *u_d, int n)
// GEN: void run_b(double *v, double *v_b)
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include "harness.h"

double mass, te;    /* the program's diagnostics */
double kappa = 0.7; /* a model parameter kept at file scope */
/* The shadows the generated code defines (as --emit-header declares them),
 * for the driver below. */
extern double te_b, kappa_b, te_d, kappa_d;

enum { N = 6 };

static void reductions(const double *u, int n, double *m, double *t) {
  double loc[2] = {0.0, 0.0}, glob[2];
  for (int i = 0; i < n; i++) {
    loc[0] += u[i];
    loc[1] += kappa * u[i] * u[i];
  }
  *t = loc[1]; /* the rank's part first, as miniWeather's reductions() */
  MPI_Allreduce(loc, glob, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  *m = glob[0];
  *t = glob[1];
}

#pragma mpiad differentiate wrt(u, kappa) output(te) varying(u, kappa)
#pragma mpiad differentiate forward wrt(u, kappa) output(te) varying(u, kappa)
void energy(const double *u, int n) {
  reductions(u, n, &mass, &te);
  te = te * te + mass;
}

/* A step of a time loop in the driver: u is smoothed, then the
 * diagnostics are computed on it. */
static void step(double *u, int n) {
  for (int i = n - 1; i > 0; i--)
    u[i] = 0.5 * (u[i] + u[i - 1]);
  u[0] = 0.9 * u[0];
}

static double J(void *ctx) {
  double *x = ctx;
  energy(x, N);
  return te;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  double u[N], ub[N] = {0}, du[N];
  hx_rand(u, N, 3, hx_rank_g, 0.2, 1.0);
  hx_rand(du, N, 4, hx_rank_g, -1.0, 1.0);

  /* energy_b: te = (kappa * S2)^2 + S1 with S1, S2 the sums over ranks
   * of u and u^2: dte/du_i = 2 te2 kappa 2 u_i + 1, dte/dkappa (this
   * rank's share) = 2 te2 * (its part of S2). */
  te_b = 1.0;
  kappa_b = 0.25; /* accumulated into, not zeroed */
  energy_b(u, ub, N);
  double s1 = 0.0, s2 = 0.0, my2 = 0.0;
  for (int i = 0; i < N; i++) {
    s1 += u[i];
    my2 += u[i] * u[i];
  }
  s1 = hx_sum(s1);
  s2 = hx_sum(my2);
  double te2 = kappa * s2;
  hx_check("value", te, te2 * te2 + s1, 1e-14, 1e-300);
  hx_check_each("seed consumed", te_b, 0.0, 1.0, 1e-14);
  hx_check_each("du[0] closed form", ub[0], 2.0 * te2 * kappa * 2.0 * u[0] + 1.0,
                1e-13, 1e-300);
  hx_check_each("dkappa share closed form", kappa_b - 0.25, 2.0 * te2 * my2,
                1e-13, 1e-300);
  hx_tape("energy_b");
  /* Against central differences along (du, dk) with the rank's own kappa. */
  double dk = 0.3 - 0.1 * hx_rank_g;
  mpiad_input in[2] = {{u, du, N, 0}, {&kappa, &dk, 1, 0}};
  double kb = kappa_b - 0.25;
  double *xb[2] = {ub, &kb};
  hx_grad("energy", J, u, in, 2, xb, 1e-6, 1e-7, 1e-10);
  /* Forward mode along the same direction. */
  double ud[N];
  for (int i = 0; i < N; i++)
    ud[i] = du[i];
  kappa_d = dk;
  energy_d(u, ud, N);
  hx_check("forward vs reverse mode", te_d,
           mpiad_adjoint_directional(in, xb, 2, MPI_COMM_WORLD), 1e-12, 1e-300);

  /* A block of the driver: two steps then the diagnostics, te the output. */
  double v[N], vb[N] = {0}, v0[N];
  hx_rand(v0, N, 5, hx_rank_g, 0.2, 1.0);
  for (int i = 0; i < N; i++)
    v[i] = v0[i];
#pragma mpiad differentiate wrt(v) output(te, v) varying(v) name(run_b)
  {
    step(v, N);
    step(v, N);
    reductions(v, N, &mass, &te);
  }
  double want = te;
  for (int i = 0; i < N; i++)
    v[i] = v0[i];
  te_b = 1.0;
  run_b(v, vb);
  hx_check("block value", te, want, 1e-14, 1e-300);
  /* te = kappa * sum v2^2, v2 = S S v0 (S the smoothing step, linear):
   * dte/dv0 = 2 kappa S^T S^T v2, summed independently here. */
  double w[N];
  for (int i = 0; i < N; i++)
    w[i] = v0[i];
  step(w, N);
  step(w, N);
  double g[N];
  for (int i = 0; i < N; i++)
    g[i] = 2.0 * kappa * w[i];
  for (int k = 0; k < 2; k++) { /* S^T g: the transpose of step */
    double t[N] = {0};
    t[0] = 0.9 * g[0];
    for (int i = N - 1; i > 0; i--) {
      t[i] += 0.5 * g[i];
      t[i - 1] += 0.5 * g[i];
    }
    for (int i = 0; i < N; i++)
      g[i] = t[i];
  }
  double err = 0.0;
  for (int i = 0; i < N; i++)
    err = fmax(err, fabs(vb[i] - g[i]) / fabs(g[i]));
  hx_check_each("block gradient closed form", err, 0.0, 1.0, 1e-13);
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
