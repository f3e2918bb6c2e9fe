/* Host program of the GPU heat sample: recover the initial temperature u0
 * of a 1-D rod, split over a ring of ranks, from a noisy final state, by
 * gradient descent with the adjoint misfit_u0_b generated from
 * misfit_gpu.c by mpiad-cc --target=cuda.  Checks, printed and reflected in
 * the exit status:
 *   - the GPU misfit equals a plain C evaluation on the host (relative
 *     1e-12);
 *   - <direction, u0_b>, summed over ranks, equals a central difference of
 *     the host evaluation (the misfit is quadratic in u0, so the difference
 *     is exact up to rounding);
 *   - gradient descent lowers the misfit.
 * Exits 77 (skipped) when there is no CUDA device.
 *
 *   mpirun -np 2 ./heat_gpu [cells_per_rank steps iterations]
 */
#include <cuda_runtime.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

double misfit(const double *u0, const double *obs, const double *w, int nlocal,
              int nsteps, double kappa, double dt, double dx, MPI_Comm comm);
double misfit_u0_b(const double *u0, double *u0_b, const double *obs,
                   const double *w, int nlocal, int nsteps, double kappa,
                   double dt, double dx, MPI_Comm comm, double misfit_bar);

/* The reference: the same model on the host, written out plainly.
 * forward() runs nsteps from u0 and leaves the final cells in uT. */
static void forward(const double *u0, double *uT, int n, int nsteps, double r,
                    MPI_Comm comm) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int left = (rank + size - 1) % size, right = (rank + 1) % size;
  double *u = malloc((size_t)(n + 2) * sizeof *u);
  double *un = malloc((size_t)(n + 2) * sizeof *un);
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
  for (int i = 0; i < n; i++)
    uT[i] = u[i + 1];
  free(u);
  free(un);
}

static double host_misfit(const double *u0, const double *obs, const double *w,
                          int n, int nsteps, double r, MPI_Comm comm) {
  double *uT = malloc((size_t)n * sizeof *uT);
  forward(u0, uT, n, nsteps, r, comm);
  double local = 0.0, J;
  for (int i = 0; i < n; i++) {
    double d = uT[i] - obs[i];
    local += 0.5 * w[i] * d * d;
  }
  MPI_Allreduce(&local, &J, 1, MPI_DOUBLE, MPI_SUM, comm);
  free(uT);
  return J;
}

static double *to_device(const double *h, int n) {
  double *p = NULL;
  if (cudaMalloc((void **)&p, (size_t)n * sizeof *p) != cudaSuccess) {
    fprintf(stderr, "cudaMalloc failed\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  cudaMemcpy(p, h, (size_t)n * sizeof *p, cudaMemcpyHostToDevice);
  return p;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm comm = MPI_COMM_WORLD;
  int rank, size, devices = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    if (rank == 0)
      printf("no CUDA device: skipped\n");
    MPI_Finalize();
    return 77;
  }
  int n = argc > 1 ? atoi(argv[1]) : 4096;
  int nsteps = argc > 2 ? atoi(argv[2]) : 200;
  int iters = argc > 3 ? atoi(argv[3]) : 20;
  if (n < 1 || nsteps < 0 || iters < 1) {
    if (rank == 0)
      fprintf(stderr, "usage: %s [cells_per_rank>0 steps>=0 iterations>0]\n",
              argv[0]);
    MPI_Finalize();
    return 2;
  }
  double dx = 1.0 / ((double)n * size), kappa = 1.0;
  double dt = 0.4 * dx * dx / kappa, r = kappa * dt / (dx * dx);

  /* Observations: the state after nsteps from a smooth "true" u0, noisy. */
  double *truth = malloc(n * sizeof *truth), *obs = malloc(n * sizeof *obs);
  double *w = malloc(n * sizeof *w), *u0 = calloc(n, sizeof *u0);
  double *dir = malloc(n * sizeof *dir), *g = malloc(n * sizeof *g);
  for (int i = 0; i < n; i++) {
    double x = ((double)rank * n + i + 0.5) * dx;
    truth[i] = sin(2 * M_PI * x) + 0.5 * cos(6 * M_PI * x);
    w[i] = 1.0;
    dir[i] = cos(3.0 * i + rank);
  }
  /* obs = the state after nsteps from truth, plus noise. */
  forward(truth, obs, n, nsteps, r, comm);
  for (int i = 0; i < n; i++)
    obs[i] += 1e-3 * sin(17.0 * i + 5.0 * rank);
  double *d_u0 = to_device(u0, n), *d_obs = to_device(obs, n),
         *d_w = to_device(w, n), *d_g = to_device(u0, n);
  int failed = 0;

  /* 1. GPU misfit and host misfit at a non-trivial u0. */
  for (int i = 0; i < n; i++)
    u0[i] = 0.3 * truth[i] + 0.1 * dir[i];
  cudaMemcpy(d_u0, u0, n * sizeof *u0, cudaMemcpyHostToDevice);
  cudaMemset(d_g, 0, n * sizeof *u0);
  double J_ref = host_misfit(u0, obs, w, n, nsteps, r, comm);
  double J = misfit_u0_b(d_u0, d_g, d_obs, d_w, n, nsteps, kappa, dt, dx,
                         comm, 1.0);
  double J2 = misfit(d_u0, d_obs, d_w, n, nsteps, kappa, dt, dx, comm);
  int agree = fabs(J - J_ref) <= 1e-12 * fmax(1.0, fabs(J_ref)) &&
              fabs(J2 - J_ref) <= 1e-12 * fmax(1.0, fabs(J_ref));
  if (rank == 0)
    printf("%s: GPU misfit %.15g, host %.15g\n", agree ? "ok" : "FAIL", J,
           J_ref);
  failed |= !agree;

  /* 2. <dir, u0_b> against a central difference of the host misfit. */
  cudaMemcpy(g, d_g, n * sizeof *g, cudaMemcpyDeviceToHost);
  double local = 0.0, adj, h = 1e-3;
  for (int i = 0; i < n; i++)
    local += dir[i] * g[i];
  MPI_Allreduce(&local, &adj, 1, MPI_DOUBLE, MPI_SUM, comm);
  double *up = malloc(n * sizeof *up), *um = malloc(n * sizeof *um);
  for (int i = 0; i < n; i++) {
    up[i] = u0[i] + h * dir[i];
    um[i] = u0[i] - h * dir[i];
  }
  double fd = (host_misfit(up, obs, w, n, nsteps, r, comm) -
               host_misfit(um, obs, w, n, nsteps, r, comm)) / (2 * h);
  int fd_ok = fabs(fd - adj) <= 1e-8 * fmax(1.0, fabs(adj));
  if (rank == 0)
    printf("%s: <dir, u0_b> %.12g, central difference %.12g\n",
           fd_ok ? "ok" : "FAIL", adj, fd);
  failed |= !fd_ok;

  /* 3. Gradient descent on u0 from zero. */
  for (int i = 0; i < n; i++)
    u0[i] = 0.0;
  const double step = 0.5;
  double first = 0.0;
  for (int k = 0; k < iters; k++) {
    cudaMemcpy(d_u0, u0, n * sizeof *u0, cudaMemcpyHostToDevice);
    cudaMemset(d_g, 0, n * sizeof *u0);
    double Jk = misfit_u0_b(d_u0, d_g, d_obs, d_w, n, nsteps, kappa, dt, dx,
                            comm, 1.0);
    if (k == 0)
      first = Jk;
    cudaMemcpy(g, d_g, n * sizeof *g, cudaMemcpyDeviceToHost);
    for (int i = 0; i < n; i++)
      u0[i] -= step * g[i];
  }
  cudaMemcpy(d_u0, u0, n * sizeof *u0, cudaMemcpyHostToDevice);
  double last = misfit(d_u0, d_obs, d_w, n, nsteps, kappa, dt, dx, comm);
  if (rank == 0)
    printf("%s: misfit %.10g -> %.10g after %d iterations on %d ranks\n",
           last < first ? "ok" : "FAIL", first, last, iters, size);
  failed |= !(last < first);

  cudaFree(d_u0);
  cudaFree(d_obs);
  cudaFree(d_w);
  cudaFree(d_g);
  free(truth);
  free(obs);
  free(w);
  free(u0);
  free(dir);
  free(g);
  free(up);
  free(um);
  MPI_Finalize();
  return failed;
}
