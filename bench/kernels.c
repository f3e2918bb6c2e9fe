/*
 * kernels.c - the three benchmarked functions, as a user would write them.
 * mpiad-cc generates dot_b, diffusion_b and loss_b from the pragmas; the
 * hand-written adjoints they are compared with are in handwritten.c.
 */
#include <math.h>
#include <mpi.h>
#include <stdlib.h>

/* (a) J = sum over ranks of <x, y>; x and y vary per rank. */
#pragma mpiad differentiate wrt(x, y) varying(x, y, n)
double dot(const double *x, const double *y, int n, MPI_Comm comm) {
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += x[i] * y[i];
  double J = 0.0;
  MPI_Allreduce(&s, &J, 1, MPI_DOUBLE, MPI_SUM, comm);
  return J;
}

/* (b) T steps of explicit 1-D diffusion (fixed end values) on this rank's
 * field, written with a copy-back; J = sum over ranks of sum u^2 at the end. */
#pragma mpiad differentiate wrt(u0) replicated(T, nu) varying(u0, n)
double diffusion(const double *u0, int n, int T, double nu, MPI_Comm comm) {
  double *u = malloc(n * sizeof(double));
  double *unew = malloc(n * sizeof(double));
  for (int i = 0; i < n; i++)
    u[i] = u0[i];
  for (int t = 0; t < T; t++) {
    unew[0] = u[0];
    unew[n - 1] = u[n - 1];
    for (int i = 1; i < n - 1; i++)
      unew[i] = u[i] + nu * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
    for (int i = 0; i < n; i++)
      u[i] = unew[i];
  }
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += u[i] * u[i];
  double J = 0.0;
  MPI_Allreduce(&s, &J, 1, MPI_DOUBLE, MPI_SUM, comm);
  free(u);
  free(unew);
  return J;
}

/* (c) The flagship loss, copied verbatim from samples/fitting/logistic.c. */
#pragma mpiad differentiate wrt(w, b) replicated(w, b, d, lambda) varying(X, y, n)
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
