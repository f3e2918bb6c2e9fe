/*
 * check.c - gradient-check helpers: global inner products, central
 * differences, the adjoint side of a directional check, and a collective
 * pass/fail comparison.
 */
#include "mpiad.h"

#include <math.h>
#include <stdlib.h>

/* Sums a value that counts once per rank over comm; NaN on MPI failure. */
static double sum_over_ranks(double local, MPI_Comm comm) {
  double global = 0.0;
  if (MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, comm) !=
      MPI_SUCCESS)
    return NAN;
  return global;
}

double mpiad_dot(const double *a, const double *b, size_t n, int replicated,
                 MPI_Comm comm) {
  double local = 0.0;
  for (size_t i = 0; i < n; ++i)
    local += a[i] * b[i];
  return replicated ? local : sum_over_ranks(local, comm);
}

double mpiad_dot_f32(const float *a, const float *b, size_t n, int replicated,
                     MPI_Comm comm) {
  double local = 0.0;
  for (size_t i = 0; i < n; ++i)
    local += (double)a[i] * (double)b[i];
  return replicated ? local : sum_over_ranks(local, comm);
}

/* Sets every x to x0 + step * dx. */
static void move_inputs(mpiad_input *in, int nin, double *const *saved,
                        double step) {
  for (int i = 0; i < nin; ++i)
    for (size_t k = 0; k < in[i].n; ++k)
      in[i].x[k] = saved[i][k] + step * in[i].dx[k];
}

double mpiad_fd_directional(mpiad_objective J, void *ctx, mpiad_input *in,
                            int nin, double h) {
  if (!J || h == 0.0 || nin < 0 || (nin > 0 && !in))
    return NAN;
  size_t total = 0;
  for (int i = 0; i < nin; ++i) {
    if (in[i].n > 0 && (!in[i].x || !in[i].dx))
      return NAN;
    total += in[i].n;
  }
  /* One block holds the saved values of all inputs, then the pointers. */
  double *block =
      malloc(total * sizeof(double) + (size_t)nin * sizeof(double *) + 1);
  if (!block)
    return NAN;
  double **saved = (double **)(void *)(block + total);
  double *p = block;
  for (int i = 0; i < nin; ++i) {
    saved[i] = p;
    if (in[i].n > 0)
      memcpy(p, in[i].x, in[i].n * sizeof *p);
    p += in[i].n;
  }

  move_inputs(in, nin, saved, h);
  double jp = J(ctx);
  move_inputs(in, nin, saved, -h);
  double jm = J(ctx);

  for (int i = 0; i < nin; ++i)
    if (in[i].n > 0)
      memcpy(in[i].x, saved[i], in[i].n * sizeof(double));
  free(block);
  return (jp - jm) / (2.0 * h);
}

double mpiad_adjoint_directional(const mpiad_input *in, double *const *x_b,
                                 int nin, MPI_Comm comm) {
  double varying = 0.0, replicated = 0.0;
  for (int i = 0; i < nin; ++i) {
    double d = mpiad_dot(in[i].dx, x_b[i], in[i].n, 1, comm); /* local */
    if (in[i].replicated)
      replicated += d;
    else
      varying += d;
  }
  return sum_over_ranks(varying, comm) + replicated;
}

int mpiad_check_close(const char *label, double got, double want, double rtol,
                      double atol, MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  int fail = 1;
  if (rank == 0) {
    double diff = fabs(got - want);
    double scale = fabs(want) > atol ? fabs(want) : atol;
    double relerr = diff == 0.0 ? 0.0 : diff / scale;
    fail = !(relerr <= rtol);
    printf("%s: got %.17g want %.17g relerr %.3e %s\n", label ? label : "", got,
           want, relerr, fail ? "FAIL" : "PASS");
    fflush(stdout);
  }
  if (MPI_Bcast(&fail, 1, MPI_INT, 0, comm) != MPI_SUCCESS)
    return 1;
  return fail;
}
