/*
 * checkpoint_bench.c - memory and time of checkpointed reversal
 * (`#pragma mpiad checkpoint`) against recording every step, on the heat
 * solver of samples/heat (dJ/dkappa, which needs the field of every step).
 *
 * For nsteps = 10^2 .. 10^5 it prints, per rank count (meant for 2 ranks):
 *   - primal time, store-all adjoint time and its tape peak bytes;
 *   - checkpointed adjoint time (snapshots=K), its tape peak bytes, its
 *     snapshot peak bytes, and the steps it re-ran per step of the loop;
 *   - the relative difference of the two gradients (must be rounding).
 * Times are the minimum over reps of the slowest rank.  Bytes are per rank.
 *
 * Build and run (from the repository root, after building the project):
 *
 *   build/bin/mpiad-cc -O2 bench/checkpoint_bench.c -lm -o build/bench/checkpoint_bench
 *   mpirun --allow-run-as-root --oversubscribe --mca btl self,vader \
 *          --mca pml ob1 -np 2 build/bench/checkpoint_bench [nglobal K maxsteps]
 *
 * (defaults 1000 20 100000).  Exits non-zero if the gradients differ by more
 * than 1e-12 relative.
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "mpiad.h"

#pragma mpiad differentiate wrt(kappa) replicated(kappa, dt, dx, nsteps) \
    varying(u0, obs, nlocal) name(all_kappa_b)
double misfit_all(const double *u0, const double *obs, int nlocal, int nsteps,
                  double kappa, double dt, double dx, MPI_Comm comm) {
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
    local += 0.5 * d * d;
  }
  double J = 0.0;
  MPI_Allreduce(&local, &J, 1, MPI_DOUBLE, MPI_SUM, comm);
  free(un);
  free(u);
  return J;
}

#pragma mpiad differentiate wrt(kappa) replicated(kappa, dt, dx, nsteps, nsnap) \
    varying(u0, obs, nlocal) name(ck_kappa_b)
double misfit_ck(const double *u0, const double *obs, int nlocal, int nsteps,
                 double kappa, double dt, double dx, int nsnap, MPI_Comm comm) {
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
#pragma mpiad checkpoint(snapshots=nsnap)
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
    local += 0.5 * d * d;
  }
  double J = 0.0;
  MPI_Allreduce(&local, &J, 1, MPI_DOUBLE, MPI_SUM, comm);
  free(un);
  free(u);
  return J;
}

static double slowest(double t) {
  double m = 0.0;
  MPI_Allreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return m;
}

static double peak_max(size_t b) {
  double v = (double)b, m = 0.0;
  MPI_Allreduce(&v, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return m;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int nglobal = argc > 1 ? atoi(argv[1]) : 1000;
  int K = argc > 2 ? atoi(argv[2]) : 20;
  int maxsteps = argc > 3 ? atoi(argv[3]) : 100000;
  int nlocal = nglobal / size + (rank < nglobal % size ? 1 : 0);
  double dx = 1.0 / nglobal, kappa = 1.0, dt = 0.2 * dx * dx;
  double *u0 = malloc(nlocal * sizeof *u0), *obs = malloc(nlocal * sizeof *obs);
  int first = nglobal / size * rank + (rank < nglobal % size ? rank : nglobal % size);
  for (int i = 0; i < nlocal; i++) {
    double x = (first + i + 0.5) * dx;
    u0[i] = exp(-100.0 * (x - 0.4) * (x - 0.4));
    obs[i] = 0.5 * exp(-50.0 * (x - 0.5) * (x - 0.5));
  }
  if (rank == 0) {
    printf("heat dJ/dkappa, %d ranks, %d cells, snapshots=%d; bytes per rank\n",
           size, nglobal, K);
    printf("%8s %9s | %9s %6s %12s | %9s %6s %10s %12s %7s | %8s\n", "steps",
           "primal s", "all s", "x prim", "tape B", "ckpt s", "x prim",
           "tape B", "snapshot B", "re-run", "grad rel");
  }
  int bad = 0;
  for (int nsteps = 100; nsteps <= maxsteps; nsteps *= 10) {
    int reps = nsteps >= 100000 ? 1 : nsteps >= 10000 ? 2 : 5;
    double tp = 1e30, ta = 1e30, tc = 1e30, ga = 0.0, gc = 0.0;
    size_t tape_all = 0, tape_ck = 0, snap = 0;
    long advanced = 0;
    for (int r = 0; r < reps; r++) {
      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = MPI_Wtime();
      misfit_all(u0, obs, nlocal, nsteps, kappa, dt, dx, MPI_COMM_WORLD);
      double t = slowest(MPI_Wtime() - t0);
      tp = t < tp ? t : tp;

      ga = 0.0;
      mpiad_tape_reset_peak();
      MPI_Barrier(MPI_COMM_WORLD);
      t0 = MPI_Wtime();
      all_kappa_b(u0, obs, nlocal, nsteps, kappa, &ga, dt, dx, MPI_COMM_WORLD, 1.0);
      t = slowest(MPI_Wtime() - t0);
      ta = t < ta ? t : ta;
      tape_all = mpiad_tape_peak_bytes();
      mpiad_tape_release();

      gc = 0.0;
      mpiad_tape_reset_peak();
      mpiad_ckpt_reset_stats();
      MPI_Barrier(MPI_COMM_WORLD);
      t0 = MPI_Wtime();
      ck_kappa_b(u0, obs, nlocal, nsteps, kappa, &gc, dt, dx, K, MPI_COMM_WORLD, 1.0);
      t = slowest(MPI_Wtime() - t0);
      tc = t < tc ? t : tc;
      tape_ck = mpiad_tape_peak_bytes();
      mpiad_ckpt_stats st = mpiad_ckpt_get_stats();
      snap = st.peak_bytes;
      advanced = st.advanced;
    }
    double rel = fabs(gc - ga) / fabs(ga);
    bad |= !(rel <= 1e-12);
    double ta_b = peak_max(tape_all), tc_b = peak_max(tape_ck), sn = peak_max(snap);
    if (rank == 0)
      printf("%8d %9.4f | %9.4f %6.2f %12.0f | %9.4f %6.2f %10.0f %12.0f %7.2f | %8.1e\n",
             nsteps, tp, ta, ta / tp, ta_b, tc, tc / tp, tc_b, sn,
             (double)advanced / nsteps, rel);
  }
  free(u0);
  free(obs);
  mpiad_ckpt_release();
  MPI_Finalize();
  return bad;
}
