// RUN: %mpiad-cc %s -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s
// RUN: %mpirun 2 %t | FileCheck %s
// RUN: %mpirun 4 %t | FileCheck %s
// CHECK: gradient: got {{.*}} PASS
#include <mpi.h>
#include "mpiad.h"

#pragma mpiad differentiate wrt(x) varying(x)
double sumsq(const double *x, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += x[i] * x[i];
  return s;
}

typedef struct { double *x; int n; } ctx_t;

/* The GLOBAL objective: sumsq is varying (per rank), so J sums it over ranks. */
static double J(void *p) {
  ctx_t *c = p;
  double local = sumsq(c->x, c->n), total = 0.0;
  MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return total;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int r;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  double x[3] = {1.0 + r, 2.0 - r, 0.5 * r}, dx[3] = {0.3, -0.2, 0.1};
  double x_b[3] = {0, 0, 0};
  sumsq_b(x, x_b, 3, 1.0);

  ctx_t c = {x, 3};
  mpiad_input in = {x, dx, 3, /*replicated=*/0};
  double fd = mpiad_fd_directional(J, &c, &in, 1, 1e-6);
  double *grads[1] = {x_b};
  double ad = mpiad_adjoint_directional(&in, grads, 1, MPI_COMM_WORLD);
  int fail = mpiad_check_close("gradient", ad, fd, 1e-8, 1e-12, MPI_COMM_WORLD);
  MPI_Finalize();
  return fail;
}
