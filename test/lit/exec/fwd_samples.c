// Forward mode (F_d) on the objective functions of the samples, copied here
// verbatim (bodies) with forward + reverse pragmas:
//   loss   (samples/fitting/logistic.c): replicated model w[d], b; per-rank
//          data X, y (n differs per rank); replicated return value
//   misfit (samples/heat/heat.c): varying initial field u0 (nlocal differs per
//          rank), replicated diffusivity kappa; halo exchange with
//          MPI_Sendrecv; replicated return value
// plus a second pair of pragmas (name(...)) on loss that also differentiates
// with respect to the varying data X.  Each case checks (Inputs/fwd_check.h)
// F_d's primal value (exact), its tangent against central differences, a
// replicated output's tangent equal on every rank, and the dot-product test
// F_d against F_b in global semantics:
//   fdot * seed (once)  ==  sum_r <dX, X_b> + <dw, w_b> + db * b_b (once).
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

#include "fwd_check.h"

/* ---- samples/fitting/logistic.c ---- */
#pragma mpiad differentiate forward wrt(w, b)
#pragma mpiad differentiate reverse wrt(w, b) replicated(w, b, d, lambda)
#pragma mpiad differentiate forward wrt(w, b, X) name(loss_dX)
#pragma mpiad differentiate reverse wrt(w, b, X) replicated(w, b, d, lambda) name(loss_bX) varying(X)
double loss(const double *w, double b, const double *X, const double *y, int n,
            int d, double lambda, MPI_Comm comm) {
  double local = 0.0;
  for (int i = 0; i < n; i++) {
    double z = b;
    for (int j = 0; j < d; j++)
      z += w[j] * X[i * d + j];
    /* log(1 + exp(m)) without overflow for large m */
    double m = -y[i] * z;
    if (m > 0.0)
      local += m + log(1.0 + exp(-m));
    else
      local += log(1.0 + exp(m));
  }
  double count = n;
  double total = 0.0, total_count = 0.0;
  MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, comm);
  MPI_Allreduce(&count, &total_count, 1, MPI_DOUBLE, MPI_SUM, comm);

  double reg = 0.0;
  for (int j = 0; j < d; j++)
    reg += w[j] * w[j];
  return total / total_count + 0.5 * lambda * reg;
}

/* ---- samples/heat/heat.c ---- */
#pragma mpiad differentiate forward wrt(u0, kappa)
#pragma mpiad differentiate reverse wrt(u0, kappa) replicated(kappa, dt, dx, nsteps) varying(u0)
double misfit(const double *u0, const double *obs, const double *w, int nlocal,
              int nsteps, double kappa, double dt, double dx, MPI_Comm comm) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int left = (rank + size - 1) % size;
  int right = (rank + 1) % size;

  /* u[1..nlocal] are this rank's cells, u[0] and u[nlocal+1] the halos. */
  double *u = malloc((size_t)(nlocal + 2) * sizeof(double));
  double *un = malloc((size_t)(nlocal + 2) * sizeof(double));
  for (int i = 0; i < nlocal; i++)
    u[i + 1] = u0[i];

  double r = kappa * dt / (dx * dx);
  for (int t = 0; t < nsteps; t++) {
    /* halo exchange: last cell -> right neighbour, left halo <- left
     * neighbour; then first cell -> left neighbour, right halo <- right. */
    MPI_Sendrecv(&u[nlocal], 1, MPI_DOUBLE, right, 0, &u[0], 1, MPI_DOUBLE,
                 left, 0, comm, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, left, 1, &u[nlocal + 1], 1, MPI_DOUBLE,
                 right, 1, comm, MPI_STATUS_IGNORE);
    for (int i = 1; i <= nlocal; i++)
      un[i] = u[i] + r * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
    for (int i = 1; i <= nlocal; i++)
      u[i] = un[i];
  }

  double local = 0.0;
  for (int i = 0; i < nlocal; i++) {
    double d = u[i + 1] - obs[i];
    local += 0.5 * w[i] * d * d;
  }
  double J = 0.0;
  MPI_Allreduce(&local, &J, 1, MPI_DOUBLE, MPI_SUM, comm);
  free(un);
  free(u);
  return J;
}

/* ---------------- data ---------------- */
#define D 4
#define NMAX 16
#define W MPI_COMM_WORLD
static int n_g;                      /* samples / cells on this rank */
static double X_g[NMAX * D], lab_g[NMAX];
static double obs_g[NMAX], wt_g[NMAX];
static const double lambda_g = 0.1;
static const int nsteps_g = 5;
static const double dt_g = 0.3, dx_g = 1.0;

/* loss wrt (w, b): th = (w[0..D), b), no varying input */
static void P_loss(const double *x, const double *th, double *y) {
  (void)x;
  y[0] = loss(th, th[D], X_g, lab_g, n_g, D, lambda_g, W);
}
static void D_loss(const double *x, const double *dx, const double *th,
                   const double *dth, double *y, double *yd) {
  double wd[D];
  (void)x; (void)dx;
  memcpy(wd, dth, sizeof wd);
  y[0] = loss_d(th, wd, th[D], dth[D], X_g, lab_g, n_g, D, lambda_g, W, &yd[0]);
}
static void B_loss(const double *x, double *xb, const double *th, double *thb,
                   double *y, double *yb) {
  (void)x; (void)xb;
  y[0] = loss_b(th, thb, th[D], &thb[D], X_g, lab_g, n_g, D, lambda_g, W,
                yb[0]);
  yb[0] = 0.0;
}

/* loss wrt (w, b, X): x = X (varying) */
static void P_lossX(const double *x, const double *th, double *y) {
  y[0] = loss(th, th[D], x, lab_g, n_g, D, lambda_g, W);
}
static void D_lossX(const double *x, const double *dx, const double *th,
                    const double *dth, double *y, double *yd) {
  double wd[D], Xd[NMAX * D];
  memcpy(wd, dth, sizeof wd);
  memcpy(Xd, dx, (size_t)(n_g * D) * sizeof(double));
  y[0] = loss_dX(th, wd, th[D], dth[D], x, Xd, lab_g, n_g, D, lambda_g, W,
                 &yd[0]);
}
static void B_lossX(const double *x, double *xb, const double *th,
                    double *thb, double *y, double *yb) {
  y[0] = loss_bX(th, thb, th[D], &thb[D], x, xb, lab_g, n_g, D, lambda_g, W,
                 yb[0]);
  yb[0] = 0.0;
}

/* misfit wrt (u0, kappa): x = u0, th = (kappa) */
static void P_misfit(const double *x, const double *th, double *y) {
  y[0] = misfit(x, obs_g, wt_g, n_g, nsteps_g, th[0], dt_g, dx_g, W);
}
static void D_misfit(const double *x, const double *dx, const double *th,
                     const double *dth, double *y, double *yd) {
  double ud[NMAX];
  memcpy(ud, dx, (size_t)n_g * sizeof(double));
  y[0] = misfit_d(x, ud, obs_g, wt_g, n_g, nsteps_g, th[0], dth[0], dt_g,
                  dx_g, W, &yd[0]);
}
static void B_misfit(const double *x, double *xb, const double *th,
                     double *thb, double *y, double *yb) {
  y[0] = misfit_b(x, xb, obs_g, wt_g, n_g, nsteps_g, th[0], &thb[0], dt_g,
                  dx_g, W, yb[0]);
  yb[0] = 0.0;
}

/* kappa in [0.5, 1.5) * 0.4: r = kappa dt / dx^2 stays below 0.2 */
static void init_kappa(double *x, double *th) {
  (void)x;
  th[0] *= 0.4;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  int r = hx_rank_g;
  n_g = 6 + r % 3; /* sizes differ per rank */
  hx_rand(X_g, (size_t)n_g * D, 500, r, -1.5, 1.5);
  hx_rand(lab_g, (size_t)n_g, 510, r, 0.0, 1.0);
  for (int i = 0; i < n_g; i++)
    lab_g[i] = lab_g[i] < 0.5 ? -1.0 : 1.0;
  hx_rand(obs_g, (size_t)n_g, 520, r, 0.0, 1.0);
  for (int i = 0; i < n_g; i++)
    wt_g[i] = i % 2 ? 1.0 : 0.5;
  {
    fc_case c = {"loss wrt(w, b)", P_loss, D_loss, B_loss, 0, D + 1, 0, 1};
    c.lo = -1.0;
    c.hi = 1.0;
    fc_run(&c, 600);
  }
  {
    fc_case c = {"loss wrt(w, b, X)", P_lossX, D_lossX, B_lossX, n_g * D,
                 D + 1, 0, 1};
    c.lo = -1.0;
    c.hi = 1.0;
    fc_run(&c, 610);
  }
  {
    fc_case c = {"misfit wrt(u0, kappa)", P_misfit, D_misfit, B_misfit, n_g,
                 1, 0, 1};
    c.init = init_kappa;
    fc_run(&c, 620);
  }
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
