/*
 * heat.c - an inverse problem for the 1-D heat equation with halo exchange,
 * solved with the adjoint that mpiad-cc generates from the forward solver.
 *
 * The model: u_t = kappa u_xx on the periodic unit interval, nglobal cells of
 * width dx = 1/nglobal, explicit Euler with dt = 0.25 dx^2 / kappa_true (so
 * r = kappa dt / dx^2 = 0.25 for the true diffusivity; stable for r <= 0.5).
 * The cells are split into contiguous blocks, one per rank (the block sizes
 * may differ by one).  Each rank keeps its block in a malloc'd array with one
 * halo cell at each end, u[0] and u[nlocal+1], and refreshes the halos at
 * every step with two MPI_Sendrecv calls: its last cell goes to the right
 * neighbour while the left halo comes from the left neighbour, then the other
 * way round.  The neighbours wrap around (periodic), so on one rank the
 * messages go to the rank itself.
 *
 * The objective, `misfit`, runs nsteps steps from an initial field u0 and
 * compares u(T) with observations obs at the observation points (weight
 * w[i] = 1 there, 0 elsewhere):
 *
 *     J = 0.5 * sum over all ranks and cells i of w[i] * (u_i(T) - obs_i)^2
 *
 * computed as a local sum and one MPI_Allreduce SUM.
 *
 * Two pragmas on the same function ask mpiad-cc for two adjoints:
 *
 *   misfit_u0_b: wrt(u0), the initial field (varying: each rank owns its
 *                block).  u0_b on rank r is dJ/du0 for the cells of rank r.
 *       double misfit_u0_b(const double *u0, double *u0_b, const double *obs,
 *                          const double *w, int nlocal, int nsteps,
 *                          double kappa, double dt, double dx, MPI_Comm comm,
 *                          double misfit_bar);
 *
 *   misfit_kappa_b: wrt(kappa), the diffusivity, a single number shared by
 *                all ranks.  *kappa_b is the derivative of the GLOBAL misfit,
 *                the same on every rank; the generated code sums the ranks'
 *                shares itself (one Allreduce at the end of the reverse
 *                sweep).
 *       double misfit_kappa_b(const double *u0, const double *obs,
 *                             const double *w, int nlocal, int nsteps,
 *                             double kappa, double *kappa_b, double dt,
 *                             double dx, MPI_Comm comm, double misfit_bar);
 *
 * `#pragma mpiad checkpoint(snapshots=8)` on the time loop makes both
 * adjoints use binomial checkpointing: the tape holds one step at a time and
 * at most 8 copies of the loop's state are kept, whatever nsteps is; steps
 * are re-run from those copies (with their halo exchanges, in the same order
 * on every rank).  The gradients are those of recording every step, to
 * rounding (test/lit/exec/checkpoint_heat.c).
 *
 * replicated(...) lists everything that is the same on all ranks: kappa, dt,
 * dx and the step count nsteps.  nlocal is not listed: with nglobal not a
 * multiple of the rank count the blocks differ in size.  Listing kappa
 * matters for misfit_kappa_b: a kappa taken as varying would get the
 * derivative of each rank's own share of J, not of the global J.
 *
 * The adjoint of each MPI_Sendrecv is an MPI_Sendrecv with the directions
 * swapped (the halo's adjoint travels back to the cell it came from and is
 * added there), done by the runtime's mpiad_sendrecv_rev.
 *
 * The program:
 *   1. makes a hidden true initial field (two smooth bumps) and observations
 *      of u(T) at every other cell;
 *   2. recovers u0 from u0 = 0 by gradient descent with a backtracking line
 *      search, using misfit_u0_b for the value and gradient; rank 0 prints
 *      "iter k misfit J";
 *   3. recovers kappa from kappa = 0.6 kappa_true (u0 known) the same way,
 *      with misfit_kappa_b;
 *   4. checks both gradients against central finite differences along a
 *      random direction (mpiad_fd_directional / mpiad_adjoint_directional /
 *      mpiad_check_close, rtol 1e-6).
 *
 * Usage: mpirun -np P ./heat [nglobal nsteps iters]   (defaults: 256 100 20)
 *
 * Exit status 0 only if both misfits went down by at least a factor 10 and
 * both gradient checks pass.
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "mpiad.h"

#pragma mpiad differentiate wrt(u0) replicated(kappa, dt, dx, nsteps) \
    varying(u0, obs, w, nlocal) name(misfit_u0_b)
#pragma mpiad differentiate wrt(kappa) replicated(kappa, dt, dx, nsteps) \
    varying(u0, obs, w, nlocal) name(misfit_kappa_b)
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
  /* Checkpointed reversal: the adjoints keep at most 8 snapshots of the
   * loop's state (u and un) and re-run steps from them, instead of
   * recording every step; their memory does not grow with nsteps. */
#pragma mpiad checkpoint(snapshots=8)
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

/* ------------------------------------------------------------------------- */
/* Everything below is ordinary MPI code: set-up, optimisation, checks.      */
/* ------------------------------------------------------------------------- */

/* 64-bit LCG (Knuth's MMIX constants); uniform double in [0, 1). */
static double lcg_uniform(unsigned long long *s) {
  *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(*s >> 11) * (1.0 / 9007199254740992.0);
}

static unsigned long long lcg_seed(unsigned long long seed) {
  unsigned long long s = seed * 0x9E3779B97F4A7C15ULL + 12345u;
  for (int k = 0; k < 4; k++) /* decorrelate nearby seeds */
    lcg_uniform(&s);
  return s;
}

/* The hidden initial field: two smooth periodic bumps on [0, 1). */
static double true_u0(double x) {
  const double PI = 3.14159265358979323846;
  double a = sin(PI * (x - 0.30)), b = sin(PI * (x - 0.65));
  return exp(-a * a / 0.01) + 0.6 * exp(-b * b / 0.004);
}

/* u(T) from u0: the same solver as misfit, kept separate (and unmarked) so
 * that the observations come from plain MPI code. */
static void heat_forward(const double *u0, double *uT, int nlocal, int nsteps,
                         double kappa, double dt, double dx, MPI_Comm comm) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int left = (rank + size - 1) % size, right = (rank + 1) % size;
  double *u = malloc((size_t)(nlocal + 2) * sizeof *u);
  double *un = malloc((size_t)(nlocal + 2) * sizeof *un);
  double r = kappa * dt / (dx * dx);
  for (int i = 0; i < nlocal; i++)
    u[i + 1] = u0[i];
  for (int t = 0; t < nsteps; t++) {
    MPI_Sendrecv(&u[nlocal], 1, MPI_DOUBLE, right, 0, &u[0], 1, MPI_DOUBLE,
                 left, 0, comm, MPI_STATUS_IGNORE);
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

/* The problem on this rank: block sizes and data. */
typedef struct {
  int nlocal, nsteps;
  double kappa, dt, dx;
  double *u0;        /* current initial field (this rank's block) */
  const double *obs; /* observations of u(T) */
  const double *w;   /* 1 at observation points, 0 elsewhere */
  MPI_Comm comm;
} heat_ctx;

static double objective(void *p) {
  heat_ctx *c = p;
  return misfit(c->u0, c->obs, c->w, c->nlocal, c->nsteps, c->kappa, c->dt,
                c->dx, c->comm);
}

/* Recovers u0 by gradient descent with a backtracking (Armijo) line search.
 * Returns the final misfit; *first gets the initial one. */
static double recover_u0(heat_ctx *c, int iters, int rank, double *first) {
  int n = c->nlocal;
  double *g = malloc((size_t)n * sizeof *g);
  double *trial = malloc((size_t)n * sizeof *trial);
  double step = 1.0;
  double J = 0.0;
  for (int k = 0; k < iters; k++) {
    for (int i = 0; i < n; i++)
      g[i] = 0.0;
    J = misfit_u0_b(c->u0, g, c->obs, c->w, n, c->nsteps, c->kappa, c->dt,
                    c->dx, c->comm, 1.0);
    if (k == 0)
      *first = J;
    if (rank == 0)
      printf("iter %d misfit %.10e\n", k, J);
    double gg = mpiad_dot(g, g, (size_t)n, 0, c->comm); /* |grad J|^2 */
    if (!(gg > 0.0))
      break;
    step *= 2.0; /* try a longer step than last time first */
    for (int tries = 0; tries < 30; tries++, step *= 0.5) {
      for (int i = 0; i < n; i++)
        trial[i] = c->u0[i] - step * g[i];
      double Jt = misfit(trial, c->obs, c->w, n, c->nsteps, c->kappa, c->dt,
                         c->dx, c->comm);
      if (Jt <= J - 1e-4 * step * gg)
        break;
    }
    for (int i = 0; i < n; i++)
      c->u0[i] -= step * g[i];
  }
  J = objective(c);
  if (rank == 0)
    printf("iter %d misfit %.10e\n", iters, J);
  free(trial);
  free(g);
  return J;
}

/* Recovers kappa (a replicated scalar) the same way, with misfit_kappa_b.
 * The step is kept small enough for the scheme to stay stable (r <= 0.5). */
static double recover_kappa(heat_ctx *c, int iters, int rank, double *first) {
  double kmax = 0.5 * c->dx * c->dx / c->dt;
  double step = 1.0;
  double J = 0.0;
  for (int k = 0; k < iters; k++) {
    double kb = 0.0;
    J = misfit_kappa_b(c->u0, c->obs, c->w, c->nlocal, c->nsteps, c->kappa,
                       &kb, c->dt, c->dx, c->comm, 1.0);
    if (k == 0)
      *first = J;
    if (rank == 0)
      printf("kappa iter %d kappa %.10f misfit %.10e\n", k, c->kappa, J);
    if (!(kb != 0.0) || J <= 1e-24 * *first) /* converged */
      break;
    step *= 2.0;
    double trial = c->kappa;
    for (int tries = 0; tries < 60; tries++, step *= 0.5) {
      trial = c->kappa - step * kb;
      if (!(trial > 0.0 && trial < kmax))
        continue;
      double Jt = misfit(c->u0, c->obs, c->w, c->nlocal, c->nsteps, trial,
                         c->dt, c->dx, c->comm);
      if (Jt <= J - 1e-4 * step * kb * kb)
        break;
    }
    c->kappa = trial;
  }
  J = objective(c);
  if (rank == 0)
    printf("kappa iter %d kappa %.10f misfit %.10e\n", iters, c->kappa, J);
  return J;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm comm = MPI_COMM_WORLD;
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);

  int nglobal = argc > 1 ? atoi(argv[1]) : 256;
  int nsteps = argc > 2 ? atoi(argv[2]) : 100;
  int iters = argc > 3 ? atoi(argv[3]) : 20;
  if (nglobal < size || nsteps < 1 || iters < 1) {
    if (rank == 0)
      fprintf(stderr, "usage: %s [nglobal>=ranks nsteps>0 iters>0]\n",
              argv[0]);
    MPI_Finalize();
    return 2;
  }

  /* This rank's block: cells [offset, offset + nlocal). */
  int nlocal = nglobal / size + (rank < nglobal % size ? 1 : 0);
  int offset = rank * (nglobal / size) + (rank < nglobal % size ? rank
                                                                : nglobal % size);
  const double kappa_true = 1.0;
  double dx = 1.0 / nglobal;
  double dt = 0.25 * dx * dx / kappa_true;
  if (rank == 0)
    printf("heat inverse problem: %d ranks, %d cells, %d steps (T = %g), "
           "%d iterations\n",
           size, nglobal, nsteps, nsteps * dt, iters);

  double *u0 = malloc((size_t)nlocal * sizeof *u0);
  double *obs = malloc((size_t)nlocal * sizeof *obs);
  double *w = malloc((size_t)nlocal * sizeof *w);
  for (int i = 0; i < nlocal; i++) {
    int gi = offset + i;
    u0[i] = true_u0((gi + 0.5) * dx);
    w[i] = gi % 2 == 0 ? 1.0 : 0.0; /* observe every other cell */
    obs[i] = 0.0;
  }
  /* Observations: u(T) from the true field and the true diffusivity. */
  heat_forward(u0, obs, nlocal, nsteps, kappa_true, dt, dx, comm);

  int failed = 0;
  heat_ctx ctx = {nlocal, nsteps, kappa_true, dt, dx, u0, obs, w, comm};

  /* 1. Recover u0 from zero. */
  double *u0_true = malloc((size_t)nlocal * sizeof *u0_true);
  for (int i = 0; i < nlocal; i++) {
    u0_true[i] = u0[i];
    u0[i] = 0.0;
  }
  double J0 = 0.0;
  double J1 = recover_u0(&ctx, iters, rank, &J0);
  double err2 = 0.0, ref2 = 0.0;
  for (int i = 0; i < nlocal; i++) {
    err2 += (u0[i] - u0_true[i]) * (u0[i] - u0_true[i]);
    ref2 += u0_true[i] * u0_true[i];
  }
  double sums[2] = {err2, ref2}, gsums[2];
  MPI_Allreduce(sums, gsums, 2, MPI_DOUBLE, MPI_SUM, comm);
  if (rank == 0)
    printf("u0: misfit %.4e -> %.4e (factor %.1f), relative error of u0 "
           "%.3f\n",
           J0, J1, J0 / J1, sqrt(gsums[0] / gsums[1]));
  if (!(J1 < 0.1 * J0)) {
    if (rank == 0)
      printf("FAIL: the misfit did not go down by a factor 10\n");
    failed = 1;
  }

  /* 2. Recover kappa from 0.6 kappa_true, with the true u0. */
  for (int i = 0; i < nlocal; i++)
    u0[i] = u0_true[i];
  ctx.kappa = 0.6 * kappa_true;
  double K0 = 0.0;
  double K1 = recover_kappa(&ctx, iters, rank, &K0);
  if (rank == 0)
    printf("kappa: misfit %.4e -> %.4e, kappa %.6f (true %.6f)\n", K0, K1,
           ctx.kappa, kappa_true);
  if (!(K1 < 0.1 * K0)) {
    if (rank == 0)
      printf("FAIL: the kappa misfit did not go down by a factor 10\n");
    failed = 1;
  }

  /* 3. Gradient checks at a random point along a random direction.  The
   * numbers are drawn per global cell, so the point, the direction and the
   * printed values do not depend on the number of ranks. */
  double *du0 = malloc((size_t)nlocal * sizeof *du0);
  double *g = malloc((size_t)nlocal * sizeof *g);
  for (int i = 0; i < nlocal; i++) {
    unsigned long long s = lcg_seed(100 + (unsigned long long)(offset + i));
    u0[i] = u0_true[i] + 0.2 * (lcg_uniform(&s) - 0.5);
    du0[i] = 2.0 * lcg_uniform(&s) - 1.0;
  }
  ctx.kappa = 0.8 * kappa_true;

  mpiad_input in_u[1] = {{u0, du0, (size_t)nlocal, 0}};
  double fd = mpiad_fd_directional(objective, &ctx, in_u, 1, 1e-4);
  for (int i = 0; i < nlocal; i++)
    g[i] = 0.0;
  misfit_u0_b(u0, g, obs, w, nlocal, nsteps, ctx.kappa, dt, dx, comm, 1.0);
  double *grads_u[1] = {g};
  double ad = mpiad_adjoint_directional(in_u, grads_u, 1, comm);
  if (mpiad_check_close("dJ/du0 (adjoint vs central difference)", ad, fd,
                        1e-6, 1e-12, comm))
    failed = 1;

  double dkappa = 1.0;
  mpiad_input in_k[1] = {{&ctx.kappa, &dkappa, 1, 1}};
  double fdk = mpiad_fd_directional(objective, &ctx, in_k, 1, 1e-5);
  double kb = 0.0;
  misfit_kappa_b(u0, obs, w, nlocal, nsteps, ctx.kappa, &kb, dt, dx, comm,
                 1.0);
  double *grads_k[1] = {&kb};
  double adk = mpiad_adjoint_directional(in_k, grads_k, 1, comm);
  if (mpiad_check_close("dJ/dkappa (adjoint vs central difference)", adk, fdk,
                        1e-6, 1e-12, comm))
    failed = 1;

  if (mpiad_tape_bytes() != 0) {
    if (rank == 0)
      printf("FAIL: %zu bytes left on the tape\n", mpiad_tape_bytes());
    failed = 1;
  }

  if (rank == 0)
    printf("%s\n", failed ? "FAILED" : "OK");
  free(g);
  free(du0);
  free(u0_true);
  free(w);
  free(obs);
  free(u0);
  MPI_Finalize();
  return failed;
}
