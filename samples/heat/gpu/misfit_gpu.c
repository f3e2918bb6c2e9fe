/* The misfit of ../heat.c for the GPU (mpiad-cc --target=cuda, see
 * docs/gpu.md): explicit time steps of the 1-D heat equation on a ring of
 * ranks, each rank holding nlocal cells in device memory with one ghost cell
 * on each side, filled by MPI_Sendrecv on device buffers (NCCL, or staged
 * through the host when ranks share a GPU).  The loops over cells are
 * kernels; the time loop stays on the host.  The adjoint is with respect to
 * the initial state u0 (the CPU sample also differentiates with respect to
 * kappa, which needs the field of every step recorded: not on the GPU yet).
 * The host program is heat_gpu.c.
 *
 *   mpiad-cc --target=cuda misfit_gpu.c heat_gpu.c -lm -o heat_gpu
 */
#include <math.h>
#include <mpi.h>
#include <stdlib.h>

#pragma mpiad differentiate wrt(u0) replicated(kappa, dt, dx, nsteps) \
    varying(u0, obs, w, nlocal) name(misfit_u0_b)
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
#pragma mpiad parallel
  for (int i = 0; i < nlocal; i++)
    u[i + 1] = u0[i];

  double r = kappa * dt / (dx * dx);
  for (int t = 0; t < nsteps; t++) {
    MPI_Sendrecv(&u[nlocal], 1, MPI_DOUBLE, right, 0, &u[0], 1, MPI_DOUBLE,
                 left, 0, comm, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, left, 1, &u[nlocal + 1], 1, MPI_DOUBLE,
                 right, 1, comm, MPI_STATUS_IGNORE);
#pragma mpiad parallel
    for (int i = 1; i <= nlocal; i++)
      un[i] = u[i] + r * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
#pragma mpiad parallel
    for (int i = 1; i <= nlocal; i++)
      u[i] = un[i];
  }

  double local = 0.0;
#pragma mpiad parallel
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
