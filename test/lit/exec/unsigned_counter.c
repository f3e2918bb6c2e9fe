// Loops counted by unsigned integers (size_t, unsigned, uint16_t, uint8_t),
// up from 0 or from 1, and down: the reversed loop was `for (i = n - 1;
// i >= 0; i--)`, which never ends for an unsigned i (a hang, or a heap
// overrun).  It is now `(T)(i + 1) > lo`, which ends where i wraps round,
// for every width.  Empty loops (n = 0) included.  Against closed forms,
// central differences and forward vs reverse, at 1-4 ranks.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
// RUN: %mpiad-emit %s -I%S/../Inputs -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck --check-prefix=GEN %s
// GEN-LABEL: double chain_b(
// GEN: for (uint8_t k = m - 1; (uint8_t)(k + 1) > 0; k--) {
// GEN: for (unsigned int j = n - 1; (unsigned int)(j + 1) > 1; j--) {
// GEN: for (size_t i = n - 1; (size_t)(i + 1) > 0; i--) {
#include <math.h>
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "harness.h"

#define N 7

/* p_i = p_{i-1} / 2 + x_i (recorded, so the reverse needs every i), then
 * more passes with other unsigned counters. */
#pragma mpiad differentiate wrt(x) varying(x) replicated(n, m)
#pragma mpiad differentiate forward wrt(x) varying(x) replicated(n, m)
double chain(const double *x, size_t n, uint8_t m, MPI_Comm comm) {
  double s = 0.0, p = 0.0, t;
  for (size_t i = 0; i < n; i++) {
    p = p * 0.5 + x[i];
    s += p * p;
  }
  for (unsigned j = 1; j < n; j++)
    s += sin(x[j] * x[j - 1]);
  for (uint8_t k = 0; k < m; k++) {
    p = p * 0.25 + x[k];
    s += p * p * p;
  }
  for (uint16_t q = (uint16_t)n; q > 0; q--)
    s += x[q - 1] * x[q - 1] * (double)q;
  MPI_Allreduce(&s, &t, 1, MPI_DOUBLE, MPI_SUM, comm);
  return t;
}

/* The same objective, computed independently (forward, int counters). */
static double chain_ref(const double *x, int n, int m, double *g) {
  double s = 0.0, p = 0.0, dp[N] = {0};
  for (int k = 0; k < N; k++)
    g[k] = 0.0;
  for (int i = 0; i < n; i++) {
    p = p * 0.5 + x[i];
    for (int k = 0; k < N; k++)
      dp[k] = dp[k] * 0.5 + (k == i);
    s += p * p;
    for (int k = 0; k < N; k++)
      g[k] += 2.0 * p * dp[k];
  }
  for (int j = 1; j < n; j++) {
    s += sin(x[j] * x[j - 1]);
    g[j] += cos(x[j] * x[j - 1]) * x[j - 1];
    g[j - 1] += cos(x[j] * x[j - 1]) * x[j];
  }
  for (int k = 0; k < m; k++) {
    p = p * 0.25 + x[k];
    for (int l = 0; l < N; l++)
      dp[l] = dp[l] * 0.25 + (l == k);
    s += p * p * p;
    for (int l = 0; l < N; l++)
      g[l] += 3.0 * p * p * dp[l];
  }
  for (int q = n; q > 0; q--) {
    s += x[q - 1] * x[q - 1] * q;
    g[q - 1] += 2.0 * x[q - 1] * q;
  }
  return s;
}

static size_t n_g;
static uint8_t m_g;
static double J(void *ctx) { return chain(ctx, n_g, m_g, MPI_COMM_WORLD); }

static void run(size_t n, uint8_t m, const char *label) {
  double x[N], dx[N], xb[N] = {0}, want[N];
  n_g = n;
  m_g = m;
  hx_rand(x, N, 51 + n, hx_rank_g, -1.0, 1.0);
  hx_rand(dx, N, 52 + n, hx_rank_g, -1.0, 1.0);
  double J0 = chain_b(x, xb, n, m, MPI_COMM_WORLD, 1.0);
  hx_tape(label);
  double s = chain_ref(x, (int)n, (int)m, want);
  char buf[128];
  snprintf(buf, sizeof buf, "%s: value", label);
  hx_check(buf, J0, hx_sum(s), 1e-13, 1e-300);
  snprintf(buf, sizeof buf, "%s: gradient vs closed form", label);
  hx_check_vec(buf, xb, want, N, 1e-12, 1e-13);
  mpiad_input in = {x, dx, N, 0};
  double *gp[1] = {xb};
  if (n > 0) {
    hx_grad(label, J, x, &in, 1, gp, 1e-6, 1e-7, 1e-10);
    double Jd = 0.0;
    chain_d(x, dx, n, m, MPI_COMM_WORLD, &Jd);
    hx_dot_test(label, Jd, &in, 1, gp, 1e-12);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  run(N, 5, "n = 7, m = 5");
  run(3, 1, "n = 3, m = 1");
  run(1, 0, "n = 1, m = 0");
  run(0, 0, "n = 0, m = 0 (empty loops)");
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
