// Checkpointed reversal of the heat sample's time loop (issue 5): with
// `#pragma mpiad checkpoint(snapshots=3)` the gradients equal those of the
// store-all adjoint to rounding, at every rank count and for step counts
// from 0 to 37 (so 1-step, exactly-fitting and multi-level schedules), for
// both the initial field (varying) and the diffusivity (replicated).  Also:
// central differences, the exact dot-product test of the linear map
// u0 -> u(T), the tape empty after each call, and at most 3 snapshots of the
// state (u and un, nlocal + 2 doubles each) held at once.  The tangent of
// the same function (the pragma does not change it) agrees with the adjoint.
// RUN: %mpiad-cc %s -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
#include "../Inputs/harness.h"

#include <stdlib.h>

/* Store-all: every step recorded. */
#pragma mpiad differentiate wrt(u0) replicated(kappa, dt, dx, nsteps) name(all_u0_b) varying(u0)
#pragma mpiad differentiate wrt(kappa) replicated(kappa, dt, dx, nsteps) name(all_kappa_b)
double misfit_all(const double *u0, const double *obs, const double *w,
                  int nlocal, int nsteps, double kappa, double dt, double dx,
                  MPI_Comm comm) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int left = (rank + size - 1) % size;
  int right = (rank + 1) % size;
  double *u = malloc((size_t)(nlocal + 2) * sizeof(double));
  double *un = malloc((size_t)(nlocal + 2) * sizeof(double));
  for (int i = 0; i < nlocal; i++)
    u[i + 1] = u0[i];
  double r = kappa * dt / (dx * dx);
  for (int t = 0; t < nsteps; t++) {
    MPI_Sendrecv(&u[nlocal], 1, MPI_DOUBLE, right, 0, &u[0], 1, MPI_DOUBLE, left,
                 0, comm, MPI_STATUS_IGNORE);
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

/* Checkpointed: at most 3 snapshots.  Forward mode records nothing, so the
 * pragma leaves its tangent as it is. */
#pragma mpiad differentiate forward wrt(kappa) replicated(kappa, dt, dx, nsteps) name(ck_kappa_d)
#pragma mpiad differentiate wrt(u0) replicated(kappa, dt, dx, nsteps) name(ck_u0_b) varying(u0)
#pragma mpiad differentiate wrt(kappa) replicated(kappa, dt, dx, nsteps) name(ck_kappa_b)
double misfit_ck(const double *u0, const double *obs, const double *w,
                 int nlocal, int nsteps, double kappa, double dt, double dx,
                 MPI_Comm comm) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int left = (rank + size - 1) % size;
  int right = (rank + 1) % size;
  double *u = malloc((size_t)(nlocal + 2) * sizeof(double));
  double *un = malloc((size_t)(nlocal + 2) * sizeof(double));
  for (int i = 0; i < nlocal; i++)
    u[i + 1] = u0[i];
  double r = kappa * dt / (dx * dx);
#pragma mpiad checkpoint(snapshots=3)
  for (int t = 0; t < nsteps; t++) {
    MPI_Sendrecv(&u[nlocal], 1, MPI_DOUBLE, right, 0, &u[0], 1, MPI_DOUBLE, left,
                 0, comm, MPI_STATUS_IGNORE);
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

/* The linear map u0 -> u(T), checkpointed, for the dot-product test. */
#pragma mpiad differentiate wrt(u0) output(uT) replicated(kappa, dt, dx, nsteps) varying(u0)
void evolve(const double *u0, double *uT, int nlocal, int nsteps, double kappa,
            double dt, double dx, MPI_Comm comm) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int left = (rank + size - 1) % size;
  int right = (rank + 1) % size;
  double *u = malloc((size_t)(nlocal + 2) * sizeof(double));
  double *un = malloc((size_t)(nlocal + 2) * sizeof(double));
  for (int i = 0; i < nlocal; i++)
    u[i + 1] = u0[i];
  double r = kappa * dt / (dx * dx);
#pragma mpiad checkpoint(snapshots=3)
  for (int t = 0; t < nsteps; t++) {
    MPI_Sendrecv(&u[nlocal], 1, MPI_DOUBLE, right, 0, &u[0], 1, MPI_DOUBLE, left,
                 0, comm, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, left, 1, &u[nlocal + 1], 1, MPI_DOUBLE,
                 right, 1, comm, MPI_STATUS_IGNORE);
    for (int i = 1; i <= nlocal; i++)
      un[i] = u[i] + r * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
    for (int i = 1; i <= nlocal; i++)
      u[i] = un[i];
  }
  for (int i = 0; i < nlocal; i++)
    uT[i] = u[i + 1];
  free(un);
  free(u);
}

typedef struct {
  const double *obs, *w;
  int nlocal, nsteps;
  double kappa, dt, dx;
  double *u0;
} heat_ctx;

static double J_u0(void *p) {
  heat_ctx *c = p;
  return misfit_ck(c->u0, c->obs, c->w, c->nlocal, c->nsteps, c->kappa, c->dt,
                   c->dx, MPI_COMM_WORLD);
}

static double J_kappa(void *p) {
  heat_ctx *c = p;
  return misfit_ck(c->u0, c->obs, c->w, c->nlocal, c->nsteps, c->kappa, c->dt,
                   c->dx, MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  int rank = hx_rank_g, size = hx_size_g;
  int nglobal = 23; /* blocks of different sizes at 2, 3 and 4 ranks */
  int nlocal = nglobal / size + (rank < nglobal % size ? 1 : 0);
  double dx = 1.0 / nglobal, kappa = 1.0, dt = 0.2 * dx * dx / kappa;
  double *u0 = malloc(nlocal * sizeof *u0), *obs = malloc(nlocal * sizeof *obs);
  double *w = malloc(nlocal * sizeof *w), *du = malloc(nlocal * sizeof *du);
  double *a_b = malloc(nlocal * sizeof *a_b), *c_b = malloc(nlocal * sizeof *c_b);
  double *uT = malloc(nlocal * sizeof *uT), *uT_b = malloc(nlocal * sizeof *uT_b);
  double *Ldu = malloc(nlocal * sizeof *Ldu), *yb = malloc(nlocal * sizeof *yb);
  hx_rand(u0, nlocal, 1, rank, 0.0, 1.0);
  hx_rand(obs, nlocal, 2, rank, 0.0, 1.0);
  hx_rand(w, nlocal, 3, rank, 0.5, 1.0);
  hx_rand(du, nlocal, 4, rank, -1.0, 1.0);
  int steps[] = {0, 1, 2, 3, 4, 10, 37};
  char label[128];
  for (int k = 0; k < (int)(sizeof steps / sizeof *steps); k++) {
    int n = steps[k];
    /* dJ/du0: checkpointed equals store-all */
    hx_zero(a_b, nlocal);
    hx_zero(c_b, nlocal);
    mpiad_ckpt_reset_stats();
    double Ja = all_u0_b(u0, a_b, obs, w, nlocal, n, kappa, dt, dx,
                         MPI_COMM_WORLD, 1.0);
    double Jc = ck_u0_b(u0, c_b, obs, w, nlocal, n, kappa, dt, dx,
                        MPI_COMM_WORLD, 1.0);
    snprintf(label, sizeof label, "nsteps=%d: J", n);
    hx_check(label, Jc, Ja, 1e-14, 1e-300);
    snprintf(label, sizeof label, "nsteps=%d: dJ/du0 checkpointed vs store-all", n);
    hx_check_vec(label, c_b, a_b, nlocal, 1e-12, 1e-14);
    snprintf(label, sizeof label, "ck_u0_b nsteps=%d", n);
    hx_tape(label);
    mpiad_ckpt_stats st = mpiad_ckpt_get_stats();
    snprintf(label, sizeof label, "nsteps=%d: snapshot bytes within 3 snapshots", n);
    double snap = (double)st.peak_bytes,
           limit = 3.0 * 2 * (nlocal + 2) * sizeof(double);
    hx_check_each(label, snap <= limit ? 1.0 : snap, 1.0, 0.0, 1.0);
    /* dJ/dkappa */
    double ka = 0.0, kc = 0.0;
    all_kappa_b(u0, obs, w, nlocal, n, kappa, &ka, dt, dx, MPI_COMM_WORLD, 1.0);
    ck_kappa_b(u0, obs, w, nlocal, n, kappa, &kc, dt, dx, MPI_COMM_WORLD, 1.0);
    snprintf(label, sizeof label, "nsteps=%d: dJ/dkappa checkpointed vs store-all", n);
    hx_check(label, kc, ka, 1e-12, 1e-14);
    snprintf(label, sizeof label, "ck_kappa_b nsteps=%d", n);
    hx_tape(label);
    /* the tangent agrees with the adjoint: dJ/dkappa * 1 = kappa_b * 1 */
    double Jdot = 0.0;
    ck_kappa_d(u0, obs, w, nlocal, n, kappa, 1.0, dt, dx, MPI_COMM_WORLD, &Jdot);
    snprintf(label, sizeof label, "nsteps=%d: tangent vs checkpointed adjoint", n);
    hx_check(label, Jdot, kc, 1e-12, 1e-14);
  }
  /* central differences of the checkpointed adjoints, 37 steps */
  heat_ctx c = {obs, w, nlocal, 37, kappa, dt, dx, u0};
  hx_zero(c_b, nlocal);
  ck_u0_b(u0, c_b, obs, w, nlocal, 37, kappa, dt, dx, MPI_COMM_WORLD, 1.0);
  mpiad_input in_u0 = {u0, du, (size_t)nlocal, 0};
  double *xb[1] = {c_b};
  hx_grad("dJ/du0 (checkpointed)", J_u0, &c, &in_u0, 1, xb, 1e-6, 1e-7, 1e-12);
  double kb = 0.0, dk = 1.0;
  ck_kappa_b(u0, obs, w, nlocal, 37, kappa, &kb, dt, dx, MPI_COMM_WORLD, 1.0);
  mpiad_input in_k = {&c.kappa, &dk, 1, 1};
  double *kbp[1] = {&kb};
  hx_grad("dJ/dkappa (checkpointed)", J_kappa, &c, &in_k, 1, kbp, 1e-6, 1e-7,
          1e-12);
  /* dot-product test of u0 -> u(T): <L du, yb> = <du, L^T yb> */
  hx_rand(yb, nlocal, 5, rank, -1.0, 1.0);
  evolve(du, Ldu, nlocal, 37, kappa, dt, dx, MPI_COMM_WORLD);
  double lhs = mpiad_dot(Ldu, yb, nlocal, 0, MPI_COMM_WORLD);
  for (int i = 0; i < nlocal; i++)
    uT_b[i] = yb[i];
  hx_zero(a_b, nlocal);
  evolve_b(u0, a_b, uT, uT_b, nlocal, 37, kappa, dt, dx, MPI_COMM_WORLD);
  double *ab[1] = {a_b};
  hx_dot_test("u0 -> u(T), checkpointed", lhs, &in_u0, 1, ab, 1e-13);
  hx_tape("evolve_b");
  free(u0); free(obs); free(w); free(du); free(a_b); free(c_b);
  free(uT); free(uT_b); free(Ldu); free(yb);
  mpiad_ckpt_release();
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
