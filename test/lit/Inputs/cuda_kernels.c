/* Marked functions for the CUDA target tests (cuda/compile.c, cuda/exec.c,
 * cuda/emulated.c): a replicated-parameter loss summed over ranks, a stencil
 * with boundary copies, a cubic energy in forward mode, a dot product, a
 * product over ranks on device buffers, and a halo exchange.  The samples'
 * GPU versions (samples/fitting/gpu, samples/heat/gpu) have tests of their
 * own. */
#include <math.h>
#include <mpi.h>
#include <stdlib.h>

#pragma mpiad differentiate wrt(x, theta) replicated(theta) varying(x)
double loss(const double *x, const double *theta, int n, MPI_Comm comm) {
  double s = 0;
#pragma mpiad parallel
  for (int i = 0; i < n; i++) {
    double r = theta[0] * x[i] - theta[1];
    s += r * r + sin(x[i]);
  }
  double g;
  MPI_Allreduce(&s, &g, 1, MPI_DOUBLE, MPI_SUM, comm);
  return g;
}

#pragma mpiad differentiate wrt(u) output(v) varying(u)
void smooth(const double *u, double *v, int n, double a) {
#pragma mpiad parallel
  for (int i = 1; i < n - 1; i++)
    v[i] = a * u[i - 1] + u[i] * u[i] + a * u[i + 1];
  v[0] = u[0];
  v[n - 1] = u[n - 1];
}

#pragma mpiad differentiate forward wrt(x) name(energy_d)
double energy(const double *x, int n, MPI_Comm comm) {
  double e = 0;
#pragma omp parallel for reduction(+ : e)
  for (int i = 0; i < n; i++)
    e += x[i] * x[i] * x[i];
  double t;
  MPI_Allreduce(&e, &t, 1, MPI_DOUBLE, MPI_SUM, comm);
  return t;
}

/* One pass: the adjoint runs inside the forward loop (sweep fusion). */
#pragma mpiad differentiate wrt(x) varying(x)
double dot(const double *x, const double *y, int n) {
  double s = 0;
#pragma mpiad parallel
  for (int i = 0; i < n; i++)
    s += x[i] * y[i];
  return s;
}

/* Communication on device buffers: the product over ranks and its adjoint
 * through libmpiad_gpu. */
#pragma mpiad differentiate wrt(x) output(y) varying(x)
void prodall(const double *x, double *y, int n, MPI_Comm comm) {
  MPI_Allreduce(x, y, n, MPI_DOUBLE, MPI_PROD, comm);
}

/* A halo exchange on device buffers: a work buffer with one ghost cell on
 * each side, filled by MPI_Sendrecv from the neighbours on a ring, then a
 * nonlinear stencil. */
#pragma mpiad differentiate wrt(u) output(v) varying(u)
void halo(const double *u, double *v, int n, MPI_Comm comm) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int left = (rank + size - 1) % size, right = (rank + 1) % size;
  double *g = malloc((size_t)(n + 2) * sizeof(double));
#pragma mpiad parallel
  for (int i = 0; i < n; i++)
    g[i + 1] = u[i];
  MPI_Sendrecv(&g[n], 1, MPI_DOUBLE, right, 0, &g[0], 1, MPI_DOUBLE, left, 0,
               comm, MPI_STATUS_IGNORE);
  MPI_Sendrecv(&g[1], 1, MPI_DOUBLE, left, 1, &g[n + 1], 1, MPI_DOUBLE, right,
               1, comm, MPI_STATUS_IGNORE);
#pragma mpiad parallel
  for (int i = 0; i < n; i++)
    v[i] = g[i] - 2.0 * g[i + 1] + g[i + 2] + g[i + 1] * g[i + 1];
  free(g);
}
