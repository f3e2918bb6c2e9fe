/* The installed mpiad-cc compiles and links this file by itself (packaging.install):
 * f(x) = sum over ranks and i of x[i]^2, whose gradient is 2 x[i].
 * Prints "sumsq: PASS" on rank 0 and exits 0 when the adjoint matches. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>

#pragma mpiad differentiate wrt(x) varying(x)
double sumsq(const double *x, int n, MPI_Comm comm) {
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += x[i] * x[i];
  double total;
  MPI_Allreduce(&s, &total, 1, MPI_DOUBLE, MPI_SUM, comm);
  return total;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  enum { N = 4 };
  double x[N], x_b[N] = {0};
  for (int i = 0; i < N; i++)
    x[i] = 1.5 - 0.5 * i + rank;
  sumsq_b(x, x_b, N, MPI_COMM_WORLD, 1.0);
  int bad = 0;
  for (int i = 0; i < N; i++)
    bad |= fabs(x_b[i] - 2.0 * x[i]) > 1e-14;
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
  if (rank == 0)
    printf("sumsq: %s\n", bad ? "FAIL" : "PASS");
  MPI_Finalize();
  return bad;
}
