// A replicated array read through a local copy of its pointer (`const
// double *wa = w;`, as programs name a parameter's field or a row): its
// length, needed for the per-rank share of its gradient, was not inferred
// ("cannot infer the length of replicated array 'w'"), while the same
// function reading w directly was accepted (found by the metamorphic
// tester).  The copy's accesses now count as the parameter's.  Against the
// closed form, central differences and forward vs reverse, at 1-4 ranks.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
// RUN: %mpiad-emit %s -I%S/../Inputs -o - | FileCheck --check-prefix=GEN %s
// GEN-LABEL: double fit_b(
// GEN: double *w_b_part = mpiad_alloc_zeroed(d, sizeof(double), "fit_b", "w", comm);
// GEN: mpiad_batch_add_f64(&mpiad_sum, w_b_part, w_b, d);
#include <math.h>
#include <mpi.h>
#include <stdio.h>

#include "harness.h"

#define D 3
#define N 4

/* J = sum over ranks and samples of tanh(w . x_i) */
#pragma mpiad differentiate wrt(w, x) replicated(w, d) varying(x, n)
#pragma mpiad differentiate forward wrt(w, x) replicated(w, d) varying(x, n)
double fit(const double *w, const double *x, int n, int d, MPI_Comm comm) {
  const double *wa = w;
  double s = 0.0, t;
  for (int i = 0; i < n; i++) {
    double z = 0.0;
    for (int j = 0; j < d; j++)
      z += wa[j] * x[i * d + j];
    s += tanh(z);
  }
  MPI_Allreduce(&s, &t, 1, MPI_DOUBLE, MPI_SUM, comm);
  return t;
}

static double xs[N * D];
static double Jw(void *ctx) { return fit(ctx, xs, N, D, MPI_COMM_WORLD); }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  double w[D], dw[D], wb[D] = {0}, xb[N * D] = {0}, want[D] = {0}, wantx[N * D];
  hx_rand(w, D, 111, HX_REP, -1.0, 1.0);
  hx_rand(dw, D, 112, HX_REP, -1.0, 1.0);
  hx_rand(xs, N * D, 113, hx_rank_g, -1.0, 1.0);
  double J0 = fit_b(w, wb, xs, xb, N, D, MPI_COMM_WORLD, 1.0);
  hx_tape("fit_b");
  hx_check("J", J0, Jw(w), 1e-14, 1e-300);
  for (int i = 0; i < N; i++) {
    double z = 0.0;
    for (int j = 0; j < D; j++)
      z += w[j] * xs[i * D + j];
    double g = 1.0 - tanh(z) * tanh(z);
    for (int j = 0; j < D; j++) {
      want[j] += g * xs[i * D + j];
      wantx[i * D + j] = g * w[j];
    }
  }
  for (int j = 0; j < D; j++)
    want[j] = hx_sum(want[j]);
  hx_check_vec("dJ/dw vs closed form", wb, want, D, 1e-13, 1e-13);
  hx_check_vec("dJ/dx vs closed form", xb, wantx, N * D, 1e-13, 1e-13);
  mpiad_input in = {w, dw, D, 1};
  double *gp[1] = {wb};
  hx_grad("fit wrt w", Jw, w, &in, 1, gp, 1e-6, 1e-7, 1e-10);
  double Jd = 0.0, xd[N * D] = {0};
  fit_d(w, dw, xs, xd, N, D, MPI_COMM_WORLD, &Jd);
  hx_dot_test("fit_d against fit_b", Jd, &in, 1, gp, 1e-12);
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
