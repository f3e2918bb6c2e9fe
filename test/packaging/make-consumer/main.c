/* Checks the adjoint loss_b against the closed form 2 LOSS_WEIGHT x[i] and
 * against central differences (libmpiad's check helpers). Prints PASS or FAIL
 * lines on rank 0; the exit status is 1 when a check fails. */
#include <math.h>
#include <stdio.h>

#include "loss.h"
#include "mpiad.h"

#define N 5

static double objective(void *ctx) { return loss(ctx, N, MPI_COMM_WORLD); }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  double x[N], x_b[N], dx[N];
  for (int i = 0; i < N; i++) {
    x[i] = 0.5 + 0.25 * i + rank;
    x_b[i] = 0.0;
    dx[i] = 1.0 - 0.3 * i + 0.1 * rank;
  }
  double value = loss_b(x, x_b, N, MPI_COMM_WORLD, 1.0);

  int fail = mpiad_check_close("value", value, loss(x, N, MPI_COMM_WORLD), 1e-14, 1e-300,
                               MPI_COMM_WORLD);
  double worst = 0.0;
  for (int i = 0; i < N; i++)
    worst = fmax(worst, fabs(x_b[i] - 2.0 * LOSS_WEIGHT * x[i]));
  MPI_Allreduce(MPI_IN_PLACE, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  /* passes when worst <= 1e-12 (relerr = worst / atol, rtol 1) */
  fail |= mpiad_check_close("closed form", worst, 0.0, 1.0, 1e-12, MPI_COMM_WORLD);

  mpiad_input in = {x, dx, N, 0};
  double *grads[1] = {x_b};
  double fd = mpiad_fd_directional(objective, x, &in, 1, 1e-6);
  double ad = mpiad_adjoint_directional(&in, grads, 1, MPI_COMM_WORLD);
  fail |= mpiad_check_close("central differences", ad, fd, 1e-7, 1e-12, MPI_COMM_WORLD);
  fail |= mpiad_tape_bytes() != 0;

  MPI_Finalize();
  return fail;
}
