// MPI_Allreduce(MPI_PROD) with zero factors: element 0 has one zero factor
// (on rank P-1), element 1 two zero factors (ranks 0 and 1; one at 1 rank),
// element 2 none, element 3 a zero on rank 0 only.  The exact adjoint of
// s = prod_q x_q is ds/dx_q = product of the OTHER factors (non-zero only on a
// rank holding the single zero, zero everywhere when two factors are zero),
// never NaN.  Varying use y = (r+1) s (global and per_rank), replicated use
// y = s (global: counted once; per_rank: summed), the MPI_IN_PLACE form, and
// float.  Checked exactly against the hand-derived products, and against
// central differences (PROD is multilinear, so they are exact up to rounding).
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
#include <math.h>
#include <mpi.h>
#include <stdio.h>

#include "hx_case.h"

#define N 4

#pragma mpiad differentiate wrt(x) output(y) name(pv_g) varying(x)
void pv(const double *x, double *y, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double s[N];
  MPI_Allreduce(x, s, N, MPI_DOUBLE, MPI_PROD, comm);
  for (int i = 0; i < N; i++)
    y[i] = (r + 1) * s[i];
}

#pragma mpiad differentiate wrt(x) output(y) name(pv_pr) semantics(per_rank)
void pvr(const double *x, double *y, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double s[N];
  MPI_Allreduce(x, s, N, MPI_DOUBLE, MPI_PROD, comm);
  for (int i = 0; i < N; i++)
    y[i] = (r + 1) * s[i];
}

#pragma mpiad differentiate wrt(x) output(y) name(prep_g) varying(x)
void prep(const double *x, double *y, MPI_Comm comm) {
  double s[N];
  MPI_Allreduce(x, s, N, MPI_DOUBLE, MPI_PROD, comm);
  for (int i = 0; i < N; i++)
    y[i] = s[i];
}

#pragma mpiad differentiate wrt(x) output(y) name(prep_pr) semantics(per_rank)
void prepr(const double *x, double *y, MPI_Comm comm) {
  double s[N];
  MPI_Allreduce(x, s, N, MPI_DOUBLE, MPI_PROD, comm);
  for (int i = 0; i < N; i++)
    y[i] = s[i];
}

/* in place, varying use */
#pragma mpiad differentiate wrt(x) output(y) name(pinp_g) varying(x)
void pinp(const double *x, double *y, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double s[N];
  for (int i = 0; i < N; i++)
    s[i] = x[i];
  MPI_Allreduce(MPI_IN_PLACE, s, N, MPI_DOUBLE, MPI_PROD, comm);
  for (int i = 0; i < N; i++)
    y[i] = (r + 1) * s[i];
}

#pragma mpiad differentiate wrt(x) output(y) name(fpv_g) varying(x)
void fpv(const float *x, float *y, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  float s[N];
  MPI_Allreduce(x, s, N, MPI_FLOAT, MPI_PROD, comm);
  for (int i = 0; i < N; i++)
    y[i] = (r + 1) * s[i];
}

static int P_g;

/* rank q's factors */
static void factors(int q, double *x) {
  for (int i = 0; i < N; i++)
    x[i] = 1.5 + 0.25 * q + 0.125 * i;
  if (q == P_g - 1)
    x[0] = 0.0;
  if (q == 0 || q == 1)
    x[1] = 0.0;
  if (q == 0)
    x[3] = 0.0;
}
static void init_x(double *x, double *th) {
  (void)th;
  factors(hx_rank_g, x);
}

#define ADAPT(f, fb)                                                           \
  static void P_##f(const double *x, const double *th, double *y) {            \
    (void)th;                                                                  \
    f(x, y, MPI_COMM_WORLD);                                                   \
  }                                                                            \
  static void B_##f(const double *x, double *xb, const double *th,             \
                    double *thb, double *y, double *yb) {                      \
    (void)th;                                                                  \
    (void)thb;                                                                 \
    fb(x, xb, y, yb, MPI_COMM_WORLD);                                          \
  }
ADAPT(pv, pv_g)
ADAPT(pvr, pv_pr)
ADAPT(prep, prep_g)
ADAPT(prepr, prep_pr)
ADAPT(pinp, pinp_g)

static void P_fpv(const double *x, const double *th, double *y) {
  float xf[N], yf[N];
  (void)th;
  hx_tof(xf, x, N);
  fpv(xf, yf, MPI_COMM_WORLD);
  hx_tod(y, yf, N);
}
static void B_fpv(const double *x, double *xb, const double *th, double *thb,
                  double *y, double *yb) {
  float xf[N], xbf[N] = {0}, yf[N], ybf[N];
  (void)th;
  (void)thb;
  hx_tof(xf, x, N);
  hx_tof(ybf, yb, N);
  fpv_g(xf, xbf, yf, ybf, MPI_COMM_WORLD);
  hx_addd(xb, xbf, N);
  hx_tod(y, yf, N);
  hx_tod(yb, ybf, N);
}

/* exact: xb_r[i] = G[i] * prod_{q != r} x_q[i]; G[i] = sum over ranks of the
 * seed times the factor (r+1) (varying use) or the common seed (replicated
 * use, global) */
static void exact(const char *name, hx_adjoint_fn B, int kind) {
  int r = hx_rank_g, P = hx_size_g;
  double x[N], xb[N] = {0}, y[N], yb[N], want[N], sprod[N], G[N];
  double xq[N];
  char label[256];
  factors(r, x);
  for (int i = 0; i < N; i++)
    yb[i] = 0.5 + 0.25 * i; /* the same seed on every rank */
  for (int i = 0; i < N; i++) {
    /* kind 0: varying use; 1: replicated use, global; 2: replicated, per_rank */
    G[i] = 0.0;
    for (int q = 0; q < P; q++)
      G[i] += kind == 0 ? yb[i] * (q + 1) : yb[i];
    if (kind == 1)
      G[i] = yb[i];
    want[i] = G[i];
    sprod[i] = 1.0;
    for (int q = 0; q < P; q++) {
      factors(q, xq);
      sprod[i] *= xq[i];
      if (q != r)
        want[i] *= xq[i];
    }
  }
  B(x, xb, 0, 0, y, yb);
  hx_tape(name);
  snprintf(label, sizeof label, "%s: exact adjoint with zero factors", name);
  hx_check_vec(label, xb, want, N, 1e-14, 1e-300);
  for (int i = 0; i < N; i++)
    y[i] /= kind == 0 ? (r + 1) : 1;
  snprintf(label, sizeof label, "%s: product", name);
  hx_check_vec(label, y, sprod, N, 1e-14, 1e-300);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  P_g = hx_size_g;
  exact("varying use, global", B_pv, 0);
  exact("varying use, per_rank", B_pvr, 0);
  exact("replicated use, global", B_prep, 1);
  exact("replicated use, per_rank", B_prepr, 2);
  exact("MPI_IN_PLACE varying use, global", B_pinp, 0);
  exact("float varying use, global", B_fpv, 0);

  /* finite differences at the point with zeros, and the dot-product test
   * (the map is linear in each rank's factors, so only with P = 1 is it
   * linear as a whole: run it there) */
  int lin = hx_size_g == 1;
  hx_case cs[5] = {
      {"FD varying use, global", P_pv, B_pv, N, 0, N, 0, lin},
      {"FD varying use, per_rank", P_pvr, B_pvr, N, 0, N, 0, lin},
      {"FD replicated use, global", P_prep, B_prep, N, 0, 0, N, lin},
      {"FD replicated use, per_rank", P_prepr, B_prepr, N, 0, N, 0, lin},
      {"FD MPI_IN_PLACE varying use, global", P_pinp, B_pinp, N, 0, N, 0, lin},
  };
  for (int k = 0; k < 5; k++) {
    cs[k].init = init_x;
    hx_case_run(&cs[k], 300 + 10 * k);
  }
  hx_case cf = {"FD float varying use, global", P_fpv, B_fpv, N, 0, N, 0, 0};
  cf.init = init_x;
  cf.h = 1e-2;
  cf.fd_rtol = 1e-4;
  cf.fd_atol = 1e-3;
  cf.primal_rtol = 1e-6;
  hx_case_run(&cf, 400);
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
