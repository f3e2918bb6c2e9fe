/*
 * heat_bench.c - timing harness for the adjoint of the halo-exchange heat
 * solver of samples/heat (the same `misfit` function), standalone.
 *
 * For each adjoint (with respect to the initial field u0, and to the
 * diffusivity kappa) it measures, on every rank count (meant for 2 ranks):
 *   - primal time (misfit) and adjoint time (value + gradient, the generated
 *     misfit_u0_b / misfit_kappa_b), and their ratio;
 *   - the time of a hand-written adjoint of the same loop (below), checked
 *     against the generated one, and the ratio generated / hand-written;
 *   - the tape's peak bytes during one adjoint call (mpiad_tape_reset_peak,
 *     then mpiad_tape_peak_bytes), and the bytes the hand-written adjoint
 *     stores for its reverse sweep;
 *   - the number of MPI calls (and bytes) of one primal call and one adjoint
 *     call, counted by the PMPI wrappers at the end of this file (these also
 *     see the calls made inside libmpiad, which is linked statically).
 * Times are the minimum over reps of the slowest rank (barrier, MPI_Wtime,
 * MPI_MAX), the five kinds interleaved round by round.
 *
 * Build and run (from the repository root, after building the project):
 *
 *   build/bin/mpiad-cc -O2 bench/heat_bench.c -lm -o build/bench/heat_bench
 *   mpirun --allow-run-as-root --oversubscribe --mca btl self,vader \
 *          --mca pml ob1 -np 2 build/bench/heat_bench [nglobal nsteps reps]
 *
 * (defaults 1000000 50 5).  Exits non-zero if a hand-written adjoint does not
 * match the generated one (relative 1e-12 on the value, 1e-10 on the
 * gradient).
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "mpiad.h"

/* ---- the primal: identical to samples/heat/heat.c ----------------------- */

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

  double *u = malloc((size_t)(nlocal + 2) * sizeof(double));
  double *un = malloc((size_t)(nlocal + 2) * sizeof(double));
  for (int i = 0; i < nlocal; i++)
    u[i + 1] = u0[i];

  double r = kappa * dt / (dx * dx);
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

/* ---- hand-written adjoints ---------------------------------------------- */
/* Written the way one would by hand: the same loops as the primal, nothing
 * taped that is not needed.  The forward sweep is the primal; the reverse
 * sweep runs the transposed step backwards in time:
 *   - the copy u[i] = un[i] passes the adjoint of u to un;
 *   - the stencil is symmetric, so its transpose is the same stencil on the
 *     interior, and r * a[1] / r * a[n] land on the halo cells;
 *   - each halo exchange is reversed by an MPI_Sendrecv with the directions
 *     swapped: the halo's adjoint goes back to the rank owning the cell and
 *     is added to that cell's adjoint. */

/* Reverse of the two exchanges of one step, for the adjoint array a (halos
 * a[0], a[n+1] hold the halo adjoints on entry, zero on return). */
static void halo_exchange_rev(double *a, int n, int left, int right,
                              MPI_Comm comm) {
  double in;
  /* second exchange: u[1] -> left, u[n+1] <- right */
  MPI_Sendrecv(&a[n + 1], 1, MPI_DOUBLE, right, 1, &in, 1, MPI_DOUBLE, left, 1,
               comm, MPI_STATUS_IGNORE);
  a[1] += in;
  a[n + 1] = 0.0;
  /* first exchange: u[n] -> right, u[0] <- left */
  MPI_Sendrecv(&a[0], 1, MPI_DOUBLE, left, 0, &in, 1, MPI_DOUBLE, right, 0,
               comm, MPI_STATUS_IGNORE);
  a[n] += in;
  a[0] = 0.0;
}

/* dJ/du0, added (times Jbar) to u0_b.  Returns J. */
static double misfit_u0_hand(const double *u0, double *u0_b, const double *obs,
                             const double *w, int n, int nsteps, double kappa,
                             double dt, double dx, MPI_Comm comm,
                             double Jbar) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int left = (rank + size - 1) % size, right = (rank + 1) % size;
  double *u = malloc((size_t)(n + 2) * sizeof(double));
  double *un = malloc((size_t)(n + 2) * sizeof(double));
  double r = kappa * dt / (dx * dx);
  for (int i = 0; i < n; i++)
    u[i + 1] = u0[i];
  for (int t = 0; t < nsteps; t++) {
    MPI_Sendrecv(&u[n], 1, MPI_DOUBLE, right, 0, &u[0], 1, MPI_DOUBLE, left,
                 0, comm, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, left, 1, &u[n + 1], 1, MPI_DOUBLE,
                 right, 1, comm, MPI_STATUS_IGNORE);
    for (int i = 1; i <= n; i++)
      un[i] = u[i] + r * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
    for (int i = 1; i <= n; i++)
      u[i] = un[i];
  }
  double local = 0.0;
  for (int i = 0; i < n; i++) {
    double d = u[i + 1] - obs[i];
    local += 0.5 * w[i] * d * d;
  }
  double J = 0.0;
  MPI_Allreduce(&local, &J, 1, MPI_DOUBLE, MPI_SUM, comm);

  /* reverse: a = adjoint of u (with halos), c = adjoint of un */
  double *a = u, *c = un;
  a[0] = a[n + 1] = 0.0;
  for (int i = 0; i < n; i++)
    a[i + 1] = Jbar * w[i] * (u[i + 1] - obs[i]);
  for (int t = nsteps - 1; t >= 0; t--) {
    for (int i = 1; i <= n; i++) /* adjoint of the copy */
      c[i] = a[i];
    c[0] = c[n + 1] = 0.0;
    for (int i = 1; i <= n; i++) /* adjoint of the stencil, interior */
      a[i] = c[i] + r * (c[i - 1] - 2.0 * c[i] + c[i + 1]);
    a[0] = r * c[1]; /* ... and on the halos */
    a[n + 1] = r * c[n];
    halo_exchange_rev(a, n, left, right, comm);
  }
  for (int i = 0; i < n; i++)
    u0_b[i] += a[i + 1];
  free(un);
  free(u);
  return J;
}

/* dJ/dkappa, added (times Jbar) to *kappa_b (the same on all ranks).  Needs
 * the Laplacian of every step's u in the reverse sweep, so the forward sweep
 * stores u (with halos) at every step: (n + 2) * nsteps doubles, reported as
 * this adjoint's "tape".  The store is kept from call to call (as the tape
 * keeps its chunks), so repeated calls do not page in fresh memory. */
static double *hand_traj;
static size_t hand_kappa_store_bytes;
static double misfit_kappa_hand(const double *u0, const double *obs,
                                const double *w, int n, int nsteps,
                                double kappa, double *kappa_b, double dt,
                                double dx, MPI_Comm comm, double Jbar) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int left = (rank + size - 1) % size, right = (rank + 1) % size;
  size_t m = (size_t)n + 2;
  if (m * (size_t)nsteps * sizeof(double) > hand_kappa_store_bytes) {
    free(hand_traj);
    hand_kappa_store_bytes = m * (size_t)nsteps * sizeof(double);
    hand_traj = malloc(hand_kappa_store_bytes);
  }
  double *traj = hand_traj;
  double *u = malloc(m * sizeof(double));
  double *un = malloc(m * sizeof(double));
  double s = dt / (dx * dx), r = kappa * s;
  for (int i = 0; i < n; i++)
    u[i + 1] = u0[i];
  for (int t = 0; t < nsteps; t++) {
    MPI_Sendrecv(&u[n], 1, MPI_DOUBLE, right, 0, &u[0], 1, MPI_DOUBLE, left,
                 0, comm, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, left, 1, &u[n + 1], 1, MPI_DOUBLE,
                 right, 1, comm, MPI_STATUS_IGNORE);
    double *ut = traj + (size_t)t * m;
    for (size_t i = 0; i < m; i++)
      ut[i] = u[i];
    for (int i = 1; i <= n; i++)
      un[i] = u[i] + r * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
    for (int i = 1; i <= n; i++)
      u[i] = un[i];
  }
  double local = 0.0;
  for (int i = 0; i < n; i++) {
    double d = u[i + 1] - obs[i];
    local += 0.5 * w[i] * d * d;
  }
  double J = 0.0;
  MPI_Allreduce(&local, &J, 1, MPI_DOUBLE, MPI_SUM, comm);

  double *a = u, *c = un;
  double rb = 0.0; /* this rank's share of dJ/dr */
  a[0] = a[n + 1] = 0.0;
  for (int i = 0; i < n; i++)
    a[i + 1] = Jbar * w[i] * (u[i + 1] - obs[i]);
  for (int t = nsteps - 1; t >= 0; t--) {
    const double *ut = traj + (size_t)t * m;
    for (int i = 1; i <= n; i++)
      c[i] = a[i];
    c[0] = c[n + 1] = 0.0;
    for (int i = 1; i <= n; i++) {
      rb += c[i] * (ut[i - 1] - 2.0 * ut[i] + ut[i + 1]);
      a[i] = c[i] + r * (c[i - 1] - 2.0 * c[i] + c[i + 1]);
    }
    a[0] = r * c[1];
    a[n + 1] = r * c[n];
    halo_exchange_rev(a, n, left, right, comm);
  }
  double kb = rb * s, kb_sum = 0.0;
  MPI_Allreduce(&kb, &kb_sum, 1, MPI_DOUBLE, MPI_SUM, comm);
  *kappa_b += kb_sum;
  free(un);
  free(u);
  return J;
}

/* ---- PMPI call counting ------------------------------------------------- */

static long long n_sendrecv, n_allreduce, n_other, bytes_sent;
static void count_reset(void) {
  n_sendrecv = n_allreduce = n_other = bytes_sent = 0;
}
static long long tbytes(int count, MPI_Datatype t) {
  int sz = 0;
  PMPI_Type_size(t, &sz);
  return (long long)count * sz;
}

int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                 int dest, int sendtag, void *recvbuf, int recvcount,
                 MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                 MPI_Status *status) {
  n_sendrecv++;
  bytes_sent += tbytes(sendcount, sendtype);
  return PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                       recvcount, recvtype, source, recvtag, comm, status);
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count,
                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  n_allreduce++;
  bytes_sent += tbytes(count, datatype);
  return PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
}

int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest,
             int tag, MPI_Comm comm) {
  n_other++;
  bytes_sent += tbytes(count, datatype);
  return PMPI_Send(buf, count, datatype, dest, tag, comm);
}

int MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag,
             MPI_Comm comm, MPI_Status *status) {
  n_other++;
  return PMPI_Recv(buf, count, datatype, source, tag, comm, status);
}

int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root,
              MPI_Comm comm) {
  n_other++;
  bytes_sent += tbytes(count, datatype);
  return PMPI_Bcast(buffer, count, datatype, root, comm);
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count,
               MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm) {
  n_other++;
  bytes_sent += tbytes(count, datatype);
  return PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
}

/* ---- driver ------------------------------------------------------------- */

typedef struct {
  const double *u0, *obs, *w;
  double *g;
  int n, nsteps;
  double kappa, dt, dx;
  MPI_Comm comm;
  double value, kb;
} bench_ctx;

enum { PRIMAL, GEN_U0, HAND_U0, GEN_KAPPA, HAND_KAPPA, NKIND };
static const char *kind_name[NKIND] = {
    "primal misfit", "generated misfit_u0_b", "hand-written u0 adjoint",
    "generated misfit_kappa_b", "hand-written kappa adjoint"};

static void run_kind(bench_ctx *c, int kind) {
  switch (kind) {
  case PRIMAL:
    c->value = misfit(c->u0, c->obs, c->w, c->n, c->nsteps, c->kappa, c->dt,
                      c->dx, c->comm);
    break;
  case GEN_U0:
    for (int i = 0; i < c->n; i++)
      c->g[i] = 0.0;
    c->value = misfit_u0_b(c->u0, c->g, c->obs, c->w, c->n, c->nsteps,
                           c->kappa, c->dt, c->dx, c->comm, 1.0);
    break;
  case HAND_U0:
    for (int i = 0; i < c->n; i++)
      c->g[i] = 0.0;
    c->value = misfit_u0_hand(c->u0, c->g, c->obs, c->w, c->n, c->nsteps,
                              c->kappa, c->dt, c->dx, c->comm, 1.0);
    break;
  case GEN_KAPPA:
    c->kb = 0.0;
    c->value = misfit_kappa_b(c->u0, c->obs, c->w, c->n, c->nsteps, c->kappa,
                              &c->kb, c->dt, c->dx, c->comm, 1.0);
    break;
  case HAND_KAPPA:
    c->kb = 0.0;
    c->value = misfit_kappa_hand(c->u0, c->obs, c->w, c->n, c->nsteps,
                                 c->kappa, &c->kb, c->dt, c->dx, c->comm, 1.0);
    break;
  }
}

/* The slowest rank's time for one call. */
static double time_kind(bench_ctx *c, int kind) {
  MPI_Barrier(c->comm);
  double t0 = MPI_Wtime();
  run_kind(c, kind);
  double t = MPI_Wtime() - t0, tmax = 0.0;
  PMPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, c->comm);
  return tmax;
}

static double rel_vec_err(const double *a, const double *b, int n,
                          MPI_Comm comm) {
  double loc[2] = {0.0, 0.0}, glob[2];
  for (int i = 0; i < n; i++) {
    double d = fabs(a[i] - b[i]), m = fabs(b[i]);
    if (d > loc[0])
      loc[0] = d;
    if (m > loc[1])
      loc[1] = m;
  }
  PMPI_Allreduce(loc, glob, 2, MPI_DOUBLE, MPI_MAX, comm);
  return glob[1] > 0.0 ? glob[0] / glob[1] : glob[0];
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm comm = MPI_COMM_WORLD;
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int nglobal = argc > 1 ? atoi(argv[1]) : 1000000;
  int nsteps = argc > 2 ? atoi(argv[2]) : 50;
  int reps = argc > 3 ? atoi(argv[3]) : 5;
  if (nglobal < size || nsteps < 1 || reps < 1) {
    if (rank == 0)
      fprintf(stderr, "usage: %s [nglobal>=ranks nsteps>0 reps>0]\n",
              argv[0]);
    MPI_Finalize();
    return 2;
  }
  int n = nglobal / size + (rank < nglobal % size ? 1 : 0);
  int offset = rank * (nglobal / size) +
               (rank < nglobal % size ? rank : nglobal % size);
  double dx = 1.0 / nglobal, kappa = 1.0, dt = 0.25 * dx * dx;

  double *u0 = malloc((size_t)n * sizeof *u0);
  double *obs = malloc((size_t)n * sizeof *obs);
  double *w = malloc((size_t)n * sizeof *w);
  double *g = malloc((size_t)n * sizeof *g);
  double *g_hand = malloc((size_t)n * sizeof *g_hand);
  for (int i = 0; i < n; i++) {
    double x = (offset + i + 0.5) * dx;
    u0[i] = sin(6.283185307179586 * x) + 0.3 * cos(31.0 * x);
    obs[i] = 0.5 * sin(6.283185307179586 * (x - 0.1));
    w[i] = (offset + i) % 2 == 0 ? 1.0 : 0.0;
  }
  bench_ctx c = {u0, obs, w, g, n, nsteps, kappa, dt, dx, comm, 0.0, 0.0};

  if (rank == 0)
    printf("heat adjoint benchmark: %d ranks, %d cells (%d per rank), %d "
           "steps, best of %d\n",
           size, nglobal, nglobal / size, nsteps, reps);

  /* Correctness: generated vs hand-written. */
  int failed = 0;
  run_kind(&c, GEN_U0);
  double J_gen = c.value;
  for (int i = 0; i < n; i++)
    g_hand[i] = g[i];
  run_kind(&c, HAND_U0);
  double J_hand = c.value;
  double eg = rel_vec_err(g_hand, g, n, comm);
  run_kind(&c, GEN_KAPPA);
  double kb_gen = c.kb;
  run_kind(&c, HAND_KAPPA);
  double kb_hand = c.kb;
  if (rank == 0)
    printf("check: J generated %.17g hand %.17g; max|u0_b gen - hand| / "
           "max|u0_b| = %.3e; kappa_b generated %.17g hand %.17g\n",
           J_gen, J_hand, eg, kb_gen, kb_hand);
  failed |= mpiad_check_close("J (generated vs hand-written)", J_gen, J_hand,
                              1e-12, 1e-300, comm);
  if (!(eg <= 1e-10)) {
    if (rank == 0)
      printf("FAIL: u0 gradients differ (%.3e)\n", eg);
    failed = 1;
  }
  failed |= mpiad_check_close("kappa_b (generated vs hand-written)", kb_gen,
                              kb_hand, 1e-10, 1e-300, comm);

  /* Timing, tape and MPI call counts. */
  double t[NKIND];
  size_t tape[NKIND];
  long long calls_sr[NKIND], calls_ar[NKIND], calls_other[NKIND],
      bytes[NKIND];
  /* Best of reps, the kinds interleaved (one call of each per round), so
   * that a change in machine load affects them alike. */
  for (int k = 0; k < NKIND; k++)
    t[k] = 1e300;
  for (int rep = 0; rep < reps; rep++)
    for (int k = 0; k < NKIND; k++) {
      double tk = time_kind(&c, k);
      if (tk < t[k])
        t[k] = tk;
    }
  for (int k = 0; k < NKIND; k++) {
    mpiad_tape_reset_peak();
    count_reset();
    size_t before = mpiad_tape_bytes();
    run_kind(&c, k);
    tape[k] = mpiad_tape_peak_bytes() - before;
    if (k == HAND_KAPPA)
      tape[k] = hand_kappa_store_bytes;
    calls_sr[k] = n_sendrecv;
    calls_ar[k] = n_allreduce;
    calls_other[k] = n_other;
    bytes[k] = bytes_sent;
  }
  /* the peak of the rank with the largest tape */
  unsigned long long tl[NKIND], tg[NKIND];
  for (int k = 0; k < NKIND; k++)
    tl[k] = tape[k];
  PMPI_Allreduce(tl, tg, NKIND, MPI_UNSIGNED_LONG_LONG, MPI_MAX, comm);

  if (rank == 0) {
    printf("\n%-28s %10s %8s %9s %14s %9s %9s %6s %12s\n", "", "time [s]",
           "/primal", "/hand", "tape peak [B]", "Sendrecv", "Allreduce",
           "other", "bytes sent");
    for (int k = 0; k < NKIND; k++) {
      char vs_hand[16] = "";
      if (k == GEN_U0)
        snprintf(vs_hand, sizeof vs_hand, "%.2f", t[GEN_U0] / t[HAND_U0]);
      if (k == GEN_KAPPA)
        snprintf(vs_hand, sizeof vs_hand, "%.2f",
                 t[GEN_KAPPA] / t[HAND_KAPPA]);
      printf("%-28s %10.4f %8.2f %9s %14llu %9lld %9lld %6lld %12lld\n",
             kind_name[k], t[k], t[k] / t[PRIMAL], vs_hand, tg[k],
             calls_sr[k], calls_ar[k], calls_other[k], bytes[k]);
    }
    printf("(rank 0's MPI calls and bytes for one call; tape: the largest "
           "over ranks; for the hand-written kappa adjoint, the stored "
           "trajectory)\n");
    printf("%s\n", failed ? "FAILED" : "OK");
  }
  free(hand_traj);
  free(g_hand);
  free(g);
  free(w);
  free(obs);
  free(u0);
  MPI_Finalize();
  return failed;
}
