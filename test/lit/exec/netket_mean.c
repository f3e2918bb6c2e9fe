// NetKet example (DESIGN.md section 2): theta replicated, samples rank-local,
// L = mean over ALL samples of f(theta, sample), written as a local sum,
// Allreduce SUM, divide by the total count (and, second variant, as a local
// mean, Allreduce SUM, divide by the rank count).  Checks: theta_b equals the
// SERIAL gradient over all samples (recomputed independently on every rank from
// the same seeds with the hand-derived formula; no 1/P factor), identical on all
// ranks; each sample's adjoint is its own partial derivative / N; central
// differences in theta and samples together.
//   f(theta, s) = log(1 + z^2) + 0.5 theta_0 s_0^2,  z = sum_j theta_j s_j
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"

#define D 3

/* Total-count version: n may differ per rank. */
#pragma mpiad differentiate wrt(theta, X) replicated(theta, d) varying(X)
double loss(const double *theta, const double *X, int n, int d, MPI_Comm comm) {
  double local = 0.0;
  for (int i = 0; i < n; i++) {
    double z = 0.0;
    for (int j = 0; j < d; j++)
      z += theta[j] * X[i * d + j];
    local += log(1.0 + z * z) + 0.5 * theta[0] * X[i * d] * X[i * d];
  }
  double cnt = n, total = 0.0, total_cnt = 0.0;
  MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, comm);
  MPI_Allreduce(&cnt, &total_cnt, 1, MPI_DOUBLE, MPI_SUM, comm);
  return total / total_cnt;
}

/* Local-mean version: every rank has n samples; divide by the rank count. */
#pragma mpiad differentiate wrt(theta, X) replicated(theta, d) varying(X)
double loss2(const double *theta, const double *X, int n, int d, MPI_Comm comm) {
  double local = 0.0;
  for (int i = 0; i < n; i++) {
    double z = 0.0;
    for (int j = 0; j < d; j++)
      z += theta[j] * X[i * d + j];
    local += log(1.0 + z * z) + 0.5 * theta[0] * X[i * d] * X[i * d];
  }
  local = local / n;
  double total = 0.0;
  int P;
  MPI_Comm_size(comm, &P);
  MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, comm);
  return total / P;
}

static int count_of(int q, int variant) { return variant ? 4 : 3 + 2 * q; }

/* Hand-derived partials of f. */
static void df(const double *th, const double *s, double *dth, double *ds) {
  double z = 0.0;
  for (int j = 0; j < D; j++)
    z += th[j] * s[j];
  double g = 2.0 * z / (1.0 + z * z);
  for (int j = 0; j < D; j++) {
    dth[j] = g * s[j];
    ds[j] = g * th[j];
  }
  dth[0] += 0.5 * s[0] * s[0];
  ds[0] += th[0] * s[0];
}

typedef struct {
  double *theta, *X;
  int n, variant;
} ctx_t;

static double J(void *p) {
  ctx_t *c = p;
  return c->variant ? loss2(c->theta, c->X, c->n, D, MPI_COMM_WORLD)
                    : loss(c->theta, c->X, c->n, D, MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  int r = hx_rank_g, P = hx_size_g;
  for (int variant = 0; variant < 2; variant++) {
    const char *vn = variant ? "local mean / P" : "sum / total count";
    double theta[D], theta_b[D];
    hx_rand(theta, D, 5, HX_REP, -1.0, 1.0);
    int n = count_of(r, variant);
    double *X = malloc(sizeof(double) * n * D);
    double *X_b = malloc(sizeof(double) * n * D);
    hx_rand(X, (size_t)n * D, 100, r, -1.0, 1.0);

    /* serial reference over the global data set */
    int N = 0;
    double gref[D] = {0, 0, 0}, lref = 0.0;
    for (int q = 0; q < P; q++) {
      int nq = count_of(q, variant);
      double *Xq = malloc(sizeof(double) * nq * D);
      hx_rand(Xq, (size_t)nq * D, 100, q, -1.0, 1.0);
      for (int i = 0; i < nq; i++) {
        double dth[D], ds[D], z = 0.0;
        df(theta, Xq + i * D, dth, ds);
        for (int j = 0; j < D; j++) {
          gref[j] += dth[j];
          z += theta[j] * Xq[i * D + j];
        }
        lref += log(1.0 + z * z) + 0.5 * theta[0] * Xq[i * D] * Xq[i * D];
      }
      N += nq;
      free(Xq);
    }
    for (int j = 0; j < D; j++)
      gref[j] /= N;
    lref /= N;

    hx_zero(theta_b, D);
    hx_zero(X_b, (size_t)n * D);
    double L = variant ? loss2_b(theta, theta_b, X, X_b, n, D, MPI_COMM_WORLD, 1.0)
                       : loss_b(theta, theta_b, X, X_b, n, D, MPI_COMM_WORLD, 1.0);
    hx_tape(vn);
    char label[256];
    snprintf(label, sizeof label, "%s: loss vs serial", vn);
    hx_check_each(label, L, lref, 1e-12, 1e-14);
    snprintf(label, sizeof label, "%s: theta_b vs serial gradient", vn);
    hx_check_vec(label, theta_b, gref, D, 1e-12, 1e-14);

    /* theta_b identical on every rank (bitwise) */
    double mx[D], mn[D];
    MPI_Allreduce(theta_b, mx, D, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(theta_b, mn, D, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    double spread = 0.0;
    for (int j = 0; j < D; j++)
      spread = fmax(spread, mx[j] - mn[j]);
    snprintf(label, sizeof label, "%s: theta_b spread over ranks", vn);
    hx_check(label, spread, 0.0, 0.0, 1.0);

    /* each sample's adjoint = its own partial / N */
    double *want = malloc(sizeof(double) * n * D);
    for (int i = 0; i < n; i++) {
      double dth[D];
      df(theta, X + i * D, dth, want + i * D);
      for (int j = 0; j < D; j++)
        want[i * D + j] /= N;
    }
    snprintf(label, sizeof label, "%s: sample adjoints = own partial / N", vn);
    hx_check_vec(label, X_b, want, (size_t)n * D, 1e-12, 1e-14);

    /* central differences, theta and samples together */
    double dth[D], *dX = malloc(sizeof(double) * n * D);
    hx_rand(dth, D, 7, HX_REP, -1.0, 1.0);
    hx_rand(dX, (size_t)n * D, 8, r, -1.0, 1.0);
    ctx_t c = {theta, X, n, variant};
    mpiad_input in[2] = {{theta, dth, D, 1}, {X, dX, (size_t)n * D, 0}};
    double *xb[2] = {theta_b, X_b};
    hx_grad(vn, J, &c, in, 2, xb, 1e-6, 1e-6, 1e-10);
    free(X); free(X_b); free(want); free(dX);
  }
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
